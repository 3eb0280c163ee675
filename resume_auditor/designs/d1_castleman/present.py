"""D1 in words: its Results rows and glossary words, read from its blocks (`d1`,
`impact_ratio`, `error_agreement`).

Moved from report/panels.py (`d1_rows`): the same rows in the same order with the same
paths (`d1...`, `impact_ratio...`: its blocks sit at the top level of the metrics JSON,
where they always have), so drill-down, the glossary and the verdict find them as before.
The block is read typed (`D1Blocks`), so mypy catches a renamed field.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

from resume_auditor.designs.base import PanelRow, Word
from resume_auditor.designs.d1_castleman.model import D1Blocks
from resume_auditor.stats.labels import label
from resume_auditor.stats.ll144 import GROUPING_TITLES, GROUPINGS
from resume_auditor.stats.model import MetricDict

ALL = "All"
_CASTLEMAN = "Castleman et al. 2025"

# The glossary's words for D1's numbers (report/terms.py), by key (moved from its TERMS).
WORDS: dict[str, Word] = {
    "criterion_validity": Word(
        "Picks the more qualified candidate",
        "Shown a candidate who meets the requirements beside one who does not, how often the "
        "model picked the qualified one.",
        f"CriterionValidity ({_CASTLEMAN})",
    ),
    "unjustified_selection": Word(
        "Mistakes that picked the weaker candidate",
        "Among its mistakes on pairs with a clear answer, the share where it picked the less "
        "qualified candidate.",
        f"UnjustifiedSelection ({_CASTLEMAN})",
    ),
    "unjustified_abstention": Word(
        "Mistakes that called unequal candidates equal",
        "Among its mistakes on pairs with a clear answer, the share where it said the two were "
        "equal.",
        f"UnjustifiedAbstention ({_CASTLEMAN})",
    ),
    "discrim_validity": Word(
        "Treats equal candidates as equal",
        "Shown two equally qualified candidates who differ only in name, how often the model "
        "said they were equal instead of picking one.",
        f"DiscrimValidity ({_CASTLEMAN})",
    ),
    "first_position_rate": Word(
        "Picks the resume shown first",
        "When it picked between equal candidates, how often it picked the one shown first; "
        "50% means the order did not matter.",
        f"position bias ({_CASTLEMAN})",
    ),
    "order_consistency": Word(
        "Same verdict in both orders",
        "Pairs shown both ways round where the model named the same candidate (or said equal) "
        "both times.",
        f"order consistency ({_CASTLEMAN})",
    ),
    "selection_rate": Word(
        "Picked over an equal candidate",
        "On equally qualified pairs across two groups, how often this group's candidate was "
        "picked (saying 'equal' counts as not picked).",
        f"SelectionRate ({_CASTLEMAN}, Eq. 9)",
    ),
    "selection_gap": Word(
        "Picked more or less often than equals",
        "How often this group's candidate was picked minus how often the equally qualified "
        "opponent was, in points; 0 means treated alike.",
        f"selection gap, permutation test within source resumes ({_CASTLEMAN})",
    ),
    "over_assessment_unequal": Word(
        "Weaker candidate of this group not caught",
        "When this group's candidate was the less qualified one, how often the model failed "
        "to pick the better candidate.",
        f"OverAssessment on unequal pairs ({_CASTLEMAN}, Eq. 6)",
    ),
    "over_assessment_equal": Word(
        "Picked when equal",
        "Of this group's appearances in equally qualified pairs, the share where its candidate "
        "was picked.",
        f"OverAssessment on equal pairs ({_CASTLEMAN}, Eq. 8)",
    ),
    "impact_ratio": Word(
        "Impact ratio (four-fifths rule)",
        "This group's selection rate divided by the highest group's; under 0.80 fails the "
        "four-fifths rule of thumb.",
        "impact ratio (NYC Local Law 144, EEOC four-fifths rule)",
    ),
    "breakdown": Word(
        "Picks the more qualified, by kind of change",
        "The same rate, for each kind of difference between the two resumes.",
        f"CriterionValidity by k, qualification type and location ({_CASTLEMAN})",
    ),
    "discrim_validity_by_signal": Word(
        "Treats equal candidates as equal, by signal",
        "The same rate, for names alone and for awards or organisations naming the group.",
        f"DiscrimValidity by implicit or explicit signal ({_CASTLEMAN}, App. F)",
    ),
    "error_agreement": Word(
        "Makes the same mistakes as the other run",
        "Among answers both runs got wrong, how often they gave the same wrong answer.",
        f"error agreement ({_CASTLEMAN}, App. D.3)",
    ),
}


def word_key(path: Sequence[str]) -> str | None:
    """The glossary key of the metric at `path` (one of its blocks' paths)."""
    p = [str(x) for x in path]
    head = p[0] if p else ""
    if head == "d1" and len(p) >= 3:
        if p[1] == "metrics":
            return p[2] if p[2] in WORDS else None
        if p[1] in ("selection_rate", "selection_gap"):
            return p[1]
        if p[1] == "over_assessment":
            return f"over_assessment_{p[2]}"
        if p[1] == "breakdowns":
            return p[2] if p[2] in WORDS else "breakdown"
    if head in ("impact_ratio", "error_agreement"):
        return head
    return None


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
