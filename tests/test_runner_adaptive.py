"""How many at once is learnt (AIMD), a 429 only slows a run, identical requests go once."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest
from devtools.simulator import Fault, Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.base import ChatRequest, ErrorKind, ProviderError
from resume_auditor.providers.registry import make_provider
from resume_auditor.runner import Runner, RunState
from resume_auditor.runner.ratelimit import RateLimiter
from resume_auditor.runner.window import ConcurrencyWindow
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import provider_factory


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# -- the window, on its own ----------------------------------------------------------------


def _answer_all(window: ConcurrencyWindow) -> None:
    """Send a full window and have every request answered while it is full."""
    for _ in range(window.limit):
        window.on_send()
    for _ in range(window.limit):
        out = window.at_provider
        window.on_return()
        window.on_answer(out if out >= window.limit else window.limit)


def test_the_window_doubles_per_round_trip_until_the_provider_says_too_many() -> None:
    window = ConcurrencyWindow(256, initial=4)
    sizes = [window.limit]
    for _ in range(3):
        _answer_all(window)
        sizes.append(window.limit)
    assert sizes == [4, 8, 16, 32]
    last = window.on_send()
    window.on_return()
    window.on_rate_limited(last)
    assert window.limit == 16 and not window.slow_start
    # After slow start it grows by about one per window's worth of answers.
    _answer_all(window)
    assert window.limit == 17


def test_the_window_grows_only_while_it_is_what_holds_the_run_back() -> None:
    window = ConcurrencyWindow(256, initial=4)
    for _ in range(10):  # answers that came back with the window half empty
        window.on_send()
        window.on_return()
        window.on_answer(2)
    assert window.limit == 4


def test_429s_of_requests_sent_before_a_decrease_shrink_the_window_once() -> None:
    window = ConcurrencyWindow(256, initial=32)
    numbers = [window.on_send() for _ in range(32)]
    for n in numbers:  # a burst of 429s for one window's worth of requests
        window.on_rate_limited(n)
    assert window.limit == 16 and window.decreases == 1
    later = window.on_send()
    window.on_rate_limited(later)  # sent after the decrease: it counts
    assert window.limit == 8 and window.decreases == 2


def test_the_users_concurrency_is_a_ceiling_and_a_fixed_window_stays() -> None:
    capped = ConcurrencyWindow(6, initial=4)
    for _ in range(5):
        _answer_all(capped)
    assert capped.limit == 6
    fixed = ConcurrencyWindow(3, adaptive=False)
    _answer_all(fixed)
    fixed.on_rate_limited(fixed.on_send())
    assert fixed.limit == 3


def test_a_freed_slot_wakes_one_waiter() -> None:
    async def go() -> list[int]:
        window = ConcurrencyWindow(1, adaptive=False)
        await window.acquire()
        order: list[int] = []

        async def wait(i: int) -> None:
            await window.acquire()
            order.append(i)

        tasks = [asyncio.create_task(wait(i)) for i in range(2)]
        await asyncio.sleep(0)
        assert order == []
        window.release()
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert order == [0]
        window.release()
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(go()) == [0, 1]


# -- the limiter and the simulated provider's bucket ---------------------------------------------


def test_an_exhausted_bucket_holds_for_one_requests_worth_not_the_full_reset() -> None:
    clock = FakeClock()
    limiter = RateLimiter(clock=clock)
    limiter.observe(
        {
            "x-ratelimit-limit-requests": "600",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "59.9s",  # until the whole bucket is full
        }
    )
    assert limiter.wait_for(1) == pytest.approx(0.1)
    assert limiter.exhausted == 1


def test_the_simulators_token_bucket_refills_evenly_and_says_what_is_left() -> None:
    clock = FakeClock()
    with Simulator(rpm=3, bucket=True, clock=clock) as sim:
        provider = make_provider("openai", base_url=sim.base_url, api_key="k" * 12)

        async def send(n: int) -> list[object]:
            out: list[object] = []
            for _ in range(n):
                try:
                    out.append(await provider.chat(ChatRequest("m", "", "hello", max_tokens=5)))
                except ProviderError as exc:
                    out.append(exc)
            return out

        async def go() -> tuple[list[object], list[object]]:
            first = await send(4)
            clock.now += 20.0  # one request's worth at 3/min
            second = await send(2)
            await provider.aclose()
            return first, second

        first, second = asyncio.run(go())
        headers = sim.limit_headers("openai")
    assert [isinstance(r, ProviderError) for r in first] == [False, False, False, True]
    limited = first[3]
    assert isinstance(limited, ProviderError) and limited.kind is ErrorKind.RATE_LIMIT
    assert limited.retry_after_s == pytest.approx(20.0, abs=1.0)
    assert [isinstance(r, ProviderError) for r in second] == [False, True]
    assert headers["x-ratelimit-remaining-requests"] == "0"
    assert float(headers["x-ratelimit-reset-requests"].rstrip("s")) == pytest.approx(60.0)


# -- the runner -------------------------------------------------------------------------------


def _runner(
    out: Path, run_id: int, model: ModelSpec, use_cache: bool = False, **kwargs: object
) -> Runner:
    limiter = RateLimiter()
    return Runner(
        out,
        run_id,
        provider_factory(model, on_headers=limiter.observe),
        limiter=limiter,
        use_cache=use_cache,
        **kwargs,  # type: ignore[arg-type]
    )


def test_429s_slow_a_run_down_but_never_use_up_its_retries(tmp_path: Path) -> None:
    out = tmp_path / "r.audit"
    with Simulator(policy=kind_policy) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        run_id, ids = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [ids[i % 3]], rep=i) for i in range(12)])
        sim.inject(*[Fault(kind="rate_limit", retry_after_s=0.05) for _ in range(8)])
        runner = _runner(out, run_id, model, concurrency=64, max_retries=0)
        status = runner.run()
        assert sim.rate_limited == 8
    assert status.state is RunState.FINISHED
    assert status.done == 12 and status.failed == 0
    assert runner.window.decreases >= 1 and runner.limiter.state().cooldowns == 8
    with ResultFile(out) as rf:
        assert rf.progress(run_id).pending == 0


def test_identical_requests_are_sent_once_and_the_answer_shared(tmp_path: Path) -> None:
    out = tmp_path / "s.audit"
    with Simulator(policy=kind_policy, latency_s=0.05) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        run_id, ids = new_audit(out, model)
        base = [spec(model, "d3-yes-no", [ids[i]], key=f"d3:{i}") for i in range(3)]
        # D2 asks the very same thing about the same texts, under other keys...
        twins = [replace(s, ukey=f"d2:{i}", cell="other") for i, s in enumerate(base)]
        # ...and a second sample of the first is another request, sent on its own.
        sample = replace(base[0], ukey="d3:0", rep=1)
        queue(out, run_id, [*base, *twins, sample])
        # (with the cache on: --no-cache asks identical prompts each time, issue 25; this
        # test's data folder is its own, so nothing is answered from an earlier run)
        status = _runner(out, run_id, model, use_cache=True, concurrency=8).run()
        assert sim.received == 4
        assert sorted(sim.paid.values()) == [1, 1, 2]  # the sample is paid as a sample
    assert status.state is RunState.FINISHED and status.done == 7 and status.shared == 3
    with ResultFile(out) as rf:
        answers = rf.answers(run_id).set_index("ukey")
        by_key = {(k, r["rep"]): r for k, r in answers.iterrows()}
        for i in range(3):
            paid, shared = by_key[(f"d3:{i}", 0)], by_key[(f"d2:{i}", 0)]
            assert {paid["source"], shared["source"]} == {"api", "cache"}
            assert paid["label"] == shared["label"]
            free = shared if shared["source"] == "cache" else paid
            other = paid if free is shared else shared
            assert free["cost_usd"] == 0 and free["parsed"]["shared_with"] == other["request_id"]
        assert by_key[("d3:0", 1)]["source"] == "api"
        assert rf.progress(run_id).cache_hits == 3


def test_a_failure_of_the_request_sent_is_the_failure_of_its_twins(tmp_path: Path) -> None:
    out = tmp_path / "f.audit"
    with Simulator(policy=kind_policy, latency_s=0.05) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        run_id, ids = new_audit(out, model)
        one = spec(model, "d3-yes-no", [ids[0]], key="a")
        queue(out, run_id, [one, replace(one, ukey="b")])
        sim.inject(Fault(kind="context"))  # prompt too long: no retry can help
        status = _runner(out, run_id, model, use_cache=True, concurrency=8).run()
        assert sim.received == 1
    assert status.failed == 2 and status.done == 0
    with ResultFile(out) as rf:
        kinds = sorted(kind for _, kind, _ in rf.failures(run_id))
    assert kinds == ["context", "context"]


def test_smooth_pacing_spreads_a_minutes_allowance_over_the_minute() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rpm=600, tpm=None, clock=clock, smooth=True)
    burst = 0
    while limiter.wait_for(1) == 0:
        limiter.take(1)
        burst += 1
    assert burst == 9  # a second's worth at 98% of 10/s, not the minute's 588
    sent, start = burst, clock.now
    while clock.now - start < 60.0:
        wait = limiter.wait_for(1)
        if wait > 0:
            clock.now += wait
            continue
        limiter.take(1)
        sent += 1
    assert 588 <= sent <= 588 + burst + 1


def test_smooth_pacing_of_tokens_waits_for_a_big_requests_share() -> None:
    clock = FakeClock()
    limiter = RateLimiter(tpm=6000, clock=clock, smooth=True)
    assert limiter.wait_for(3000) == 0
    limiter.take(3000)  # half a minute's allowance
    assert limiter.wait_for(100) == pytest.approx(3000 * 60 / (6000 * 0.98) - 1.0)


def test_a_request_waiting_to_retry_is_not_left_marked_sent(tmp_path: Path) -> None:
    """After a stop (or a crash) only requests at the provider show as sent."""
    out = tmp_path / "w.audit"
    with Simulator(policy=kind_policy) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        run_id, ids = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [ids[0]])])
        sim.inject(Fault(500, headers={"retry-after": "30"}))
        runner = _runner(out, run_id, model)
        runner.start()
        deadline = time.monotonic() + 20
        while sim.received < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        while "retry" not in runner.status().message and time.monotonic() < deadline:
            time.sleep(0.01)
        runner.cancel()
        assert runner.join(10)
    with ResultFile(out) as rf:
        (req,) = rf.open_requests(run_id)
    assert req.status == "pending" and req.attempts == 1


def test_a_stopped_run_keeps_saying_why_it_stopped(tmp_path: Path) -> None:
    out = tmp_path / "q.audit"
    with Simulator(policy=kind_policy) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        run_id, ids = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [ids[0]], rep=i) for i in range(2)])
        # One is told the account is out of credit; the other fails later, while the
        # run stops: the message must still name the credit, the thing to fix.
        sim.inject(Fault(kind="quota"), Fault(500, delay_s=0.3))
        status = _runner(out, run_id, model, concurrency=2).run()
    with ResultFile(out) as rf:
        causes = {kind: message for _, kind, message in rf.failures(run_id)}
    assert status.state is RunState.STOPPED
    assert set(causes) == {"quota", "server"}
    assert status.message == causes["quota"]
