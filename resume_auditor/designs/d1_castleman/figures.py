"""D1's figures in the report: validity, selection rates, gaps, impact ratios, by k.

Each is a `ReportFigure` (designs/base.py) that report/figures.py draws under the
section that names its key (present.sections: "validity", "selection", "gaps",
"impact", "by_k"), with the report's thresholds as dashed lines and its own title,
caption and text alternative. Moved from report/figures.py word for word.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, cast

from resume_auditor.designs.base import Chart, ReportFigure
from resume_auditor.designs.d1_castleman.model import D1Blocks
from resume_auditor.stats.labels import label
from resume_auditor.stats.ll144 import GROUPINGS
from resume_auditor.stats.model import MetricDict

logger = logging.getLogger(__name__)

Items = list[tuple[str, MetricDict]]


def _mapping(block: Mapping[str, object], key: str) -> Mapping[str, Any] | None:
    """The map of metric objects under `key` of a block that also holds other fields."""
    cells = block.get(key)
    return cells if isinstance(cells, dict) else None


def report_figures(block: Mapping[str, Any], thresholds: Mapping[str, float]) -> list[ReportFigure]:
    """Its five figures, in the report's order (each drawn only when it has a number)."""
    blocks = cast(D1Blocks, block)
    d1: Any = blocks.get("d1") or {}
    cells = d1.get("metrics") or {}
    out: list[ReportFigure] = []
    validity: Items = [
        (title, cells[key])
        for key, title in (
            ("criterion_validity", "Picks the more qualified"),
            ("discrim_validity", "Abstains on equal pairs"),
            ("order_consistency", "Same verdict in both orders"),
        )
        if key in cells
    ]
    refs = tuple(
        v
        for v in (thresholds.get("criterion_validity"), thresholds.get("discrim_validity"))
        if v is not None
    )
    out.append(
        ReportFigure(
            "validity",
            "Validity with 95% intervals",
            "Bar chart of the validity rates in the table above; dashed lines mark the "
            "thresholds; red bars are flagged.",
            Chart("rates", "Validity (95% intervals; dashed: thresholds)", validity, refs),
        )
    )
    rates: Items = [(label(g), m) for g, m in (d1.get("selection_rate") or {}).items()]
    out.append(
        ReportFigure(
            "selection",
            "SelectionRate by group",
            "Bar chart of how often each group's candidate was picked over an equally "
            "qualified candidate of another group, with 95% intervals.",
            Chart("rates", "Picked over an equally qualified candidate (95% intervals)", rates),
        )
    )
    gaps: Items = [(label(g), m) for g, m in (d1.get("selection_gap") or {}).items()]
    out.append(
        ReportFigure(
            "gaps",
            "Selection gaps by group",
            "Bar chart of each group's selection gap in points against equally qualified "
            "candidates of other groups, with 95% intervals; red bars are flagged.",
            Chart("gaps", "Selection gap vs equally qualified candidates (points)", gaps),
        )
    )
    impact: Mapping[str, object] = blocks.get("impact_ratio") or {}
    ratios: Items = [
        (f"{label(c)}", m)
        for grouping in GROUPINGS
        for c, m in (_mapping(impact, grouping) or {}).items()
    ]
    cut = thresholds.get("impact_ratio")
    out.append(
        ReportFigure(
            "impact",
            "Impact ratios (LL144)",
            "Bar chart of the impact ratios in the tables above, by sex, by race/ethnicity and "
            "intersectional; the dashed line marks the four-fifths threshold.",
            Chart(
                "rates",
                "Impact ratio on equal pairs (dashed: four-fifths)",
                ratios,
                (cut,) if cut is not None else (),
            ),
            ratio=True,
        )
    )
    by_k: Items = [
        (f"k = {k}", m)
        for k, m in ((d1.get("breakdowns") or {}).get("criterion_validity_by_k") or {}).items()
    ]
    if len(by_k) > 1:
        out.append(
            ReportFigure(
                "by_k",
                "Picks the more qualified, by number of qualifications removed",
                "Bar chart of CriterionValidity for each k, with 95% intervals.",
                Chart("rates", "Picks the more qualified, by k (95% intervals)", by_k),
            )
        )
    return out
