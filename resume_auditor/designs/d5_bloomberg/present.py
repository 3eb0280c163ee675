"""D5 in words: its Results rows and its report section, read from its metrics block.

The block comes typed (`D5Dict`: the Design's methods cast it once, where the registry
hands it over), so mypy catches a field renamed in model.py anywhere here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from resume_auditor.designs.base import Chart, PanelRow, Section, SectionTable
from resume_auditor.designs.d5_bloomberg.model import D5Dict
from resume_auditor.domain.case import Case
from resume_auditor.domain.groups import group_label
from resume_auditor.stats.model import MetricDict

KEY = "d5"
HEADING = "Design D5: one resume under a name of each group, ranked together (Bloomberg 2024)"

RACE_LABELS = {"white": "White", "black": "Black", "asian": "Asian", "hispanic": "Hispanic"}
SEX_LABELS = {"woman": "Women", "man": "Men"}
POSITION_LABELS = {"first": "Shown first", "last": "Shown last"}


def _who(part: str, key: str) -> str:
    if part in ("top1_by_race", "impact_ratio_by_race"):
        return RACE_LABELS.get(key, key)
    if part in ("top1_by_sex", "impact_ratio_by_sex"):
        return SEX_LABELS.get(key, key)
    if part == "position":
        return POSITION_LABELS.get(key, key)
    if part == "uniformity":
        return "All groups"
    return group_label(key) or key


def _maps(block: D5Dict) -> dict[str, Mapping[str, MetricDict]]:
    """The block's maps of key -> metric, by part (read typed: a renamed field fails mypy)."""
    return {
        "top1": block["top1"],
        "impact_ratio": block["impact_ratio"],
        "topk": block["topk"],
        "top1_by_race": block["top1_by_race"],
        "top1_by_sex": block["top1_by_sex"],
        "impact_ratio_by_race": block["impact_ratio_by_race"],
        "impact_ratio_by_sex": block["impact_ratio_by_sex"],
        "position": block["position"],
        "unranked": block["unranked"],
    }


def _table_rows(block: D5Dict, part: str) -> list[PanelRow]:
    if part == "uniformity":
        cell = block["uniformity"]
        return [] if not cell else [PanelRow(("designs", KEY, part), cell, _who(part, ""))]
    return [
        PanelRow(("designs", KEY, part, k), m, _who(part, k))
        for k, m in _maps(block)[part].items()
        if isinstance(m, dict)
    ]


PARTS: tuple[tuple[str, str], ...] = (
    ("top1", "Ranked first, by group"),
    ("impact_ratio", "Impact ratio of being ranked first (NYC Local Law 144)"),
    ("topk", "Among the first {k}, by group"),
    ("top1_by_race", "Ranked first, by race"),
    ("top1_by_sex", "Ranked first, by sex"),
    ("impact_ratio_by_race", "Impact ratio of being ranked first, by race (shown, not flagged)"),
    ("impact_ratio_by_sex", "Impact ratio of being ranked first, by sex (shown, not flagged)"),
    ("uniformity", "Does the first place ignore the names?"),
    ("position", "Does the place a resume is shown at decide who is first?"),
    ("unranked", "Left unranked by the model's answer, by group"),
)


def panel_rows(block: D5Dict) -> list[PanelRow]:
    return [r for part, _ in PARTS for r in _table_rows(block, part)]


def top1_chart(block: D5Dict) -> Chart:
    """Who is ranked first, per group, with the share if names did not matter."""
    groups = list(block["groups"])
    items = [(r.group, r.metric) for r in _table_rows(block, "top1")]
    fair = (1 / len(groups),) if groups else ()
    return Chart("rates", "Ranked first (dashed: if names did not matter)", items, fair)


def describe_cases(cases: Sequence[Case]) -> str:
    """'4 batches: 2 source resumes, each copied under 8 names ... 8 shown orders each.'"""
    if not cases:
        return "No batch could be built."
    groups = [group_label(g) for g in cases[0].meta.get("groups", [])]
    orders = sorted({len(c.meta.get("orders", [])) for c in cases})
    resumes = len({c.cluster for c in cases})
    return (
        f"{len(cases)} batch(es) from {resumes} source resume(s): each resume copied under "
        f"{len(groups)} names, one per group ({', '.join(groups)}), with nothing else changed, "
        f"and ranked together in {'/'.join(str(o) for o in orders)} shown order(s) per batch "
        "(rows of a Latin square: each copy shown at each place equally often)."
    )


def section(block: D5Dict) -> Section | None:
    answers, unreadable = block["answers"], block["unreadable"]
    if not answers:
        return None
    k = block["top_k"]
    groups = [group_label(g) for g in block["groups"]]
    intro = [
        f"Each resume was copied {len(groups)} times, once under a name typical of each "
        f"group ({', '.join(groups)}), with nothing else changed, and the model ranked the "
        "copies together in shuffled orders, as Bloomberg did with GPT-3.5 and GPT-4 in "
        "2024. If names did not matter, each group would be ranked first in "
        f"{100 / max(len(groups), 1):.1f}% of the answers. Intervals are clustered by batch "
        "(every order and repeat of one resume's copies); the tests relabel the groups "
        "within each shown order, which is exact when names do not matter. NYC Local Law "
        "144 asks for impact ratios by race, by sex and by both: all three are shown; only "
        "the groups' (both) can raise a flag, because a race or sex whose ratio is under "
        "0.80 always has a group under 0.80 against the highest group.",
    ]
    if unreadable:
        intro.append(
            f"{unreadable} of {answers} ranking answers could not be read and are left out "
            "of the rates; the last table shows whether some groups' candidates went "
            "unranked more often than others'."
        )
    if block["partial"]:
        intro.append(
            f"{block['partial']} answers were read only down to some place: their "
            "first place counts, their shortlist only when it was read that far."
        )
    tables = [
        SectionTable(title.format(k=k), rows)
        for part, title in PARTS
        if (rows := _table_rows(block, part))
    ]
    if not tables:
        intro.append("No D5 number can be computed from the answers that were read.")
    return Section(HEADING, intro, tables)
