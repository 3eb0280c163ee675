"""The rows of each design's table on the Results page, read from the typed metrics.

One shape for every design (designs/base.PanelRow: where a metric sits, the metric,
its group and which cut of it), so the UI renders them without knowing any design.
Every registered design gives its own (`Design.panel`; docs/designs.md, "Designs as
units"). Every read goes through the
TypedDicts of stats/model.py, so mypy catches a renamed field here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from resume_auditor.designs.base import PanelRow
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.stats.model import MetricDict, MetricsReport

ALL = "All"


def _cells(block: Mapping[str, MetricDict] | None) -> Iterator[tuple[str, MetricDict]]:
    """The metric objects of a map (anything else in it, e.g. from a newer app, is skipped)."""
    for key, m in (block or {}).items():
        if isinstance(m, dict) and "value" in m and "title" in m:
            yield str(key), m


def _row(path: list[str], m: MetricDict, group: str, detail: str = "") -> PanelRow:
    return PanelRow(tuple(path), m, group, detail)


REGISTERED = {d.key: d for d in DESIGNS}


def panel_rows(metrics: MetricsReport | None, design: str) -> list[PanelRow]:
    """Every row of `design`'s table (a registry design's key)."""
    if not metrics:
        return []
    if design in REGISTERED:
        block = REGISTERED[design].block(metrics)
        return REGISTERED[design].panel(block) if block else []
    return []
