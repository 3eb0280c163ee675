"""Several runs at the same time (runner/group.py), over HTTP against loopback simulators.

Three simulated providers on their own ports (an OpenAI-style one with two models on
one key, an Anthropic-style one, a self-hosted server on this machine), each with its
own requests/min limit counted on a clock running 60 times fast (a minute in a
second; the simulators count their limit on the same clock): every run finishes, every
request is answered once, no provider ever refuses one for its limit, two models of
one provider take turns, a fault at one provider does not hold the others, a stop
leaves every run resumable, and the machine's window holds for two runs of one local
server.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from devtools.simulator import Fault, Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.runner import RunState, limits_memory
from resume_auditor.runner.group import Member, share_windows
from resume_auditor.runner.sharing import MACHINE, on_this_machine, provider_key, sharing_key
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import make_group

SPEED = 60.0  # the test clock runs this many times faster than real time


def fast() -> float:
    return time.monotonic() * SPEED


class Recording:
    """A policy that notes (test-clock time, model) of every answer it gives."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.seen: list[tuple[float, str]] = []
        self.lock = threading.Lock()
        self.delay_s = delay_s
        self.at_once = 0
        self.most_at_once = 0

    def __call__(self, body: dict[str, Any]) -> str:
        with self.lock:
            self.seen.append((fast(), str(body.get("model"))))
            self.at_once += 1
            self.most_at_once = max(self.most_at_once, self.at_once)
        try:
            if self.delay_s:
                time.sleep(self.delay_s)
            return kind_policy(body)
        finally:
            with self.lock:
                self.at_once -= 1

    def models(self) -> list[str]:
        with self.lock:
            return [m for _t, m in self.seen]

    def most_in_a_minute(self) -> int:
        """The most answers in any 60 s of the test clock."""
        times = sorted(t for t, _m in self.seen)
        most, start = 0, 0
        for end, t in enumerate(times):
            while t - times[start] >= 60.0:
                start += 1
            most = max(most, end - start + 1)
        return most


def _specs(model: ModelSpec, n: int) -> list[Any]:
    return [spec(model, "d3-yes-no", [1 + i % 3], rep=i, key=f"q{i}") for i in range(n)]


def _audit(path: Path, models: list[ModelSpec], per_run: int) -> list[int]:
    """One audit with a run per model, each with the same `per_run` requests."""
    first, ids = new_audit(path, models[0])
    del ids
    run_ids = [first]
    with ResultFile(path) as rf:
        for m in models[1:]:
            run_ids.append(rf.add_run(m.provider, m.base_url, m.model, "d3-yes-no", {"t": 0}))
    for run_id, m in zip(run_ids, models, strict=True):
        queue(path, run_id, _specs(m, per_run))
    return run_ids


