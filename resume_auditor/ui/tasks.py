"""Run a function off the UI thread and get its result back on the UI thread."""

from __future__ import annotations

import logging
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


def run_in_background(
    fn: Callable[[], Any],
    on_done: Callable[[Any], None],
    on_error: Callable[[Exception], None],
    owner: QObject | None = None,
) -> None:
    """Call fn() in Qt's thread pool; on_done/on_error run on the UI thread.

    With an `owner` (the page or widget asking), the answer is dropped if the owner
    has been closed meanwhile.
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
    QThreadPool.globalInstance().start(_Task(fn, relay))


def wait_for_background(timeout_ms: int = 5000) -> bool:
    return QThreadPool.globalInstance().waitForDone(timeout_ms)
