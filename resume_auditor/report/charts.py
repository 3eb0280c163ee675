"""Charts for reports and the app: rates with their 95% intervals, as pixels or PNG.

Plain matplotlib (Agg), no Qt, so it can run in a worker thread or a headless
report build. The app's Results page and presenter mode show these same images.
"""

from __future__ import annotations

import io
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

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


def rates_png(
    title: str,
    items: Rates,
    references: tuple[float, ...] = (),
    size: tuple[int, int] = (640, 300),
    dpr: float = 2.0,
) -> bytes:
    """The same chart as a PNG file's bytes (for HTML and PDF reports)."""
    from PIL import Image

    data, w, h = render_rates(title, items, references, size, dpr)
    out = io.BytesIO()
    Image.frombuffer("RGBA", (w, h), data, "raw", "RGBA", 0, 1).save(out, format="PNG")
    return out.getvalue()
