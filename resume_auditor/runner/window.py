"""How many requests may be at the provider at once: learnt, not guessed (AIMD).

A fixed number in flight is wrong for almost everyone: two at once leaves most
of a paid rate limit unused, sixty-four at once on a small account only buys
429s. The window starts small and grows while it is what holds the run back —
by one per answer at first (slow start), then by one per window's worth of
answers — and halves when the provider says "too many" (a 429), at most once
per window's worth of requests, as TCP does with a lost packet (an exhausted
`remaining` count in the headers holds requests in the rate limiter instead).
The rate limiter (ratelimit.py) paces requests to the requests/min and
tokens/min it has learnt; while it is the one holding requests back, the window
does not grow: more in flight would only wait longer there.

When the rate limit and the model's answer time are known, a 429 does not
shrink the window below what they need: the requests the limit lets through per
second times the seconds an answer takes (Little's law), with a margin
(`set_floor`, from the runner). The pace already keeps the run under the limit,
so a 429 from a burst (a bucket that refills differently from the app's count)
must not cut the window below what the limit needs: at 3,000/min one 429 used
to halve a window of ~150 to ~75, and it took minutes to climb back by one per
window's worth of answers. Once, when that need is first known, the window also
jumps to it (`jump_to`) instead of climbing there one answer at a time.

A user's concurrency is a ceiling, never a starting point; `adaptive=False`
keeps the window at that number (a local model serves one request at a time
whatever the window says, and a bigger queue there only means timeouts).

Runs on the runner's event loop; not thread-safe (`limit` may be read from any
thread for a status snapshot).
"""

from __future__ import annotations

import asyncio
import logging

logger = logging.getLogger(__name__)

AUTO_CEILING = 256  # requests at once when the user sets no ceiling
# The bundled model's server computes one answer at a time; two at once made the quick
# demo slower (210 s against 110-135 s for 21 answers, benchmarks/quick_demo.py), as
# the two prompts take turns in its cache. So one at a time, unless the user says.
LOCAL_CONCURRENCY = 1
INITIAL = 4  # where an adaptive window starts
DECREASE = 0.5  # the window's share kept after a 429


