"""Connects a Runner (worker thread) to the UI (main thread), throttled.

The runner calls `push` from its thread; a 250 ms timer on the UI thread hands the
latest status and the new answers to the page. Nothing here touches a widget from
the worker thread, and the UI repaints at most four times a second. After Cancel
the timer ticks every 50 ms, so the end of the run shows as soon as it comes.

It also keeps what every live view shares: the last answers (a presenter opened
mid-run starts with them) and the `Roster` that puts answers in words.

Several models at once (runner/group.py, "Start all models") come as a `RunGroup`:
each run's status is kept by run and handed to the page as `models_changed`, and
`status_changed` carries their sum, so the page's progress shows the whole audit.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from resume_auditor.runner import Answer, Event, Runner, RunState, RunStatus
from resume_auditor.runner.group import RunGroup
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
    models_changed = Signal(object)  # dict: run id -> RunStatus, when several run at once

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        signals.install()  # a run emits thousands of signals: see ui/signals.py
        self.runner: Runner | None = None
        self.group: RunGroup | None = None  # several runs at once
        self._by_run: dict[int, RunStatus] = {}  # the group's runs' latest statuses
        self._by_run_new = False
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

    def push_for(self, run_id: int, model: str = "") -> Callable[[Event], None]:
        """The listener of one run of a group (called from the group's thread); its
        answers carry `model`, so the feed can say which model gave each."""

        def push(event: Event) -> None:
            with self._lock:
                if isinstance(event, Answer):
                    self._answers.append(dataclasses.replace(event, model=model))
                else:
                    self._by_run[run_id] = event
                    self._by_run_new = True
                    group = self.group
                    # the sum once every run has said where it stands (a part would
                    # show "0 of 176" for an audit of 528)
                    if group is None or len(self._by_run) >= len(group.runners):
                        self._status = combined_status(list(self._by_run.values()))

        return push

    def start(self, runner: Runner) -> None:
        if self.running:
            raise RuntimeError("a run is already in progress")
        self.runner = runner
        self.group = None
        self._begin()
        runner.start()

    def start_group(self, group: RunGroup) -> None:
        """Several runs at once; their listeners must be `push_for(run_id)`."""
        if self.running:
            raise RuntimeError("a run is already in progress")
        self.runner = None
        self.group = group
        with self._lock:
            self._by_run = {}
            self._by_run_new = False
        self._begin()
        group.start()

    def _begin(self) -> None:
        self.stopping = False
        self.history.clear()
        self._timer.setInterval(TICK_MS)
        self._timer.start(TICK_MS)
        heap.hold()  # no full garbage collection stalls the window while answers arrive

    @property
    def _job(self) -> Runner | RunGroup | None:
        return self.group if self.group is not None else self.runner

    @property
    def running(self) -> bool:
        job = self._job
        return job is not None and job.running

    def pause(self) -> None:
        job = self._job
        if job is not None:
            job.pause()

    def resume(self) -> None:
        job = self._job
        if job is not None:
            job.resume()

    def cancel(self) -> None:
        job = self._job
        if job is not None:
            self.stopping = True
            job.cancel()
            self._timer.setInterval(STOPPING_TICK_MS)

    def set_roster(self, path: Path, roster: Roster) -> None:
        self.audit_path = path
        self.roster = roster
        self.roster_changed.emit()

    def shutdown(self, timeout_s: float = 3.0) -> None:
        """Cancel and wait briefly (closing the window)."""
        job = self._job
        if job is not None and job.running:
            job.cancel()
            job.join(timeout_s)
        self._timer.stop()
        heap.release()

    def _tick(self) -> None:
        # Read "alive" first: once the thread has ended, everything it pushed is queued.
        job = self._job
        alive = job is not None and job.running
        with self._lock:
            status, self._status = self._status, None
            answers = list(self._answers)
            self._answers.clear()
            by_run = dict(self._by_run) if self._by_run_new else None
            self._by_run_new = False
        if answers:
            self.history.extend(answers)
            self.answers_arrived.emit(answers)
        if by_run is not None:
            self.models_changed.emit(by_run)
        if status is not None:
            self.status_changed.emit(status)
        if job is not None and not alive:
            self._timer.stop()
            heap.release()
            if isinstance(job, RunGroup):
                finals = [s for s in job.final_statuses if s is not None]
                final = combined_status(finals) if finals else status
            else:
                final = job.final_status or status
            self.stopping = False
            if final is not None and final.state is not RunState.RUNNING:
                self.finished.emit(final)


def combined_status(statuses: list[RunStatus]) -> RunStatus | None:
    """Several runs' statuses as one, for the page's progress: counts and spend added,
    the time left the longest, the state the liveliest (running while any runs, paused
    while every unfinished one is paused, else how they ended: stopped or cancelled
    if any was). Each run's own message stays with it (the models list)."""
    if not statuses:
        return None
    states = [s.state for s in statuses]
    if RunState.RUNNING in states:
        state = RunState.RUNNING
    elif RunState.STARTING in states:
        state = RunState.STARTING
    elif RunState.PAUSED in states:
        state = RunState.PAUSED
    elif RunState.STOPPED in states:
        state = RunState.STOPPED
    elif RunState.CANCELLED in states:
        state = RunState.CANCELLED
    else:
        state = RunState.FINISHED
    costs = [s.cost_usd for s in statuses]
    etas = [s.eta_s for s in statuses if s.eta_s is not None]
    return dataclasses.replace(
        statuses[0],
        state=state,
        total=sum(s.total for s in statuses),
        done=sum(s.done for s in statuses),
        failed=sum(s.failed for s in statuses),
        in_flight=sum(s.in_flight for s in statuses),
        at_provider=sum(s.at_provider for s in statuses),
        invalid=sum(s.invalid for s in statuses),
        skipped=sum(s.skipped for s in statuses),
        input_tokens=sum(s.input_tokens for s in statuses),
        output_tokens=sum(s.output_tokens for s in statuses),
        cached_tokens=sum(s.cached_tokens for s in statuses),
        cache_hits=sum(s.cache_hits for s in statuses),
        shared=sum(s.shared for s in statuses),
        maybe_paid_twice=sum(s.maybe_paid_twice for s in statuses),
        unseen_before=sum(s.unseen_before for s in statuses),
        hedged=sum(s.hedged for s in statuses),
        estimated_usage=sum(s.estimated_usage for s in statuses),
        reasoning_tokens=sum(s.reasoning_tokens for s in statuses),
        refused=sum(s.refused for s in statuses),
        reasked=sum(s.reasked for s in statuses),
        batched=sum(s.batched for s in statuses),
        stalls=sum(s.stalls for s in statuses),
        rate_limit_waits=sum(s.rate_limit_waits for s in statuses),
        rate_limited_s=sum(s.rate_limited_s for s in statuses),
        cost_usd=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
        budget_reached=any(s.budget_reached for s in statuses),
        elapsed_s=max(s.elapsed_s for s in statuses),
        eta_s=max(etas) if etas and state is RunState.RUNNING else None,
        concurrency=0,  # runs of one provider share a window: a sum would say too many
        message="",
    )
