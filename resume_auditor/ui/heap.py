"""Keep Python's cyclic garbage collector from freezing the window.

A full (generation 2) collection walks every tracked object. With a 100,000-row
table and pandas, matplotlib and Qt wrappers alive, that walk took up to 185 ms
on the UI thread, every few seconds during a run (benchmarks/ui_stall.py).
`gc.freeze()` moves the objects alive now into a permanent generation that
collections skip; they are still freed by reference counting when dropped, which
is how our rows and tables go away. We freeze after start-up and after loading a
big table, so the heap a collection walks stays small.

During a run the refreshes still make garbage that lives long enough to reach the
oldest generation, and its collections cost 35-80 ms each (measured). `tune()`
makes those full collections ten times rarer; young cycles are still collected
as usual, so memory stays bounded.

Even ten times rarer, a full collection during a 100,000-answer run walked a heap
big enough to stop every thread for 100-390 ms (16 of them in one run, measured
with gc.callbacks in benchmarks/ui_stall.py), whichever thread triggered it. So
while a run is on, `hold()` leaves full collections out altogether; `release()`
after the run puts them back. Young and middle collections go on as usual, and
reference counting frees almost everything, so what waits is only cyclic garbage
that aged during the run (benchmarks/ui_stall.py prints the memory it cost).
"""

from __future__ import annotations

import gc
import logging

logger = logging.getLogger(__name__)


def tune() -> None:
    """Make full collections rarer (call once at start-up, on the UI thread)."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, max(old, 100))


_held: tuple[int, int, int] | None = None


def hold() -> None:
    """No full collections until `release()` (a run is on; UI thread)."""
    global _held
    if _held is None:
        _held = gc.get_threshold()
        young, middle, _old = _held
        gc.set_threshold(young, middle, 1_000_000_000)


def release() -> None:
    """Full collections as before `hold()`."""
    global _held
    if _held is not None:
        gc.set_threshold(*_held)
        _held = None


def settle() -> None:
    """Freeze what is alive now out of the collector's sight."""
    gc.freeze()
    if logger.isEnabledFor(logging.DEBUG):  # counting walks them all: 20-45 ms a call
        logger.debug("froze %d objects out of the cyclic collector", gc.get_freeze_count())
