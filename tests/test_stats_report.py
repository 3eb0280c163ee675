"""The statistics as the metrics report carries them (workflow/metrics.py)."""

from __future__ import annotations

import json
from pathlib import Path

from devtools.simulator import Simulator

from resume_auditor.cli import main
from resume_auditor.settings.thresholds import shipped_thresholds
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS, thresholds_from_mapping
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.metrics import metrics_report


def _audit(study: Path, out: Path, simulator: Simulator, model: str) -> None:
    args = ["audit", str(study), "--out", str(out), "--provider", "openai-compatible"]
    assert main([*args, "--base-url", simulator.base_url, "--model", model]) == 0


def test_report_carries_thresholds_power_and_agreement(
    small_study: Path, tmp_path: Path, simulator: Simulator
) -> None:
    out = tmp_path / "result.audit"
    _audit(small_study, out, simulator, "sim-model")
    _audit(small_study, out, simulator, "sim-other")
    with ResultFile(out) as result:
        runs = result.runs()
        assert len(runs) == 2
        report = metrics_report(result, runs[-1].id)
        strict = metrics_report(
            result,
            runs[-1].id,
            thresholds=thresholds_from_mapping({"criterion_validity": {"value": 1.0}}),
        )
    json.dumps(report, allow_nan=False)
    assert [t["key"] for t in report["thresholds"]] == [t.key for t in DEFAULT_THRESHOLDS]
    assert all(t["source"] for t in report["thresholds"])
    assert "equal-pair answers per group" in report["d1"]["power"]["sentence"]
    assert set(report["d1"]) >= {"selection_gap", "over_assessment", "breakdowns"}
    (agreement,) = report["error_agreement"]
    assert agreement["run"] == runs[0].id and agreement["model"] == "sim-model"
    assert agreement["shared"] == report["counts"]["answered"]
    assert set(agreement["metrics"]) == {"error_agreement", "shared_errors"}
    threshold = next(t for t in strict["thresholds"] if t["key"] == "criterion_validity")
    assert threshold["value"] == 1.0 and threshold["source"].startswith("Your setting")


def test_shipped_thresholds_are_the_papers() -> None:
    assert shipped_thresholds() == DEFAULT_THRESHOLDS
