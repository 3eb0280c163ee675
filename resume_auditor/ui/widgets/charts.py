"""Charts of rates with their intervals, drawn off the UI thread.

Drawing a matplotlib figure takes tens of milliseconds; done on the UI thread
every time answers arrive it would freeze the window. So `render_rates` (plain
matplotlib Agg, no Qt) runs in a worker and returns pixels, and `ChartView` only
shows them. The same function draws the charts in reports.
"""

from __future__ import annotations

from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QLabel, QSizePolicy

Rates = list[tuple[str, dict[str, Any]]]


def render_rates(
    title: str,
    items: Rates,
    references: tuple[float, ...] = (),
    size: tuple[int, int] = (500, 260),
    dpr: float = 1.0,
    font_scale: float = 1.0,
) -> tuple[bytes, int, int]:
    """Horizontal bars with 95% intervals and dashed reference lines, as RGBA pixels."""
    width, height = max(120, size[0]), max(100, size[1])
    fig = Figure(figsize=(width / 100, height / 100), dpi=100 * dpr, layout="constrained")
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_subplot(111)
    shown = [(label, m) for label, m in items if m and m.get("value") is not None]
    if not shown:
        ax.text(
            0.5,
            0.5,
            "No answers yet",
            ha="center",
            va="center",
            transform=ax.transAxes,
            fontsize=10 * font_scale,
        )
        ax.set_axis_off()
    else:
        labels = [label for label, _ in shown]
        values = [m["value"] for _, m in shown]
        lows = [max(0.0, m["value"] - m["ci"][0]) for _, m in shown]
        highs = [max(0.0, m["ci"][1] - m["value"]) for _, m in shown]
        ys = list(range(len(shown)))
        colors = ["#c62828" if m.get("flag") else "#1565c0" for _, m in shown]
        ax.barh(ys, values, xerr=[lows, highs], color=colors, alpha=0.85, capsize=4)
        ax.set_yticks(ys, labels)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        for ref in references:
            ax.axvline(ref, color="#555", linestyle="--", linewidth=1)
        ax.tick_params(labelsize=8 * font_scale)
    ax.set_title(title, fontsize=9 * font_scale)
    canvas.draw()
    w, h = canvas.get_width_height(physical=True)
    return bytes(canvas.buffer_rgba()), w, h


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

    def show_image(self, image: tuple[bytes, int, int], dpr: float) -> None:
        data, w, h = image
        qimage = QImage(data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()
        qimage.setDevicePixelRatio(dpr)
        self._pixmap = QPixmap.fromImage(qimage)
        self.setPixmap(self._pixmap)
