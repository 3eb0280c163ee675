"""D1 in words: its Results rows, report sections and glossary words, read from its
blocks (`d1`, `impact_ratio`, `error_agreement`).

Moved from report/panels.py (`d1_rows`): the same rows in the same order with the same
paths (`d1...`, `impact_ratio...`: its blocks sit at the top level of the metrics JSON,
where they always have), so drill-down, the glossary and the verdict find them as before.
The block is read typed (`D1Blocks`), so mypy catches a renamed field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

from resume_auditor.designs.base import Drill, PanelRow, Section, SectionTable, Word
from resume_auditor.designs.d1_castleman import glossary
from resume_auditor.designs.d1_castleman.model import D1Blocks
from resume_auditor.domain.groups import group_part
from resume_auditor.stats.labels import article, label
from resume_auditor.stats.ll144 import GROUPING_TITLES, GROUPINGS
from resume_auditor.stats.model import MetricDict
from resume_auditor.stats.pair_choice import choice_of

ALL = "All"
_CELL = re.compile(r"^(equal|unequal) pairs, k=(\d+), (.*?)(?:, (\w+) signals)?$")
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


# The report's section tables word them as the glossary does, but for DiscrimValidity by
# signal, which the section reads as its abstention rate on equal pairs.
BREAKDOWN_TITLES = {
    **glossary.BREAKDOWN_TITLES,
    "discrim_validity_by_signal": "Abstains on equal pairs, by how the group is signalled",
}


def _rows(cells: Mapping[str, Any] | None, base: list[str], namer: Any = label) -> list[PanelRow]:
    return [
        PanelRow((*base, k), cast(MetricDict, m), namer(k))
        for k, m in (cells or {}).items()
        if isinstance(m, dict)
    ]


def sections(block: Mapping[str, Any]) -> list[Section]:
    """Its report sections (moved from report/document.py): in the validity part, the
    pairs with a known right answer, their breakdowns and the agreement with other runs;
    in the fairness part, the LL144 impact ratios, selection rates and gaps, and
    over-assessment by group. Each only when it has something to show."""
    b = cast(D1Blocks, block)
    d1 = b["d1"]
    out: list[Section] = []
    if d1["metrics"]:
        titled = [
            PanelRow(("d1", "metrics", k), m, m.get("title", k)) for k, m in d1["metrics"].items()
        ]
        out.append(
            Section(
                "Design D1: pairs with a known right answer",
                [
                    "Each test case shows the model two resumes for the job. In an unequal pair "
                    "one candidate lacks required qualifications and the right answer is the "
                    "other; in an equal pair the resumes differ only in the candidate's name "
                    "and pronouns and the right answer is to abstain (Castleman et al. 2025)."
                ],
                [SectionTable("Validity", titled, sentences=True)],
                part="validity",
                figures=("validity",),
            )
        )
    breakdowns = cast(Mapping[str, Mapping[str, MetricDict]], d1["breakdowns"])
    tables = [
        SectionTable(BREAKDOWN_TITLES.get(key, key), _rows(cells, ["d1", "breakdowns", key], str))
        for key, cells in breakdowns.items()
        if len(cells) > 1  # one value is the overall metric again
    ]
    if tables:
        out.append(Section("Breakdowns", [], tables, part="validity", figures=("by_k",)))
    agreement = b.get("error_agreement") or []
    if agreement:
        rows = [
            PanelRow(
                ("error_agreement", str(i), "metrics", key),
                m,
                f"{m.get('title', key)}: run {entry['run']} ({entry['model']})",
            )
            for i, entry in enumerate(agreement)
            for key, m in entry["metrics"].items()
        ]
        out.append(
            Section(
                "Agreement with other runs of the same test cases",
                [
                    "When two models (or prompts) make the same mistakes, using both does not "
                    "catch them (Castleman et al. 2025, App. D.3)."
                ],
                [SectionTable("Error agreement", rows, sentences=True)],
                part="validity",
            )
        )
    impact = b.get("impact_ratio")
    by_grouping = cast(Mapping[str, Any], impact or {})
    impact_tables = [
        SectionTable(
            GROUPING_TITLES.get(g, g.capitalize()),
            _rows(by_grouping[g], ["impact_ratio", g]),
            kind="impact",
        )
        for g in GROUPINGS
        if isinstance(by_grouping.get(g), dict) and by_grouping[g]
    ]
    if impact is not None and impact_tables:
        out.append(
            Section(
                "Impact ratios in the style of NYC Local Law 144 (from D1's equal pairs)",
                [impact["basis"]],
                impact_tables,
                [impact["note"]],
                figures=("impact",),
            )
        )
    if d1["selection_gap"] or d1["selection_rate"]:
        after = []
        gaps = [m for m in d1["selection_gap"].values() if m.get("flag_test")]
        untestable = [m for m in gaps if dict(m.get("flag_test") or {}).get("untestable")]
        if gaps and len(untestable) == len(gaps):
            after.append(
                "With this audit's source resumes the group test cannot flag any gap, however "
                "large: its smallest possible p-value is above its share of the false-alarm "
                "rate. Add source resumes."
            )
        out.append(
            Section(
                "Selection rates and group gaps (D1)",
                [
                    "On equal pairs whose candidates belong to different groups: how often each "
                    "group's candidate was picked (abstentions count as not picked), and the gap "
                    "between how often it was picked and how often its opponent was. A gap is "
                    "flagged when D1's permutation test (the groups relabelled within each "
                    "source resume), corrected for every fairness test of this report, finds it "
                    "beyond chance."
                ],
                [
                    SectionTable(
                        "SelectionRate", _rows(d1["selection_rate"], ["d1", "selection_rate"])
                    ),
                    SectionTable(
                        "Selection gap", _rows(d1["selection_gap"], ["d1", "selection_gap"])
                    ),
                ],
                after,
                figures=("selection", "gaps"),
                power=True,
            )
        )
    over = d1["over_assessment"]
    if any(over.values()):
        out.append(
            Section(
                "Over-assessment by group (D1)",
                [
                    "Unequal pairs: when the group's candidate was the less qualified one, how "
                    "often the model failed to pick the better one. Equal pairs: how often the "
                    "group's candidate was picked over an equally qualified one."
                ],
                [
                    SectionTable(
                        f"OverAssessment, {part} pairs",
                        _rows(cells, ["d1", "over_assessment", part]),
                    )
                    for part, cells in over.items()
                    if cells
                ],
            )
        )
    return out


def cell_words(cell: str) -> str:
    """A plan cell (`RequestSpec.cell` without "D1 ", its groups already named) in a
    recruiter's words: "Unequal, 1 qualification apart: Black woman vs White man"."""
    found = _CELL.match(cell)
    if not found:
        return f"D1 {cell}"
    kind, k, who, signal = found.groups()
    apart = f"{k} qualification{'s' if int(k) != 1 else ''} apart"
    head = "Equally qualified" if kind == "equal" else f"Unequal, {apart}"
    how = {"explicit": " (awards and memberships)"}.get(signal or "", "")
    return f"{head}: {who}{how}"


