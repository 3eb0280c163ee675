"""The run's tail after faults: stalls found within the silence they really break, early
copies only when the user pays for them, and a stop's grace that follows what is in flight.

With 10% faults the runner paced its sends at 98% of the limit all through the run
(benchmarks/runner_throughput.py `limits`, the simulator's timeline): a 5xx or a
dropped connection never slowed it. What it lost was the tail: the last stalled
requests waited their bound (about 9 s: three times the longest wait for a first
piece) before their copy went. These tests pin the changes that shorten it:

- a stream that dies mid-answer is judged by the gaps between pieces, not by the
  wait for the first piece (latency.py, `Pulse.writing`);
- a copy before a request is judged stalled (a hedge) goes only with `hedge` set,
  only at the run's tail, within its share, and is counted.

Fake clocks where the logic allows (`Pulse.beat(now=...)`, `LatencyModel`); where a
whole run is needed the assertions are on counts, never on durations: a run that
would wait the old bound (minutes) instead fails its join.
"""

from __future__ import annotations

import asyncio
import math
import time
from dataclasses import replace
from pathlib import Path

import pytest
from devtools.simulator import Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.base import ChatRequest, ChatResponse, ErrorKind, ProviderError
from resume_auditor.providers.streaming import PULSE, Pulse
from resume_auditor.runner import RunState
from resume_auditor.runner.latency import LatencyModel
from resume_auditor.runner.ratelimit import RateLimiter
from resume_auditor.runner.runner import Runner, _Race, silent_since
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import make_runner


def _audit(tmp_path: Path, n: int) -> tuple[Path, int]:
    with Simulator(policy=kind_policy) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
    out = tmp_path / "t.audit"
    run_id, ids = new_audit(out, model)
    specs = []
    for i in range(n):
        s = spec(model, "d3-yes-no", [ids[i % 3]], key=f"q{i}")
        specs.append(replace(s, body={**s.body, "user": s.body["user"] + f"\n(case {i})"}))
    queue(out, run_id, specs)
    return out, run_id


def test_a_pulse_tells_the_wait_for_the_first_piece_from_the_gaps_between_pieces() -> None:
    pulse = Pulse(started=100.0)
    pulse.beat(now=100.2)  # the status line and headers: not a piece of the answer
    assert not pulse.writing and pulse.first_wait() is None and pulse.gap() is None
    pulse.streamed = True
    pulse.beat(now=104.0)  # the first piece, 4 s after the send
    assert pulse.writing and pulse.first_wait() == pytest.approx(4.0)
    assert pulse.gap() is None  # one piece: no gap yet
    pulse.beat(now=104.1)
    pulse.beat(now=104.6)
    assert pulse.gap() == pytest.approx(0.5)  # the longest gap between two pieces
    assert pulse.longest_silence == pytest.approx(3.8)  # from the headers to the first piece
    assert silent_since(pulse) == pytest.approx(104.6)  # writing: silent since the last piece
    waiting = Pulse(started=50.0)
    waiting.beat(now=50.1)  # headers only: the wait for the first piece counts from the send
    assert silent_since(waiting) == 50.0


def test_the_bound_between_pieces_is_learnt_apart_from_the_wait_for_the_first() -> None:
    model = LatencyModel(120.0, floor_s=0.5, min_samples=20)
    for i in range(100):
        # a model that takes 10-40 s before its first piece, then writes a piece every
        # 20-60 ms
        model.observe(
            "yes_no", 500, 10.0 + 0.3 * i + 1.0, first=10.0 + 0.3 * i, gap=0.02 + 0.0004 * i
        )
    first_p99, first_p50 = 10.0 + 0.3 * 98, 10.0 + 0.3 * 49
    assert model.bound("yes_no", 500) == pytest.approx(first_p99 + 2 * (first_p99 - first_p50))
    # once it writes, a silence of a few gaps' length is a dead stream, not a slow one
    assert model.bound("yes_no", 500, writing=True) == pytest.approx(0.5)  # the floor
    assert model.bound("yes_no", 500, stalls=1, writing=True) == pytest.approx(1.0)
    assert model.hedge_after("yes_no", 500) == pytest.approx(first_p99)
    assert model.hedge_after("yes_no", 500, writing=True) == pytest.approx(0.02 + 0.0004 * 98)
    # unstreamed answers teach no gaps: the first wait's bound stands for them too
    plain = LatencyModel(120.0, floor_s=0.5, min_samples=20)
    for i in range(30):
        plain.observe("yes_no", 500, 2.0 + 0.01 * i)
    assert plain.bound("yes_no", 500, writing=True) == plain.bound("yes_no", 500)
    assert plain.hedge_after("yes_no", 500, writing=True) == plain.hedge_after("yes_no", 500)
    assert LatencyModel(120.0).hedge_after("yes_no", 500) is None  # nothing learnt


