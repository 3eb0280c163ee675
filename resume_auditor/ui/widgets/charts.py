"""Show charts rendered off the UI thread (see report.charts.render_rates).

Drawing a matplotlib figure takes tens of milliseconds; done on the UI thread
every time answers arrive it would freeze the window. So the drawing runs in a
worker and returns pixels, and `ChartView` only shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QPalette, QPixmap, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy

from resume_auditor.designs.registry import DESIGNS
from resume_auditor.report.charts import Rates, render_gaps, render_rates
from resume_auditor.stats.model import MetricsReport

__all__ = ["ChartSpec", "ChartView", "Rates", "chart_spec", "render_rates", "render_spec"]

Pixels = tuple[bytes, int, int]


@dataclass(frozen=True)
class ChartSpec:
    """What one chart shows: bars with intervals (`rates`, 0-100%) or signed gaps."""

    kind: str  # "rates" | "gaps" | "differences" (gaps on a scale fitted to them)
    title: str
    items: Rates
    references: tuple[float, ...] = ()
    unit: str = "points"


def thresholds_of(metrics: MetricsReport | None) -> dict[str, float]:
    """The report's thresholds by key ({} without a report: each chart's own defaults)."""
    return {t["key"]: float(t["value"]) for t in metrics["thresholds"]} if metrics else {}


def chart_spec(key: str, metrics: MetricsReport | None) -> ChartSpec:
    """The chart `key` of a ChartView, from the metrics (runs in a worker: no Qt): the
    design whose `charts` name it draws it (`Design.view_chart`)."""
    for unit in DESIGNS:
        if key in unit.charts:
            chart = unit.view_chart(key, unit.block(metrics), thresholds_of(metrics))
            if chart is not None:
                return ChartSpec(
                    chart.kind, chart.title, list(chart.items), chart.references, chart.unit
                )
    return ChartSpec("rates", key, [])


def render_spec(
    spec: ChartSpec, size: tuple[int, int], dpr: float, *, dark: bool = False
) -> Pixels:
    """Draw a chart (call in a worker: matplotlib takes tens of milliseconds)."""
    if spec.kind in ("gaps", "differences"):
        fitted = spec.kind == "differences"  # a scale fitted to the intervals
        return render_gaps(spec.title, spec.items, spec.unit, size, dpr, fitted=fitted)
    return render_rates(spec.title, spec.items, spec.references, size, dpr, dark=dark)


class ChartView(QLabel):
    """Shows a chart rendered elsewhere; scales it while the window is resized.

    `resized` is emitted once the size has settled away from the size the image was
    drawn for, so the owner can draw it again sharp at the new size.
    """

    resized = Signal()

    def __init__(self, title: str, references: tuple[float, ...] = (), key: str = "") -> None:
        super().__init__()
        self.title = title
        self.references = references
        self.key = key  # which chart_spec it shows
        self.setMinimumSize(200, 180)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAccessibleName(title)
        self._pixmap: QPixmap | None = None
        self._rendered: tuple[int, int] = (0, 0)  # logical size the image was drawn for
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(250)
        self._settle.timeout.connect(self._check_size)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """A fixed hint: the label's own hint follows its pixmap, and a chart drawn at
        its size would then ask for more room each time it is drawn again."""
        return QSize(360, 240)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.minimumSize()

    def render_size(self) -> tuple[tuple[int, int], float]:
        return (self.width(), self.height()), float(self.devicePixelRatioF())

    def dark(self) -> bool:
        """Whether the app runs in a dark theme (the OS's or the user's choice)."""
        return self.palette().color(QPalette.ColorRole.Window).lightness() < 128

    def show_image(self, image: tuple[bytes, int, int], dpr: float) -> None:
        data, w, h = image
        qimage = QImage(data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()
        qimage.setDevicePixelRatio(dpr)
        self._pixmap = QPixmap.fromImage(qimage)
        self._rendered = (round(w / dpr), round(h / dpr))
        self._fit()

    def _fit(self) -> None:
        """Show the image within the current size (scaled down, never cropped)."""
        if self._pixmap is None:
            return
        if self._rendered[0] <= self.width() and self._rendered[1] <= self.height():
            self.setPixmap(self._pixmap)
            return
        dpr = self._pixmap.devicePixelRatio()
        target = QSize(round(self.width() * dpr), round(self.height() * dpr))
        scaled = self._pixmap.scaled(
            target, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
        )
        scaled.setDevicePixelRatio(dpr)
        self.setPixmap(scaled)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit()
        self._settle.start()

    def _check_size(self) -> None:
        """Ask for a new image once the size has settled somewhere else than it was drawn for."""
        if self._pixmap is None:
            return
        w, h = self._rendered
        if abs(w - self.width()) > 12 or abs(h - self.height()) > 12:
            self.resized.emit()
