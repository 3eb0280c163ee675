"""Matplotlib charts in Qt: rates with their intervals and reference lines."""

from __future__ import annotations

from typing import Any

import matplotlib

matplotlib.use("QtAgg")

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


class RateChart(FigureCanvasQTAgg):
    """Horizontal bars with 95% intervals; dashed reference lines."""

    def __init__(self, title: str, references: tuple[float, ...] = ()) -> None:
        self.figure = Figure(figsize=(5, 2.6), layout="constrained")
        super().__init__(self.figure)
        self.title = title
        self.references = references
        self.setMinimumHeight(200)

    def show_rates(self, items: list[tuple[str, dict[str, Any]]]) -> None:
        fig = self.figure
        fig.clear()
        ax = fig.add_subplot(111)
        shown = [(label, m) for label, m in items if m and m.get("value") is not None]
        if not shown:
            ax.text(0.5, 0.5, "No answers yet", ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
            self.draw_idle()
            return
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
        ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
        for ref in self.references:
            ax.axvline(ref, color="#555", linestyle="--", linewidth=1)
        ax.tick_params(labelsize=8)
        ax.set_title(self.title, fontsize=9, wrap=True)
        self.draw_idle()