@contextmanager
def _providers(
    monkeypatch: pytest.MonkeyPatch, rpm_a: int = 40, rpm_b: int = 30, rpm_c: int = 50
) -> Iterator[tuple[Simulator, Simulator, Simulator, Recording, Recording, Recording]]:
    """Three simulated providers with their own limits, on the fast clock."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-a")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-b")
    pa, pb, pc = Recording(), Recording(), Recording()
    with ExitStack() as stack:
        a = stack.enter_context(Simulator(pa, models=("gpt-a", "gpt-b"), rpm=rpm_a, clock=fast))
        b = stack.enter_context(Simulator(pb, models=("claude-c",), rpm=rpm_b, clock=fast))
        c = stack.enter_context(Simulator(pc, models=("llama-d",), rpm=rpm_c, clock=fast))
        yield a, b, c, pa, pb, pc


def _models(a: Simulator, b: Simulator, c: Simulator) -> list[ModelSpec]:
    return [
        ModelSpec(provider="openai", base_url=a.base_url, model="gpt-a"),
        ModelSpec(provider="openai", base_url=a.base_url, model="gpt-b"),
        ModelSpec(provider="anthropic", base_url=b.base_url, model="claude-c"),
        ModelSpec(provider="openai-compatible", base_url=c.base_url, model="llama-d"),
    ]


def _remember_limits(models: list[ModelSpec], rpms: dict[str, int]) -> None:
    """What each provider said last time (its headers teach it again during the run)."""
    for m in models:
        limits_memory.remember(m.provider, m.base_url or "", m.model, rpms[m.model], None)


def _done(path: Path, run_ids: list[int]) -> dict[int, tuple[int, int]]:
    with ResultFile(path, readonly=True) as rf:
        return {r: (rf.progress(r).done, rf.progress(r).total) for r in run_ids}


def test_which_runs_share_what() -> None:
    assert on_this_machine("local", None)
    assert on_this_machine("openai-compatible", "http://127.0.0.1:11434/v1")
    assert on_this_machine("openai-compatible", "http://localhost:8080")
    assert not on_this_machine("openai-compatible", "https://gpu.example.org/v1")
    assert not on_this_machine("openai", "http://127.0.0.1:9999")  # a proxy, not this CPU
    assert provider_key("openai", "https://API.openai.com/v1/") == provider_key(
        "openai", "https://api.openai.com/v1"
    )
    members = [
        Member(1, "openai", None, 256, True, False),
        Member(2, "openai", None, 256, True, False),
        Member(3, "anthropic", None, 256, True, False),
        Member(4, "local", None, 1, False, True),
        Member(5, "openai-compatible", "http://127.0.0.1:8080", 256, True, False),
    ]
    windows = share_windows(members)
    assert windows[1] is windows[2] and windows[1] is not windows[3]
    assert windows[4] is windows[5]  # one machine, one window: the bundled model's one
    assert windows[4].ceiling == 1 and not windows[4].adaptive
    assert windows[1].ceiling == 256 // 3  # the app's ceiling split between the windows
    assert sharing_key("local", None) == MACHINE


def test_three_providers_at_once_each_within_its_limit_two_models_in_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rpms = {"gpt-a": 40, "gpt-b": 40, "claude-c": 30, "llama-d": 50}
    per_run = 30
    with _providers(monkeypatch) as (a, b, c, pa, pb, pc):
        models = _models(a, b, c)
        _remember_limits(models, rpms)
        out = tmp_path / "g.audit"
        run_ids = _audit(out, models, per_run)
        group = make_group(out, run_ids, clock=fast, use_cache=False)
        statuses = group.run()
        refused = (a.rate_limited, b.rate_limited, c.rate_limited)
        received = (a.received, b.received, c.received)
    assert [s.state for s in statuses] == [RunState.FINISHED] * 4
    assert _done(out, run_ids) == {r: (per_run, per_run) for r in run_ids}
    assert refused == (0, 0, 0)  # each provider's limit held, the two models' together
    assert received == (2 * per_run, per_run, per_run)  # every request sent once
    assert pa.most_in_a_minute() <= 40 and pb.most_in_a_minute() <= 30
    assert pc.most_in_a_minute() <= 50
    # Two models of one provider take turns while both have work.
    order = pa.models()
    last_b = max(i for i, m in enumerate(order) if m == "gpt-b")
    last_a = max(i for i, m in enumerate(order) if m == "gpt-a")
    both = order[: min(last_a, last_b) + 1]
    counts = Counter(both)
    assert abs(counts["gpt-a"] - counts["gpt-b"]) <= 3, counts
    for i in range(0, len(both) - 10, 10):  # and at every moment, not just in all
        window = Counter(both[: i + 10])
        assert abs(window["gpt-a"] - window["gpt-b"]) <= 3, (i, window)


def test_the_app_learns_a_shared_limit_from_the_headers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing remembered: the first answers' headers teach the limit to both models."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-a")
    rec = Recording()
    with Simulator(rec, models=("gpt-a", "gpt-b"), rpm=20, clock=fast) as a:
        models = [
            ModelSpec(provider="openai", base_url=a.base_url, model=name)
            for name in ("gpt-a", "gpt-b")
        ]
        out = tmp_path / "l.audit"
        run_ids = _audit(out, models, 25)
        group = make_group(out, run_ids, clock=fast, use_cache=False, concurrency=1)
        statuses = group.run()
        refused = a.rate_limited
    assert [s.state for s in statuses] == [RunState.FINISHED] * 2
    assert _done(out, run_ids) == {r: (25, 25) for r in run_ids}
    assert refused == 0
    assert all(s.rpm_limit == 20 for s in statuses)


def _wait_for(condition: Callable[[], bool], most_s: float = 60.0) -> None:
    deadline = time.monotonic() + most_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the condition never came")
        time.sleep(0.05)


def test_a_fault_at_one_provider_holds_only_it_and_a_stop_leaves_each_run_resumable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rpms = {"gpt-a": 40, "gpt-b": 40, "claude-c": 30, "llama-d": 50}
    per_run = 12
    with _providers(monkeypatch) as (a, b, c, _pa, pb, _pc):
        models = _models(a, b, c)
        _remember_limits(models, rpms)
        out = tmp_path / "f.audit"
        run_ids = _audit(out, models, per_run)
        # The Anthropic-style provider refuses with an hour's wait (a minute in real time);
        # the local server drops a connection.
        b.inject(Fault(kind="rate_limit", retry_after_s=3600.0))
        c.inject(Fault(kind="drop"))
        group = make_group(out, run_ids, clock=fast, use_cache=False)
        by_run = dict(zip(run_ids, group.runners, strict=True))
        group.start()
        others = [run_ids[0], run_ids[1], run_ids[3]]
        _wait_for(lambda: all(by_run[r].final_status is not None for r in others))
        assert by_run[run_ids[2]].final_status is None  # still cooling down
        assert [by_run[r].final_status.state for r in others] == [RunState.FINISHED] * 3  # type: ignore[union-attr]
        group.cancel(grace_s=0.2)
        assert group.join(30)
        held = by_run[run_ids[2]].final_status
        assert held is not None and held.state is RunState.CANCELLED
        assert "resume" in held.message
        progress = _done(out, run_ids)
        assert progress[run_ids[2]][0] < per_run
        assert all(progress[r] == (per_run, per_run) for r in others)
        # Later: the stopped run is resumed on its own and completes; nothing answered
        # is asked again.
        before = b.received
        again = make_group(out, run_ids, clock=fast, use_cache=False)
        statuses = again.run()
        assert b.received - before == per_run - progress[run_ids[2]][0]
    assert [s.state for s in statuses] == [RunState.FINISHED] * 4
    assert _done(out, run_ids) == {r: (per_run, per_run) for r in run_ids}
    assert len(pb.seen) == per_run  # every one answered once


def test_two_runs_of_one_local_server_share_the_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CPU-bound server set to two at once gets two at once from both runs together."""
    rec = Recording(delay_s=0.02)
    with Simulator(rec, models=("llama-a", "llama-b")) as server:
        models = [
            ModelSpec(provider="openai-compatible", base_url=server.base_url, model=name)
            for name in ("llama-a", "llama-b")
        ]
        out = tmp_path / "m.audit"
        run_ids = _audit(out, models, 20)
        statuses = make_group(out, run_ids, concurrency=2, use_cache=False).run()
    assert [s.state for s in statuses] == [RunState.FINISHED] * 2
    assert _done(out, run_ids) == {r: (20, 20) for r in run_ids}
    assert rec.most_at_once <= 2
    assert Counter(rec.models()) == {"llama-a": 20, "llama-b": 20}


