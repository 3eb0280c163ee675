"""The report's charts, drawn from the metrics and inlined as PNG data URIs.

Inlined so the HTML report is one file that can be mailed or filed, and so the
PDF made from it needs nothing else. Each chart has a text alternative that
says what it shows; the numbers themselves are in the tables beside it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from resume_auditor.designs.base import Chart, ReportFigure
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.report.charts import Rates, gaps_png, rates_png
from resume_auditor.report.numbers import thresholds_by_key
from resume_auditor.stats.model import MetricsReport


@dataclass(frozen=True)
class Figure:
    key: str
    title: str
    alt: str
    png: bytes

    @property
    def data_uri(self) -> str:
        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")


def _present(items: Rates) -> bool:
    return any(m and m.get("value") is not None for _, m in items)


def _size(items: Rates) -> tuple[int, int]:
    return 640, max(160, 70 + 30 * len(items))


def design_figure(key: str, chart: Chart) -> Figure | None:
    """A registry design's chart (designs/base.py `Chart`) drawn for the report."""
    items: Rates = [(name, metric) for name, metric in chart.items]
    if not _present(items):
        return None
    size = _size(items)
    if chart.kind == "gaps":
        png = gaps_png(chart.title, items, chart.unit, size)
    else:
        png = rates_png(chart.title, items, chart.references, size)
    return Figure(
        key,
        chart.title,
        f"Bar chart: {chart.title}, with 95% intervals; red bars are flagged. The numbers "
        "are in the tables above.",
        png,
    )


def report_figure(figure: ReportFigure) -> Figure | None:
    """A design's own figure of the report (`Design.report_figures`), drawn; None when
    it has no number to draw."""
    chart = figure.chart
    items: Rates = [(name, metric) for name, metric in chart.items]
    if not _present(items):
        return None
    size = _size(items)
    if chart.kind == "gaps":
        png = gaps_png(chart.title, items, chart.unit, size)
    else:
        png = rates_png(chart.title, items, chart.references, size, ratio=figure.ratio)
    return Figure(figure.key, figure.title, figure.alt, png)


def build_figures(metrics: MetricsReport) -> dict[str, Figure]:
    """Every registry design's own figures by key (its sections name the ones drawn
    under them)."""
    out: dict[str, Figure] = {}
    thresholds = thresholds_by_key(metrics)
    for design in DESIGNS:
        block = design.block(metrics)
        if block is None:
            continue
        for figure in design.report_figures(block, thresholds):
            drawn = report_figure(figure)
            if drawn is not None:
                out[figure.key] = drawn
    return out
