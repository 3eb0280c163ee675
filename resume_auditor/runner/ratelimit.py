"""Keeping under a provider's requests/min and tokens/min limits, before it says no.

The limiter counts what was sent in the last minute (a sliding window, the
strictest reading of a per-minute limit) and holds a request until it fits under
a safety fraction of the limit. Limits come from the user (study or command
line), from the rate-limit headers every answer carries (OpenAI, Azure and
OpenRouter `x-ratelimit-*`, Anthropic `anthropic-ratelimit-*`), or both — the
lower wins. An exhausted `remaining` holds everyone until its reset, and a 429
with retry-after cools the whole run down, not just the request that got it:
the others would only be refused too. How many requests are out at once is the
concurrency window's business (window.py); this paces them.

Everything here runs on the runner's event loop; it is not thread-safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from resume_auditor.providers.errors import parse_duration

logger = logging.getLogger(__name__)

WINDOW_S = 60.0
SAFETY = 0.98  # use this share of a limit: arrival jitter must not tip us over it
POLL_S = 0.25  # waiting requests look again this often (limits may change)
BURST_S = 1.0  # smooth pacing lets this many seconds' worth go at once


@dataclass(frozen=True)
class HeaderLimits:
    """What one answer's headers say about the limits (None: not said)."""

    requests_limit: int | None = None
    requests_remaining: int | None = None
    requests_reset_s: float | None = None
    tokens_limit: int | None = None
    tokens_remaining: int | None = None
    tokens_reset_s: float | None = None

    @property
    def empty(self) -> bool:
        return all(v is None for v in self.__dict__.values())


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(float(value.strip()))
    except ValueError:
        return None


def _reset(value: str | None, now_epoch: float) -> float | None:
    """Seconds until a reset given as a duration ('6m0s'), seconds, RFC 3339 or epoch ms."""
    if not value:
        return None
    value = value.strip()
    if "T" in value and "-" in value:
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return max(0.0, when.timestamp() - now_epoch)
    number = _int(value)
    if number is not None and number > 10**11:  # epoch milliseconds (OpenRouter)
        return max(0.0, number / 1000.0 - now_epoch)
    return parse_duration(value)


def read_headers(headers: Mapping[str, str], now_epoch: float | None = None) -> HeaderLimits:
    """The rate-limit headers of any vendor, in one shape."""
    h = {k.lower(): v for k, v in headers.items()}
    now = time.time() if now_epoch is None else now_epoch

    def first(*names: str) -> str | None:
        return next((h[n] for n in names if n in h), None)

    return HeaderLimits(
        requests_limit=_int(
            first("x-ratelimit-limit-requests", "anthropic-ratelimit-requests-limit")
            or first("x-ratelimit-limit")
        ),
        requests_remaining=_int(
            first("x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining")
            or first("x-ratelimit-remaining")
        ),
        requests_reset_s=_reset(
            first("x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset")
            or first("x-ratelimit-reset"),
            now,
        ),
        tokens_limit=_int(
            first(
                "x-ratelimit-limit-tokens",
                "anthropic-ratelimit-tokens-limit",
                "anthropic-ratelimit-input-tokens-limit",
            )
        ),
        tokens_remaining=_int(
            first(
                "x-ratelimit-remaining-tokens",
                "anthropic-ratelimit-tokens-remaining",
                "anthropic-ratelimit-input-tokens-remaining",
            )
        ),
        tokens_reset_s=_reset(
            first(
                "x-ratelimit-reset-tokens",
                "anthropic-ratelimit-tokens-reset",
                "anthropic-ratelimit-input-tokens-reset",
            ),
            now,
        ),
    )


@dataclass(frozen=True)
class LimiterState:
    rpm: float | None  # the limit in force (None: none known)
    tpm: float | None
    learned: bool  # the limits came (partly) from the provider's headers
    waiting_s: float  # how long the next request would wait now
    waits: int  # times a request had to wait for the limit
    waited_s: float  # seconds spent waiting, all requests together
    cooldowns: int  # 429s and exhausted quotas that paused every request


class Limiter(Protocol):
    """What a run asks of its limits: one provider's own `RateLimiter`, or its share of
    limits several runs use together (group.py `SharedLimits.lane`)."""

    @property
    def rpm(self) -> float | None: ...

    @property
    def tpm(self) -> float | None: ...

    @property
    def learned_rpm(self) -> float | None: ...

    @property
    def learned_tpm(self) -> float | None: ...

    def state(self) -> LimiterState: ...

    def observe(self, headers: Mapping[str, str]) -> None: ...

    def cool_down(self, seconds: float) -> None: ...

    async def acquire(self, tokens: int, stop: asyncio.Event | None = None) -> float: ...


