"""Several runs at the same time, each provider's limits and the machine's shared fairly.

A comparison asks every model the same cases. One model after another, the audit
takes the sum of their times; at the same time it takes the slowest provider's.
But runs must not each believe they own a limit: two runs on one OpenAI key, each
pacing itself to the key's 500 requests/min, would send 1,000 and buy 429s. So:

- Runs that reach the same provider at the same address (hence with the same key:
  the key store keeps one key per provider and address) share **one** rate limiter
  and **one** concurrency window, as one run would use them. Within the limiter
  they take turns fairly (`SharedLimits`): when several wait, the one that has used
  the smallest share of the limit so far goes next (its dominant share: requests
  over the requests/min, or tokens over the tokens/min, whichever is larger, the
  way Dominant Resource Fairness counts). While both of two runs have work, each
  gets about half of the requests and tokens per minute; when one has none, the
  other gets all (nothing is reserved for a run that is not asking); a run that
  was idle gets no credit for it (it starts level with the others).
- Runs on this machine (the bundled model, or a self-hosted server at a loopback
  address) share one concurrency window, however many servers: they share its
  CPU. The window is the strictest of theirs (the bundled model answers one at a
  time), so two runs never put more on the machine at once than one would.
- The app's own ceiling (window.py `AUTO_CEILING` requests at once) is split
  between the windows of a group that set no ceiling of their own.

The runs keep everything else of their own: progress, answers, retries, their own
stop; each stays resumable on its own. A budget covers the group's runs together
(`RunGroup.spend`). They all work on one event loop in one thread (`RunGroup`), so
what they share needs no lock, and their writes to the one audit file never wait
on each other.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from resume_auditor.runner.events import RunStatus
from resume_auditor.runner.ratelimit import POLL_S, LimiterState, RateLimiter
from resume_auditor.runner.runner import Runner
from resume_auditor.runner.sharing import sharing_key
from resume_auditor.runner.window import AUTO_CEILING, ConcurrencyWindow

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Member:
    """One run to start in a group: where it sends and what its window alone would be."""

    run_id: int
    provider: str
    base_url: str | None
    ceiling: int  # the most at once (the user's, or AUTO_CEILING)
    adaptive: bool
    own_ceiling: bool  # the ceiling was set (by the user or for the bundled model)


def share_windows(members: Sequence[Member]) -> dict[int, ConcurrencyWindow]:
    """The concurrency window of each run: one per provider and address, one for this
    machine; the app's ceiling split between the windows that set none of their own."""
    keys: dict[int, str] = {}
    by_key: dict[str, list[Member]] = {}
    for m in members:
        key = sharing_key(m.provider, m.base_url)
        keys[m.run_id] = key
        by_key.setdefault(key, []).append(m)
    share = max(1, AUTO_CEILING // max(1, len(by_key)))
    windows: dict[str, ConcurrencyWindow] = {}
    for key, group in by_key.items():
        adaptive = all(m.adaptive for m in group)
        owned = [m.ceiling for m in group if m.own_ceiling]
        ceiling = min(owned) if owned else share
        windows[key] = ConcurrencyWindow(ceiling, adaptive=adaptive)
    return {run_id: windows[key] for run_id, key in keys.items()}


class SharedLimits:
    """One provider's rate limiter, used by several runs in fair turns.

    Every request asks its run's lane; waiting requests queue per lane, and the
    limiter lets out the head of the lane with the smallest share used so far.
    Runs on one event loop; not thread-safe (`LimiterLane.state` may be read from
    any thread).
    """

    def __init__(self, limiter: RateLimiter, *, clock: Callable[[], float] = time.monotonic):
        self.limiter = limiter
        self._clock = clock
        self.lanes: list[LimiterLane] = []
        self._timer: asyncio.TimerHandle | None = None
        self._turn = 0
        self.waiting_until = 0.0

    def lane(self, name: str) -> LimiterLane:
        lane = LimiterLane(self, name)
        self.lanes.append(lane)
        return lane

    def _share_of(self, tokens: int) -> float:
        """What one request uses of the limit: its dominant share (1 when no limit is
        known: then requests take turns one for one)."""
        rpm, tpm = self.limiter.rpm, self.limiter.tpm
        shares = []
        if rpm:
            shares.append(1.0 / rpm)
        if tpm:
            shares.append(tokens / tpm)
        return max(shares) if shares else 1.0

    def enqueue(self, lane: LimiterLane, waiter: asyncio.Future[None], tokens: int) -> None:
        if not lane.queue:
            # A run that starts asking again gets no credit for the time it asked
            # nothing: it starts level with the least served of those waiting.
            busy = [other.used for other in self.lanes if other.queue and other is not lane]
            if busy:
                lane.used = max(lane.used, min(busy))
        lane.queue.append((waiter, tokens))
        self.pump()

    def pump(self) -> None:
        """Let out every request that fits now, fairest first; look again when the next
        would fit (or within POLL_S: limits learnt meanwhile may change it)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        while True:
            for lane in self.lanes:
                while lane.queue and lane.queue[0][0].done():  # its request stopped waiting
                    lane.queue.popleft()
            waiting = [lane for lane in self.lanes if lane.queue]
            if not waiting:
                self.waiting_until = 0.0
                return
            lane = min(waiting, key=lambda ln: (ln.used, ln.last_turn))
            waiter, tokens = lane.queue[0]
            wait = self.limiter.wait_for(tokens)
            if wait > 0:
                self.waiting_until = self._clock() + wait
                loop = asyncio.get_running_loop()
                self._timer = loop.call_later(min(wait, POLL_S), self.pump)
                return
            lane.queue.popleft()
            self.limiter.take(tokens)
            lane.used += self._share_of(tokens)
            lane.granted += 1
            lane.granted_tokens += tokens
            self._turn += 1
            lane.last_turn = self._turn
            waiter.set_result(None)


class LimiterLane:
    """A run's place at a provider's shared limits (it is the run's `limiter`)."""

    def __init__(self, shared: SharedLimits, name: str) -> None:
        self.shared = shared
        self.name = name
        self.queue: deque[tuple[asyncio.Future[None], int]] = deque()
        self.used = 0.0  # the share of the limit this run has used (its virtual time)
        self.last_turn = 0
        self.granted = 0  # requests let out
        self.granted_tokens = 0
        self.waits = 0
        self.waited_s = 0.0

    # -- the provider's limits, as the run sees them --------------------------------------

    @property
    def rpm(self) -> float | None:
        return self.shared.limiter.rpm

    @property
    def tpm(self) -> float | None:
        return self.shared.limiter.tpm

    @property
    def learned_rpm(self) -> float | None:
        return self.shared.limiter.learned_rpm

    @property
    def learned_tpm(self) -> float | None:
        return self.shared.limiter.learned_tpm

    @property
    def sharing(self) -> int:
        """How many runs use these limits."""
        return len(self.shared.lanes)

    def state(self) -> LimiterState:
        whole = self.shared.limiter.state()
        waiting = max(0.0, self.shared.waiting_until - self.shared._clock()) if self.queue else 0.0
        return LimiterState(
            rpm=whole.rpm,
            tpm=whole.tpm,
            learned=whole.learned,
            waiting_s=waiting,
            waits=self.waits,
            waited_s=self.waited_s,
            cooldowns=whole.cooldowns,
        )

    def observe(self, headers: Mapping[str, str]) -> None:
        self.shared.limiter.observe(headers)

    def cool_down(self, seconds: float) -> None:
        """A 429 holds every run of the provider: the others would only be refused too."""
        self.shared.limiter.cool_down(seconds)

    async def acquire(self, tokens: int, stop: asyncio.Event | None = None) -> float:
        """Wait for this run's turn and room under the limit, then count the request;
        returns seconds waited. Returns early (without counting) if `stop` is set."""
        clock = self.shared._clock
        started = clock()
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.shared.enqueue(self, waiter, tokens)
        if not waiter.done():
            self.waits += 1
            stopper = asyncio.ensure_future(stop.wait()) if stop is not None else None
            waits: set[asyncio.Future[Any]] = {waiter}
            if stopper is not None:
                waits.add(stopper)
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                if stopper is not None:
                    stopper.cancel()
                    await asyncio.gather(stopper, return_exceptions=True)
                if not waiter.done():
                    waiter.cancel()  # it leaves the queue; the next may go
                    self.shared.pump()
        waited = max(0.0, clock() - started)
        self.waited_s += waited
        return waited


class RunGroup:
    """Several runs on one event loop in one background thread.

    Pause, resume and cancel act on every run; each run's own controls still work.
    The runs' events reach their own listeners (each runner's `on_event`), from the
    group's thread.
    """

    def __init__(self, runners: Sequence[Runner]) -> None:
        if not runners:
            raise ValueError("a group needs at least one run")
        self.runners = list(runners)
        self._thread: threading.Thread | None = None

    def spend(self) -> float:
        """What every run has spent and reserved for its requests in flight (the budget
        covers them together)."""
        return sum(r.committed() for r in self.runners)

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("this group was already started")
        self._thread = threading.Thread(target=self.run, name="audit-runner", daemon=True)
        self._thread.start()

    def run(self) -> list[RunStatus]:
        """Run every run to its end in the calling thread; their final statuses."""
        return asyncio.run(self._main())

    async def _main(self) -> list[RunStatus]:
        return list(await asyncio.gather(*(r.run_async() for r in self.runners)))

    def join(self, timeout: float | None = None) -> bool:
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def pause(self) -> None:
        for r in self.runners:
            r.pause()

    def resume(self) -> None:
        for r in self.runners:
            r.resume()

    def cancel(self, grace_s: float | None = None) -> None:
        for r in self.runners:
            with contextlib.suppress(RuntimeError):
                r.cancel(grace_s)

    def set_budget(self, budget_usd: float | None) -> None:
        for r in self.runners:
            r.set_budget(budget_usd)

    def drain_s(self) -> float:
        """How long a stop waits for the answers on their way: the longest of the runs'."""
        return max(r.drain_s() for r in self.runners)

    @property
    def final_statuses(self) -> list[RunStatus | None]:
        return [r.final_status for r in self.runners]
