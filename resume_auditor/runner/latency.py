"""How long this model takes to answer, learnt as the run goes: when is a request stalled?

The bound is on *silence*: the time since anything of the answer arrived
(runner.py `_race`, providers/streaming.py). A streamed answer shows signs of
life with every piece, and its two silences are learnt apart, because they are
of different sizes: the wait for the *first* piece (the provider's queue and the
prompt's reading: seconds, or minutes for a reasoning model) and the *gaps*
between pieces once it writes (a token's time, or a keep-alive's period:
milliseconds to a second). A stream that dies mid-answer is then found within
what gaps take, not within what a first piece takes. An unstreamed answer is
silent until it arrives whole, so its whole time is learnt as its first wait. A
slow reasoning model that is still writing is never cut, and a dead connection
is found within the bound of its silence.

A fixed timeout is wrong both ways: 120 s is forty times what a fast chat model
needs (a stalled request then holds its place, and the run's tail, for minutes),
and too short for a reasoning model that thinks for three minutes. So the runner
learns each model's latency while it runs, separately for each prompt kind and
size class (the prompt estimate plus `max_tokens`, in powers of two: a ranking
of ten resumes with a long answer is not a Yes/No), and treats a request as
stalled once it is far past what that class has shown:

    bound = timeout_s (the study's or --timeout, 120 s by default)
                                              until MIN_SAMPLES answers of the class are in
    bound = min(MOST_S, max(FLOOR_S, MARGIN x p99, p99 + SPREAD x (p99 - p50)))
                                                                after

where p99 is of the first waits before the first piece, and of the longest gaps
between pieces once one came (until MIN_SAMPLES streamed answers of the class
had two pieces or more, the first wait's bound stands for the gaps too). Each
further wait of the same request gets twice the bound (up to MOST_S), so a live
answer that is only slow still gets through. A request sent before its class was
learnt is held to the bound learnt meanwhile (runner.py looks again every
RELEARN_S), so a stall early in a run does not hold its place for the whole
first timeout.

How far is "far past" follows the shape of the answer times, not only their
size. Answer times with a long right tail (a log-normal's) need room past their
p99, and 3 x p99 gives it; answer times that end sharply (a chat model whose
answers are all of one length: the simulator's 0.3-3 s, a Yes/No) never come
near 3 x p99 (the bound of old), and waiting that long only lengthens the run's
tail (a stall among the last sends costs the whole bound: docs/runner.md, "Where
the time went"). So the bound is p99 plus SPREAD times the distance from the
median to the p99: 3 x p99 less twice the median, never more than the old bound,
and the nearer to it the longer the tail; and never under MARGIN x p99, so
answer times that hardly vary (a p99 learnt from few of them is an
underestimate) still leave half their p99 of room. For log-normal answer
times it is passed by at most 4 live answers in 10,000 up to sigma 1 (sigma 1:
p50 1 s, p99 10.2 s, bound 28.7 s instead of 30.7 s, passed by 4 in 10,000
instead of 3; sigma 0.5: 7.6 s instead of 9.6 s, 1 in 40,000 instead of 1 in
300,000; sigma 0.3: 4.0 s instead of 6.0 s, 1 in 600,000); a live answer past
the bound costs a copy, never the answer (below). For 0.3-3 s uniform answers it
is 5.6 s instead of 8.9 s, which no live answer reaches.

p99 is of the last WINDOW answers of the class, so the bound follows a provider
that slows down. With the simulator's 0.3-3 s answers the
bound is about 5.6 s before the first piece and FLOOR_S (5 s) between pieces,
instead of 120 s; a reasoning model whose answers take 60-150 s gets about 240 s
instead of failing every answer past 120 s. MOST_S is at least timeout_s.

What the runner does at the bound is its business (runner.py `_race`): it sends
the request once more *without dropping the first send*, so an answer that was
only slow can still win. For answer times shaped like a log-normal of sigma up
to 1, the bound is passed by at most 4 live requests in 10,000: a copy is almost
never paid for nothing.
`hedge_after` is the class's p99 itself: where a user who pays for speed may send
a copy early at the end of a run (runner.py, `hedge`; off by default).

Runs on the runner's event loop; not thread-safe.
"""

from __future__ import annotations

import logging
import math
from collections import deque

logger = logging.getLogger(__name__)

MIN_SAMPLES = 20  # answers of a class before its own bound is trusted
SPREAD = 2.0  # stalled: past the class's p99 by twice the distance from its median to p99
MARGIN = 1.5  # ... and never sooner than this many times its p99
FLOOR_S = 5.0  # never sooner than this: network hiccups, a provider's queue
WINDOW = 500  # latest answers per class that the percentile is taken from
MOST_S = 900.0  # the longest a learnt bound waits (15 minutes)


