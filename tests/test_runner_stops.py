"""Every stop is an orderly stop; an abrupt one is said on resume; stalls are bounded.

SIGTERM (`timeout`, systemd, a container stop), SIGHUP (a closed terminal) and
Ctrl-C end a CLI run the way Cancel does: answers on their way get the short
grace, the rest go back to pending, the lock is released, and the exit code and
message say what was left. After kill -9 (the one abrupt end left) the resumed
run says how many requests may already have been paid and marks them. A request
far past the model's learnt latency is treated as stalled and sent again.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from devtools.simulator import Fault, Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.cli import main
from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.base import ChatRequest, ChatResponse
from resume_auditor.runner import RunState
from resume_auditor.runner.latency import LatencyModel, percentile
from resume_auditor.runner.ratelimit import RateLimiter
from resume_auditor.runner.runner import Runner, failure_summary
from resume_auditor.runner.window import ConcurrencyWindow
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.store.writelock import lock_path
from resume_auditor.workflow.execute import make_runner


def _audit(
    tmp_path: Path, sim: Simulator, n: int, provider: str = "openai-compatible"
) -> tuple[Path, int]:
    model = ModelSpec(provider=provider, base_url=sim.url_for(provider), model="sim-model")
    out = tmp_path / "s.audit"
    run_id, ids = new_audit(out, model)
    specs = []
    for i in range(n):
        s = spec(model, "d3-yes-no", [ids[i % 3]], key=f"q{i}")
        specs.append(replace(s, body={**s.body, "user": s.body["user"] + f"\n(case {i})"}))
    queue(out, run_id, specs)
    return out, run_id


def _statuses(path: Path) -> dict[str, int]:
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT status, count(*) FROM request GROUP BY status"))
    finally:
        db.close()


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_stops_a_cli_run_like_cancel(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    number = int(getattr(signal, name))
    answered_first = 3
    calls = 0
    lock = threading.Lock()
    release = threading.Event()

    def latency() -> float:
        nonlocal calls
        with lock:
            calls += 1
            mine = calls
        if mine > answered_first:
            release.wait(30)  # these stay at the provider until the stop is over
        return 0.0

    with Simulator(policy=kind_policy, latency_s=latency) as sim:
        out, run_id = _audit(tmp_path, sim, 12)

        def send_signal() -> None:
            deadline = time.monotonic() + 30
            # the first answers are given and three more requests wait at the "model"
            while calls < answered_first + 3 and time.monotonic() < deadline:
                time.sleep(0.02)
            os.kill(os.getpid(), number)

        sender = threading.Thread(target=send_signal)
        sender.start()
        try:
            code = main(["run", str(out), "--concurrency", "3", "--no-cache"])
        finally:
            release.set()
            sender.join()
    err = capsys.readouterr().err
    assert code == 128 + number
    assert f"Stopped by {name}" in err and "back in the queue" in err
    assert f"Resume with: resume-auditor run {out}" in err
    statuses = _statuses(out)
    assert "sent" not in statuses  # the aborted ones are pending again, as documented
    assert statuses.get("done") == answered_first
    assert not lock_path(out).exists()  # the lock was let go
    assert not Path(f"{out}-wal").exists() and not Path(f"{out}-shm").exists()
    with ResultFile(out) as rf:
        aborted = rf.unseen_sends(run_id)
    assert len(aborted) == 3 and "Possibly paid twice: 3 send(s)" in err


def test_the_resume_after_an_abrupt_end_says_what_may_have_been_paid(tmp_path: Path) -> None:
    with Simulator(policy=kind_policy) as sim:
        out, run_id = _audit(tmp_path, sim, 6)
        with ResultFile(out) as rf:  # what kill -9 leaves: sent, no answer
            for request_id in (2, 4, 5):
                rf.mark_sent(request_id)
        status = make_runner(out, run_id, concurrency=2, use_cache=False).run()
    assert status.state is RunState.FINISHED and status.done == 6
    assert status.unseen_before == 3 and status.maybe_paid_twice == 3
    with ResultFile(out) as rf:
        assert rf.unseen_sends(run_id) == {2: 1, 4: 1, 5: 1}
        answers = rf.answers(run_id).set_index("request_id")
    marked = {int(i) for i, p in answers["parsed"].items() if p.get("may_be_paid_twice")}
    assert marked == {2, 4, 5}


def test_a_stalled_request_is_sent_once_more_after_the_learnt_bound(tmp_path: Path) -> None:
    n = 30
    with Simulator(policy=kind_policy) as sim:
        out, run_id = _audit(tmp_path, sim, n)
        runner = make_runner(out, run_id, concurrency=1, use_cache=False, timeout_s=60.0)
        runner.latency = LatencyModel(60.0, floor_s=0.5, min_samples=10)
        answered = 0

        def on_event(event: object) -> None:
            nonlocal answered
            if getattr(event, "source", "") == "api":
                answered += 1
                if answered == 15:  # the class's latency is learnt: the next one stalls
                    sim.inject(Fault(kind="stall", delay_s=30.0))

        runner._on_event = on_event
        status = runner.run()
    assert status.state is RunState.FINISHED and status.done == n
    assert status.stalls == 1 and status.maybe_paid_twice == 1
    assert sum(c - 1 for c in sim.paid.values() if c > 1) == 1  # the stall was billed
    with ResultFile(out) as rf:
        assert len(rf.unseen_sends(run_id)) == 1


def test_the_stall_bound_follows_the_model_and_doubles_for_a_slow_answer() -> None:
    model = LatencyModel(120.0)
    assert model.bound("yes_no", 500) == 120.0  # nothing learnt yet: the run's timeout
    for i in range(100):
        model.observe("yes_no", 500, 0.3 + 0.027 * i)  # 0.3-3 s
        model.observe("ranking", 4000, 20.0 + 0.2 * i)  # a slow kind: 20-40 s
    # p99 + 2 x (p99 - p50): 2.946 + 2 x (2.946 - 1.623), under the 3 x p99 of old
    assert model.bound("yes_no", 500) == pytest.approx(2.946 + 2 * (2.946 - 1.623))
    assert model.bound("yes_no", 500, stalls=1) == pytest.approx(2 * 5.592)
    # a narrow spread (20-40 s): 1.5 x p99 (59.4 s) is more than p99 + 2 x (p99 - p50)
    assert model.bound("ranking", 4000) == pytest.approx(1.5 * 39.6)
    assert model.bound("ranking", 4000, stalls=1) == pytest.approx(2 * 59.4)
    assert model.bound("ranking", 4000, stalls=4) == 900.0  # never past MOST_S
    quick = LatencyModel(120.0)
    for _ in range(30):
        quick.observe("yes_no", 500, 0.2)
    assert quick.bound("yes_no", 500) == 5.0  # the floor
    assert model.bound("yes_no", 4000) == 120.0  # another size: not learnt yet
    assert model.bound("yes_no", 4000, stalls=1) == 240.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.0


def test_a_429_does_not_cut_the_window_below_what_the_limit_needs() -> None:
    window = ConcurrencyWindow(256, initial=150)
    window.set_floor(80)
    assert window.limit == 150  # the floor does not grow the window
    for _ in range(40):
        window.on_send()
    window.on_rate_limited(1)
    assert window.limit == 80  # halved to 75 before
    window.set_floor(500)
    assert window.floor == 256  # the user's ceiling still holds


def test_the_status_line_says_pacing_only_when_pacing(tmp_path: Path) -> None:
    now = [100.0]
    limiter = RateLimiter(rpm=600, clock=lambda: now[0], smooth=True)
    runner = Runner(tmp_path / "x.audit", 1, lambda: None, limiter=limiter)  # type: ignore[arg-type,return-value]
    runner._state = RunState.RUNNING
    assert runner.status().message == "" and not runner.status().pacing
    limiter._waiting_until = now[0] + 0.1  # a request waits for the app's own pace
    status = runner.status()
    assert status.pacing and status.message == "Pacing to the limit of 600 requests/min."
    runner.note("The provider refused (rate limit): waiting 2.0 s, then 8 request(s) at once.")
    assert runner.status().message.startswith("The provider refused (rate limit)")


def test_failures_are_summed_up_with_whether_resuming_helps() -> None:
    assert failure_summary([]) == ""
    retry = failure_summary([(1, "timeout", "x"), (2, "server", "y"), (3, "timeout", "z")])
    assert retry == "3 request(s) failed (1 server, 2 timeout); resume the run to try them again."
    hopeless = failure_summary([(1, "context", "The prompt is too long."), (2, "server", "y")])
    assert "fix the cause first: The prompt is too long." in hopeless


class _SlowOnce:
    """A provider whose answers come at once, except the first send of one request,
    which is slow but alive, while a second send of it would be slower still."""

    name = "slow-once"

    def __init__(self, slow_marker: str) -> None:
        self.slow_marker = slow_marker
        self.sends: dict[str, int] = {}

    async def chat(self, request: ChatRequest) -> ChatResponse:
        import asyncio

        n = self.sends.get(request.user, 0) + 1
        self.sends[request.user] = n
        if self.slow_marker in request.user:
            await asyncio.sleep(1.0 if n == 1 else 30.0)
            return ChatResponse(text=f"Yes (send {n})", raw={"send": n})
        return ChatResponse(text="No", raw={})

    async def list_models(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None


def test_a_slow_answer_still_wins_after_a_copy_was_sent(tmp_path: Path) -> None:
    with Simulator(policy=kind_policy) as sim:
        out, run_id = _audit(tmp_path, sim, 8)
    fake = _SlowOnce("(case 6)")
    runner = make_runner(
        out, run_id, concurrency=1, use_cache=False, timeout_s=60.0, factory=lambda: fake
    )
    runner.latency = LatencyModel(60.0, floor_s=0.45, min_samples=3)  # a copy at 0.45 s
    status = runner.run()
    assert status.state is RunState.FINISHED and status.done == 8
    assert fake.sends[next(u for u in fake.sends if "(case 6)" in u)] == 2  # one copy went
    assert status.stalls == 1 and status.maybe_paid_twice == 1  # the copy may be billed
    with ResultFile(out) as rf:
        answer = rf.response_record(7)
    assert answer is not None and "send 1" in str(answer)  # the first, slow send won


def test_the_cli_says_on_resume_what_an_abrupt_end_may_have_paid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Simulator(policy=kind_policy) as sim:
        out, _ = _audit(tmp_path, sim, 5)
        with ResultFile(out) as rf:  # what kill -9 leaves: sent, no answer
            for request_id in (1, 3):
                rf.mark_sent(request_id)
        assert main(["run", str(out), "--no-cache"]) == 0
    err = capsys.readouterr().err
    assert "Note: The last session ended abruptly with 2 request(s) at the provider" in err
    assert "up to 2 may already have been paid" in err
    assert "Possibly paid twice: 2 send(s)" in err


@pytest.mark.parametrize("kind", ["trickle", "stall_mid", "stall", "drop_mid"])
def test_the_stall_bound_is_on_silence_so_a_live_stream_is_never_cut(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Streamed answers beat the bound's clock with every piece: a live answer taking far
    longer in all than the bound is never cut (no copy, nothing paid twice), while one
    that falls silent before its first piece or mid-answer is found within the bound.
    OpenAI streams these yes/no requests with their log-probabilities."""
    n = 30
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-streaming")
    with Simulator(policy=kind_policy) as sim:
        out, run_id = _audit(tmp_path, sim, n, provider="openai")
        runner = make_runner(out, run_id, concurrency=1, use_cache=False, timeout_s=60.0)
        runner.latency = LatencyModel(60.0, floor_s=0.6, min_samples=10)
        answered = 0

        def on_event(event: object) -> None:
            nonlocal answered
            if getattr(event, "source", "") == "api":
                answered += 1
                if answered == 15:  # the class's silences are learnt: the bound is 0.6 s
                    # trickle: four pieces 0.4 s apart (1.2 s+ in all, twice the bound)
                    sim.inject(Fault(kind=kind, delay_s=0.4 if kind == "trickle" else 30.0))

        runner._on_event = on_event
        status = runner.run()
        twice = sum(c - 1 for c in sim.paid.values() if c > 1)
        assert all(b.get("stream") for b in sim.bodies)
    assert status.state is RunState.FINISHED and status.done == n
    if kind == "trickle":
        assert status.stalls == 0 and status.maybe_paid_twice == 0 and twice == 0
    elif kind == "drop_mid":  # cut off mid-answer: retried at once, and it may be billed
        assert status.stalls == 0 and status.maybe_paid_twice == 1 and twice == 1
    else:  # silent before the first piece or mid-answer: a copy after 0.6 s of silence
        assert status.stalls == 1 and status.maybe_paid_twice == 1 and twice == 1


