"""The pace a model answered at here is remembered, and the local model's estimate uses it."""

from __future__ import annotations

from pathlib import Path

import pytest
from devtools.simulator import Simulator

from resume_auditor.runner import speed_memory
from resume_auditor.runner.estimate import estimate_run
from resume_auditor.runner.speed_memory import Pace
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import make_runner
from resume_auditor.workflow.prepare import prepare
from resume_auditor.workflow.studyfile import read_study


def test_a_pace_is_scaled_to_the_size_of_the_planned_answers() -> None:
    pace = Pace(answers=10, seconds=40.0, input_tokens=10_000, output_tokens=500)
    # the measured answers: 1,000 prompt tokens and 50 generated ones in 4 s each
    assert pace.seconds_per_answer(1000, 50) == pytest.approx(4.0)
    twice = pace.seconds_per_answer(2000, 100)
    assert twice == pytest.approx(8.0)
    longer_answer = pace.seconds_per_answer(1000, 150)
    expected = 4.0 * (1000 + 3 * 150) / (1000 + 3 * 50)
    assert longer_answer == pytest.approx(expected)


def test_remember_and_recall_by_model(tmp_path: Path) -> None:
    path = tmp_path / "speed.json"
    speed_memory.remember("local", "", "m", Pace(5, 20.0, 5000, 250), path)
    assert speed_memory.recall("local", "", "m", path) == Pace(5, 20.0, 5000, 250)
    assert speed_memory.recall("local", "", "other", path) is None
    speed_memory.remember("local", "", "few", Pace(2, 9.0, 2000, 100), path)
    assert speed_memory.recall("local", "", "few", path) is None, "too few answers to tell"


def test_a_run_writes_down_its_pace(
    small_study: Path, tmp_path: Path, simulator: Simulator
) -> None:
    study = read_study(small_study)
    config = study.config.with_model("openai-compatible", simulator.base_url, "sim-model")
    out = tmp_path / "r.audit"
    run_id = prepare(study, out, config.model).run_id
    make_runner(out, run_id, concurrency=2).run()
    pace = speed_memory.recall("openai-compatible", simulator.base_url, "sim-model")
    assert pace is not None
    assert pace.answers == 10 and pace.seconds > 0
    assert pace.input_tokens > 0 and pace.output_tokens > 0


def test_the_local_models_estimate_comes_from_this_computers_pace(tmp_path: Path) -> None:
    """No model runs here: the pace is written as a run would have, then estimated."""
    from resume_auditor.resources import quick_sample_study

    study = read_study(quick_sample_study())
    out = tmp_path / "q.audit"
    prepare(study, out)
    with ResultFile(out, readonly=True) as result:
        guessed = estimate_run(result)
    assert guessed.eta_s is not None
    assert any("guess" in n for n in guessed.notes)
    per_answer_in = guessed.input_tokens / guessed.to_send
    per_answer_out = guessed.output_tokens / guessed.to_send
    # a pace measured on answers exactly this size: 2.5 s each
    measured = Pace(
        answers=20,
        seconds=50.0,
        input_tokens=round(per_answer_in * 20),
        output_tokens=round(per_answer_out * 20),
    )
    speed_memory.remember("local", "", study.config.model.model, measured)
    with ResultFile(out, readonly=True) as result:
        estimate = estimate_run(result)
    assert estimate.eta_s == pytest.approx(guessed.to_send * 2.5, rel=0.01)
    assert any("this computer's last run" in n for n in estimate.notes)
