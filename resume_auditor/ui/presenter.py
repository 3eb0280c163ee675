"""Presenter mode: for a trainer showing an audit live on a projector.

Full screen on the screen the main window is on, with type sized from that
screen's height so it reads from the back of a room: the answers as they arrive,
in words (workflow/feed.py) with what the model said, the running numbers of
every design the audit runs, and a design's charts (`Design.presenter_charts`).
Opened mid-run it starts with the answers that came before, read off the UI thread.
It only reads what the app already has (the run controller's answers, the Results
page's report) plus that one background read, so it adds no work to a run.
"""

from __future__ import annotations

import html
import logging
import textwrap
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QHideEvent, QImage, QKeyEvent, QPixmap, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.designs.base import Chart
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.runner import Answer, RunState, RunStatus
from resume_auditor.stats.model import MetricsReport
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui.pages.results_page import ResultsPage
from resume_auditor.ui.run_controller import RunController
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.ui.widgets.charts import render_rates
from resume_auditor.ui.widgets.metric_card import pct
from resume_auditor.workflow.feed import Roster, Tally, answer_from_row, describe

logger = logging.getLogger(__name__)

FEED_LIMIT = 60
FULLSCREEN_CHECK_MS = 600  # how long a window manager gets to make the presenter full screen
# Answers added per tick (four a second): a room reads a few; a fast run brings
# hundreds, all counted in the running numbers.
PER_TICK = 6
LINES_PER_SCREEN = 34  # the body type is the screen's height over this: 32 px at 1080
RIGHT_COLOURS = {True: QColor("#1b5e20"), False: QColor("#b71c1c")}
NUMBERS = (
    ("criterion_validity", "Picks the more qualified"),
    ("discrim_validity", "Treats equal candidates as equal"),
    ("order_consistency", "Same verdict in both orders"),
)


@dataclass
class Backfill:
    """What the latest run had before the presenter opened."""

    answers: list[Answer]  # the last ones, oldest first
    tally: Tally  # the running numbers over all of them
    counted: set[int]  # their requests (so a live answer is never counted twice)
    model: str = ""
    total: int = 0


def backfill(path: Path, limit: int) -> Backfill:
    with ResultFile(path, readonly=True) as result:
        run = result.latest_run()
        if run is None:
            return Backfill([], Tally(), set())
        roster = Roster.load(result)
        answers = [answer_from_row(r) for r in result.answers(run.id).to_dict("records")]
        total = result.progress(run.id).total
    tally = Tally()
    for answer in answers:
        tally.add(answer, roster)
    return Backfill(answers[-limit:], tally, {a.request_id for a in answers}, run.model, total)