class _Streams:
    """A provider that streams (it beats the runner's pulse): each answer's first piece
    is said to come 60 s after the send and the next 10 ms later (fake times), except
    the first send of the request marked `dies`: its first piece comes, then nothing."""

    name = "streams"

    def __init__(self, dies: str) -> None:
        self.dies = dies
        self.sends: dict[str, int] = {}

    async def chat(self, request: ChatRequest) -> ChatResponse:
        pulse = PULSE.get()
        assert pulse is not None
        n = self.sends.get(request.user, 0) + 1
        self.sends[request.user] = n
        pulse.streamed = True
        if self.dies in request.user and n == 1:
            pulse.beat()  # the first piece, now
            await asyncio.sleep(3600)  # then the stream goes silent for good
        pulse.beat(now=pulse.started + 60.0)
        pulse.beat(now=pulse.started + 60.01)
        return ChatResponse(text="Yes", raw={"send": n})

    async def list_models(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None


def test_a_stream_that_dies_mid_answer_is_judged_by_the_gaps_not_the_first_wait(
    tmp_path: Path,
) -> None:
    """First pieces take 60 s here (their bound is 180 s), gaps 10 ms (bound: the 0.3 s
    floor): a stream silent after its first piece gets its copy after the gap bound.
    Judged by the first wait's bound, the run would still be waiting at the join."""
    out, run_id = _audit(tmp_path, 8)
    fake = _Streams("(case 5)")
    runner = make_runner(
        out, run_id, concurrency=1, use_cache=False, timeout_s=300.0, factory=lambda: fake
    )
    runner.latency = LatencyModel(300.0, floor_s=0.3, min_samples=3)
    runner.start()
    finished = runner.join(30.0)
    if not finished:
        runner.cancel()
        runner.cancel()
        runner.join(10.0)
    assert finished, "the dead stream was held to the first piece's bound"
    status = runner.final_status
    assert status is not None and status.state is RunState.FINISHED and status.done == 8
    assert status.stalls == 1 and status.maybe_paid_twice == 1 and status.hedged == 0
    assert fake.sends[next(u for u in fake.sends if "(case 5)" in u)] == 2


class _SlowLast:
    """Answers at once, unstreamed; the first send of the marked request is slow but
    alive (it answers after `slow_s`), a second send of it answers at once."""

    name = "slow-last"

    def __init__(self, marker: str, slow_s: float) -> None:
        self.marker = marker
        self.slow_s = slow_s
        self.sends: dict[str, int] = {}

    async def chat(self, request: ChatRequest) -> ChatResponse:
        n = self.sends.get(request.user, 0) + 1
        self.sends[request.user] = n
        if self.marker in request.user and n == 1:
            await asyncio.sleep(self.slow_s)
        return ChatResponse(text=f"Yes (send {n})", raw={"send": n})

    async def list_models(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None


@pytest.mark.parametrize("hedge", [0.0, 0.5])
def test_an_early_copy_at_the_tail_goes_only_when_the_user_allows_it(
    tmp_path: Path, hedge: float
) -> None:
    """The last request is slow but alive, far past what 99% of its kind took, yet within
    its stall bound (30 s floor here). Without `hedge` nothing more is sent (nothing can
    be paid twice); with it, one copy goes at the tail, wins, and is counted."""
    out, run_id = _audit(tmp_path, 8)
    fake = _SlowLast("(case 7)", slow_s=4.0)
    runner = make_runner(
        out,
        run_id,
        concurrency=1,
        use_cache=False,
        timeout_s=60.0,
        factory=lambda: fake,
        hedge=hedge,
    )
    runner.latency = LatencyModel(60.0, floor_s=30.0, min_samples=3)
    status = runner.run()
    assert status.state is RunState.FINISHED and status.done == 8
    sends = fake.sends[next(u for u in fake.sends if "(case 7)" in u)]
    with ResultFile(out) as rf:
        answer = str(rf.response_record(8))
    assert status.stalls == 0
    if hedge:
        assert sends == 2 and status.hedged == 1 and status.maybe_paid_twice == 1
        assert "send 2" in answer  # the copy answered first; the slow send was let go
    else:
        assert sends == 1 and status.hedged == 0 and status.maybe_paid_twice == 0
        assert "send 1" in answer


def test_an_early_copy_needs_the_tail_the_users_share_and_an_adaptive_window(
    tmp_path: Path,
) -> None:
    runner = Runner(tmp_path / "x.audit", 1, lambda: None, hedge=0.02)  # type: ignore[arg-type,return-value]
    runner.counters.total = 100
    race = _Race()
    assert not runner._may_hedge(race)  # requests still wait for their first send
    runner._feed_over = True
    assert runner._may_hedge(race)
    runner.counters.hedged = 2  # 2% of 100 used up
    assert not runner._may_hedge(race)
    runner.counters.hedged = 0
    assert runner._may_hedge(_Race(early=1, hedges=1))  # a silent copy may get a second
    assert not runner._may_hedge(_Race(early=2, hedges=2))  # MAX_HEDGES copies already
    assert not runner._may_hedge(_Race(stalls=1, hedges=2))
    off = Runner(tmp_path / "x.audit", 1, lambda: None)  # type: ignore[arg-type,return-value]
    off._feed_over = True
    off.counters.total = 100
    assert not off._may_hedge(_Race())  # the default: never
    local = Runner(tmp_path / "x.audit", 1, lambda: None, hedge=0.5, adaptive=False)  # type: ignore[arg-type,return-value]
    local._feed_over = True
    local.counters.total = 100
    assert not local._may_hedge(_Race())  # the bundled model: a copy only takes turns
    with pytest.raises(ValueError, match="share of the requests"):
        Runner(tmp_path / "x.audit", 1, lambda: None, hedge=2.0)  # type: ignore[arg-type,return-value]


def test_the_stop_grace_follows_what_is_in_flight(tmp_path: Path) -> None:
    runner = Runner(tmp_path / "x.audit", 1, lambda: None, timeout_s=120.0)  # type: ignore[arg-type,return-value]
    runner.latency = LatencyModel(120.0, floor_s=0.5, min_samples=3)
    assert runner.drain_s() == 0.5  # nothing at the provider: Cancel's short grace
    for seconds in (1.0, 2.0, 2.0, 3.0, 10 / 3):
        # first waits of 1-3.3 s: p50 2 s, p99 3.33 s, the bound 3.33 + 2 x 1.33 = 6 s
        runner.latency.observe("yes_no", 500, seconds)
    now = time.monotonic()
    young = Pulse(started=now - 1.0)  # sent 1 s ago: 5 s more before it counts as stalled
    old = Pulse(started=now - 20.0)  # long past its bound: it will not come
    runner._flying = {"a": (young, "yes_no", 500, _Race()), "b": (old, "yes_no", 500, _Race())}  # type: ignore[dict-item]
    assert runner.drain_s() == pytest.approx(5.0, abs=0.3)
    runner._flying = {"b": (old, "yes_no", 500, _Race())}  # type: ignore[dict-item]
    assert runner.drain_s() == 0.5  # only a stalled send: nothing to wait for
    twice = Pulse(started=now - 1.0)  # a send that stalled once already: twice the bound
    runner._flying = {"c": (twice, "yes_no", 500, _Race(stalls=1))}  # type: ignore[dict-item]
    assert runner.drain_s() == pytest.approx(10.0, abs=0.01)  # 11 s, held to the 10 s cap
    unknown = Pulse(started=now)  # a class not learnt yet: the timeout, held to the cap
    runner._flying = {"d": (unknown, "ranking", 9000, _Race())}  # type: ignore[dict-item]
    assert runner.drain_s() == 10.0
    assert runner.drain_s(most_s=3.0) == 3.0


class _SlowsDown:
    """Answers after `fast_s` until `after` answers are given, then after `slow_s`: a
    provider (or a machine) that slows down during the run."""

    name = "slows-down"

    def __init__(self, after: int, fast_s: float, slow_s: float) -> None:
        self.after, self.fast_s, self.slow_s = after, fast_s, slow_s
        self.answered = 0
        self.sent = 0

    async def chat(self, request: ChatRequest) -> ChatResponse:
        self.sent += 1
        await asyncio.sleep(self.fast_s if self.sent <= self.after else self.slow_s)
        self.answered += 1
        return ChatResponse(text="Yes", raw={})

    async def list_models(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None


def test_a_stop_keeps_answers_slower_than_the_run_had_shown_but_not_stalled(
    tmp_path: Path,
) -> None:
    """The first 20 answers take 10 ms, then the provider slows to 1.5 s. A stop while
    three slow ones are out: they are far past the run's 99th percentile (the old
    grace: 0.5 s) but within their stall bound (the 5 s floor), so they are waited for
    and kept; nothing is aborted and bought again on resume."""
    out, run_id = _audit(tmp_path, 30)
    fake = _SlowsDown(after=20, fast_s=0.01, slow_s=1.5)
    runner = make_runner(out, run_id, concurrency=3, use_cache=False, factory=lambda: fake)
    runner.window.adaptive = False  # exactly three at once
    runner.start()
    deadline = time.monotonic() + 30
    while fake.sent < 23 and time.monotonic() < deadline:
        time.sleep(0.01)
    grace = runner.drain_s()
    runner.cancel(grace_s=grace)
    assert runner.join(30)
    status = runner.final_status
    assert status is not None and status.state is RunState.CANCELLED
    assert grace > 1.5  # the grace covers the slow answers' bound, not the fast past
    assert status.done == 23 and status.maybe_paid_twice == 0
    with ResultFile(out) as rf:
        assert rf.unseen_sends(run_id) == {}


class _CopyFails(_SlowLast):
    """The marked request's first send is slow but alive; every copy fails at once."""

    async def chat(self, request: ChatRequest) -> ChatResponse:
        n = self.sends.get(request.user, 0) + 1
        if self.marker in request.user and n >= 2:
            self.sends[request.user] = n
            raise ProviderError(ErrorKind.SERVER, "injected 500", status=500)
        return await super().chat(request)


def test_an_early_copy_that_fails_leaves_the_live_first_send_to_answer(tmp_path: Path) -> None:
    out, run_id = _audit(tmp_path, 8)
    fake = _CopyFails("(case 7)", slow_s=3.0)
    runner = make_runner(
        out,
        run_id,
        concurrency=1,
        use_cache=False,
        timeout_s=60.0,
        factory=lambda: fake,
        hedge=0.5,
    )
    runner.latency = LatencyModel(60.0, floor_s=30.0, min_samples=3)
    status = runner.run()
    # a failed early copy makes room for another (two copies at most), and no retry
    # abandons the first send, which is still within its bound
    assert status.state is RunState.FINISHED and status.done == 8 and status.hedged == 2
    assert fake.sends[next(u for u in fake.sends if "(case 7)" in u)] == 3
    with ResultFile(out) as rf:
        assert "send 1" in str(rf.response_record(8))  # the first, slow send answered


def test_the_cli_takes_hedge_as_a_percentage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from resume_auditor.cli import main

    with Simulator(policy=kind_policy) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        out = tmp_path / "c.audit"
        run_id, ids = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [ids[0]], key="q0")])
        assert main(["run", str(out), "--hedge", "2", "--no-cache"]) == 0
        with pytest.raises(SystemExit) as refused:
            main(["run", str(out), "--hedge", "200"])
    assert refused.value.code == 2
    assert "should be a percentage, 0 to 100" in capsys.readouterr().err


