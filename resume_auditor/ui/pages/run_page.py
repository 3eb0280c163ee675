"""Run: choose the model under test, start, watch, pause, cancel, resume."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from resume_auditor.domain.study import ModelSpec
from resume_auditor.prompts import presets
from resume_auditor.prompts.kinds import get_kind
from resume_auditor.runner import Answer, RunState, RunStatus
from resume_auditor.runner.estimate import Estimate
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.run_controller import RunController
from resume_auditor.ui.session import AuditData, Session
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.ui.widgets.model_picker import ModelPicker
from resume_auditor.workflow.execute import estimate_for, make_runner
from resume_auditor.workflow.prepare import queue_run

LABEL_TEXT = {
    "first": "picked Resume 1",
    "second": "picked Resume 2",
    "abstain": "abstained",
    "invalid": "unreadable answer",
}


def dollars(amount: float) -> str:
    """$12.34, or $0.0038 for the small sums a test run costs."""
    return f"${amount:.2f}" if amount >= 0.01 or amount == 0 else f"${amount:.4f}"


def spend_text(status: RunStatus) -> str:
    """Spend so far, and what saved money or time, in a sentence."""
    if status.cost_usd is None:
        spend = "Spend: unknown (no price for this model)."
    else:
        spend = f"Spent so far: {dollars(status.cost_usd)}"
        if status.budget_usd:
            spend += f" of a {dollars(status.budget_usd)} budget"
        spend += "."
    extras = []
    if status.cache_hits:
        extras.append(f"{status.cache_hits} answered free from the cache")
    if status.cached_tokens:
        extras.append(f"{status.cached_tokens:,} prompt tokens billed at the cached rate")
    if status.rate_limit_waits:
        extras.append(
            f"{status.rate_limit_waits} waited {status.rate_limited_s:.0f} s for the rate limit"
        )
    if status.budget_reached:
        extras.append("paused: the next request could pass the budget")
    return spend + (" " + "; ".join(extras) + "." if extras else "")


def fmt_eta(seconds: float | None) -> str:
    if seconds is None:
        return "estimating…"
    seconds = int(seconds)
    return f"{seconds // 60} min {seconds % 60:02d} s"


DEMO_MODEL_NOTICE = (
    "The bundled model (SmolLM2, 135 million parameters) is a demonstration model: it shows "
    "how an audit works on this computer, for free, but its verdicts and reasons mean little "
    "and say nothing about the model you plan to use. To audit that model, choose its provider "
    "above (OpenAI, Anthropic, Gemini, OpenRouter, Azure or your own server) and add its key."
)


class RunPage(Page):
    title = "4. Run"
    next_label = "Next: results →"
    run_finished = Signal()
    answers_recorded = Signal()

    def __init__(self, controller: RunController, session: Session) -> None:
        super().__init__(
            "Send every test case to the model under test, in both presentation orders. "
            "Each answer is saved the moment it arrives: you can pause, cancel, or close the "
            "app and resume later without losing or re-paying for anything."
        )
        self.controller = controller
        self.session = session
        self._data: AuditData | None = None
        self._last_final: RunStatus | None = None  # what the last run ended with

        model_box = QGroupBox("Model under test")
        model_layout = QVBoxLayout(model_box)
        self.picker = ModelPicker()
        model_layout.addWidget(self.picker)
        # the picker's fields, by the names the rest of the page (and its tests) use
        self.provider = self.picker.provider
        self.base_url = self.picker.base_url
        self.model_id = self.picker.model_id

        plan_box = QGroupBox("Plan")
        plan = QFormLayout(plan_box)
        self.preset = QComboBox()
        self.preset.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.preset.setMinimumContentsLength(24)
        for preset in presets().values():
            if not get_kind(preset.kind).pairwise:
                continue  # D1 pairs take a pairwise prompt; other designs bring their own
            self.preset.addItem(preset.title, preset.id)
            self.preset.setItemData(
                self.preset.count() - 1, preset.citation, Qt.ItemDataRole.ToolTipRole
            )
        self.preset.setToolTip(
            "The instructions sent with every pair. The D1 presets are the three phrasings "
            "of Castleman et al. (2025); a different preset becomes a separate run."
        )
        self.concurrency = QSpinBox()
        self.concurrency.setRange(0, 256)
        self.concurrency.setSpecialValueText("Auto")  # 0: learnt from the provider's limits
        self.concurrency.setToolTip(
            "The most requests in flight at once. Auto: as many as the provider's rate "
            "limits allow, found during the run."
        )
        self.plan_text = QLabel("")
        self.plan_text.setWordWrap(True)
        self.budget = QDoubleSpinBox()
        self.budget.setRange(0, 100_000)
        self.budget.setDecimals(3)
        self.budget.setPrefix("$ ")
        self.budget.setSpecialValueText("no cap")
        self.budget.setToolTip(
            "The run pauses before its spend could pass this (needs a price for the model)."
        )
        self.estimate_button = QPushButton("Estimate cost and time")
        self.estimate_button.clicked.connect(self._estimate)
        plan.addRow("Prompt", self.preset)
        plan.addRow("Requests at once", self.concurrency)
        plan.addRow("Budget", self.budget)
        plan.addRow("", self.estimate_button)
        plan.addRow("", self.plan_text)

        top = QHBoxLayout()
        top.addWidget(model_box, 3)
        top.addWidget(plan_box, 2)
        self.body.addLayout(top)

        self.demo_notice = QLabel(DEMO_MODEL_NOTICE)
        self.demo_notice.setWordWrap(True)
        self.demo_notice.setObjectName("demoNotice")
        self.demo_notice.setStyleSheet(
            "QLabel#demoNotice { background: #fff4ce; color: #3b2f00; border: 1px solid #e0c36a;"
            " border-radius: 4px; padding: 6px; }"
        )
        self.body.addWidget(self.demo_notice)
        self.picker.changed.connect(self._show_demo_notice)

        buttons = QHBoxLayout()
        self.start_button = QPushButton("Start")
        self.pause_button = QPushButton("Pause")
        self.cancel_button = QPushButton("Cancel")
        self.start_button.clicked.connect(self._start)
        self.pause_button.clicked.connect(self._pause)
        self.cancel_button.clicked.connect(self.controller.cancel)
        for b in (self.start_button, self.pause_button, self.cancel_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.body.addLayout(buttons)

        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m answered")
        self.state_text = QLabel("Not started.")
        self.state_text.setWordWrap(True)
        self.body.addWidget(self.progress)
        self.body.addWidget(self.state_text)
        feed_box = QGroupBox("Latest answers")
        feed_layout = QVBoxLayout(feed_box)
        self.feed = QListWidget()
        self.feed.setWordWrap(True)
        self.feed.setAccessibleName("Latest answers")
        feed_layout.addWidget(self.feed)
        self.body.addWidget(feed_box, 1)

        controller.status_changed.connect(self._on_status)
        controller.answers_arrived.connect(self._on_answers)
        controller.finished.connect(self._on_finished)
        self._set_buttons(running=False)

    def _show_demo_notice(self) -> None:
        self.demo_notice.setVisible(self.picker.provider_id == "local")

    def model_spec(self) -> ModelSpec:
        study_model = self._data.study.model if self._data else ModelSpec()
        return self.picker.spec(study_model)

    # -- showing the audit -----------------------------------------------------------

    def show_audit(self, data: AuditData) -> None:
        if self._data is None or self._data.path != data.path:
            self._last_final = None
        self._data = data
        run = data.runs[-1] if data.runs else None
        spec = data.study.model
        if run is not None:
            self.picker.set_spec(run.provider, run.base_url, run.model)
        else:
            self.picker.set_spec(spec.provider, spec.base_url, spec.model)
        self.start_button.setEnabled(bool(data.pairs) and not self.controller.running)
        prompt = run.prompt_id if run else data.study.run.prompt
        self.preset.setCurrentIndex(max(0, self.preset.findData(prompt)))
        self.concurrency.setValue(data.study.run.concurrency)
        self._show_demo_notice()
        self._refresh_progress()

    def _refresh_progress(self) -> None:
        if self._data is None:
            return
        result = self.session.db()
        run = result.latest_run()
        progress = result.progress(run.id) if run else None
        orders = 2 if self._data.study.run.orders == "both" else 1
        n = len(self._data.pairs) * orders * self._data.study.run.repeats
        self.plan_text.setText(
            f"{len(self._data.pairs)} pairs × {orders} order(s) × "
            f"{self._data.study.run.repeats} repeat(s) = {n} requests. "
            "The bundled model and local servers cost nothing."
        )
        if progress is None:
            self.progress.setRange(0, max(1, n))
            self.progress.setValue(0)
            self.start_button.setText("Start")
            if self._last_final is None:
                self.state_text.setText(
                    "Not started." if n else "Build the test cases first (page 3)."
                )
            return
        self.progress.setRange(0, max(1, progress.total))
        self.progress.setValue(progress.done)
        if progress.finished:
            self.start_button.setText("Run again (sends nothing new)")
            summary = f"Finished: all {progress.total} requests have answers."
        elif progress.done or progress.failed:
            self.start_button.setText("Resume")
            summary = (
                f"{progress.done} of {progress.total} answered, {progress.failed} failed. "
                "Resume to send the rest."
            )
        else:
            self.start_button.setText("Start")
            summary = "Not started."
        if self._last_final is None:  # keep the message the last run ended with
            self.state_text.setText(summary)

    # -- running ---------------------------------------------------------------------

    def _set_buttons(self, running: bool) -> None:
        self.start_button.setEnabled(not running and bool(self._data and self._data.pairs))
        self.preset.setEnabled(not running)
        self.pause_button.setEnabled(running)
        self.cancel_button.setEnabled(running)
        self.picker.setEnabled(not running)
        self.concurrency.setEnabled(not running)

    def _start(self) -> None:
        if self._data is None or self.controller.running:
            return
        problem = self.picker.problem()
        if problem:
            QMessageBox.warning(self, "Before the run", problem)
            return
        self._set_buttons(running=True)
        self.state_text.setText("Preparing the requests…")
        self.feed.clear()
        run_in_background(self._queue_and_estimate(), self._queued, self._start_failed, owner=self)

    def _queue_and_estimate(self) -> Callable[[], tuple[int, Estimate]]:
        assert self._data is not None
        path, spec = self._data.path, self.model_spec()
        prompt, concurrency = str(self.preset.currentData()), self.concurrency.value()

        def work() -> tuple[int, Estimate]:
            run_id, _added = queue_run(path, spec, prompt)
            return run_id, estimate_for(path, run_id, concurrency=concurrency)

        return work

    def _estimate(self) -> None:
        if self._data is None or not self._data.pairs:
            return
        problem = self.picker.problem()
        if problem:
            self.plan_text.setText(problem)
            return
        self.plan_text.setText("Estimating…")
        run_in_background(
            self._queue_and_estimate(),
            lambda r: self.plan_text.setText("\n".join(r[1].lines())),
            lambda exc: self.plan_text.setText(f"Could not estimate: {exc}"),
            owner=self,
        )

    def _queued(self, result: tuple[int, Estimate]) -> None:
        run_id, estimate = result
        assert self._data is not None
        self.plan_text.setText("\n".join(estimate.lines()))
        if not estimate.free and estimate.to_send:
            cost = (
                f"about ${estimate.cost_usd:.2f} (at most ${estimate.cost_max_usd or 0:.2f})"
                if estimate.cost_usd is not None
                else "an unknown amount (no price for this model in the price table)"
            )
            answer = QMessageBox.question(
                self,
                "Start the run?",
                f"This run sends {estimate.to_send} request(s) to {estimate.model} and costs "
                f"{cost}.\n\n" + "\n".join(estimate.lines()),
            )
            if answer != QMessageBox.StandardButton.Yes:
                self._set_buttons(running=False)
                self.state_text.setText("Not started.")
                return
        budget = self.budget.value() or None
        runner = make_runner(
            self._data.path,
            run_id,
            concurrency=self.concurrency.value(),
            timeout_s=self._data.study.run.timeout_s,
            on_event=self.controller.push,
            budget_usd=budget,
        )
        self.controller.start(runner)
        self.state_text.setText("Starting the model…")

    def _start_failed(self, exc: Exception) -> None:
        self._set_buttons(running=False)
        self.state_text.setText(f"Could not start: {exc}")

    def _pause(self) -> None:
        runner = self.controller.runner
        if runner is None:
            return
        if self.pause_button.text() == "Pause":
            self.controller.pause()
            self.pause_button.setText("Continue")
        else:
            self.controller.resume()
            self.pause_button.setText("Pause")

    def _on_status(self, status: RunStatus) -> None:
        self.progress.setRange(0, max(1, status.total))
        self.progress.setValue(status.done)
        parts = {
            RunState.STARTING: "Starting",
            RunState.RUNNING: "Running",
            RunState.PAUSED: "Paused",
            RunState.CANCELLED: "Cancelled",
            RunState.FINISHED: "Finished",
            RunState.STOPPED: "Stopped",
        }
        text = (
            f"{parts[status.state]}: {status.done} of {status.total} answered, "
            f"{status.failed} failed, {status.invalid} unreadable, {status.in_flight} in flight."
        )
        if status.state is RunState.RUNNING:
            if status.concurrency:
                text += f" Up to {status.concurrency} at once."
            text += f" Time left: {fmt_eta(status.eta_s)}."
        if status.shared:
            text += f" {status.shared} answered once for identical requests (paid once)."
        text += " " + spend_text(status)
        if status.message:
            text += f"\n{status.message}"
        self.state_text.setText(text)

    def _on_answers(self, answers: list[Answer]) -> None:
        for a in answers:
            why = a.justification.replace("\n", " ")
            if len(why) > 240:
                why = why[:240] + "…"
            order = "A shown first" if a.order == "ab" else "B shown first"
            self.feed.insertItem(
                0, f"Pair {a.pair_id} ({order}): {LABEL_TEXT[a.label.value]} — {why}"
            )
        while self.feed.count() > 200:
            self.feed.takeItem(self.feed.count() - 1)
        self.answers_recorded.emit()

    def _on_finished(self, status: RunStatus) -> None:
        self._last_final = status
        self._on_status(status)
        self._set_buttons(running=False)
        self.pause_button.setText("Pause")
        self._refresh_progress()
        if status.state is RunState.STOPPED and status.message:
            self.state_text.setText(f"Stopped: {status.message}")
        self.run_finished.emit()

    def status(self, data: AuditData | None) -> str:
        if not data or not data.runs:
            return "todo"
        result = self.session.db()
        run = result.latest_run()
        progress = result.progress(run.id) if run else None
        return "done" if progress and progress.finished else "todo"
