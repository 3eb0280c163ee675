"""SIGTERM, SIGHUP and Ctrl-C end the app in order, the way Cancel and closing do.

A logout, `systemctl stop`, `docker stop`, `timeout`, a closed terminal or Ctrl-C
in the terminal that started the app would otherwise end it abruptly: requests
left "sent" (bought again on resume), the audit's lock and its -wal/-shm left
behind. Python runs a signal handler only when the interpreter gets control,
and Qt's event loop runs in C++; so the handler's only job is to be there (the
signal no longer kills), and `signal.set_wakeup_fd` writes the signal's number
to a socket that a `QSocketNotifier` watches, which wakes the event loop at once.
The callback then runs on the UI thread like any other event.

What the app does then (`resume_auditor/app.py`): a run stops like Cancel, with
the answers on their way given until each has come or is past its learnt stall
bound (`Runner.drain_s()`, at most 10 s); the rest go back to the queue; the audit is
backed up and closed (lock, -wal and -shm removed) and the app exits 128 + the
signal's number. A second signal stops the waiting.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
from collections.abc import Callable
from types import FrameType

from PySide6.QtCore import QObject, QSocketNotifier

logger = logging.getLogger(__name__)

STOP_SIGNALS = ("SIGTERM", "SIGHUP", "SIGINT")


class SignalStop(QObject):
    """Turns the stop signals into calls of `on_signal(signum)` on the Qt event loop."""

    def __init__(self, on_signal: Callable[[int], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._on_signal = on_signal
        self._previous: dict[int, object] = {}
        self._old_fd: int | None = None
        self._reader, self._writer = socket.socketpair()
        self._reader.setblocking(False)
        self._writer.setblocking(False)
        self._notifier = QSocketNotifier(self._reader.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._woken)

    def install(self) -> bool:
        """Catch the stop signals (main thread only); False when that is not possible."""
        try:
            self._old_fd = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)
        except ValueError:  # not the main thread of the main interpreter
            logger.info("signals cannot be caught here; a stop signal ends the app abruptly")
            return False
        for name in STOP_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None:
                self._previous[number] = signal.signal(number, self._handle)
        return True

    def uninstall(self) -> None:
        for number, previous in self._previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(number, previous)  # type: ignore[arg-type]
        self._previous.clear()
        if self._old_fd is not None:
            with contextlib.suppress(ValueError):
                signal.set_wakeup_fd(self._old_fd)
            self._old_fd = None
        self._notifier.setEnabled(False)
        self._reader.close()
        self._writer.close()

    @staticmethod
    def _handle(signum: int, frame: FrameType | None) -> None:
        """Nothing to do here: the wake-up socket already carries the signal's number."""

    def _woken(self) -> None:
        try:
            data = self._reader.recv(64)
        except (BlockingIOError, InterruptedError):
            return
        for signum in data:
            logger.info("received %s", signal.Signals(signum).name)
            self._on_signal(signum)
