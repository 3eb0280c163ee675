"""The rows of each design's table on the Results page, read from the typed metrics.

One shape for every design (designs/base.PanelRow: where a metric sits, the metric,
its group and which cut of it), so the UI renders them without knowing any design.
Designs kept as units give theirs (`Design.panel`); D1's are here until it moves
into its folder (docs/designs.md, "Designs as units"). Every read goes through the
TypedDicts of stats/model.py, so mypy catches a renamed field here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import cast

from resume_auditor.designs.base import PanelRow
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.report.impact import GROUPING_TITLES, GROUPINGS
from resume_auditor.stats.labels import label
from resume_auditor.stats.model import MetricDict, MetricsReport

ALL = "All"


def _cells(block: Mapping[str, MetricDict] | None) -> Iterator[tuple[str, MetricDict]]:
    """The metric objects of a map (anything else in it, e.g. from a newer app, is skipped)."""
    for key, m in (block or {}).items():
        if isinstance(m, dict) and "value" in m and "title" in m:
            yield str(key), m


def _row(path: list[str], m: MetricDict, group: str, detail: str = "") -> PanelRow:
    return PanelRow(tuple(path), m, group, detail)


def d1_rows(metrics: MetricsReport) -> list[PanelRow]:
    d1 = metrics.get("d1")
    if not d1:
        return []
    rows = [_row(["d1", "metrics", k], m, ALL) for k, m in _cells(d1.get("metrics"))]
    rows += [
        _row(["d1", "selection_rate", g], m, label(g)) for g, m in _cells(d1.get("selection_rate"))
    ]
    rows += [
        _row(["d1", "selection_gap", g], m, label(g)) for g, m in _cells(d1.get("selection_gap"))
    ]
    impact = metrics.get("impact_ratio")
    for grouping in GROUPINGS:
        cells = impact.get(grouping) if impact else None
        title = GROUPING_TITLES.get(grouping, grouping).lower()
        rows += [
            _row(["impact_ratio", grouping, c], m, label(c), title)
            for c, m in _cells(cells if isinstance(cells, dict) else None)
        ]
    for part, by_group in (d1.get("over_assessment") or {}).items():
        rows += [_row(["d1", "over_assessment", part, g], m, label(g)) for g, m in _cells(by_group)]
    # D1Breakdowns is total=False: each key a map of metric objects by value
    breakdowns = cast(Mapping[str, Mapping[str, MetricDict]], d1.get("breakdowns") or {})
    for key, by_value in breakdowns.items():
        rows += [_row(["d1", "breakdowns", key, v], m, ALL, v) for v, m in _cells(by_value)]
    return rows


LEGACY = {"d1": d1_rows}
REGISTERED = {d.key: d for d in DESIGNS}


def panel_rows(metrics: MetricsReport | None, design: str) -> list[PanelRow]:
    """Every row of `design`'s table ("d1", or a registry design's key: "d2", ...)."""
    if not metrics:
        return []
    if design in REGISTERED:
        block = REGISTERED[design].block(metrics)
        return REGISTERED[design].panel(block) if block else []
    return LEGACY[design](metrics)
