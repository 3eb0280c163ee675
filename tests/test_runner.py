"""The runner against the provider simulator: a real HTTP server on loopback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from devtools.simulator import Fault, Simulator

from resume_auditor.runner import Answer, RunState
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.design_tables import pair_table
from resume_auditor.workflow.execute import make_runner
from resume_auditor.workflow.prepare import prepare
from resume_auditor.workflow.studyfile import read_study


def _prepared(study_path: Path, tmp_path: Path, sim: Simulator) -> tuple[Path, int]:
    study = read_study(study_path)
    config = study.config.with_model("openai-compatible", sim.base_url, "sim-model")
    out = tmp_path / "r.audit"
    prepared = prepare(study, out, config.model)
    return out, prepared.run_id


def test_full_run_records_every_answer(
    small_study: Path, tmp_path: Path, simulator: Simulator
) -> None:
    out, run_id = _prepared(small_study, tmp_path, simulator)
    events: list[object] = []
    status = make_runner(out, run_id, concurrency=3, on_event=events.append).run()
    assert status.state is RunState.FINISHED
    assert (status.total, status.done, status.failed) == (10, 10, 0)
    assert simulator.answered == 10
    assert sum(isinstance(e, Answer) for e in events) == 10
    with ResultFile(out) as rf:
        frame = pair_table(rf, rf.answers(run_id, design="D1"))
    assert len(frame) == 10 and set(frame["label"]) <= {"first", "second", "abstain"}
    # the simulated screener is valid: every unequal pair answered correctly
    unequal = frame[frame["kind"] == "unequal"]
    picked_a = ((unequal["ord"] == "ab") & (unequal["label"] == "first")) | (
        (unequal["ord"] == "ba") & (unequal["label"] == "second")
    )
    assert ((unequal["truth"] == "a") == picked_a).all()


def test_rerunning_a_finished_audit_sends_nothing(
    small_study: Path, tmp_path: Path, simulator: Simulator
) -> None:
    out, run_id = _prepared(small_study, tmp_path, simulator)
    make_runner(out, run_id).run()
    sent = simulator.received
    prepared = prepare(
        read_study(small_study),
        out,
        read_study(small_study)
        .config.with_model("openai-compatible", simulator.base_url, "sim-model")
        .model,
    )
    assert prepared.run_id == run_id and prepared.requests_added == 0
    status = make_runner(out, run_id).run()
    assert status.state is RunState.FINISHED and simulator.received == sent


def test_cancel_is_prompt_and_resume_finishes_without_paying_twice(
    small_study: Path, tmp_path: Path
) -> None:
    with Simulator(latency_s=0.4) as sim:
        out, run_id = _prepared(small_study, tmp_path, sim)
        runner = make_runner(out, run_id, concurrency=1)
        runner.start()
        deadline = time.monotonic() + 10
        while runner.status().done < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        runner.cancel()
        assert runner.join(timeout=5)
        assert time.monotonic() - started < 1.5
        assert runner.final_status is not None
        assert runner.final_status.state is RunState.CANCELLED
        done_before = runner.final_status.done
        assert 2 <= done_before < 10
        status = make_runner(out, run_id, concurrency=2).run()
        assert status.state is RunState.FINISHED and status.done == 10
        # answered requests were never sent again: answers at the server == requests
        assert sim.answered == 10  # the answer in flight at cancel was kept, not re-bought


def test_pause_holds_new_requests(small_study: Path, tmp_path: Path) -> None:
    with Simulator(latency_s=0.1) as sim:
        out, run_id = _prepared(small_study, tmp_path, sim)
        runner = make_runner(out, run_id, concurrency=1)
        runner.start()
        while runner.status().done < 1:
            time.sleep(0.02)
        runner.pause()
        time.sleep(0.3)  # let an in-flight answer land
        held = sim.received
        time.sleep(0.5)
        assert sim.received == held
        runner.resume()
        assert runner.join(timeout=10)
        assert runner.final_status is not None and runner.final_status.done == 10


def test_retryable_faults_are_retried_with_retry_after(
    small_study: Path, tmp_path: Path, simulator: Simulator
) -> None:
    out, run_id = _prepared(small_study, tmp_path, simulator)
    simulator.inject(
        Fault(429, '{"error": {"message": "slow down"}}', {"retry-after": "0.2"}),
        Fault(503),
        Fault(kind="malformed"),
        Fault(kind="truncate"),
        Fault(kind="drop"),
    )
    runner = make_runner(out, run_id, concurrency=1)
    runner._rng.seed(0)  # noqa: SLF001  back-off jitter
    status = runner.run()
    assert status.state is RunState.FINISHED and status.done == 10 and status.failed == 0
    assert simulator.received == 15


def test_a_wrong_key_stops_the_run_with_a_plain_message(small_study: Path, tmp_path: Path) -> None:
    with Simulator(api_key="right-key") as sim:
        out, run_id = _prepared(small_study, tmp_path, sim)
        status = make_runner(out, run_id, concurrency=2).run()
        assert status.state is RunState.STOPPED
        assert "rejected the API key" in status.message
        assert sim.received <= 2  # stopped at once, not hammered


def test_unreachable_server_fails_each_request_visibly(small_study: Path, tmp_path: Path) -> None:
    with Simulator() as sim:
        out, run_id = _prepared(small_study, tmp_path, sim)
    runner = make_runner(out, run_id, concurrency=2)
    runner._max_retries = 0  # noqa: SLF001
    status = runner.run()
    assert status.failed == 10 and status.done == 0
    with ResultFile(out) as rf:
        failures = rf.failures(run_id)
    assert len(failures) == 10 and all(kind == "connection" for _, kind, _ in failures)
    assert "Could not connect" in failures[0][2]


@pytest.mark.parametrize("bad", ["", "<answer>maybe</answer>"])
def test_unreadable_answers_are_counted_not_guessed(
    small_study: Path, tmp_path: Path, bad: str
) -> None:
    with Simulator(policy=lambda _b: bad) as sim:
        out, run_id = _prepared(small_study, tmp_path, sim)
        status = make_runner(out, run_id).run()
    assert status.done == 10 and status.invalid == 10
