"""The plan states what writing the qualification variants costs, for any generator."""

from __future__ import annotations

from pathlib import Path

from resume_auditor.domain.generation import GenerationSpec
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.domain.study import ModelSpec
from resume_auditor.runner.prices import load_prices
from resume_auditor.variants.gen_estimate import estimate_generation

JOB = Job(
    "Analyst",
    "",
    [
        Qualification("Advanced SQL for reporting", QualKind.REQUIRED),
        Qualification("Tableau dashboards", QualKind.REQUIRED),
        Qualification("Python scripting", QualKind.PREFERRED),
        Qualification("Airflow pipelines", QualKind.PREFERRED),
    ],
)
RESUME = "Pat Doe\nExperience\nWrote SQL reports weekly.\nBuilt Tableau dashboards.\n" * 5
PRICES = load_prices(user_file=Path("/nonexistent/prices.toml"))


def _spec(*models: ModelSpec, judge: bool = True) -> GenerationSpec:
    return GenerationSpec(generators=models, k=(1,), reworded=1, judge=judge, max_attempts=3)


def test_a_priced_generator_has_a_cost_range_and_request_counts() -> None:
    spec = _spec(ModelSpec("openai", "", "gpt-4o-mini"))
    found = estimate_generation([(1, RESUME), (2, RESUME)], JOB, spec, 1, PRICES)
    assert found is not None
    # per resume: c+ k=1 and c- k=1 and one reworded copy (the base meets both requirements)
    assert found.texts == 6
    judged = 4  # c+ and c- are judged; a reworded copy has nothing to judge
    assert found.requests_low == 6 + judged and found.requests_high == 3 * (6 + judged)
    assert found.cost_low is not None and found.cost_high is not None
    assert 0 < found.cost_low < found.cost_high <= 3 * found.cost_low + 1e-12
    assert "openai:gpt-4o-mini" in found.line() and "$" in found.line()
    assert not found.free


def test_a_local_server_costs_nothing_and_an_unpriced_model_says_unknown() -> None:
    local = ModelSpec("openai-compatible", "http://127.0.0.1:8080/v1", "my-llama")
    found = estimate_generation([(1, RESUME)], JOB, _spec(local, judge=False), 1, PRICES)
    assert found is not None and found.free and found.cost_low == 0.0
    assert "no cost" in found.line() and found.requests_low == found.texts == 3
    unknown = ModelSpec("openai", "", "a-model-nobody-prices")
    found = estimate_generation([(1, RESUME)], JOB, _spec(unknown), 1, PRICES)
    assert found is not None and found.cost_low is None and "cost unknown" in found.line()
    assert estimate_generation([(1, RESUME)], JOB, GenerationSpec(), 1, PRICES) is None
