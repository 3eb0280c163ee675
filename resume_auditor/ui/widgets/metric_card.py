"""A card showing one metric: the value, its interval, and a sentence a reader understands."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout

from resume_auditor.stats.model import MetricDict


def pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


class MetricCard(QFrame):
    """Double-click (or Enter) asks for the answers behind the number: `activated`."""

    activated = Signal()

    def __init__(self, title: str, help_text: str) -> None:
        super().__init__()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setObjectName("metricCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(2)
        self.title = QLabel(title)
        self.title.setStyleSheet("font-weight: 600;")
        self.title.setWordWrap(True)
        self.value = QLabel("—")
        self.value.setStyleSheet("font-size: 16pt; font-weight: 600;")
        self.interval = QLabel("")
        self.reading = QLabel("")
        self.reading.setWordWrap(True)
        self.reading.setStyleSheet("font-size: 8.5pt;")
        self.reading.setMinimumHeight(44)
        for w in (self.title, self.value, self.interval, self.reading):
            layout.addWidget(w)
        layout.addStretch(1)
        self._help = help_text + "\n\nDouble-click to read the answers behind this number."
        self.setToolTip(self._help)

    def show_metric(self, metric: MetricDict | None) -> None:
        if not metric or metric.get("value") is None:
            self.value.setText("—")
            self.interval.setText("no answers yet" if metric is None else "no cases of this kind")
            self.reading.setText("")
            self.setStyleSheet("")
            return
        low, high = metric["ci"]
        self.value.setText(pct(metric["value"]))
        self.interval.setText(f"95% CI {pct(low)}–{pct(high)} · n = {metric['n']}")
        self.interval.setToolTip(metric.get("note") or "")
        self.reading.setText(metric["sentence"])
        flagged = bool(metric.get("flag"))
        self.setStyleSheet(
            "#metricCard { border: 2px solid #c62828; border-radius: 6px; }" if flagged else ""
        )
        if flagged:  # the flag's sentence is listed above the cards; here a tooltip
            self.setToolTip(f"{self._help}\n\n⚠ {metric['flag']}")
        else:
            self.setToolTip(self._help)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        self.activated.emit()
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.activated.emit()
            return
        super().keyPressEvent(event)