class ConcurrencyWindow:
    """A semaphore whose size follows the provider's answers (additive increase,
    multiplicative decrease)."""

    def __init__(
        self, ceiling: int = AUTO_CEILING, *, adaptive: bool = True, initial: int = INITIAL
    ) -> None:
        self.ceiling = max(1, int(ceiling))
        self.adaptive = adaptive
        self._cwnd = float(min(self.ceiling, max(1, initial)) if adaptive else self.ceiling)
        self.slow_start = adaptive
        self.in_use = 0  # slots taken (waiting for the rate limiter or at the provider)
        self.at_provider = 0  # of those, requests sent and not yet answered
        self.sent = 0  # requests sent so far (numbers each send, for `decrease`)
        self._recover_until = 0  # sends before this number cannot shrink the window again
        self.decreases = 0
        self.floor = 0  # requests the known rate limit and answer time need (set_floor)
        self.peak = self.limit
        self._waiters: list[tuple[asyncio.Future[None], object]] = []
        # runs sharing the window (group.py): the slots each holds, and those whose
        # first sends are all out
        self._owners: dict[object, int] = {}
        self._left: set[object] = set()
        self._away: set[object] = set()  # runs paused meanwhile (`step_aside`)

    @property
    def limit(self) -> int:
        """Requests allowed at once now."""
        return max(1, min(self.ceiling, int(self._cwnd + 1e-9)))  # 16.999... is 17

    def set_floor(self, floor: int) -> None:
        """A 429 never shrinks the window below this (ignored when not adaptive).

        It does not grow the window: growth stays with the answers (a client short of
        CPU measures slower answers, and a floor that grew the window with them would
        only add to the load)."""
        if self.adaptive:
            self.floor = max(0, min(self.ceiling, int(floor)))

    def jump_to(self, size: int) -> None:
        """Grow at once to `size` (never above the ceiling): the runner does it once, when
        the rate limit and the first answers' time say how many the limit needs, instead
        of climbing there one answer at a time."""
        if not self.adaptive:
            return
        # The order of magnitude is known now: from here the window grows by one per
        # window's worth of answers, not by one per answer (slow start is over).
        self.slow_start = False
        if self._cwnd < size:
            self._cwnd = float(min(self.ceiling, size))
            self.peak = max(self.peak, self.limit)
            self._wake()

    # -- slots -------------------------------------------------------------------------

    # -- runs sharing the window (group.py) ---------------------------------------------

    def join(self, owner: object) -> None:
        """A run starts sending through this window: it gets its share while it asks."""
        self._owners.setdefault(owner, 0)

    def leave(self, owner: object) -> None:
        """A run has nothing more to send for the first time: the others may use its share
        (the slots it still holds come back through `release`)."""
        self._left.add(owner)
        self._wake()

    def step_aside(self, owner: object, away: bool) -> None:
        """A run paused (by the user or its budget) asks for nothing until it goes on:
        meanwhile its share goes to the others, as `leave`'s does, and it is theirs
        again when it comes back."""
        if away:
            self._away.add(owner)
            self._wake()
        else:
            self._away.discard(owner)

    def _asking(self, owner: object) -> bool:
        return owner not in self._left and owner not in self._away

    def _share(self) -> int:
        """The slots each run asking may hold while another run also asks (max-min fair)."""
        asking = [o for o in self._owners if self._asking(o)]
        return max(1, -(-self.limit // max(1, len(asking))))

    def _over_share(self, owner: object) -> bool:
        if owner is None or len(self._owners) < 2:
            return False
        others = [o for o in self._owners if o is not owner and self._asking(o)]
        return bool(others) and self._owners.get(owner, 0) >= self._share()

    def _deprived(self) -> bool:
        """A run still asking holds less than its share (it is between two requests)."""
        if len(self._owners) < 2:
            return False
        share = self._share()
        return any(n < share for o, n in self._owners.items() if self._asking(o))

    def _count(self, owner: object, step: int) -> None:
        self.in_use = max(0, self.in_use + step)
        if owner is not None and owner in self._owners:
            self._owners[owner] = max(0, self._owners[owner] + step)

    def try_take(self, owner: object = None) -> bool:
        """Take a free slot now if there is one, nobody is waiting for it, and (runs
        sharing the window) this run holds less than its share."""
        if self.in_use < self.limit and not self._waiters and not self._over_share(owner):
            self._count(owner, 1)
            return True
        return False

    async def acquire(self, owner: object = None) -> None:
        """Wait for a free slot (cancel the task to stop waiting).

        Slots go to the waiters in the order they came, handed over as they free up:
        a caller that did not wait cannot take one first. When runs share the window
        (a provider's, group.py), a run below its share goes before one above it, and
        a free slot is kept for a run below its share that is still sending, so a run
        whose loop comes back quicker cannot take the others' turns; once every run
        has its share (or has sent everything once), the rest go to whoever waits.
        """
        if self.try_take(owner):
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((fut, owner))
        self._wake()  # a free slot kept for others goes to this one if it may
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release(owner)  # handed a slot it can no longer use: to the next
            else:
                self._waiters = [(f, o) for f, o in self._waiters if f is not fut]
            raise

    def release(self, owner: object = None) -> None:
        self._count(owner, -1)
        self._wake()

    def _wake(self) -> None:
        """Hand the free slots to the waiters: first come first served, a run below its
        share first."""
        while self.in_use < self.limit:
            self._waiters = [(f, o) for f, o in self._waiters if not f.done()]
            if not self._waiters:
                return
            pick = next((w for w in self._waiters if not self._over_share(w[1])), None)
            if pick is None:
                if self._deprived():
                    return  # kept for a run below its share, which is about to ask
                pick = self._waiters[0]
            self._waiters.remove(pick)
            fut, owner = pick
            self._count(owner, 1)
            fut.set_result(None)

    # -- what the provider says ------------------------------------------------------------

    def on_send(self) -> int:
        """A request goes out now; returns its number (give it back to `on_answer`...)."""
        self.sent += 1
        self.at_provider += 1
        return self.sent

    def on_return(self) -> None:
        """A request sent came back, whatever the answer (call once per `on_send`)."""
        self.at_provider = max(0, self.at_provider - 1)

    def on_answer(self, at_provider: int) -> None:
        """An answer arrived while `at_provider` requests (it included) were out.

        The window grows only when it was full: when fewer were out, the rate
        limiter or a short queue held the run back, and a bigger window would not
        have sent more.
        """
        if not self.adaptive or at_provider < self.limit:
            return
        if self.slow_start:
            self._cwnd += 1.0
        else:
            self._cwnd += 1.0 / self.limit
        self._cwnd = min(self._cwnd, float(self.ceiling))
        self.peak = max(self.peak, self.limit)
        self._wake()

    def on_rate_limited(self, number: int) -> None:
        """Request `number` was refused as one too many: shrink, once per window's worth.

        Requests already out when the window last shrank were sent under the old
        size; their 429s say nothing new.
        """
        if not self.adaptive or number < self._recover_until:
            return
        before = self.limit
        self._cwnd = max(1.0, float(self.floor), self._cwnd * DECREASE)
        self.slow_start = False
        self._recover_until = self.sent + 1
        self.decreases += 1
        logger.info("the provider said too many: %d -> %d requests at once", before, self.limit)
