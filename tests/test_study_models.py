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
from report_fixtures import study_with_models

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
    # At the same time: the slowest group's time; models sharing a provider add up.
    three = [est("a", 1.0), est("b", 0.5), est("c", 0.5)]
    assert combined_lines(three, ["x", "y", "z"], together=True) == [
        "In all, 3 models at the same time: 300 request(s) to send, about $2.00 (at most "
        "$2.00), about 2 min: the slowest provider's share."
    ]
    shared = combined_lines(three, ["x", "x", "z"], together=True)
    assert "about 3 min: the slowest provider's share" in shared[0]
    assert shared[1] == (
        "a, b share one openai account's limits and take turns at them, so each takes longer "
        "than alone (about 3 min for them together)."
    )
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

    from resume_auditor.cli import main
    from resume_auditor.store.resultfile import ResultFile

    policy = ByModel(
        {"sim-right": longer_resume_policy, "sim-first": lambda body: "<answer>A</answer>"}
    )
    with Simulator(policy, models=("sim-right", "sim-first")) as sim:
        study = study_with_models(
            tmp_path, [("openai-compatible", sim.base_url, m) for m in ("sim-right", "sim-first")]
        )
        out = tmp_path / "two.audit"
        assert main(["audit", str(study), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "Also run 2 on openai-compatible:sim-first" in err
    assert "Model 2 of 2: openai-compatible:sim-first" in err
    assert "Estimate: In all, 2 models at the same time: 352 request(s) to send" in err
    assert "sim-right, sim-first share this computer's limits" in err
    assert "All 2 models done" in err
    with ResultFile(out, readonly=True) as result:
        runs = result.runs()
        assert [r.model for r in runs] == ["sim-right", "sim-first"]
        assert all(result.progress(r.id).done == result.progress(r.id).total > 0 for r in runs)
    assert main(["metrics", str(out), "--json"]) == 0
    comparison = json.loads(capsys.readouterr().out)["comparison"]
    assert [r["name"] for r in comparison["runs"]] == ["sim-right", "sim-first"]


def _audit_command(study: Path, out: Path, *more: str) -> list[str]:
    import sys

    return [sys.executable, "-m", "resume_auditor", "audit", str(study), "--out", str(out), *more]


def test_the_command_runs_three_models_of_two_providers_at_once_and_a_stop_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed command, in its own process: two models on one OpenAI-style key and
    one on a self-hosted server, at the same time; SIGTERM mid-way stops every run in
    order and names how to resume each; the same command again finishes them, asking
    nothing twice."""
    import os
    import signal
    import subprocess
    import threading
    import time

    from devtools.simulator import Simulator, longer_resume_policy

    from resume_auditor.store.resultfile import ResultFile

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-fleet")
    answered = 0
    lock = threading.Lock()
    release = threading.Event()

    def slow_after_a_few(body: dict[str, Any]) -> str:
        nonlocal answered
        with lock:
            answered += 1
            mine = answered
        if mine > 30:
            release.wait(20)  # these stay at the providers until the stop is over
        return longer_resume_policy(body)

    with (
        Simulator(slow_after_a_few, models=("gpt-a", "gpt-b")) as hosted,
        Simulator(slow_after_a_few, models=("llama-c",)) as local,
    ):
        study = study_with_models(
            tmp_path,
            [
                ("openai", hosted.base_url, "gpt-a"),
                ("openai", hosted.base_url, "gpt-b"),
                ("openai-compatible", local.base_url, "llama-c"),
            ],
        )
        out = tmp_path / "three.audit"
        proc = subprocess.Popen(
            _audit_command(study, out, "--no-cache"),
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            env=dict(os.environ),
        )
        try:
            deadline = time.monotonic() + 120
            while answered < 33 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
        finally:
            release.set()
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 128 + signal.SIGTERM, err
        assert "Traceback" not in err
        assert "Running the 3 models at the same time." in err
        assert "Stopped by SIGTERM: every model's answers so far are saved." in err
        with ResultFile(out, readonly=True) as result:
            runs = result.runs()
            first = {r.id: result.progress(r.id).done for r in runs}
            total = {r.id: result.progress(r.id).total for r in runs}
        assert sum(first.values()) < sum(total.values())
        for r in runs:
            if first[r.id] < total[r.id]:
                assert (
                    f"Resume {r.model} (run {r.id}) with: resume-auditor run {out} --run {r.id}"
                    in err
                )
        # Progress lines name the model.
        assert "[running] gpt-a (run 1):" in err or "gpt-a (run 1): " in err
        asked_before = hosted.received + local.received
        again = subprocess.run(
            _audit_command(study, out, "--no-cache"),
            capture_output=True,
            text=True,
            env=dict(os.environ),
            timeout=300,
        )
        asked_after = hosted.received + local.received
    assert again.returncode == 0, again.stderr
    assert "All 3 models done" in again.stderr
    with ResultFile(out, readonly=True) as result:
        done = {r.id: result.progress(r.id).done for r in result.runs()}
    assert done == total
    # The second command asked only what had no answer (answers abandoned by the stop
    # are asked again: at most the ones that were at the providers).
    missing = sum(total.values()) - sum(first.values())
    assert missing <= asked_after - asked_before <= missing
