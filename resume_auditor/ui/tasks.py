"""Run a function off the UI thread and get its result back on the UI thread.

`run_in_background` is for short work. `run_cancellable` is for the long tasks a
user waits on (opening a big audit, closing it with its backup): the function
gets a `TaskControl` to report progress and to learn, at its safe points, that
the user pressed Cancel. The window answers Cancel at once; the work itself
stops at its next safe point, and a result that arrives after Cancel goes to
`on_cancelled` (so the caller can let go of what it holds), never to `on_done`.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

logger = logging.getLogger(__name__)


class _Relay(QObject):
    """Carries a result to the UI thread; dies with its owner, so a closed page is never called."""

    done = Signal(object)
    failed = Signal(object)


class _Task(QRunnable):
    def __init__(self, fn: Callable[[], Any], relay: _Relay) -> None:
        super().__init__()
        self.fn = fn
        self.relay = relay
        self.setAutoDelete(True)

    def run(self) -> None:
        try:
            result = self.fn()
        except Exception as exc:  # reported to the UI, never raised into Qt
            logger.debug("background task failed:\n%s", traceback.format_exc())
            self._emit(self.relay.failed, exc)
        else:
            self._emit(self.relay.done, result)

    @staticmethod
    def _emit(signal: Any, value: Any) -> None:
        try:
            signal.emit(value)
        except RuntimeError:  # the window closed while we worked: nobody to tell
            logger.debug("background result dropped: receiver gone")


_live: set[_Relay] = set()

# How long a worker thread may keep the interpreter once the UI thread asks for it.
# Python's 5 ms let the workers of a comparison and of the metrics (pandas, numpy,
# SQLite: they hold it between releases) keep the window waiting 93-158 ms at a 5 x
# 10,000-answer audit's opening on a quiet machine; at 0.5-1 ms, 48-79 ms
# (benchmarks/compare_speed.py ui). The UI thread asks for it at every call into a
# widget made in Python (PySide looks for a Python override of each virtual: paint,
# size hints, events), so a page's layout and painting wait once per call: at 1 ms a
# switch, the Results page's first showing beside a busy worker stalled 30-43 ms, at
# 0.2 ms 23-29 ms (`ui --at-once`). A worker is only interrupted when the UI thread
# wants the interpreter, so their own pace hardly changes (the comparison's and the
# metrics' CPU time, and three models' run, the same within noise).
UI_SWITCH_INTERVAL_S = 0.0002


def keep_window_responsive() -> None:
    """Let the UI thread take the interpreter back from busy workers within
    UI_SWITCH_INTERVAL_S (the window calls it as it starts)."""
    if sys.getswitchinterval() > UI_SWITCH_INTERVAL_S:
        sys.setswitchinterval(UI_SWITCH_INTERVAL_S)


def in_progress() -> int:
    """How many background tasks have not reported back yet (UI thread)."""
    return len(_live)


def run_in_background(
    fn: Callable[[], Any],
    on_done: Callable[[Any], None],
    on_error: Callable[[Exception], None],
    owner: QObject | None = None,
    *,
    first: bool = False,
) -> None:
    """Call fn() in Qt's thread pool; on_done/on_error run on the UI thread.

    With an `owner` (the page or widget asking), the answer is dropped if the owner
    has been closed meanwhile. `first`: ahead of the tasks still waiting for a thread
    (what the user is waiting to see, asked for among the pages' fills at an opening).
    """
    relay = _Relay(owner)
    _live.add(relay)
    relay.destroyed.connect(lambda *_: _live.discard(relay))

    def finish_ok(result: Any) -> None:
        _live.discard(relay)
        on_done(result)

    def finish_err(exc: Any) -> None:
        _live.discard(relay)
        on_error(exc)

    relay.done.connect(finish_ok)
    relay.failed.connect(finish_err)
    QThreadPool.globalInstance().start(_Task(fn, relay), 1 if first else 0)


def wait_for_background(timeout_ms: int = 5000) -> bool:
    return QThreadPool.globalInstance().waitForDone(timeout_ms)


class Cancelled(Exception):
    """The user pressed Cancel and the task stopped at a safe point."""


class _ProgressRelay(QObject):
    progress = Signal(str)


class TaskControl:
    """What a long task's function holds: progress out, cancel in (safe from any thread)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._relay = _ProgressRelay()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        self._event.set()

    def check(self) -> None:
        """Raise `Cancelled` if the user cancelled: call it between steps."""
        if self._event.is_set():
            raise Cancelled

    def progress(self, text: str) -> None:
        """Say what is happening now (shown on the UI thread)."""
        try:
            self._relay.progress.emit(text)
        except RuntimeError:  # the receiver is gone
            logger.debug("progress dropped: receiver gone")


def run_cancellable(
    fn: Callable[[TaskControl], Any],
    on_done: Callable[[Any], None],
    on_error: Callable[[Exception], None],
    *,
    on_progress: Callable[[str], None] | None = None,
    on_cancelled: Callable[[Any], None] | None = None,
    owner: QObject | None = None,
) -> TaskControl:
    """Call fn(control) in the thread pool; returns the control whose `cancel()` Cancel calls.

    After `cancel()`, on_done and on_error are not called: on_cancelled gets the
    late result (None when the task stopped with `Cancelled` or failed).
    """
    control = TaskControl()
    if on_progress is not None:
        control._relay.progress.connect(on_progress)

    def done(result: Any) -> None:
        if control.cancelled:
            if on_cancelled is not None:
                on_cancelled(result)
            return
        on_done(result)

    def failed(exc: Exception) -> None:
        if control.cancelled or isinstance(exc, Cancelled):
            if on_cancelled is not None:
                on_cancelled(None)
            return
        on_error(exc)

    run_in_background(lambda: fn(control), done, failed, owner=owner)
    return control
