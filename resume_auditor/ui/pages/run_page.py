"""Run: choose the model under test, start, watch, pause, cancel, resume.

What Start will do (a new run, resuming one, or nothing new to send) is worked
out in the background from the very code Start runs, each time the prompt or the
model changes, and never written to the file until Start is pressed. Answers show
in words (workflow/feed.py), at most FEED_LIMIT of them, added once per tick of
the run controller: the page never reads the audit file on the UI thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
)

from resume_auditor.designs.registry import run_prompt_design
from resume_auditor.domain.study import ModelSpec
from resume_auditor.prompts import presets
from resume_auditor.prompts.kinds import get_kind
from resume_auditor.runner import Answer, RunState, RunStatus
from resume_auditor.runner.estimate import Estimate, combined_lines
from resume_auditor.runner.runner import unseen_before_message
from resume_auditor.runner.sharing import sharing_key
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.run_controller import RunController
from resume_auditor.ui.session import AuditData, Session
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.ui.widgets.model_list import (
    ListedModel,
    ModelList,
    as_spec,
    key_of,
    listed_models,
)
from resume_auditor.ui.widgets.model_picker import ModelPicker
from resume_auditor.workflow.execute import estimate_for, make_group, make_runner
from resume_auditor.workflow.feed import FeedLine, Roster, describe
from resume_auditor.workflow.plan import (
    StartPreview,
    look_start,
    preview_start,
    probe_logprobs,
)
from resume_auditor.workflow.prepare import queue_run

logger = logging.getLogger(__name__)

FEED_LIMIT = 200  # answers listed; older ones are in the Results page
# Answers added per tick (four a second): more than anyone can read, and a fast run
# brings hundreds a tick; the others are counted and on the Results page.
FEED_PER_TICK = 40
LOOK_DELAY_MS = 400  # settle time after a setting changes before Start is worked out again
START_LABELS = {
    "start": "Start",
    "resume": "Resume",
    "again": "Run again (sends nothing new)",
}
RIGHT_COLOURS = {True: QColor("#1b5e20"), False: QColor("#b71c1c")}


def dollars(amount: float) -> str:
    """$12.34, or $0.0038 for the small sums a test run costs."""
    return f"${amount:.2f}" if amount >= 0.01 or amount == 0 else f"${amount:.4f}"


def spend_text(status: RunStatus) -> str:
    """Spend so far (or in all, once the run has finished), and what saved money or time."""
    if status.cost_usd is None:
        spend = "Spend: unknown (no price for this model)."
    else:
        ended = status.state is RunState.FINISHED
        about = "about " if status.estimated_usage else ""
        spend = f"{'Spent' if ended else 'Spent so far'}: {about}{dollars(status.cost_usd)}"
        if status.budget_usd:
            spend += f" of a {dollars(status.budget_usd)} budget"
        if status.estimated_usage:
            spend += (
                f" ({status.estimated_usage} answer(s) came without the provider's token "
                "counts: their tokens and cost are estimated)"
            )
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
    if status.hedged:
        extras.append(f"{status.hedged} early copy(ies) sent to end the run sooner")
    if status.maybe_paid_twice:
        extras.append(
            f"{status.maybe_paid_twice} send(s) whose answer never arrived were sent again "
            "and may be billed twice (not in the spend above)"
        )
    if status.budget_reached:
        extras.append("paused: the next request could pass the budget")
    return spend + (" " + "; ".join(extras) + "." if extras else "")


def fmt_eta(seconds: float | None) -> str:
    """'about 3 min 05 s.', or 'estimating…' (a sentence either way: no period added)."""
    if seconds is None:
        return "estimating…"
    seconds = int(seconds)
    return f"about {seconds // 60} min {seconds % 60:02d} s."


def start_sentence(preview: StartPreview) -> str:
    """What pressing the Start button will send, in a sentence."""
    if preview.action == "again":
        return (
            "Every request of this run has an answer: running it again sends nothing. "
            "Change the prompt or the model to start a new run."
        )
    if preview.action == "resume":
        return (
            f"Resume sends the {preview.open:,} request(s) still without an answer "
            f"({preview.answered:,} already answered, kept)."
        )
    new = "" if preview.reuses_run else "A new run for this prompt and model: "
    return f"{new}Start sends {preview.open:,} request(s) (answers in the cache are free)."


def logprob_sentence(gives: bool | None, model: str) -> str:
    """What Start's one check of the server's log-probabilities found, for a recruiter:
    the Candidate pools design scores a candidate by how sure the model is of its Yes,
    which only a server that reports it can give ("" when nothing was asked)."""
    if gives is None:
        return ""
    if gives:
        return (
            f"Checked: {model} says how sure it is of each Yes or No, so Candidate pools can "
            "tell a strong candidate from a borderline one."
        )
    return (
        f"Checked: {model} does not say how sure it is of its Yes or No answers (this server "
        "gives no log-probabilities), so Candidate pools can only count Yes and No. Its "
        "results will be rough: wide ranges, and less chance to see a bias. A server set up "
        "to give log-probabilities, or asking for a rating 1–5 on the Candidate pools tab, "
        "scores candidates finely."
    )


def plan_sentences(preview: StartPreview) -> str:
    return "\n".join(
        [
            f"Requests: {preview.plan.summary()}",
            start_sentence(preview),
            *preview.plan.grouped_warnings(),
            *preview.plan.notes,
            *preview.plan.identity,
        ]
    )


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
        self._preview: StartPreview | None = None
        self._looking = False  # a look at what Start would do is running
        self._look_again = False  # settings changed while it ran
        self._roster_for: tuple[Path, int] | None = None
        self._look_deferred = False  # a look waits for this page to be shown (_look)
        self._look_timer = QTimer(self)
        self._look_timer.setSingleShot(True)
        self._look_timer.setInterval(LOOK_DELAY_MS)
        self._look_timer.timeout.connect(self._look)

        model_box = QGroupBox("Model under test")
        model_layout = QVBoxLayout(model_box)
        self.picker = ModelPicker()
        model_layout.addWidget(self.picker)
        # every model of the audit, each its own run on the same cases (issue 28)
        self.models = ModelList()
        self.models.chosen.connect(self._model_chosen)
        model_layout.addWidget(self.models)
        self._chain_next = False  # start the next model once the look says it has work
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
        asking = run_prompt_design()  # the design whose cases the run's prompt asks
        asked = asking.label if asking is not None else "pairwise"
        self.preset.setToolTip(
            f"The instructions sent with every pair. The {asked} presets are the three "
            "phrasings of Castleman et al. (2025); a different preset becomes a separate run."
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
        self.plan_text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.budget = QDoubleSpinBox()
        self.budget.setRange(0, 100_000)
        self.budget.setDecimals(3)
        self.budget.setPrefix("$ ")
        self.budget.setSpecialValueText("no cap")
        self.budget.setToolTip(
            "The run pauses before its spend could pass this (needs a price for the model). "
            "With Start all models, it covers all the models together."
        )
        # Early copies at the run's end (runner `hedge`): a shorter end that may be billed
        # twice, so off unless the user asks, at most 10% of the requests.
        self.hedge = QSpinBox()
        self.hedge.setRange(0, 10)
        self.hedge.setSuffix("% of requests, may pay twice")
        self.hedge.setSpecialValueText("off")
        self.hedge.setToolTip(
            "At the end of the run, when a request is slower than 99% of its kind, send a "
            "second copy at once instead of waiting to be sure it is lost. The run ends "
            "seconds sooner; the provider may bill both copies. This caps how many requests "
            "may get a copy; every copy is counted. Never used with the bundled model."
        )
        self.estimate_button = QPushButton("Estimate cost and time")
        self.estimate_button.clicked.connect(self._estimate)
        plan.addRow("Prompt", self.preset)
        plan.addRow("Requests at once", self.concurrency)
        plan.addRow("Budget", self.budget)
        plan.addRow("Faster end", self.hedge)
        plan.addRow("", self.estimate_button)
        # The plan can run to a dozen lines (a note per design): it scrolls in its box
        # rather than being cut off at the bottom ("about 3.6…").
        self.plan_scroll = QScrollArea()
        self.plan_scroll.setWidgetResizable(True)
        self.plan_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.plan_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.plan_scroll.setWidget(self.plan_text)
        plan.addRow("", self.plan_scroll)

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
        self.start_all_button = QPushButton("Start all models")
        self.start_all_button.setToolTip(
            "Ask every model of the list the same test cases at the same time, each in its "
            "own run. Models of one provider account take turns at its limits; models on "
            "this computer take turns at it. Pause and Cancel act on all of them; each run "
            "can be resumed on its own."
        )
        self.pause_button = QPushButton("Pause")
        self.cancel_button = QPushButton("Cancel")
        self.start_button.clicked.connect(self._start)
        self.start_all_button.clicked.connect(self._start_all)
        self.pause_button.clicked.connect(self._pause)
        self.cancel_button.clicked.connect(self._cancel)
        for b in (self.start_button, self.start_all_button, self.pause_button, self.cancel_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.body.addLayout(buttons)

        self.progress = QProgressBar()
        self.progress.setFormat("%v of %m answered")
        self.stop_box: QMessageBox | None = None  # the last stop's reason, in full
        self.state_text = QLabel("Not started.")
        self.state_text.setWordWrap(True)
        # Room for three lines, fixed: a status that changes four times a second must not
        # make the page lay itself out again (the feed below would be measured anew).
        lines = self.state_text.fontMetrics().lineSpacing()
        self.state_text.setFixedHeight(3 * lines + 4)
        self.state_text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.body.addWidget(self.progress)
        self.body.addWidget(self.state_text)
        feed_box = QGroupBox("Latest answers")
        feed_layout = QVBoxLayout(feed_box)
        self.feed = QListWidget()
        self.feed.setWordWrap(True)
        # Word-wrapped lines of different heights: laid out a batch at a time, so a
        # tick's new answers never hold the event loop while every line is measured.
        self.feed.setLayoutMode(QListWidget.LayoutMode.Batched)
        self.feed.setBatchSize(25)
        self.feed.setAccessibleName("Latest answers")
        self.feed.setToolTip(
            "The latest answers, newest first: the design, the candidates shown (by the "
            "names the model saw), the answer, and the model's own words. ✓ / ✗: right or "
            "wrong where the test case has a right answer."
        )
        feed_layout.addWidget(self.feed)
        self.body.addWidget(feed_box, 1)

        controller.status_changed.connect(self._on_status)
        controller.answers_arrived.connect(self._on_answers)
        controller.finished.connect(self._on_finished)
        controller.models_changed.connect(self.models.show_progress)
        self.preset.currentIndexChanged.connect(self._schedule_look)
        self.picker.changed.connect(self._schedule_look)
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
            self._preview = None
        self._data = data
        # The last run answered (where the user was), or, before any answer, the first:
        # a study of several models queues a run for each when it is opened.
        answered = [r for r in data.runs if data.answered_by_run.get(r.id)]
        run = answered[-1] if answered else (data.runs[0] if data.runs else None)
        spec = data.study.model
        if run is not None:
            self._show_model(run.provider, run.base_url, run.model)
        else:
            self._show_model(spec.provider, spec.base_url, spec.model)
        # both Start buttons: "Start all models" was left disabled until Estimate was pressed
        for button in (self.start_button, self.start_all_button):
            button.setEnabled(self._has_cases() and not self.controller.running)
        prompt = run.prompt_id if run else data.study.run.prompt
        self.preset.setCurrentIndex(max(0, self.preset.findData(prompt)))
        self.concurrency.setValue(data.study.run.concurrency)
        self._show_demo_notice()
        if self._last_final is None and not self.controller.running:
            self.state_text.setText(
                "Working out what Start will send…"
                if self._has_cases()
                else "Build the test cases first (page 3)."
            )
        self._load_roster(data)
        self._list_models()
        self._schedule_look()

    def _list_models(self) -> None:
        if self._data is None:
            return
        data = self._data
        listed = listed_models(data.study, data.runs, data.answered_by_run)
        self.models.set_models(listed, key_of(self.model_spec()))
        self.start_all_button.setVisible(len(listed) > 1)

    def _model_chosen(self, item: ListedModel) -> None:
        """A model of the list into the picker (and its run's prompt), to run or resume."""
        if self.controller.running:
            return
        self._show_model(item.provider, item.base_url, item.model)
        if item.prompt:
            self.preset.setCurrentIndex(max(0, self.preset.findData(item.prompt)))
        self._last_final = None
        self._schedule_look()

    def _show_model(self, provider: str, base_url: str, model: str) -> None:
        """Set the picker only when the model differs: setting it looks up the key and
        the model's capabilities, too slow to repeat on the UI thread after every run."""
        picker = self.picker
        same_url = provider == "local" or picker.base_url.text().strip() == base_url
        same_model = provider == "local" or picker.model_id.text().strip() == model
        if picker.provider_id == provider and same_url and same_model:
            return
        picker.set_spec(provider, base_url, model)

    def _has_cases(self) -> bool:
        return bool(self._data and (self._data.pairs or self._data.case_count))

    def _load_roster(self, data: AuditData) -> None:
        """The names and groups the feed needs, read once per audit, off the UI thread."""
        key = (data.path, data.generation)
        if self._roster_for == key:
            return
        self._roster_for = key
        path = data.path

        def work() -> Roster:
            with ResultFile(path, readonly=True) as result:
                return Roster.load(result)

        def failed(exc: Exception) -> None:
            logger.warning("the feed's names could not be read: %s", exc)

        run_in_background(work, lambda r: self.controller.set_roster(path, r), failed, owner=self)

    # -- what Start will do ----------------------------------------------------------

    def entered(self) -> None:
        """This page became the one shown: what Start would send, if it waited."""
        if self._look_deferred:
            self._look()

    def _schedule_look(self) -> None:
        if self._data is not None and not self.controller.running:
            self._look_timer.start()

    def _look(self) -> None:
        """Work out, in the background, what Start would send with the settings shown;
        while another page is shown, when this one is next shown (`entered`): at an
        audit's opening it took the interpreter from the pages on show (the Results
        page's comparison of five models waited half a second for it)."""
        if self._data is None or self.controller.running or not self._has_cases():
            return
        if self.isHidden():  # another page of the window's stack is the current one
            self._look_deferred = True
            return
        self._look_deferred = False
        if self._looking:
            self._look_again = True
            return
        self._looking = True
        path, spec, prompt = self._data.path, self.model_spec(), str(self.preset.currentData())

        def work() -> StartPreview:
            return look_start(path, spec, prompt)

        def done(preview: StartPreview) -> None:
            self._looking = False
            if self._look_again:
                self._look_again = False
                self._look()
                return
            if self._data is None or self._data.path != path or self.controller.running:
                return
            self._show_preview(preview)

        def failed(exc: Exception) -> None:
            self._looking = False
            logger.info("could not work out what Start would send: %s", exc)
            self.plan_text.setText(f"Could not count the requests: {exc}")

        run_in_background(work, done, failed, owner=self)

    def _show_preview(self, preview: StartPreview) -> None:
        self._preview = preview
        if self._chain_next:
            self._chain_next = False
            if preview.action != "again":
                self._show_plain(preview)
                self._start()  # the next model of the list has work: start it
                return
            self._next_model()  # nothing to send for this one: the one after it
            return
        self._show_plain(preview)

    def _show_plain(self, preview: StartPreview) -> None:
        self.plan_text.setText(plan_sentences(preview))
        self.start_button.setText(START_LABELS[preview.action])
        self.start_button.setToolTip(start_sentence(preview))
        total = preview.answered + preview.open
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(preview.answered)
        if self._last_final is not None:  # keep the message the last run ended with
            return
        if preview.action == "again":
            summary = f"Finished: all {total:,} requests have answers."
        elif preview.action == "resume":
            summary = (
                f"{preview.answered:,} of {total:,} answered. Resume to send the rest; "
                "nothing answered is sent again."
            )
        else:
            summary = "Not started."
        self.state_text.setText(summary)

    # -- running ---------------------------------------------------------------------

    def _set_buttons(self, running: bool) -> None:
        self.start_button.setEnabled(not running and self._has_cases())
        self.start_all_button.setEnabled(not running and self._has_cases())
        self.preset.setEnabled(not running)
        self.pause_button.setEnabled(running)
        self.cancel_button.setEnabled(running)
        self.picker.setEnabled(not running)
        # the list stays readable while it shows each model's progress; a pick is
        # ignored while running (_model_chosen)
        self.models.chain.setEnabled(not running)
        self.concurrency.setEnabled(not running)
        self.hedge.setEnabled(not running)
        self.estimate_button.setEnabled(not running)  # it would wait on the run's writes

    def _start(self) -> None:
        if self._data is None or self.controller.running:
            return
        problem = self.picker.problem()
        if problem:
            QMessageBox.warning(self, "Before the run", problem)
            return
        self._set_buttons(running=True)
        self.state_text.setText("Preparing the requests…")
        self._last_final = None
        self.feed.clear()
        run_in_background(self._queue_and_estimate(), self._queued, self._start_failed, owner=self)

    def _queue_and_estimate(self) -> Callable[[], tuple[int, Estimate, str]]:
        assert self._data is not None
        path, spec, study = self._data.path, self.model_spec(), self._data.study
        prompt, concurrency = str(self.preset.currentData()), self.concurrency.value()

        def work() -> tuple[int, Estimate, str]:
            # as `resume-auditor audit` does: an OpenAI-compatible server is asked once
            # whether it gives log-probabilities for a design's scores (here, off the UI thread)
            probed = logprob_sentence(probe_logprobs(study, spec), spec.model)
            run_id, _added = queue_run(path, spec, prompt)
            return run_id, estimate_for(path, run_id, concurrency=concurrency), probed

        return work

    def _estimate(self) -> None:
        """Cost and time of what Start would send; nothing is written to the file."""
        if self._data is None or not self._has_cases():
            return
        problem = self.picker.problem()
        if problem:
            self.plan_text.setText(problem)
            return
        self.plan_text.setText("Estimating…")
        # The estimate queues in a transaction it rolls back: Start waits until it is done.
        self.start_button.setEnabled(False)
        self.estimate_button.setEnabled(False)
        path, spec = self._data.path, self.model_spec()
        prompt, concurrency = str(self.preset.currentData()), self.concurrency.value()
        # every model of the list, for the estimate in all (each its own run)
        others = [
            (as_spec(m, spec), m.prompt or prompt)
            for m in self.models.models
            if m.key != key_of(spec)
        ]

        def work() -> tuple[StartPreview, list[str]]:
            preview = preview_start(path, spec, prompt, concurrency=concurrency or None)
            if not others:
                return preview, []
            found = [(spec, preview.estimate)] + [
                (s, preview_start(path, s, p, concurrency=concurrency or None).estimate)
                for s, p in others
            ]
            known = [(s, e) for s, e in found if e is not None]
            keys = [sharing_key(s.provider, s.base_url) for s, _e in known]
            estimates = [e for _s, e in known]
            # what "Start all models" would take; one after another (the chain) adds up
            return preview, [
                *combined_lines(estimates, keys, together=True),
                *combined_lines(estimates, keys),
            ]

        def done(result: tuple[StartPreview, list[str]]) -> None:
            preview, in_all = result
            self._set_buttons(running=self.controller.running)
            self._show_preview(preview)
            lines = preview.estimate.lines() if preview.estimate else []
            self.plan_text.setText("\n".join([plan_sentences(preview), *lines, *in_all]))

        def failed(exc: Exception) -> None:
            self._set_buttons(running=self.controller.running)
            self.plan_text.setText(f"Could not estimate: {exc}")

        run_in_background(work, done, failed, owner=self)

    def _queued(self, result: tuple[int, Estimate, str]) -> None:
        run_id, estimate, probed = result
        assert self._data is not None
        said = [*estimate.lines(), *([probed] if probed else [])]
        self.plan_text.setText("\n".join(said))
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
                f"{cost}.\n\n" + "\n".join(said),
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
            hedge=self.hedge.value() / 100,
        )
        self.controller.model_name = estimate.model
        self.controller.start(runner)
        self.state_text.setText("Starting the model…")

    def _start_all(self) -> None:
        """Every model of the list at the same time (runner/group.py), each its own run."""
        if self._data is None or self.controller.running or len(self.models.models) < 2:
            return
        self._set_buttons(running=True)
        self.state_text.setText("Preparing the requests of every model…")
        self._last_final = None
        self.feed.clear()
        path, like = self._data.path, self.model_spec()
        prompt, concurrency = str(self.preset.currentData()), self.concurrency.value()
        chosen = [(as_spec(m, like), m.prompt or prompt) for m in self.models.models]

        def work() -> list[tuple[ModelSpec, int, Estimate]]:
            out = []
            for spec, asked in chosen:
                run_id, _added = queue_run(path, spec, asked)
                out.append((spec, run_id, estimate_for(path, run_id, concurrency=concurrency)))
            return out

        run_in_background(work, self._queued_all, self._start_failed, owner=self)

    def _queued_all(self, queued: list[tuple[ModelSpec, int, Estimate]]) -> None:
        assert self._data is not None
        estimates = [e for _s, _r, e in queued]
        keys = [sharing_key(s.provider, s.base_url) for s, _r, _e in queued]
        each = [f"{e.model}: {e.to_send:,} request(s) to send." for e in estimates]
        said = [*each, *combined_lines(estimates, keys, together=True)]
        self.plan_text.setText("\n".join(said))
        paid = [e for e in estimates if not e.free and e.to_send]
        if paid:
            unknown = [e.model for e in paid if e.cost_usd is None]
            cost = (
                f"an unknown amount (no price for {', '.join(unknown)} in the price table)"
                if unknown
                else f"about ${sum(e.cost_usd or 0.0 for e in paid):.2f} (at most "
                f"${sum(e.cost_max_usd or 0.0 for e in paid):.2f})"
            )
            to_send = sum(e.to_send for e in estimates)
            answer = QMessageBox.question(
                self,
                "Start all models?",
                f"This sends {to_send:,} request(s) to {len(estimates)} models at the same time "
                f"and costs {cost}. A budget covers all of them together.\n\n" + "\n".join(said),
            )
            if answer != QMessageBox.StandardButton.Yes:
                self._set_buttons(running=False)
                self.state_text.setText("Not started.")
                return
        names = {run_id: e.model for _s, run_id, e in queued}
        try:
            group = make_group(
                self._data.path,
                [run_id for _s, run_id, _e in queued],
                concurrency=self.concurrency.value(),
                timeout_s=self._data.study.run.timeout_s,
                on_event=lambda run_id: self.controller.push_for(run_id, names[run_id]),
                budget_usd=self.budget.value() or None,
                hedge=self.hedge.value() / 100,
            )
        except ValueError as exc:
            self._start_failed(exc)
            return
        self.controller.model_name = ", ".join(e.model for e in estimates)
        self.controller.start_group(group)
        self.state_text.setText(f"Starting {len(estimates)} models at the same time…")

    def _cancel(self) -> None:
        """Say at once that the run is stopping; the runner ends within a second."""
        if not self.controller.running:
            return
        self.controller.cancel()
        self.cancel_button.setEnabled(False)
        self.pause_button.setEnabled(False)
        self.state_text.setText(
            "Stopping… requests still at the model are called back; every answer already "
            "received is kept."
        )

    def _start_failed(self, exc: Exception) -> None:
        self._set_buttons(running=False)
        self.state_text.setText(f"Could not start: {exc}")

    def _pause(self) -> None:
        if not self.controller.running:
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
        if self.controller.stopping:
            return  # "Stopping…" stays until the run has ended
        parts = {
            RunState.STARTING: "Starting",
            RunState.RUNNING: "Running",
            RunState.PAUSED: "Paused",
            RunState.CANCELLED: "Cancelled",
            RunState.FINISHED: "Finished",
            RunState.STOPPED: "Stopped",
        }
        group = self.controller.group
        several = f" {len(group.runners)} models at once" if group is not None else ""
        text = (
            f"{parts[status.state]}{several}: {status.done} of {status.total} answered, "
            f"{status.failed} failed, {status.invalid} unreadable, "
            f"{status.at_provider} at the model now."
        )
        if status.state is RunState.RUNNING:
            if status.concurrency:
                text += f" Up to {status.concurrency} at once."
            text += f" Time left: {fmt_eta(status.eta_s)}"
        if status.shared:
            text += f" {status.shared} answered once for identical requests (paid once)."
        text += " " + spend_text(status)
        if status.unseen_before:
            text += f"\n{unseen_before_message(status.unseen_before)}"
        if status.message:
            text += f"\n{status.message}"
        self.state_text.setText(text)

    def _on_answers(self, answers: list[Answer]) -> None:
        """Add a tick's answers at once; only the newest FEED_PER_TICK are formatted."""
        roster = self.controller.roster
        lines = [
            (describe(a, roster), f"{a.model} · " if a.model else "")
            for a in answers[-FEED_PER_TICK:]
        ]
        self.feed.setUpdatesEnabled(False)
        try:
            overflow = self.feed.count() + len(lines) - FEED_LIMIT
            for _ in range(max(0, overflow)):
                self.feed.takeItem(self.feed.count() - 1)
            for line, who in lines:
                self.feed.insertItem(0, feed_item(line, who))
        finally:
            self.feed.setUpdatesEnabled(True)
        self.answers_recorded.emit()

    def _on_finished(self, status: RunStatus) -> None:
        self._last_final = status
        self._on_status(status)
        self._set_buttons(running=False)
        self.pause_button.setText("Pause")
        # What the same settings would do now; the look scheduled below confirms it.
        if status.remaining == 0 and not status.failed:
            self.start_button.setText(START_LABELS["again"])
        elif status.done:
            self.start_button.setText(START_LABELS["resume"])
        if status.state is RunState.CANCELLED:
            self.state_text.setText(f"Cancelled. {status.message} {spend_text(status)}")
        elif status.state is RunState.STOPPED and status.message:
            self.state_text.setText(f"Stopped: {status.message}")
            self.state_text.setToolTip(status.message)
            self._show_stop_reason(status.message)
        self._schedule_look()
        self.run_finished.emit()
        if self.controller.group is not None:
            self._list_models()  # each model's own line, as it ended
            self.models.show_progress(
                {r.run_id: r.final_status for r in self.controller.group.runners if r.final_status}
            )
            return
        if status.state is RunState.FINISHED and self.models.chain.isChecked():
            # once the controller has let this run go (it still holds it while it says so)
            QTimer.singleShot(0, self._next_model)

    def _next_model(self) -> None:
        """With the chain ticked, the next model of the list into the picker; Start follows
        once the look has said it has something to send."""
        if self.controller.running:
            return
        following = self.models.next_after(key_of(self.model_spec()))
        if following is None:
            return
        self._model_chosen(following)
        self._chain_next = True

    def _show_stop_reason(self, message: str) -> None:
        """The whole reason a run stopped, where it can be read and copied.

        The status line has room for three lines; a stop's reason may carry a command
        to paste and the end of a log (the bundled model crashing), so it also opens in
        a window of its own, not modal: the page stays usable behind it.
        """
        if self.stop_box is not None:
            self.stop_box.close()
        box = QMessageBox(
            QMessageBox.Icon.Warning, "The run stopped", message, QMessageBox.StandardButton.Ok
        )
        box.setParent(self, box.windowFlags())
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setModal(False)
        box.show()
        self.stop_box = box

    def status(self, data: AuditData | None) -> str:
        if not data or not data.runs:
            return "todo"
        final = self._last_final
        if final is not None and self._data is not None and self._data.path == data.path:
            # known without a query: asked after every run, the file need not be read
            done = final.state is RunState.FINISHED and not final.remaining
            return "done" if done else "todo"
        return "done" if data.latest_finished else "todo"  # read with the audit


def feed_item(line: FeedLine, who: str = "") -> QListWidgetItem:
    """A feed line; `who` names the model when several answer at once."""
    item = QListWidgetItem(who + line.text())
    if line.right is not None:
        item.setForeground(RIGHT_COLOURS[line.right])
    return item
