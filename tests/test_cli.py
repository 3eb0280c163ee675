"""The headless commands, as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from devtools.simulator import Simulator

from resume_auditor.cli import main

ROOT = Path(__file__).resolve().parent.parent
METRIC_KEYS = {
    "criterion_validity",
    "unjustified_selection",
    "unjustified_abstention",
    "discrim_validity",
    "first_position_rate",
    "order_consistency",
}


def test_audit_then_metrics_json(
    small_study: Path, tmp_path: Path, simulator: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "result.audit"
    code = main(
        [
            "audit",
            str(small_study),
            "--out",
            str(out),
            "--provider",
            "openai-compatible",
            "--base-url",
            simulator.base_url,
            "--model",
            "sim-model",
        ]
    )
    assert code == 0 and out.exists()
    capsys.readouterr()
    assert main(["metrics", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["schema"] == "resume-auditor.metrics/1"
    assert report["run"]["model"] == "sim-model"
    assert report["run"]["base_url"] == simulator.base_url
    assert report["counts"]["answered"] == report["counts"]["requests"] == 10
    assert set(report["d1"]["metrics"]) == METRIC_KEYS
    cv = report["d1"]["metrics"]["criterion_validity"]
    assert cv["value"] == 1.0 and cv["n"] == 4 and 0 <= cv["ci"][0] <= 1.0
    assert set(report["d1"]["selection_rate"]) == {"black_woman", "white_man"}
    # text output too
    assert main(["metrics", str(out)]) == 0
    assert "CriterionValidity" not in capsys.readouterr().err


def test_running_again_sends_nothing(
    small_study: Path, tmp_path: Path, simulator: Simulator
) -> None:
    out = tmp_path / "result.audit"
    args = [
        "audit",
        str(small_study),
        "--out",
        str(out),
        "--provider",
        "openai-compatible",
        "--base-url",
        simulator.base_url,
        "--model",
        "sim-model",
    ]
    assert main(args) == 0
    sent = simulator.received
    assert main(args) == 0
    assert main(["run", str(out)]) == 0
    assert simulator.received == sent


def test_bad_input_exits_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["audit", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "x.audit")]) == 2
    assert "no study file" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[study\nname=")
    assert main(["audit", str(bad), "--out", str(tmp_path / "x.audit")]) == 2
    assert "not valid TOML" in capsys.readouterr().err
    nojob = tmp_path / "nojob.toml"
    nojob.write_text('[resumes]\nfiles = ["a.pdf"]\n')
    assert main(["audit", str(nojob), "--out", str(tmp_path / "x.audit")]) == 2
    assert "no job description" in capsys.readouterr().err
    assert main(["metrics", str(tmp_path / "none.audit")]) == 2
    assert not (tmp_path / "x.audit").exists()


def test_a_failed_preparation_leaves_no_file(tmp_path: Path, small_study: Path) -> None:
    text = small_study.read_text().replace(
        'files = ["resumes/*.pdf"]', 'files = ["resumes/none-*.pdf"]'
    )
    small_study.write_text(text)
    out = tmp_path / "x.audit"
    assert main(["audit", str(small_study), "--out", str(out), "--prepare-only"]) == 2
    assert not out.exists() and not list(tmp_path.glob("x.audit*"))


def test_the_study_for_another_file_is_refused(
    small_study: Path, tmp_path: Path, simulator: Simulator
) -> None:
    out = tmp_path / "r.audit"
    assert main(["audit", str(small_study), "--out", str(out), "--prepare-only"]) == 0
    small_study.write_text(small_study.read_text().replace("seed = 7", "seed = 8"))
    assert main(["audit", str(small_study), "--out", str(out), "--prepare-only"]) == 2


def test_the_installed_command_runs_without_a_traceback(tmp_path: Path) -> None:
    env = dict(os.environ)
    proc = subprocess.run(
        [sys.executable, "-m", "resume_auditor", "metrics", str(tmp_path / "none.audit")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "no result file" in proc.stderr