def size_class(tokens: int) -> int:
    """Requests of similar size (prompt estimate + max_tokens), in powers of two."""
    return int(math.log2(max(1, tokens)))


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile of `values` (nearest rank; `values` not empty; already
    sorted values are sorted again in linear time)."""
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))
    return ordered[rank]


class LatencyModel:
    """Latencies of answers per (prompt kind, size class), and the stall bound they give."""

    def __init__(
        self, first_s: float, *, floor_s: float = FLOOR_S, min_samples: int = MIN_SAMPLES
    ) -> None:
        """first_s: the bound before anything is learnt (the run's timeout_s)."""
        self.first_s = first_s
        self.most_s = max(first_s, MOST_S)
        self.floor_s = floor_s
        self.min_samples = min_samples
        self._seen: dict[tuple[str, int], deque[float]] = {}  # first waits
        self._gaps: dict[tuple[str, int], deque[float]] = {}  # longest gaps between pieces
        self._all: deque[float] = deque(maxlen=WINDOW)
        # (p50, p99) per (table, class), dropped when the class learns more: every
        # request in flight asks for its bound about once a second
        self._p99: dict[tuple[bool, str, int], tuple[float, float] | None] = {}

    def observe(
        self,
        kind: str,
        tokens: int,
        seconds: float,
        *,
        first: float | None = None,
        gap: float | None = None,
    ) -> None:
        """An answer of this kind and size took `seconds` (from send to answer).

        first: a streamed answer's wait for its first piece (None: unstreamed, silent
            until it arrived whole: `seconds` is its first wait).
        gap: a streamed answer's longest silence between two pieces (None: fewer
            than two pieces, or unstreamed).
        The answer times feed `typical_s`, `p99_all`, `mean_s`."""
        key = (kind, size_class(tokens))
        self._seen.setdefault(key, deque(maxlen=WINDOW)).append(seconds if first is None else first)
        self._p99.pop((False, *key), None)
        if gap is not None:
            self._gaps.setdefault(key, deque(maxlen=WINDOW)).append(gap)
            self._p99.pop((True, *key), None)
        self._all.append(seconds)

    def samples(self, kind: str, tokens: int) -> int:
        return len(self._seen.get((kind, size_class(tokens)), ()))

    def p99(self, kind: str, tokens: int, *, writing: bool = False) -> float | None:
        """The class's 99th percentile of the wait for the first piece, or with
        `writing` of the longest gap between pieces (None: not learnt yet)."""
        learnt = self._quantiles(kind, tokens, writing)
        return None if learnt is None else learnt[1]

    def _quantiles(self, kind: str, tokens: int, writing: bool) -> tuple[float, float] | None:
        """The class's (median, 99th percentile) of one phase (None: not learnt yet)."""
        key = (writing, kind, size_class(tokens))
        if key not in self._p99:
            table = self._gaps if writing else self._seen
            seen = table.get(key[1:])
            enough = seen is not None and len(seen) >= self.min_samples
            ordered = sorted(seen) if seen and enough else []  # one sort for both ranks
            self._p99[key] = (
                (percentile(ordered, 0.5), percentile(ordered, 0.99)) if ordered else None
            )
        return self._p99[key]

    def hedge_after(self, kind: str, tokens: int, *, writing: bool = False) -> float | None:
        """Silence after which a live answer of this class is rarer than 1 in 100 (the
        p99 of its phase; before the gaps are learnt, the first wait's): where an early
        copy may go when the user pays for speed. None: not learnt yet."""
        p99 = self.p99(kind, tokens, writing=writing) if writing else None
        if p99 is None:
            p99 = self.p99(kind, tokens)
        return None if p99 is None else max(p99, 1e-3)

    def typical_s(self) -> float | None:
        """The median answer time of the run so far, all kinds together (None: too few)."""
        if len(self._all) < self.min_samples:
            return None
        return percentile(list(self._all), 0.5)

    def p99_all(self) -> float | None:
        """The 99th percentile answer time of the run so far, all kinds together."""
        if len(self._all) < self.min_samples:
            return None
        return percentile(list(self._all), 0.99)

    def mean_s(self, *, at_least: int | None = None) -> float | None:
        """The mean answer time so far (None: fewer than `at_least` answers, by default
        the samples a class needs to be learnt)."""
        if len(self._all) < (self.min_samples if at_least is None else max(1, at_least)):
            return None
        return sum(self._all) / len(self._all)

    def bound(self, kind: str, tokens: int, stalls: int = 0, *, writing: bool = False) -> float:
        """Seconds of silence after which a request of this kind and size is stalled.

        `stalls`: how often this request already stalled (each doubles its bound).
        `writing`: its streamed answer has begun (the silence is a gap between pieces).
        """
        learnt = self._quantiles(kind, tokens, True) if writing else None
        if learnt is None:
            learnt = self._quantiles(kind, tokens, False)
        if learnt is None:
            return min(self.most_s, self.first_s * (2.0**stalls))
        p50, p99 = learnt
        far = max(MARGIN * p99, p99 + SPREAD * (p99 - p50))
        return min(self.most_s, max(self.floor_s, far) * (2.0**stalls))
