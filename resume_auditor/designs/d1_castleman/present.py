"""D1 in words: its Results rows, read from its blocks (`d1`, `impact_ratio`).

Moved from report/panels.py (`d1_rows`): the same rows in the same order with the same
paths (`d1...`, `impact_ratio...`: its blocks sit at the top level of the metrics JSON,
where they always have), so drill-down, the glossary and the verdict find them as before.
The block is read typed (`D1Blocks`), so mypy catches a renamed field.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from resume_auditor.designs.base import PanelRow
from resume_auditor.designs.d1_castleman.model import D1Blocks
from resume_auditor.stats.labels import label
from resume_auditor.stats.ll144 import GROUPING_TITLES, GROUPINGS
from resume_auditor.stats.model import MetricDict

ALL = "All"


def _cells(block: Mapping[str, Any] | None) -> Iterator[tuple[str, MetricDict]]:
    """The metric objects of a map (anything else in it, e.g. from a newer app, is skipped)."""
    for key, m in (block or {}).items():
        if isinstance(m, dict) and "value" in m and "title" in m:
            yield str(key), cast(MetricDict, m)


def _row(path: list[str], m: MetricDict, group: str, detail: str = "") -> PanelRow:
    return PanelRow(tuple(path), m, group, detail)


def panel_rows(block: Mapping[str, Any]) -> list[PanelRow]:
    """Validity, selection rates and gaps, the impact ratios by grouping, over-assessment
    and the breakdowns, in that order (empty: the run has no D1 judgment)."""
    b = cast(D1Blocks, block)
    d1 = b["d1"]
    if not d1:
        return []
    rows = [_row(["d1", "metrics", k], m, ALL) for k, m in _cells(d1["metrics"])]
    rows += [
        _row(["d1", "selection_rate", g], m, label(g)) for g, m in _cells(d1["selection_rate"])
    ]
    rows += [_row(["d1", "selection_gap", g], m, label(g)) for g, m in _cells(d1["selection_gap"])]
    impact = b.get("impact_ratio")  # absent from a report of an older app
    for grouping in GROUPINGS:
        cells = impact.get(grouping) if impact else None
        title = GROUPING_TITLES.get(grouping, grouping).lower()
        rows += [
            _row(["impact_ratio", grouping, c], m, label(c), title)
            for c, m in _cells(cells if isinstance(cells, dict) else None)
        ]
    for part, by_group in d1["over_assessment"].items():
        rows += [_row(["d1", "over_assessment", part, g], m, label(g)) for g, m in _cells(by_group)]
    # D1Breakdowns is total=False: each key a map of metric objects by value
    breakdowns = cast(Mapping[str, Mapping[str, MetricDict]], d1["breakdowns"])
    for key, by_value in breakdowns.items():
        rows += [_row(["d1", "breakdowns", key, v], m, ALL, v) for v, m in _cells(by_value)]
    return rows
