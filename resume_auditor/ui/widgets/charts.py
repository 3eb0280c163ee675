"""Show charts rendered off the UI thread (see report.charts.render_rates).

Drawing a matplotlib figure takes tens of milliseconds; done on the UI thread
every time answers arrive it would freeze the window. So the drawing runs in a
worker and returns pixels, and `ChartView` only shows them.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPalette, QPixmap
from PySide6.QtWidgets import QLabel, QSizePolicy

from resume_auditor.report.charts import Rates, render_rates

__all__ = ["ChartView", "Rates", "render_rates"]


class ChartView(QLabel):
    """Shows a chart rendered elsewhere; scales it while the window is resized."""

    def __init__(self, title: str, references: tuple[float, ...] = ()) -> None:
        super().__init__()
        self.title = title
        self.references = references
        self.setMinimumSize(200, 180)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAccessibleName(title)
        self._pixmap: QPixmap | None = None

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
        self.setPixmap(self._pixmap)
