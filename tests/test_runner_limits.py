"""Requests/min and tokens/min: kept ahead of time, learnt from headers, honoured on 429."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from devtools.simulator import Fault, Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.runner import Runner, RunState, limits_memory
from resume_auditor.runner.ratelimit import RateLimiter, read_headers
from resume_auditor.workflow.execute import provider_factory


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_sliding_minute_under_a_safety_share_of_the_limit() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rpm=100, clock=clock)
    for _ in range(98):  # 98% of 100
        assert limiter.wait_for(10) == 0
        limiter.take(10)
    assert limiter.wait_for(10) == pytest.approx(60.0)
    clock.now += 30
    assert limiter.wait_for(10) == pytest.approx(30.0)
    clock.now += 30
    assert limiter.wait_for(10) == 0


def test_tokens_per_minute_and_a_single_request_above_the_limit() -> None:
    clock = FakeClock()
    limiter = RateLimiter(tpm=1000, clock=clock)
    assert limiter.wait_for(5000) == 0  # alone in the window it must be allowed to go
    limiter.take(5000)
    clock.now += 10
    assert limiter.wait_for(100) == pytest.approx(50.0)
    clock.now += 50
    limiter.take(600)
    assert limiter.wait_for(300) == 0
    assert limiter.wait_for(500) == pytest.approx(60.0)


def test_a_cool_down_holds_everyone() -> None:
    clock = FakeClock()
    limiter = RateLimiter(clock=clock)
    limiter.cool_down(7.5)
    assert limiter.wait_for(1) == pytest.approx(7.5)
    assert limiter.state().cooldowns == 1


@pytest.mark.parametrize(
    ("headers", "rpm", "tpm"),
    [
        (
            {
                "x-ratelimit-limit-requests": "500",
                "x-ratelimit-remaining-requests": "499",
                "x-ratelimit-reset-requests": "120ms",
                "x-ratelimit-limit-tokens": "200000",
                "x-ratelimit-remaining-tokens": "199000",
                "x-ratelimit-reset-tokens": "6m0s",  # a slower window: not per minute
            },
            500.0,
            None,
        ),
        (
            {
                "anthropic-ratelimit-requests-limit": "50",
                "anthropic-ratelimit-requests-remaining": "49",
                "anthropic-ratelimit-requests-reset": "2026-11-22T12:00:01Z",
                "anthropic-ratelimit-input-tokens-limit": "30000",
                "anthropic-ratelimit-input-tokens-remaining": "29000",
                "anthropic-ratelimit-input-tokens-reset": "2026-11-22T12:00:02Z",
            },
            50.0,
            30000.0,
        ),
    ],
)
def test_limits_are_learnt_from_each_vendors_headers(
    headers: dict[str, str], rpm: float, tpm: float | None
) -> None:
    now = 1795694400.0  # 2026-11-22T12:00:00Z
    info = read_headers(headers, now_epoch=now)
    assert info.requests_limit == int(rpm)
    limiter = RateLimiter(rpm=1000)
    limiter.observe(headers)
    assert limiter.rpm == rpm  # the lower of the configured and the learnt limit
    if tpm is not None:
        assert limiter.tpm == tpm


def test_an_exhausted_remaining_count_holds_until_the_reset() -> None:
    clock = FakeClock()
    limiter = RateLimiter(clock=clock)
    limiter.observe({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1.5s"})
    assert limiter.wait_for(1) == pytest.approx(1.5)
    assert limiter.rpm is None  # no limit header: nothing learnt


def test_acquire_returns_at_once_when_stopped() -> None:
    limiter = RateLimiter(rpm=1)
    limiter.take(1)

    async def go() -> float:
        stop = asyncio.Event()
        stop.set()
        return await limiter.acquire(1, stop)

    started = time.monotonic()
    asyncio.run(go())
    assert time.monotonic() - started < 0.5


def test_the_runner_learns_the_limit_from_headers_and_is_never_refused(tmp_path: Path) -> None:
    """40 requests against 12/min on a clock running 60x: no 429 once the limit is known."""
    fast = lambda: time.monotonic() * 60  # noqa: E731 - a minute passes in one second
    out = tmp_path / "l.audit"
    with Simulator(policy=kind_policy, rpm=12, clock=fast) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        run_id, ids = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [ids[i % 3]], rep=i) for i in range(40)])
        limiter = RateLimiter(clock=fast)
        runner = Runner(
            out,
            run_id,
            provider_factory(model, on_headers=limiter.observe),
            concurrency=1,
            limiter=limiter,
            use_cache=False,
        )
        status = runner.run()
        assert sim.rate_limited == 0
    assert status.state is RunState.FINISHED and status.done == 40
    assert status.rpm_limit == 12 and status.rate_limit_waits > 0
    assert limits_memory.recall("openai-compatible", sim.base_url, "sim-model")[0] == 12


def test_a_429_cools_the_whole_run_down_and_is_retried(tmp_path: Path) -> None:
    out = tmp_path / "c.audit"
    answered_at: list[float] = []

    def timed(body: dict[str, object]) -> str:
        answered_at.append(time.monotonic())
        return kind_policy(body)  # type: ignore[arg-type]

    with Simulator(policy=timed) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        run_id, ids = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [ids[i % 3]], rep=i) for i in range(6)])
        sim.inject(Fault(kind="rate_limit", retry_after_s=0.6))
        limiter = RateLimiter()
        runner = Runner(
            out,
            run_id,
            provider_factory(model, on_headers=limiter.observe),
            concurrency=3,
            limiter=limiter,
            use_cache=False,
        )
        started = time.monotonic()
        status = runner.run()
        assert sim.rate_limited == 1
    assert status.state is RunState.FINISHED and status.done == 6 and status.failed == 0
    assert limiter.state().cooldowns == 1
    # Nobody was sent during the cool-down: the answers after the first ones came late.
    late = [t - started for t in answered_at if t - started > 0.3]
    assert len(late) >= 4 and min(late) >= 0.55