def test_a_request_that_stalls_before_the_bound_is_learnt_is_judged_by_the_learnt_bound(
    tmp_path: Path,
) -> None:
    """The first request of a run stalls: it was sent under the 60 s first timeout, but
    once the others have taught the runner that answers take a moment, it is treated as
    stalled by that bound and sent once more, instead of holding its place for 60 s (a
    30 s stall answers within the timeout, so without this there is no stall at all)."""
    n = 30
    with Simulator(policy=kind_policy) as sim:
        out, run_id = _audit(tmp_path, sim, n)
        runner = make_runner(out, run_id, concurrency=4, use_cache=False, timeout_s=60.0)
        runner.latency = LatencyModel(60.0, floor_s=0.5, min_samples=10)
        sim.inject(Fault(kind="stall", delay_s=30.0))  # the very first request
        status = runner.run()
    assert status.state is RunState.FINISHED and status.done == n
    assert status.stalls == 1 and status.maybe_paid_twice == 1


def test_the_stall_bound_follows_the_shape_of_the_answer_times() -> None:
    """Answers that end sharply get a bound near their longest; a long right tail keeps
    its room; a live answer of the same distribution passes the bound rarely."""
    import random

    rng = random.Random(7)
    sharp, skewed = LatencyModel(120.0), LatencyModel(120.0)
    sharp_times = [rng.uniform(0.3, 3.0) for _ in range(500)]
    skewed_times = [rng.lognormvariate(0.0, 1.0) for _ in range(500)]
    for a, b in zip(sharp_times, skewed_times, strict=True):
        sharp.observe("yes_no", 500, a)
        skewed.observe("yes_no", 500, b)
    sharp_bound, skewed_bound = sharp.bound("yes_no", 500), skewed.bound("yes_no", 500)
    assert 5.0 <= sharp_bound < 6.5 < 3 * max(sharp_times)  # was 3 x p99, about 9 s
    p99 = sharp.p99("yes_no", 500) or 0.0
    assert skewed_bound > 2.4 * (skewed.p99("yes_no", 500) or 0.0) and p99 < 3.0
    fresh = [rng.lognormvariate(0.0, 1.0) for _ in range(20_000)]
    assert sum(t > skewed_bound for t in fresh) <= 40  # at most 2 in 1,000 live answers


def test_answer_times_that_hardly_vary_keep_half_their_p99_of_room() -> None:
    model = LatencyModel(300.0)
    for i in range(100):
        model.observe("ranking", 4000, 100.0 + 0.05 * i)  # a reasoning model: 100-105 s
    assert model.bound("ranking", 4000) == pytest.approx(1.5 * 104.9)
