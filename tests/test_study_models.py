"""Several models in one study (`[[models]]`, issue 28): each asked the same test cases.

Read and written back, refused when a model is listed twice, and used as a user would:
`resume-auditor audit` on such a study runs each model over HTTP, one run each, and
`metrics --json` compares them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from resume_auditor.domain.study import ModelSpec, StudyError, study_from_dict, study_to_dict

BASE = {
    "format": 1,
    "study": {"name": "Two models", "seed": 1},
    "job": {"text": "Analyst. Required: SQL."},
    "resumes": {"files": ["a.pdf"]},
}


def _config(**tables: Any) -> Any:
    return study_from_dict({**BASE, **tables}, require_sources=False)


def test_models_follow_the_first_and_survive_a_round_trip() -> None:
    config = _config(
        model={"provider": "openai", "model": "gpt-4o-mini"},
        models=[
            {"provider": "anthropic", "model": "claude-haiku"},
            {"provider": "local"},
        ],
    )
    assert [m.model for m in config.models] == [
        "gpt-4o-mini",
        "claude-haiku",
        ModelSpec().model,
    ]
    again = study_from_dict(study_to_dict(config), require_sources=False)
    assert again.models == config.models


def test_models_alone_name_the_first_model_too() -> None:
    config = _config(
        models=[{"provider": "openai", "model": "a"}, {"provider": "openai", "model": "b"}]
    )
    assert config.model.model == "a" and [m.model for m in config.also] == ["b"]
    assert "models" in study_to_dict(config)


def test_a_model_listed_twice_is_refused() -> None:
    with pytest.raises(StudyError, match="listed twice"):
        _config(
            model={"provider": "openai", "model": "a"},
            models=[{"provider": "openai", "model": "a"}],
        )


def test_the_estimate_in_all() -> None:
    from resume_auditor.runner.estimate import Estimate, combined_lines

    def est(model: str, cost: float | None, free: bool = False) -> Estimate:
        return Estimate(
            "openai",
            model,
            100,
            0,
            0,
            100,
            1000,
            100,
            200,
            cost,
            cost,
            cost,
            free,
            None,
            "",
            None,
            None,
            90.0,
            False,
        )

    assert combined_lines([est("a", 1.0)]) == []
    assert combined_lines([est("a", 1.0), est("b", 0.5)]) == [
        "In all, 2 models one after another: 200 request(s) to send, about $1.50 (at most "
        "$1.50), about 3 min."
    ]
    assert "cost unknown (no price for b)" in combined_lines([est("a", 1.0), est("b", None)])[0]
    assert "nothing" in combined_lines([est("a", 0, True), est("b", 0, True)])[0]


def test_a_wrong_key_in_a_listed_model_is_named() -> None:
    from resume_auditor.domain.study import check_schema

    with pytest.raises(StudyError, match="provder"):
        check_schema({**BASE, "models": [{"provder": "openai"}]})


def test_an_audit_of_two_models_runs_both_and_compares_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from devtools.simulator import Simulator, longer_resume_policy
    from devtools.simulator_policies import ByModel
    from report_fixtures import SAMPLE_STUDY

    from resume_auditor.cli import main
    from resume_auditor.store.resultfile import ResultFile

    text = SAMPLE_STUDY.read_text(encoding="utf-8").partition("[designs.d2]")[0]
    base = SAMPLE_STUDY.parent
    text = text.replace('file = "job.md"', f'file = "{base / "job.md"}"').replace(
        'files = ["resumes/*.pdf"]', f'files = ["{base}/resumes/*.pdf"]'
    )
    policy = ByModel(
        {"sim-right": longer_resume_policy, "sim-first": lambda body: "<answer>A</answer>"}
    )
    with Simulator(policy, models=("sim-right", "sim-first")) as sim:
        head, _, rest = text.partition("[model]")
        _, _, after = rest.partition("\n\n")
        models = "".join(
            f'[[models]]\nprovider = "openai-compatible"\nbase_url = "{sim.base_url}"\n'
            f'model = "{name}"\n\n'
            for name in ("sim-right", "sim-first")
        )
        study = tmp_path / "study.toml"
        study.write_text(head + models + after, encoding="utf-8")
        out = tmp_path / "two.audit"
        assert main(["audit", str(study), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Also run 2 on openai-compatible:sim-first" in err
    assert "Model 2 of 2: openai-compatible:sim-first" in err
    assert "Estimate: In all, 2 models one after another: 352 request(s) to send" in err
    with ResultFile(out, readonly=True) as result:
        runs = result.runs()
        assert [r.model for r in runs] == ["sim-right", "sim-first"]
        assert all(result.progress(r.id).done == result.progress(r.id).total > 0 for r in runs)
    assert main(["metrics", str(out), "--json"]) == 0
    comparison = json.loads(capsys.readouterr().out)["comparison"]
    assert [r["name"] for r in comparison["runs"]] == ["sim-right", "sim-first"]
