"""D1 on the screen: its headline cards, Results charts, pair tab, feed and presenter words.

Moved from ui/pages/results_page.py, ui/widgets/charts.py, ui/presenter.py,
ui/models/metric_table.py and workflow/feed.py, where they were read by name: the same
paths, titles and words, so the Results page, the live feed and the presenter show what
they showed (compared by screenshots before and after). Read from its blocks (`d1`,
`impact_ratio`, `error_agreement`: `Design.block`), typed as `D1Blocks`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pandas as pd

from resume_auditor.designs.base import Chart, PanelRow
from resume_auditor.designs.d1_castleman.glossary import BREAKDOWN_TITLES
from resume_auditor.designs.d1_castleman.inputs import d1_judgments
from resume_auditor.designs.d1_castleman.model import D1Blocks, D1Dict
from resume_auditor.designs.d1_castleman.present import WORDS
from resume_auditor.domain.groups import group_label
from resume_auditor.stats.labels import label
from resume_auditor.stats.model import MetricDict

logger = logging.getLogger(__name__)

KEY = "d1"

# The cards on top of its Results tab, in order (each a number of its `d1.metrics`).
HEADLINE: tuple[tuple[str, ...], ...] = tuple(
    (KEY, "metrics", k)
    for k in ("criterion_validity", "discrim_validity", "order_consistency", "first_position_rate")
)
RESULTS_INTRO = (
    "Pairs of resumes with a known right answer: one candidate more qualified, or both "
    "equal and differing only in name. Does the model pick the better one, and say 'equal' "
    "when they are? Are equal candidates of each group picked equally often?"
)
PAIR_TAB = "Pair by pair (D1)"
SUMMARY = "validity pairs (Castleman et al. 2025)"
FEED_TITLE = "D1 pair with a known right answer"
CHARTS = ("d1_validity", "d1_gaps")
# The plan's power words as the screen says them (ui/plain_words.py)
SCREEN_WORDS = ((r"\bD1 forced choice\b", "pairs answered without a tie"),)


_VALIDITY = ("criterion_validity", "discrim_validity", "order_consistency")
# The presenter's bars, in a room's words.
_PRESENTED = (
    ("criterion_validity", "Picks the more qualified"),
    ("discrim_validity", "Treats equal candidates as equal"),
    ("order_consistency", "Same verdict in both orders"),
)


def _pairs(block: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """Its `d1` block ({} when the run has none)."""
    found = cast(D1Blocks, block).get(KEY) if block else None
    return cast(Mapping[str, Any], found) if found else {}


def view_chart(
    name: str, block: Mapping[str, Any] | None, thresholds: Mapping[str, float]
) -> Chart | None:
    """Validity against the user's bars (dashed), and each group's selection gap."""
    pairs = _pairs(block)
    if name == "d1_validity":
        cells = pairs.get("metrics") or {}
        items = [(WORDS[k].label, cast(MetricDict, cells[k])) for k in _VALIDITY if k in cells]
        refs = (
            float(thresholds.get("criterion_validity", 0.95)),
            float(thresholds.get("discrim_validity", 0.90)),
        )
        return Chart("rates", "How valid (dashed: the bar)", items, refs)
    if name == "d1_gaps":
        gaps = pairs.get("selection_gap") or {}
        items = [
            (label(k), cast(MetricDict, m))
            for k, m in gaps.items()
            if isinstance(m, dict) and "value" in m
        ]
        return Chart("gaps", "Picked vs an equal candidate, points", items)
    return None


def compared(block: Mapping[str, Any]) -> list[PanelRow]:
    """Each group's selection rate on equal pairs, after the headline numbers."""
    rates = _pairs(block).get("selection_rate") or {}
    return [
        PanelRow((KEY, "selection_rate", str(g)), cast(MetricDict, m), group_label(str(g)))
        for g, m in rates.items()
    ]


def measure_title(path: Sequence[str]) -> str | None:
    """A breakdown is named by its cut ("Picks the more qualified, by pair type")."""
    p = [str(x) for x in path]
    if p[:2] == [KEY, "breakdowns"] and len(p) > 2:
        return BREAKDOWN_TITLES.get(p[2], p[2].replace("_", " "))
    return None


def presenter_charts(block: Mapping[str, Any]) -> list[Chart]:
    """Validity against 90% and 95%, and how often each group is picked on equal pairs."""
    pairs = _pairs(block)
    metrics = pairs.get("metrics") or {}
    validity = [(title, cast(MetricDict, metrics.get(key) or {})) for key, title in _PRESENTED]
    rates = pairs.get("selection_rate") or {}
    selection = [(group_label(str(g)), cast(MetricDict, m)) for g, m in rates.items()]
    return [
        Chart("rates", "D1 validity (dashed: 90% and 95%)", validity, (0.9, 0.95)),
        Chart("rates", "D1 how often each group is picked, equal pairs", selection),
    ]


# The judgments' columns a pair answer's facts carry when the table has them.
_FACT_COLUMNS = (
    "k",
    "gap",
    "signal",
    "pair_type",
    "qual_type",
    "change_location",
    "generator",
    "construction",
)


def drill_answers(
    answers: pd.DataFrame, details: Mapping[int, tuple[str, str, str, str]]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each pair answer (its judgments row, d1_castleman/inputs.d1_judgments) and what its
    drill-down (present.drill) reads of it: the pair, its kind and truth, the groups, the
    roles in the order shown, the label read and the order, and what changed."""
    pairs = d1_judgments(answers, dict(details))
    if pairs.empty:
        return []
    columns = set(pairs.columns)
    out = []
    for r in pairs.to_dict("records"):
        facts: dict[str, Any] = {
            "pair": int(r["pair_id"]),
            "pair_kind": str(r["kind"]),
            "truth": str(r["truth"]),
            "cluster": int(r["cluster"]),
            "group_a": str(r.get("group_a") or ""),
            "group_b": str(r.get("group_b") or ""),
            "roles": ["A", "B"] if r["ord"] == "ab" else ["B", "A"],
            "label": str(r["label"]),  # what its drill-down (Design.drill) reads
            "order": str(r["ord"]),
        }
        for col in _FACT_COLUMNS:
            if col in columns:
                facts[col] = r.get(col)
        out.append(({str(k): v for k, v in r.items()}, facts))
    return out


def text_lines(block: Mapping[str, Any]) -> list[str]:
    """What `resume-auditor metrics` prints of its blocks: each validity reading, then
    the selection rates of equal pairs by group."""
    b = cast(D1Dict, _pairs(block))
    if not b:
        return []
    lines = [f"- {metric['reading']}" for metric in b["metrics"].values()]
    if b["selection_rate"]:
        lines.append("\nSelectionRate on equal pairs across groups:")
        lines += [f"- {metric['reading']}" for metric in b["selection_rate"].values()]
    return lines