def test_the_window_jumps_to_what_the_limit_needs_after_the_first_answers(
    tmp_path: Path,
) -> None:
    """At 3,000/min the climb from 4 requests at once to the ~100 the limit needs cost
    the first tenth of a run a quarter of the limit. The first window's worth of
    answers gives a first answer time: the window jumps then (requests/s x seconds x
    the margin), and once more when the time is learnt; the floor waits for that."""
    limiter = RateLimiter(rpm=3000)
    runner = Runner(tmp_path / "x.audit", 1, lambda: None, limiter=limiter)  # type: ignore[arg-type,return-value]
    assert runner.window.limit == 4
    for _ in range(3):
        runner.latency.observe("yes_no", 500, 1.6)
    runner._update_floor(500)
    assert runner.window.limit == 4  # fewer answers than the first window: no time yet
    runner.latency.observe("yes_no", 500, 1.6)
    runner._update_floor(500)
    assert runner.window.limit == 100  # 50/s x 1.6 s x 1.25
    assert runner.window.floor == 0  # a rough first time does not hold the window up
    for _ in range(16):
        runner.latency.observe("yes_no", 500, 2.1)
    runner._update_floor(500)
    mean = runner.latency.mean_s()
    assert mean == pytest.approx(2.0)
    need = math.ceil(50 * mean * 1.25)  # about 125
    assert runner.window.limit == need and runner.window.floor == need
