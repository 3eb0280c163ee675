"""kill -9 in the middle of a run: the resumed run sends only what has no answer."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

from devtools.simulator import Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.runner import RunState
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import make_runner

CHILD = """
import sys
from resume_auditor.workflow.execute import make_runner
make_runner(sys.argv[1], 1, concurrency=4).run()
"""


def test_a_killed_run_resumes_and_pays_for_each_request_once(tmp_path: Path) -> None:
    n, answered_first = 20, 8
    calls = itertools.count()
    release = threading.Event()

    def latency() -> float:
        # After the first answers, requests hang at the "model" until the client is gone.
        if next(calls) >= answered_first:
            release.wait(20)
        return 0.01

    out = tmp_path / "k.audit"
    with Simulator(policy=kind_policy, latency_s=latency) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        run_id, ids = new_audit(out, model)
        specs = []
        for i in range(n):
            s = spec(model, "d3-yes-no", [ids[i % 3]], key=f"q{i}")
            specs.append(replace(s, body={**s.body, "user": s.body["user"] + f"\n(case {i})"}))
        queue(out, run_id, specs)
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(out)], env=env)
        try:
            deadline = time.monotonic() + 60
            while sim.received < answered_first + 4 and time.monotonic() < deadline:
                time.sleep(0.02)
            assert sim.received == answered_first + 4  # 8 answered, 4 hanging in flight
            child.send_signal(signal.SIGKILL)
            child.wait(10)
        finally:
            if child.poll() is None:
                child.kill()
        release.set()  # the hanging requests find their client gone: not answered, not paid
        time.sleep(0.3)
        with ResultFile(out) as rf:
            progress = rf.progress(run_id)
        assert progress.done == answered_first and progress.pending == n - answered_first
        status = make_runner(out, run_id, concurrency=4).run()
        assert sim.abandoned == 4
        assert sum(sim.paid.values()) == n and set(sim.paid.values()) == {1}
    assert status.state is RunState.FINISHED and status.done == n
    # the resume says that the 4 in flight at the kill may already have been paid
    assert status.unseen_before == 4 and status.maybe_paid_twice == 4
    with ResultFile(out) as rf:
        assert len(rf.answers(run_id)) == n
        assert len(rf.unseen_sends(run_id)) == 4
