"""The runner for a generator model's run: the same runner the audit uses.

Generation goes through `runner.Runner` so a paid answer is committed before it is
used, a killed generation resumes where it stopped, and the shared response cache
makes a re-run free. (workflow.execute.make_runner does the same for the model
under test; the variants layer sits below workflow, so the few lines that make a
provider are repeated here.)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.base import Provider
from resume_auditor.providers.keys import KeyStore, default_store
from resume_auditor.providers.registry import make_provider
from resume_auditor.runner import Event, Runner
from resume_auditor.runner.prices import PriceError, load_prices
from resume_auditor.store.resultfile import ResultFile

logger = logging.getLogger(__name__)

GEN_PROMPT_ID = "gen"  # a generation run's default preset id (each request names its own)
RunnerFactory = Callable[[Path, int, ModelSpec, Callable[[Event], None]], Runner]


def run_params(spec: ModelSpec) -> dict[str, object]:
    return {"temperature": spec.temperature, "max_tokens": spec.max_tokens, "seed": spec.seed}


def generation_run(result: ResultFile, spec: ModelSpec) -> int:
    """The generation run of this model in the file (made on first use)."""
    params = run_params(spec)
    for run in result.runs(purpose="generation"):
        if (run.provider, run.base_url, run.model, run.params) == (
            spec.provider,
            spec.base_url,
            spec.model,
            params,
        ):
            return run.id
    with result.transaction():
        return result.add_run(
            spec.provider, spec.base_url, spec.model, GEN_PROMPT_ID, params, purpose="generation"
        )


def default_runner_factory(
    *,
    concurrency: int = 2,
    timeout_s: float = 300.0,
    keys: KeyStore | None = None,
    cache_path: str | Path | None = None,
) -> RunnerFactory:
    """Runners that reach the real provider (keys from the OS keyring)."""

    def make(path: Path, run_id: int, spec: ModelSpec, on_event: Callable[[Event], None]) -> Runner:
        def provider() -> Provider:
            api_key = (keys or default_store()).get(spec.provider, spec.base_url)
            return make_provider(
                spec.provider, base_url=spec.base_url, api_key=api_key, timeout_s=timeout_s
            )

        try:
            prices = load_prices()
        except PriceError:
            logger.warning("the user's price file cannot be read; using the shipped prices")
            prices = load_prices(user_file=Path("/nonexistent/prices.toml"))
        return Runner(
            path,
            run_id,
            provider,
            None,
            concurrency=concurrency,
            timeout_s=max(timeout_s, 300.0) if spec.provider == "local" else timeout_s,
            on_event=on_event,
            prices=prices,
            cache_path=cache_path,
        )

    return make
