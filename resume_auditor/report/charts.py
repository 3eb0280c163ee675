"""Charts for reports and the app: rates with their 95% intervals, as pixels or PNG.

Plain matplotlib (Agg), no Qt, so it can run in a worker thread or a headless
report build. The app's Results page and presenter mode show these same images.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Mapping
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, PercentFormatter

# (label, metric object); a chart reads only a metric's value, ci and flag.
Rates = list[tuple[str, Mapping[str, Any]]]
DARK_GROUND, DARK_INK = "#2b2b2b", "#e0e0e0"


def render_rates(
    title: str,
    items: Rates,
    references: tuple[float, ...] = (),
    size: tuple[int, int] = (500, 260),
    dpr: float = 1.0,
    font_scale: float = 1.0,
    *,
    ratio: bool = False,
    dark: bool = False,
) -> tuple[bytes, int, int]:
    """Horizontal bars with 95% intervals and dashed reference lines, as RGBA pixels.

    `ratio`: the values are ratios (impact ratios), labelled 0.80 rather than 80%.
    `dark`: light ink on a dark ground, for an app in a dark theme.
    """
    fig, canvas, ax, shown = _start(items, size, dpr, font_scale)
    if shown:
        labels = [label for label, _ in shown]
        values = [m["value"] for _, m in shown]
        lows = [_err(m, 0) for _, m in shown]
        highs = [_err(m, 1) for _, m in shown]
        ys = list(range(len(shown)))
        colors = ["#c62828" if m.get("flag") else "#1565c0" for _, m in shown]
        ax.barh(
            ys,
            values,
            xerr=[lows, highs],
            color=colors,
            alpha=0.85,
            capsize=4,
            error_kw={"ecolor": DARK_INK if dark else "black"},
        )
        ax.set_yticks(ys, labels)
        ax.invert_yaxis()
        ax.set_xlim(0, 1)
        if ratio:
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:.2f}"))
        else:
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        for ref in references:
            ax.axvline(ref, color="#555", linestyle="--", linewidth=1)
        ax.tick_params(labelsize=8 * font_scale)
    _title(fig, title, size, 9 * font_scale)
    if dark:
        _darken(fig, ax)
    return _pixels(canvas)


def _start(
    items: Rates,
    size: tuple[int, int],
    dpr: float,
    font_scale: float,
) -> tuple[Figure, FigureCanvasAgg, Any, Rates]:
    """A figure of `size` pixels and the items that have a value; says so when none has."""
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
    return fig, canvas, ax, shown


def _title(fig: Figure, title: str, size: tuple[int, int], points: float) -> None:
    """The title over the whole figure, wrapped to its width: over the axes alone it
    was centred on the plot area and ran off the edge when the labels were long."""
    char_px = 0.6 * points * 100 / 72  # an average character at the figure's 100 dpi
    width = max(12, int(max(120, size[0]) / char_px))
    fig.suptitle(textwrap.fill(title, width), fontsize=points)


def _darken(fig: Figure, ax: Any) -> None:
    """Recolour a finished chart for a dark theme (per figure: safe in worker threads)."""
    fig.patch.set_facecolor(DARK_GROUND)
    ax.set_facecolor(DARK_GROUND)
    ax.tick_params(colors=DARK_INK, which="both")
    ax.title.set_color(DARK_INK)
    suptitle = getattr(fig, "_suptitle", None)  # matplotlib keeps the Text only there
    if suptitle is not None:
        suptitle.set_color(DARK_INK)
    ax.xaxis.label.set_color(DARK_INK)
    for spine in ax.spines.values():
        spine.set_color(DARK_INK)
    for text in ax.texts:
        text.set_color(DARK_INK)
    for line in ax.lines:  # error bars and reference lines drawn in dark ink
        line.set_color(DARK_INK)
    for collection in ax.collections:
        collection.set_color(DARK_INK)


def _pixels(canvas: FigureCanvasAgg) -> tuple[bytes, int, int]:
    """Draw and take the RGBA pixels (matplotlib's Agg canvas has no type annotations)."""
    canvas.draw()  # type: ignore[no-untyped-call]
    w, h = canvas.get_width_height(physical=True)
    return bytes(canvas.buffer_rgba()), w, h  # type: ignore[no-untyped-call]


def _err(metric: Mapping[str, Any], side: int) -> float:
    """Length of an error bar; 0 when the metric has no interval (e.g. a reference ratio)."""
    ci = metric.get("ci") or [None, None]
    bound = ci[side]
    if bound is None:
        return 0.0
    value = float(metric["value"])
    return max(0.0, value - float(bound)) if side == 0 else max(0.0, float(bound) - value)


def render_gaps(
    title: str,
    items: Rates,
    unit: str = "points",
    size: tuple[int, int] = (500, 260),
    dpr: float = 1.0,
    font_scale: float = 1.0,
    *,
    fitted: bool = False,
) -> tuple[bytes, int, int]:
    """Signed gaps around zero with 95% intervals (group gaps, standardized differences).

    `unit` "points": values are -1..1 and read as percentage points (+12), on the
    whole scale unless `fitted` (differences between models, a few points each, were
    slivers on it); any other unit is drawn on a symmetric scale fitted to the
    intervals (+0.25 SD).
    """
    fig, canvas, ax, shown = _start(items, size, dpr, font_scale)
    if shown:
        ys = list(range(len(shown)))
        values = [m["value"] for _, m in shown]
        colors = ["#c62828" if m.get("flag") else "#1565c0" for _, m in shown]
        ax.barh(
            ys,
            values,
            xerr=[[_err(m, 0) for _, m in shown], [_err(m, 1) for _, m in shown]],
            color=colors,
            alpha=0.85,
            capsize=4,
        )
        ax.set_yticks(ys, [label for label, _ in shown])
        ax.invert_yaxis()
        ax.axvline(0.0, color="#333", linewidth=1)
        if unit == "points":
            bounds = [abs(v) for _, m in shown for v in (m.get("ci") or []) if v is not None]
            reach = max([abs(v) for v in values] + bounds + [0.05]) * 1.1
            edge = min(1.0, reach) if fitted else 1.0
            ax.set_xlim(-edge, edge)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{100 * x:+.0f}"))
            ax.set_xlabel("percentage points", fontsize=8 * font_scale)
        else:
            bounds = [abs(v) for _, m in shown for v in (m.get("ci") or []) if v is not None]
            reach = max([abs(v) for v in values] + bounds + [0.25]) * 1.1
            ax.set_xlim(-reach, reach)
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:+.2f}"))
            ax.set_xlabel("standard deviations" if unit == "sd" else unit, fontsize=8 * font_scale)
        ax.tick_params(labelsize=8 * font_scale)
    _title(fig, title, size, 9 * font_scale)
    return _pixels(canvas)


def to_png(pixels: tuple[bytes, int, int]) -> bytes:
    """RGBA pixels (from render_rates / render_gaps) as a PNG file's bytes."""
    from PIL import Image

    data, w, h = pixels
    out = io.BytesIO()
    Image.frombuffer("RGBA", (w, h), data, "raw", "RGBA", 0, 1).save(out, format="PNG")
    return out.getvalue()


def rates_png(
    title: str,
    items: Rates,
    references: tuple[float, ...] = (),
    size: tuple[int, int] = (640, 300),
    dpr: float = 2.0,
    *,
    ratio: bool = False,
) -> bytes:
    """The same chart as a PNG file's bytes (for HTML and PDF reports)."""
    return to_png(render_rates(title, items, references, size, dpr, ratio=ratio))


def gaps_png(
    title: str,
    items: Rates,
    unit: str = "points",
    size: tuple[int, int] = (640, 300),
    dpr: float = 2.0,
    *,
    fitted: bool = False,
) -> bytes:
    return to_png(render_gaps(title, items, unit, size, dpr, fitted=fitted))
