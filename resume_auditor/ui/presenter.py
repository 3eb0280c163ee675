"""Presenter mode: for a trainer showing an audit live on a projector.

Full screen, large type: the verdicts as they arrive, each with what the model
said and whether it was right, next to the headline numbers and the charts, which
fill in as answers come. It only reads what the main window already has (the run
controller's answers and the Results page's panels), so it adds no work to a run.
"""

from __future__ import annotations

import html
from typing import cast

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QImage, QKeyEvent, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.domain.groups import group_label
from resume_auditor.runner import Answer
from resume_auditor.stats.model import MetricsReport
from resume_auditor.ui.models.pair_table import PairRow, choice_of
from resume_auditor.ui.pages.results_page import ResultsPage, chart_items
from resume_auditor.ui.run_controller import RunController
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.ui.widgets.charts import render_rates
from resume_auditor.ui.widgets.metric_card import pct

FEED_LIMIT = 60


class PresenterWindow(QWidget):
    def __init__(self, controller: RunController, results: ResultsPage) -> None:
        super().__init__()
        self.setWindowTitle("Resume Auditor — presenter")
        self.results = results
        self._rendering = False
        self._resize_timer = QTimer(self)
        self._resize_timer.setSingleShot(True)
        self._resize_timer.setInterval(300)
        self._resize_timer.timeout.connect(self.show_panels)
        self.setStyleSheet("QWidget { font-size: 20pt; } QLabel#big { font-size: 44pt; }")
        outer = QVBoxLayout(self)
        self.headline = QLabel("Waiting for answers…")
        self.headline.setAlignment(Qt.AlignmentFlag.AlignCenter)
        outer.addWidget(self.headline)
        numbers = QHBoxLayout()
        self.numbers: dict[str, QLabel] = {}
        for key, title in (
            ("criterion_validity", "Picks the more qualified"),
            ("discrim_validity", "Abstains between equals"),
            ("order_consistency", "Same verdict in both orders"),
        ):
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
        self.feed.setAccessibleName("Verdicts as they arrive")
        self.feed.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
        body.addWidget(self.feed, 3)
        charts = QVBoxLayout()
        self.chart_a = QLabel()
        self.chart_b = QLabel()
        for chart in (self.chart_a, self.chart_b):
            chart.setAlignment(Qt.AlignmentFlag.AlignCenter)
            chart.setMinimumSize(320, 200)
            chart.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
            charts.addWidget(chart, 1)
        body.addLayout(charts, 2)
        outer.addLayout(body, 1)
        hint = QLabel("Esc to leave presenter mode")
        hint.setStyleSheet("font-size: 11pt; color: gray;")
        outer.addWidget(hint)
        controller.answers_arrived.connect(self.show_answers)
        results.updated.connect(self.show_panels)
        self.show_panels()

    def show_answers(self, answers: list[Answer]) -> None:
        for answer in answers:
            pair = answer.pair_id
            row = None if pair is None else self.results.model.row_for_pair(pair)
            self.feed.insertItem(0, self._item(answer, row))
        while self.feed.count() > FEED_LIMIT:
            self.feed.takeItem(self.feed.count() - 1)

    def _item(self, answer: Answer, row: PairRow | None) -> QListWidgetItem:
        choice = choice_of(answer.label.value, answer.order)
        if row is None:
            who = f"Pair {answer.pair_id}"
            verdict = answer.label.value
            right: bool | None = None
        else:
            who = (
                f"{row.name_a} ({group_label(row.group_a)}) vs "
                f"{row.name_b} ({group_label(row.group_b)})"
            )
            names = {"a": row.name_a, "b": row.name_b}
            verdict = {"abstain": "abstained", "invalid": "gave no readable answer"}.get(
                choice, f"picked {names.get(choice, choice)}"
            )
            expected = "abstain" if row.truth == "equal" else row.truth
            right = None if choice == "invalid" else choice == expected
        mark = {True: "✓", False: "✗", None: "•"}[right]
        why = answer.justification.replace("\n", " ").strip()
        if len(why) > 220:
            why = why[:220] + "…"
        item = QListWidgetItem(f"{mark} {who}: {verdict}.\n“{why}”")
        if right is not None:
            item.setForeground(Qt.GlobalColor.darkGreen if right else Qt.GlobalColor.red)
        return item

    def show_panels(self) -> None:
        report = cast("MetricsReport | None", self.results._report)  # noqa: SLF001 - same app
        if report:
            counts = report["counts"]
            self.headline.setText(
                html.escape(
                    f"{report['run']['model']}: {counts['answered']} of "
                    f"{counts['requests']} answers"
                )
            )
            metrics = report["d1"]["metrics"]
            for key, label in self.numbers.items():
                label.setText(pct(m.get("value") if (m := metrics.get(key)) else None))
        if report is None or self._rendering:
            return
        self._rendering = True
        validity, selection = chart_items(report)
        jobs = [
            (
                target,
                title,
                refs,
                rates,
                (target.width(), target.height()),
                float(target.devicePixelRatioF()),
            )
            for target, title, refs, rates in (
                (self.chart_a, "Validity (dashed: 0.90, 0.95)", (0.9, 0.95), validity),
                (self.chart_b, "SelectionRate, equal pairs", (), selection),
            )
        ]

        def work() -> list[tuple[bytes, int, int]]:
            # Drawn at the presenter's size, so the labels stay readable on a projector.
            return [
                render_rates(t, r, refs, size, dpr, font_scale=1.8)
                for _, t, refs, r, size, dpr in jobs
            ]

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

        def failed(_exc: Exception) -> None:
            self._rendering = False

        run_in_background(work, done, failed, owner=self)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._resize_timer.start()  # draw the charts again at the new size, once

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape:
            self.close()
        else:
            super().keyPressEvent(event)
