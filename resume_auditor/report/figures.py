"""The report's charts, drawn from the metrics and inlined as PNG data URIs.

Inlined so the HTML report is one file that can be mailed or filed, and so the
PDF made from it needs nothing else. Each chart has a text alternative that
says what it shows; the numbers themselves are in the tables beside it.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from resume_auditor.designs.base import Chart
from resume_auditor.report.charts import Rates, gaps_png, rates_png
from resume_auditor.stats.labels import label
from resume_auditor.stats.ll144 import GROUPINGS
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


def _threshold(metrics: MetricsReport, key: str) -> float | None:
    for t in metrics["thresholds"]:
        if t["key"] == key:
            return float(t["value"])
    return None


def _present(items: Rates) -> bool:
    return any(m and m.get("value") is not None for _, m in items)


def _size(items: Rates) -> tuple[int, int]:
    return 640, max(160, 70 + 30 * len(items))


def _mapping(block: Mapping[str, object], key: str) -> Mapping[str, Any] | None:
    """The map of metric objects under `key` of a block that also holds other fields."""
    cells = block.get(key)
    return cells if isinstance(cells, dict) else None


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


def build_figures(metrics: MetricsReport) -> dict[str, Figure]:
    out: dict[str, Figure] = {}
    d1 = metrics.get("d1") or {}
    cells = d1.get("metrics") or {}
    validity: Rates = [
        (title, cells[key])
        for key, title in (
            ("criterion_validity", "Picks the more qualified"),
            ("discrim_validity", "Abstains on equal pairs"),
            ("order_consistency", "Same verdict in both orders"),
        )
        if key in cells
    ]
    if _present(validity):
        refs = tuple(
            v
            for v in (
                _threshold(metrics, "criterion_validity"),
                _threshold(metrics, "discrim_validity"),
            )
            if v is not None
        )
        out["validity"] = Figure(
            "validity",
            "Validity with 95% intervals",
            "Bar chart of the validity rates in the table above; dashed lines mark the "
            "thresholds; red bars are flagged.",
            rates_png(
                "Validity (95% intervals; dashed: thresholds)", validity, refs, _size(validity)
            ),
        )
    rates: Rates = [(label(g), m) for g, m in (d1.get("selection_rate") or {}).items()]
    if _present(rates):
        out["selection"] = Figure(
            "selection",
            "SelectionRate by group",
            "Bar chart of how often each group's candidate was picked over an equally "
            "qualified candidate of another group, with 95% intervals.",
            rates_png(
                "Picked over an equally qualified candidate (95% intervals)",
                rates,
                (),
                _size(rates),
            ),
        )
    gaps: Rates = [(label(g), m) for g, m in (d1.get("selection_gap") or {}).items()]
    if _present(gaps):
        out["gaps"] = Figure(
            "gaps",
            "Selection gaps by group",
            "Bar chart of each group's selection gap in points against equally qualified "
            "candidates of other groups, with 95% intervals; red bars are flagged.",
            gaps_png(
                "Selection gap vs equally qualified candidates (points)",
                gaps,
                "points",
                _size(gaps),
            ),
        )
    impact = metrics.get("impact_ratio") or {}
    ratios: Rates = [
        (f"{label(c)}", m)
        for grouping in GROUPINGS
        for c, m in (_mapping(impact, grouping) or {}).items()
    ]
    if _present(ratios):
        cut = _threshold(metrics, "impact_ratio")
        out["impact"] = Figure(
            "impact",
            "Impact ratios (LL144)",
            "Bar chart of the impact ratios in the tables above, by sex, by race/ethnicity and "
            "intersectional; the dashed line marks the four-fifths threshold.",
            rates_png(
                "Impact ratio on equal pairs (dashed: four-fifths)",
                ratios,
                (cut,) if cut is not None else (),
                _size(ratios),
                ratio=True,
            ),
        )
    by_k: Rates = [
        (f"k = {k}", m)
        for k, m in ((d1.get("breakdowns") or {}).get("criterion_validity_by_k") or {}).items()
    ]
    if len(by_k) > 1 and _present(by_k):
        out["by_k"] = Figure(
            "by_k",
            "Picks the more qualified, by number of qualifications removed",
            "Bar chart of CriterionValidity for each k, with 95% intervals.",
            rates_png("Picks the more qualified, by k (95% intervals)", by_k, (), _size(by_k)),
        )
    return out
