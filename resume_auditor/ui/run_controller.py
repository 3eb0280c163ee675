"""Connects a Runner (worker thread) to the UI (main thread), throttled.

The runner calls `push` from its thread; a 250 ms timer on the UI thread hands the
latest status and the new answers to the page. Nothing here touches a widget from
the worker thread, and the UI repaints at most four times a second. After Cancel
the timer ticks every 50 ms, so the end of the run shows as soon as it comes.

It also keeps what every live view shares: the last answers (a presenter opened
mid-run starts with them) and the `Roster` that puts answers in words.
"""

from __future__ import annotations

import threading
from collections import deque
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from resume_auditor.runner import Answer, Event, Runner, RunState, RunStatus
from resume_auditor.ui import heap, signals
from resume_auditor.workflow.feed import Roster

TICK_MS = 250
STOPPING_TICK_MS = 50
HISTORY = 200  # answers kept for a view opened mid-run


class RunController(QObject):
    status_changed = Signal(object)  # RunStatus
    answers_arrived = Signal(list)  # list[Answer]
    finished = Signal(object)  # final RunStatus
    roster_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        signals.install()  # a run emits thousands of signals: see ui/signals.py
        self.runner: Runner | None = None
        self._lock = threading.Lock()
        self._status: RunStatus | None = None
        self._answers: deque[Answer] = deque()
        self.history: deque[Answer] = deque(maxlen=HISTORY)  # UI thread only
        self.roster = Roster()
        self.audit_path: Path | None = None  # the audit the live views show
        self.stopping = False
        self.model_name = ""  # the model the current run asks (for the presenter's headline)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    def push(self, event: Event) -> None:
        """Called from the runner's thread."""
        with self._lock:
            if isinstance(event, Answer):
                self._answers.append(event)
            else:
                self._status = event

    def start(self, runner: Runner) -> None:
        if self.running:
            raise RuntimeError("a run is already in progress")
        self.runner = runner
        self.stopping = False
        self.history.clear()
        self._timer.start(TICK_MS)
        heap.hold()  # no full garbage collection stalls the window while answers arrive
        runner.start()

    @property
    def running(self) -> bool:
        return self.runner is not None and self.runner.running

    def pause(self) -> None:
        if self.runner:
            self.runner.pause()

    def resume(self) -> None:
        if self.runner:
            self.runner.resume()

    def cancel(self) -> None:
        if self.runner:
            self.stopping = True
            self.runner.cancel()
            self._timer.setInterval(STOPPING_TICK_MS)

    def set_roster(self, path: Path, roster: Roster) -> None:
        self.audit_path = path
        self.roster = roster
        self.roster_changed.emit()

    def shutdown(self, timeout_s: float = 3.0) -> None:
        """Cancel and wait briefly (closing the window)."""
        if self.runner and self.runner.running:
            self.runner.cancel()
            self.runner.join(timeout_s)
        self._timer.stop()
        heap.release()

    def _tick(self) -> None:
        # Read "alive" first: once the thread has ended, everything it pushed is queued.
        alive = self.runner is not None and self.runner.running
        with self._lock:
            status, self._status = self._status, None
            answers = list(self._answers)
            self._answers.clear()
        if answers:
            self.history.extend(answers)
            self.answers_arrived.emit(answers)
        if status is not None:
            self.status_changed.emit(status)
        if self.runner is not None and not alive:
            self._timer.stop()
            heap.release()
            final = self.runner.final_status or status
            self.stopping = False
            if final is not None and final.state is not RunState.RUNNING:
                self.finished.emit(final)
