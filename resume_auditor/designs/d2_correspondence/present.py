"""What D2 shows from its metrics block: the rows of its table on the Results page.

Data only (designs/base.PanelRow: where a metric sits, the metric, its group and which
cut of it), so the UI renders D2 as it renders any design. The rows and their order are
those the Results page has always shown for D2. Its report section, charts and
drill-down are still drawn by report/ and workflow/ by name (docs/designs.md,
"Designs as units").
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

from resume_auditor.designs.base import PanelRow
from resume_auditor.stats.labels import label
from resume_auditor.stats.model import MetricDict

ALL = "All"


def _cells(block: Any) -> Iterator[tuple[str, MetricDict]]:
    """The metric objects of a map (anything else in it, e.g. from a newer app, is skipped)."""
    for key, m in (block or {}).items():
        if isinstance(m, dict) and "value" in m and "title" in m:
            yield str(key), cast(MetricDict, m)


def _row(path: list[str], m: MetricDict, group: str, detail: str = "") -> PanelRow:
    return PanelRow(tuple(path), m, group, detail)


def panel_rows(d2: Mapping[str, Any]) -> list[PanelRow]:
    """The Results page's rows for D2's block (`d2` of the metrics JSON)."""
    if not d2:
        return []
    ref = label(d2.get("reference") or "white_man")
    rows = [_row(["d2", "smd", g], m, label(g), f"than {ref}") for g, m in _cells(d2.get("smd"))]
    rows += [_row(["d2", "smd_race", g], m, label(g)) for g, m in _cells(d2.get("smd_race"))]
    rows += [_row(["d2", "smd_gender", g], m, label(g)) for g, m in _cells(d2.get("smd_gender"))]
    for threshold, kinds in (d2.get("impact_ratio") or {}).items():
        for kind, ratios in (kinds or {}).items():
            rows += [
                _row(["d2", "impact_ratio", threshold, kind, g], m, label(g), f"rated {threshold}+")
                for g, m in _cells(ratios)
            ]
    rows += [
        _row(["d2", "manipulation", k], m, ALL, {"both": "race and gender"}.get(k, k))
        for k, m in _cells(d2.get("manipulation"))
    ]
    rows += [_row(["d2", "blinded", g], m, label(g)) for g, m in _cells(d2.get("blinded"))]
    for prompt, by_group in (d2.get("by_prompt") or {}).items():
        rows += [
            _row(["d2", "by_prompt", prompt, g], m, label(g), f"prompt {prompt}")
            for g, m in _cells(by_group)
        ]
    return rows
