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
        self._waiters: list[asyncio.Future[None]] = []

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

    async def acquire(self) -> None:
        """Wait for a free slot (cancel the task to stop waiting)."""
        while self.in_use >= self.limit:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            try:
                await fut
            except asyncio.CancelledError:
                self._wake()  # a wake-up this waiter can no longer use goes to the next
                raise
            finally:
                if fut in self._waiters:
                    self._waiters.remove(fut)
        self.in_use += 1

    def release(self) -> None:
        self.in_use = max(0, self.in_use - 1)
        self._wake()

    def _wake(self) -> None:
        free = self.limit - self.in_use
        for fut in list(self._waiters):
            if free <= 0:
                break
            if not fut.done():
                fut.set_result(None)
                free -= 1

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
