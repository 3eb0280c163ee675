"""Stopping a cell once its interval is narrower than the width the user set."""

from __future__ import annotations

from pathlib import Path

import pytest
from devtools.simulator import Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.runner import RunState
from resume_auditor.runner.early_stop import EarlyStop
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import make_runner


def _cell_audit(sim: Simulator, out: Path, n: int, clusters: int) -> int:
    model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
    run_id, ids = new_audit(out, model)
    specs = [
        spec(
            model,
            "d3-yes-no",
            [ids[0]],  # the Tableau resume: the simulated model always says Yes
            rep=i,
            context={"expect": "yes", "cluster": i % clusters},
            cell="validity",
        )
        for i in range(n)
    ]
    queue(out, run_id, specs)
    return run_id


def test_a_cell_stops_once_its_interval_is_narrow_and_can_be_reopened(tmp_path: Path) -> None:
    out = tmp_path / "e.audit"
    with Simulator(policy=kind_policy) as sim:
        run_id = _cell_audit(sim, out, n=60, clusters=4)
        status = make_runner(out, run_id, concurrency=1, early_stop_width=0.4).run()
        assert status.state is RunState.FINISHED
        assert (status.done, status.skipped) == (20, 40) and status.remaining == 0
        assert sim.received == 20
        with ResultFile(out) as rf:
            assert rf.failures(run_id) == []
            skipped = rf._db.execute(  # noqa: SLF001
                "SELECT count(*), min(error) FROM request WHERE status = 'skipped'"
            ).fetchone()
            assert rf.progress(run_id).finished
            assert rf.unskip(run_id) == 40
        assert skipped[0] == 40 and "narrower than the 40%" in skipped[1]
        again = make_runner(out, run_id, concurrency=2).run()
        assert again.done == 60 and sim.received == 60


def test_no_stop_before_every_source_resume_has_answered() -> None:
    stop = EarlyStop(0.5, min_answers=2)
    stop._clusters["c"] = set(range(6))  # noqa: SLF001
    for i in range(15):
        stop._add("c", "yes", {}, {"expect": "yes", "cluster": i % 5})  # noqa: SLF001
    stop._check("c")  # noqa: SLF001
    assert stop.closed("c") is None  # resume 5 has not been asked yet
    stop._add("c", "yes", {}, {"expect": "yes", "cluster": 5})  # noqa: SLF001
    stop._check("c")  # noqa: SLF001
    assert stop.closed("c") is not None
    with pytest.raises(ValueError, match="between 0 and 1"):
        EarlyStop(1.5)