class RateLimiter:
    """Sliding-window limiter for requests/min and tokens/min."""

    def __init__(
        self,
        rpm: float | None = None,
        tpm: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        safety: float = SAFETY,
        window_s: float = WINDOW_S,
        learn: bool = True,
        smooth: bool = False,
    ) -> None:
        """
        smooth: also pace requests evenly (a minute's allowance spread over the
            minute, a second's worth at once), as providers that enforce a
            per-minute limit per second or as a token bucket need; the runner's
            limiter does. Without it only the sliding minute holds requests back.
        """
        self.configured_rpm = rpm
        self.configured_tpm = tpm
        self.learned_rpm: float | None = None
        self.learned_tpm: float | None = None
        self._clock = clock
        self._safety = safety
        self._window_s = window_s
        self._learn = learn
        self._sent: deque[tuple[float, int]] = deque()
        self._tokens_in_window = 0
        self._hold_until = 0.0
        self._smooth = smooth
        self._next_request = 0.0  # smooth pacing: when the next request is due
        self._next_tokens = 0.0  # and when the next token is
        self._waiting_until = 0.0  # when the request now waiting may go (for state())
        self.waits = 0
        self.waited_s = 0.0
        self.cooldowns = 0
        self.exhausted = 0  # answers whose headers said nothing was left

    # -- limits in force --------------------------------------------------------------

    @property
    def rpm(self) -> float | None:
        return _lower(self.configured_rpm, self.learned_rpm)

    @property
    def tpm(self) -> float | None:
        return _lower(self.configured_tpm, self.learned_tpm)

    def state(self) -> LimiterState:
        """A snapshot; safe to take from any thread (it reads, never touches the window)."""
        return LimiterState(
            rpm=self.rpm,
            tpm=self.tpm,
            learned=self.learned_rpm is not None or self.learned_tpm is not None,
            waiting_s=max(0.0, self._waiting_until - self._clock()),
            waits=self.waits,
            waited_s=self.waited_s,
            cooldowns=self.cooldowns,
        )

    # -- what the provider says ----------------------------------------------------------

    def observe(self, headers: Mapping[str, str]) -> None:
        """Adapt to an answer's rate-limit headers."""
        info = read_headers(headers)
        if info.empty:
            return
        now = self._clock()
        if self._learn:
            # A limit that resets within a minute is a per-minute limit (OpenAI also
            # reports per-day limits in the same headers, with hours to reset).
            if info.requests_limit and (info.requests_reset_s or 0) <= self._window_s:
                self.learned_rpm = float(info.requests_limit)
            if info.tokens_limit and (info.tokens_reset_s or 0) <= self._window_s:
                self.learned_tpm = float(info.tokens_limit)
        for remaining, reset, limit in (
            (info.requests_remaining, info.requests_reset_s, info.requests_limit),
            (info.tokens_remaining, info.tokens_reset_s, info.tokens_limit),
        ):
            if remaining is not None and remaining <= 0 and reset:
                self.exhausted += 1
                if limit and reset <= self._window_s:
                    # OpenAI's reset is when the whole allowance is back; a token
                    # bucket has room for one more long before. Wait for that one
                    # (a fixed window answers 429 with the real wait instead).
                    reset = min(reset, self._window_s / limit)
                self._hold(now + reset)

    def cool_down(self, seconds: float) -> None:
        """Nobody sends for `seconds` (a 429 or an overloaded server said so)."""
        self.cooldowns += 1
        self._hold(self._clock() + max(0.0, seconds))

    def _hold(self, until: float) -> None:
        if until > self._hold_until:
            self._hold_until = until
            logger.info("holding requests for %.1f s (rate limit)", until - self._clock())

    # -- waiting for a slot ---------------------------------------------------------------

    def _purge(self, now: float) -> None:
        while self._sent and now - self._sent[0][0] >= self._window_s:
            _, tokens = self._sent.popleft()
            self._tokens_in_window -= tokens

    def wait_for(self, tokens: int) -> float:
        """Seconds until a request of `tokens` may go (0: now)."""
        now = self._clock()
        self._purge(now)
        wait = max(0.0, self._hold_until - now)
        rpm = self.rpm
        if rpm is not None:
            cap = max(1, math.floor(rpm * self._safety))
            if len(self._sent) >= cap:
                oldest = self._sent[len(self._sent) - cap][0]
                wait = max(wait, oldest + self._window_s - now)
        if self._smooth:
            wait = max(wait, self._paced_wait(now, tokens))
        tpm = self.tpm
        if tpm is not None and self._sent:
            cap_t = max(1.0, tpm * self._safety)
            excess = self._tokens_in_window + tokens - cap_t
            if excess > 0:
                freed = 0
                for stamp, used in self._sent:
                    freed += used
                    if freed >= excess:
                        wait = max(wait, stamp + self._window_s - now)
                        break
        return wait

    def _paced_wait(self, now: float, tokens: int) -> float:
        """Smooth pacing (a generic cell rate algorithm): how long until this one is due."""
        wait = 0.0
        rpm, tpm = self.rpm, self.tpm
        if rpm is not None:
            tolerance = max(0.0, BURST_S - self._window_s / (rpm * self._safety))
            wait = max(wait, self._next_request - tolerance - now)
        if tpm is not None:
            wait = max(wait, self._next_tokens - BURST_S - now)
        return wait

    def take(self, tokens: int) -> None:
        """Count a request as sent now (after `wait_for` said 0)."""
        now = self._clock()
        self._sent.append((now, tokens))
        self._tokens_in_window += tokens
        rpm, tpm = self.rpm, self.tpm
        if rpm is not None:
            step = self._window_s / (rpm * self._safety)
            self._next_request = max(self._next_request, now) + step
        if tpm is not None:
            step = self._window_s / (tpm * self._safety)
            self._next_tokens = max(self._next_tokens, now) + tokens * step

    async def acquire(self, tokens: int, stop: asyncio.Event | None = None) -> float:
        """Wait until a request of `tokens` fits, then count it; returns seconds waited.

        Returns early (without counting) if `stop` is set.
        """
        waited = 0.0
        counted = False
        while True:
            wait = self.wait_for(tokens)
            self._waiting_until = self._clock() + wait
            if wait <= 0:
                self.take(tokens)
                self.waited_s += waited
                return waited
            if not counted:
                self.waits += 1
                counted = True
            nap = min(wait, POLL_S)
            if stop is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=nap)
                if stop.is_set():
                    self.waited_s += waited
                    return waited
            else:
                await asyncio.sleep(nap)
            waited += nap


def _lower(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)