def test_a_budget_covers_every_run_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two priced models, a budget smaller than both would spend: together they stop
    under it (each alone would have spent up to the whole budget)."""
    from resume_auditor.runner.prices import Price, PriceTable

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-a")
    rec = Recording()
    with Simulator(rec, models=("gpt-4o-mini", "gpt-4o")) as a:
        models = [
            ModelSpec(provider="openai", base_url=a.base_url, model=name)
            for name in ("gpt-4o-mini", "gpt-4o")
        ]
        out = tmp_path / "b.audit"
        run_ids = _audit(out, models, 40)
        dear = Price(125.0, 125.0, 125.0)  # dollars per million tokens: ~2 cents a request
        prices = PriceTable({"openai": {"gpt-4o-mini": dear, "gpt-4o": dear}}, {"openai": 0.5})
        group = make_group(
            out, run_ids, use_cache=False, budget_usd=1.0, prices=prices, concurrency=2
        )
        group.start()

        def all_paused() -> bool:
            return all(
                r.final_status is not None
                or (r.status().budget_reached and r.status().in_flight == 0)
                for r in group.runners
            )

        _wait_for(all_paused)
        spent = group.spend()
        group.cancel()
        assert group.join(30)
    assert 0 < spent <= 1.0, [(s.state, s.message) for s in group.final_statuses if s]
    finals = [s for s in group.final_statuses if s is not None]
    assert sum(s.cost_usd or 0.0 for s in finals) <= 1.0
    done = [s.done for s in finals]
    assert sum(done) < 80 and min(done) > 0  # the budget held both, and both were asked
    assert all(s.cost_usd is not None and s.cost_usd < 1.0 for s in finals)


def test_runs_sharing_a_window_each_get_their_share() -> None:
    """Max-min fair slots: a run at its share waits while another still sending is
    below its own, even with a slot free; once the other has sent everything once, the
    first may use the whole window."""
    import asyncio

    from resume_auditor.runner.window import ConcurrencyWindow

    async def go() -> None:
        window = ConcurrencyWindow(4, adaptive=False)
        a, b = object(), object()
        window.join(a)
        window.join(b)
        assert window.try_take(a) and window.try_take(a)
        assert not window.try_take(a)  # at its share (2 of 4) while b sends
        waiting = asyncio.ensure_future(window.acquire(a))
        await asyncio.sleep(0)
        assert not waiting.done()  # the free slots are kept for b
        assert window.try_take(b) is False  # someone waits: b queues too, and goes first
        b_turn = asyncio.ensure_future(window.acquire(b))
        await asyncio.sleep(0)
        assert b_turn.done() and not waiting.done()
        window.leave(b)  # b has sent everything once: a may use the rest
        await asyncio.sleep(0)
        assert waiting.done() and window.in_use == 4
        window.release(a)
        window.release(b)
        assert window.try_take(a)

    asyncio.run(go())


def test_a_paused_run_leaves_its_share_to_the_others_until_it_goes_on() -> None:
    """Of two runs sharing a window, the one the user pauses (or its budget holds) asks
    for nothing meanwhile: the other may use every slot, and the shares are even again
    once the first goes on."""
    import asyncio

    from resume_auditor.runner.window import ConcurrencyWindow

    async def go() -> None:
        window = ConcurrencyWindow(4, adaptive=False)
        a, b = object(), object()
        window.join(a)
        window.join(b)
        assert window.try_take(b) and window.try_take(b)
        assert not window.try_take(b)  # at its share while a asks
        waiting = asyncio.ensure_future(window.acquire(b))
        await asyncio.sleep(0)
        assert not waiting.done()
        window.step_aside(a, True)  # a paused
        await asyncio.sleep(0)
        assert waiting.done() and window.try_take(b) and window.in_use == 4
        window.step_aside(a, False)  # a goes on: b, over its share, lets a's slots come back
        for _ in range(2):
            window.release(b)
        assert not window.try_take(b)  # b holds 2, its share again
        assert window.try_take(a) and window.try_take(a)

    asyncio.run(go())


def test_one_run_alone_keeps_the_plain_window() -> None:
    import asyncio

    from resume_auditor.runner.window import ConcurrencyWindow

    async def go() -> None:
        window = ConcurrencyWindow(3, adaptive=False)
        owner = object()
        window.join(owner)
        assert all(window.try_take(owner) for _ in range(3))
        assert not window.try_take(owner)

    asyncio.run(go())


def test_the_page_adds_the_runs_up() -> None:
    """The Run page's one progress line for several runs: counts and spend added, the
    state the liveliest, a spend unknown if one run's is."""
    from resume_auditor.runner import RunStatus
    from resume_auditor.ui.run_controller import combined_status

    def status(state: RunState, done: int, cost: float | None) -> RunStatus:
        return RunStatus(state, 176, done, 1, 0, 2, 10, 5, 3.0, 9.0, cost_usd=cost)

    both = combined_status(
        [status(RunState.FINISHED, 176, 0.5), status(RunState.RUNNING, 40, 0.25)]
    )
    assert both is not None
    assert (both.state, both.total, both.done, both.failed, both.invalid) == (
        RunState.RUNNING,
        352,
        216,
        2,
        4,
    )
    assert both.cost_usd == 0.75 and both.eta_s == 9.0
    ended = combined_status(
        [status(RunState.FINISHED, 176, 0.5), status(RunState.CANCELLED, 40, None)]
    )
    assert ended is not None and ended.state is RunState.CANCELLED and ended.cost_usd is None
    assert combined_status([]) is None
