"""A report of an audit run on the bundled model says, first, that it proves little."""

from __future__ import annotations

from pathlib import Path

from devtools.simulator import Simulator

from resume_auditor.providers.openai_compat import OpenAICompatProvider
from resume_auditor.resources import quick_sample_study
from resume_auditor.workflow.execute import make_runner
from resume_auditor.workflow.prepare import prepare
from resume_auditor.workflow.reporting import report_html
from resume_auditor.workflow.studyfile import read_study


def test_the_bundled_models_report_calls_it_a_demonstration(
    tmp_path: Path, simulator: Simulator
) -> None:
    # the quick demo's run is the bundled model's; the simulator stands in for it here
    out = tmp_path / "q.audit"
    run_id = prepare(read_study(quick_sample_study()), out).run_id
    make_runner(out, run_id, factory=lambda: OpenAICompatProvider(simulator.base_url)).run()
    html = report_html(out)
    assert html.count("bundled demonstration model") >= 2  # page 1 and Limitations
    assert html.index("bundled demonstration model") < html.index("Limitations")


def test_another_models_report_does_not(
    small_study: Path, tmp_path: Path, simulator: Simulator
) -> None:
    study = read_study(small_study)
    config = study.config.with_model("openai-compatible", simulator.base_url, "sim-model")
    out = tmp_path / "r.audit"
    run_id = prepare(study, out, config.model).run_id
    make_runner(out, run_id).run()
    assert "bundled demonstration model" not in report_html(out)