# -- the answers behind a number (the Results page's drill-down) ----------------------

Facts = Mapping[str, Any]  # what the drill-down knows of a pair answer (workflow/drilldown.py)

_COLUMN_WORDS = {
    "k": "the number of qualifications that differ",
    "pair_type": "the pair type",
    "qual_type": "the kind of qualification",
    "change_location": "where the change sits",
    "generator": "the model that built the variant",
    "construction": "how the pair was built",
    "signal": "the group signal",
}


def _cell(value: Any) -> str:
    """A breakdown cell's key as the statistics write it (2.0 -> '2')."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _equal(f: Facts) -> bool:
    return bool(f["pair_kind"] == "equal")


def _unequal(f: Facts) -> bool:
    return bool(f["pair_kind"] == "unequal")


def _pick(title: str, keep: Any, note: str = "") -> Drill:
    return Drill(title, lambda kind, facts, shown: bool(keep(facts)), note)


def drill(path: Sequence[str]) -> Drill | None:
    """The pair answers behind the number at `path` (moved from workflow/drilldown.py):
    each answer's facts hold its pair's kind, truth, groups and breakdown columns, and
    the `label` read and the `order` shown."""
    p = [str(x) for x in path]
    head = p[0] if p else ""
    if head == "d1" and len(p) >= 3:
        return _pairs(p)
    if head == "impact_ratio" and len(p) == 3:
        grouping, cat = p[1], p[2]
        return _pick(
            f"Equal pairs where {article(label(cat))} {label(cat)} candidate faced one of another "
            f"{'sex' if grouping == 'sex' else 'group'}",
            lambda f: (
                _equal(f)
                and cat in (group_part(f["group_a"], grouping), group_part(f["group_b"], grouping))
                and group_part(f["group_a"], grouping) != group_part(f["group_b"], grouping)
            ),
            "Abstentions count as not selected.",
        )
    if head == "error_agreement":
        return _pick("Every pair answer of this run", lambda f: True)
    return None


def _pairs(p: list[str]) -> Drill | None:
    part, key = p[1], p[2]
    if part == "metrics":
        if key == "criterion_validity":
            return _pick("Answers on pairs where one candidate is more qualified", _unequal)
        if key in ("unjustified_selection", "unjustified_abstention"):
            return _pick(
                "Mistakes on pairs where one candidate is more qualified",
                lambda f: (
                    _unequal(f)
                    and f["label"] != "invalid"
                    and choice_of(f["label"], f["order"]) != f["truth"]
                ),
            )
        if key == "discrim_validity":
            return _pick("Answers on pairs of equally qualified candidates", _equal)
        if key == "first_position_rate":
            return _pick(
                "Picks between equally qualified candidates",
                lambda f: _equal(f) and f["label"] in ("first", "second"),
            )
        if key == "order_consistency":
            return _pick(
                "Every pair answer",
                lambda f: True,
                "The number counts each pair answered in both orders once.",
            )
        return None
    if part in ("selection_rate", "selection_gap"):
        g = key
        return _pick(
            f"Equal pairs where {article(label(g))} {label(g)} candidate faced another group's",
            lambda f: (
                _equal(f) and g in (f["group_a"], f["group_b"]) and f["group_a"] != f["group_b"]
            ),
            "Saying 'equal' counts as not picked.",
        )
    if part == "over_assessment" and len(p) >= 4:
        g = p[3]
        if key == "unequal":
            return _pick(
                f"Unequal pairs whose less qualified candidate is {label(g)}",
                lambda f: (
                    _unequal(f) and (f["group_b"] if f["truth"] == "a" else f["group_a"]) == g
                ),
            )
        return _pick(
            f"Equal pairs with {article(label(g))} {label(g)} candidate",
            lambda f: _equal(f) and g in (f["group_a"], f["group_b"]),
            "A pair of two candidates of this group counts twice in the number.",
        )
    if part == "breakdowns" and len(p) >= 4:
        value = p[3]
        column = key.split("_by_", 1)[-1]
        base = _equal if key.startswith("discrim") else _unequal

        def cell(f: Facts) -> str:
            if column == "k":
                gap, k = f.get("gap"), f.get("k")
                use = gap if isinstance(gap, int | float) and gap == gap and gap > 0 else k
                return _cell(use)
            return _cell(f.get(column))

        return _pick(
            f"{'Equal' if base is _equal else 'Unequal'} pairs where "
            f"{_COLUMN_WORDS.get(column, column.replace('_', ' '))} is {value}",
            lambda f: base(f) and cell(f) == value,
        )
    return None