class PresenterWindow(QWidget):
    def __init__(self, controller: RunController, results: ResultsPage) -> None:
        super().__init__()
        self.setWindowTitle("Resume Auditor — presenter")
        self.controller = controller
        self.results = results
        self.tally = Tally()
        self._counted: set[int] = set()  # request ids already in the tally
        self._model = ""
        self._total = 0  # requests of the run shown
        self._rendering = False
        self._redraw = False
        self._finished = False  # the run shown has an answer for every request
        self.covered_by_hand = False  # full screen made by hand (the WM ignored the request)
        self._base_px = 0
        self._resize_timer = QTimer(self)
        self._resize_timer.setSingleShot(True)
        self._resize_timer.setInterval(300)
        self._resize_timer.timeout.connect(self.show_panels)
        outer = QVBoxLayout(self)
        self.headline = QLabel("Waiting for answers…")
        self.headline.setObjectName("headline")
        self.headline.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.headline.setWordWrap(True)
        outer.addWidget(self.headline)
        numbers = QHBoxLayout()
        self.numbers: dict[str, QLabel] = {}
        for key, title in NUMBERS:
            box = QVBoxLayout()
            value = QLabel("—")
            value.setObjectName("big")
            value.setAlignment(Qt.AlignmentFlag.AlignCenter)
            caption = QLabel(title)
            caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
            caption.setWordWrap(True)
            box.addWidget(value)
            box.addWidget(caption)
            numbers.addLayout(box)
            self.numbers[key] = value
        outer.addLayout(numbers)
        body = QHBoxLayout()
        self.feed = QListWidget()
        self.feed.setWordWrap(True)
        self.feed.setAccessibleName("Answers as they arrive")
        self.feed.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        self.feed.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.feed.setLayoutMode(QListWidget.LayoutMode.Batched)  # never measure all at once
        self.feed.setBatchSize(10)
        body.addWidget(self.feed, 3)
        side = QVBoxLayout()
        self.running = QLabel("")
        self.running.setObjectName("running")
        self.running.setWordWrap(True)
        self.running.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.running.setAccessibleName("Running numbers")
        side.addWidget(self.running)
        self.chart_a = QLabel()
        self.chart_b = QLabel()
        for chart in (self.chart_a, self.chart_b):
            chart.setAlignment(Qt.AlignmentFlag.AlignCenter)
            chart.setMinimumSize(240, 150)
            chart.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
            side.addWidget(chart, 1)
        body.addLayout(side, 2)
        outer.addLayout(body, 1)
        self.hint = QLabel("Esc leaves presenter mode")
        self.hint.setObjectName("hint")
        outer.addWidget(self.hint)
        controller.answers_arrived.connect(self.show_answers)
        controller.status_changed.connect(self._on_status)
        results.updated.connect(self.show_panels)
        self._scale_type(720)
        self._backfill()
        self.show_panels()

    # -- the screen ---------------------------------------------------------------------

    def showFullScreen(self) -> None:  # noqa: N802 - Qt's name
        """Full screen on the screen the main window is on (not wherever the window
        manager puts a new window), on X11, Wayland, Windows and macOS alike."""
        anchor = self.results.window()
        screen = anchor.screen() if anchor is not None else None
        if screen is not None:
            self.setScreen(screen)
            self.setGeometry(screen.geometry())
        super().showFullScreen()
        # Some X11 window managers ignore _NET_WM_STATE_FULLSCREEN (a presenter came up
        # as a 619x533 window under one): if the screen is not covered once the window
        # manager has answered, cover it with a frameless window of the screen's size.
        QTimer.singleShot(FULLSCREEN_CHECK_MS, self._ensure_covers_screen)

    def _ensure_covers_screen(self) -> None:
        screen = self.screen()
        if screen is None or not self.isVisible():
            return
        if self.frameGeometry().contains(screen.geometry()):
            return
        logger.info("the window manager did not make the presenter full screen; covering it")
        self.setWindowFlag(Qt.WindowType.FramelessWindowHint, True)
        self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint, True)
        self.setGeometry(screen.geometry())
        self.showMaximized()
        self.setGeometry(screen.geometry())
        self.raise_()
        self.activateWindow()
        self.covered_by_hand = True

    def _scale_type(self, height: int) -> None:
        """Type sized from the window's height: read from the back of a room."""
        base = max(14, height // LINES_PER_SCREEN)
        if base == self._base_px:
            return
        self._base_px = base
        self.setStyleSheet(
            f"QWidget {{ font-size: {base}px; }}"
            f" QLabel#big {{ font-size: {int(base * 2.4)}px; font-weight: 600; }}"
            f" QLabel#headline {{ font-size: {int(base * 1.3)}px; font-weight: 600; }}"
            f" QLabel#running {{ font-size: {int(base * 0.9)}px; }}"
            f" QLabel#hint {{ font-size: {max(12, base // 2)}px; color: gray; }}"
            f" QListWidget::item {{ padding: {base // 4}px 0; }}"
        )

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self.results.watch(True)  # the Results numbers stay fresh while shown here
        self._scale_type(self.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._scale_type(event.size().height())
        self._resize_timer.start()  # draw the charts again at the new size, once

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802 - Qt's name
        super().hideEvent(event)
        self.results.watch(False)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape:
            self.close()
        else:
            super().keyPressEvent(event)

    # -- answers ------------------------------------------------------------------------

    def _backfill(self) -> None:
        """Start with the answers that came before the window opened."""
        path = self.controller.audit_path
        if path is None:
            self._add(list(self.controller.history))
            return

        def done(found: Backfill) -> None:
            later = [a for a in self.controller.history if a.request_id not in found.counted]
            self.tally, self._counted = found.tally, found.counted
            self._model, self._total = found.model, max(self._total, found.total)
            self.feed.clear()
            self._add(found.answers + later)

        def failed(exc: Exception) -> None:
            logger.warning("presenter: the earlier answers could not be read: %s", exc)
            self._add(list(self.controller.history))

        run_in_background(lambda: backfill(path, FEED_LIMIT), done, failed, owner=self)

    def show_answers(self, answers: list[Answer]) -> None:
        self._add(answers, PER_TICK)

    def _add(self, answers: list[Answer], shown: int = FEED_LIMIT) -> None:
        roster = self.controller.roster
        for answer in answers:
            if answer.request_id not in self._counted:
                self._counted.add(answer.request_id)
                self.tally.add(answer, roster)
        self.feed.setUpdatesEnabled(False)
        try:
            for answer in answers[-shown:]:
                self.feed.insertItem(0, self._item(answer, roster))
            while self.feed.count() > FEED_LIMIT:
                self.feed.takeItem(self.feed.count() - 1)
        finally:
            self.feed.setUpdatesEnabled(True)
        lines = self.tally.lines()
        heading = "All answers" if self._finished or self._run_ended() else "So far"
        self.running.setText(
            f"<b>{heading}</b><br>" + "<br>".join(html.escape(line) for line in lines)
            if lines
            else ""
        )
        for key, share in self.tally.pair_shares().items():
            self.numbers[key].setText(pct(share))
        self._show_headline()

    def _run_ended(self) -> bool:
        """Opened after the run: every request has an answer (or a failure) already."""
        report: MetricsReport | None = self.results._report  # noqa: SLF001 - same app
        counts = report["counts"] if report else None
        requests = counts["requests"] if counts else 0
        done = counts["answered"] + counts["failed"] if counts else 0
        return requests > 0 and done >= requests and not self.controller.running

    def _on_status(self, status: RunStatus) -> None:
        self._finished = status.state is RunState.FINISHED
        self._total = status.total
        self._model = self.controller.model_name or self._model
        self._show_headline()

    def _show_headline(self) -> None:
        answered = len(self._counted)
        if not answered and not self._total:
            return
        who = f"{self._model}: " if self._model else ""
        total = f" of {self._total:,}" if self._total else ""
        self.headline.setText(html.escape(f"{who}{answered:,}{total} answers"))

    def _item(self, answer: Answer, roster: Roster) -> QListWidgetItem:
        line = describe(answer, roster)
        mark = {True: "✓ ", False: "✗ ", None: ""}[line.right]
        text = f"{mark}{line.title}\n{line.shown}: {line.verdict}."
        if line.words:
            text += f"\n“{line.words}”"
        item = QListWidgetItem(text)
        item.setToolTip(line.title)
        if line.right is not None:
            item.setForeground(RIGHT_COLOURS[line.right])
        return item

    # -- numbers and charts -------------------------------------------------------------

    def show_panels(self) -> None:
        # The headline and the three numbers come from the answers themselves (the
        # tally); the Results page's report, refreshed on its own pace, draws the charts.
        report: MetricsReport | None = self.results._report  # noqa: SLF001 - same app
        if report is None:
            return
        if self._rendering:
            self._redraw = True  # drawn again at the latest size once this one is done
            return
        self._rendering = True
        self._redraw = False
        jobs = [
            (
                target,
                chart.title,
                chart.references,
                chart.items,
                (target.width(), target.height()),
                float(target.devicePixelRatioF()),
            )
            for target, chart in zip(
                (self.chart_a, self.chart_b), plain_charts(report), strict=False
            )
        ]

        def work() -> list[tuple[bytes, int, int]]:
            # Drawn at the presenter's size, with the title wrapped to the chart's width.
            out = []
            for _, title, refs, rates, size, dpr in jobs:
                scale = min(2.4, max(1.3, size[1] / 140))
                chars = max(16, int(size[0] / (7.0 * scale)))
                wrapped = textwrap.fill(title, chars)
                out.append(render_rates(wrapped, list(rates), refs, size, dpr, font_scale=scale))
            return out

        def done(images: list[tuple[bytes, int, int]]) -> None:
            self._rendering = False
            for (target, *_rest, dpr), (data, w, h) in zip(jobs, images, strict=True):
                image = QImage(data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()
                image.setDevicePixelRatio(dpr)
                pixmap = QPixmap.fromImage(image)
                if pixmap.deviceIndependentSize().toSize() != target.size():
                    pixmap = pixmap.scaled(
                        target.size() * dpr,
                        Qt.AspectRatioMode.KeepAspectRatio,
                        Qt.TransformationMode.SmoothTransformation,
                    )
                    pixmap.setDevicePixelRatio(dpr)
                target.setPixmap(pixmap)
            if self._redraw:
                self.show_panels()

        def failed(_exc: Exception) -> None:
            self._rendering = False

        run_in_background(work, done, failed, owner=self)


def plain_charts(report: MetricsReport) -> list[Chart]:
    """The charts of the first design that has some for a room (`Design.presenter_charts`:
    plain words, no paper terms on a projector)."""
    for unit in DESIGNS:
        block = unit.block(report)
        charts = unit.presenter_charts(block) if block else []
        if charts:
            return charts
    return []
