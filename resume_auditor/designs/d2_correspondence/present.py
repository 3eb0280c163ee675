"""D2 in words: its Results rows, chart, report sections, glossary and drill-down, read
from its metrics block (`d2` at the top level of the metrics JSON, where it always was).

Data only (designs/base: PanelRow, Section, Chart, Drill), so the UI and the report
render D2 as they render any design. The rows, the report's tables and their order are
those D2 has always had; every function reads the block typed (model.D2Dict).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

from resume_auditor.designs.base import Chart, Drill, PanelRow, Section, SectionTable, Word
from resume_auditor.designs.d2_correspondence.model import D2Dict, RatioMetric
from resume_auditor.domain.case import Case
from resume_auditor.domain.groups import group_part
from resume_auditor.stats.labels import label
from resume_auditor.stats.model import MetricDict

KEY = "d2"
ALL = "All"
_GAEBLER = "Gaebler et al. 2024"
HEADING = "Design D2: the same resume under different names (correspondence test)"

# The glossary's words for D2's numbers (report/terms.py), by key (`word_key`).
WORDS = {
    "smd": Word(
        "Rated higher or lower",
        "How much higher or lower this group's copies of the same resumes were rated, in "
        "standard deviations of the ratings; 0 means rated alike.",
        f"standardized mean difference, linear model clustered by resume ({_GAEBLER})",
    ),
    "smd_race": Word(
        "Rated higher or lower, by race",
        "The rating difference for the race alone, whatever the gender, in standard deviations.",
        f"race coefficient of the additive model ({_GAEBLER})",
    ),
    "smd_gender": Word(
        "Rated higher or lower, by gender",
        "The rating difference for the gender alone, whatever the race, in standard deviations.",
        f"gender coefficient of the additive model ({_GAEBLER})",
    ),
    "d2_impact_ratio": Word(
        "Impact ratio of high ratings",
        "Share of this group's copies rated at or above the threshold, over the highest "
        "group's share; under 0.80 fails the four-fifths rule of thumb.",
        f"adverse impact ratio at a rating threshold ({_GAEBLER})",
    ),
    "manipulation": Word(
        "Model saw the group we meant",
        "Asked what race and gender it perceived, how often the model named the group the "
        "name was chosen to signal.",
        f"manipulation check ({_GAEBLER})",
    ),
    "blinded": Word(
        "Rated differently than with no name",
        "How this group's copies were rated against the copy with every identity cue removed, "
        "in standard deviations.",
        f"blinded condition ({_GAEBLER})",
    ),
    "by_prompt": Word(
        "Rated higher or lower, by prompt",
        "The rating difference by group under each prompt wording.",
        f"prompt variants ({_GAEBLER})",
    ),
}


def word_key(p: Sequence[str]) -> str | None:
    """The glossary key of the metric at `p` (`d2.<part>...`)."""
    if len(p) < 2:
        return None
    return "d2_impact_ratio" if p[1] == "impact_ratio" else (p[1] if p[1] in WORDS else None)


def _cells(cells: Mapping[str, Any] | None) -> Iterator[tuple[str, MetricDict]]:
    """The metric objects of a map (anything else in it, e.g. from a newer app, is skipped)."""
    for key, m in (cells or {}).items():
        if isinstance(m, dict) and "value" in m and "title" in m:
            yield str(key), cast(MetricDict, m)


def _all(cells: Mapping[str, Any] | None) -> Iterator[tuple[str, MetricDict]]:
    """Every entry of a map that is a dict (the report lists them as the JSON has them)."""
    for key, m in (cells or {}).items():
        if isinstance(m, dict):
            yield str(key), cast(MetricDict, m)


def _row(path: list[str], m: MetricDict, group: str, detail: str = "") -> PanelRow:
    return PanelRow(tuple(path), m, group, detail)


def reference(block: D2Dict) -> str:
    """The reader's label of the group every difference is measured against."""
    return label(block["reference"] or "white_man")


def panel_rows(block: D2Dict) -> list[PanelRow]:
    """The Results page's rows for D2's block, in the order it has always shown them."""
    ref = reference(block)
    rows = [_row([KEY, "smd", g], m, label(g), f"than {ref}") for g, m in _cells(block["smd"])]
    rows += [_row([KEY, "smd_race", g], m, label(g)) for g, m in _cells(block["smd_race"])]
    rows += [_row([KEY, "smd_gender", g], m, label(g)) for g, m in _cells(block["smd_gender"])]
    for threshold, kinds in block["impact_ratio"].items():
        for kind, ratios in kinds.items():
            rows += [
                _row([KEY, "impact_ratio", threshold, kind, g], m, label(g), f"rated {threshold}+")
                for g, m in _cells(ratios)
            ]
    rows += [
        _row([KEY, "manipulation", k], m, ALL, {"both": "race and gender"}.get(k, k))
        for k, m in _cells(block["manipulation"])
    ]
    rows += [_row([KEY, "blinded", g], m, label(g)) for g, m in _cells(block["blinded"])]
    for prompt, by_group in block["by_prompt"].items():
        rows += [
            _row([KEY, "by_prompt", prompt, g], m, label(g), f"prompt {prompt}")
            for g, m in _cells(by_group)
        ]
    return rows


def worst_group(block: D2Dict) -> tuple[str, tuple[str, ...], MetricDict, str] | None:
    """The group rated lowest against the reference, as page 1 asks about it."""
    smd = {g: m for g, m in block["smd"].items() if m["value"] is not None}
    if not smd:
        return None
    group, worst = min(smd.items(), key=lambda kv: (kv[1]["value"], kv[0]))
    return (
        f"On otherwise identical resumes, how differently was the group that fared worst "
        f"({label(group)}) rated than {label(block['reference'])} candidates?",
        (KEY, "smd", group),
        worst,
        "An unbiased screener: 0 SD, within chance.",
    )


def smd_chart(block: D2Dict) -> Chart:
    """Each group's standardized difference against the reference, in SD."""
    items = [(label(g), m) for g, m in _cells(block["smd"])]
    return Chart("gaps", f"Rating vs {reference(block)}, in SD", items, unit="sd")


_KIND_TITLES = {"group": "Intersectional", "race": "By race/ethnicity", "gender": "By sex"}


def _impact(
    impact: Mapping[str, Mapping[str, Mapping[str, RatioMetric]]], cut: float
) -> Section | None:
    """D2's impact ratios, summarised: one sentence per threshold, rows only under the cut.

    Three thresholds by three groupings is up to 42 ratios, most of them near 1 for
    a fair model; pages of 1.00 hide the few that matter. Every ratio is in the
    spreadsheet export (Metrics sheet).
    """
    intro: list[str] = []
    tables: list[SectionTable] = []
    for threshold, by_kind in impact.items():
        cells = [
            (kind, key, m, value)
            for kind, by_key in by_kind.items()
            for key, m in (by_key or {}).items()
            if isinstance(m, dict) and (value := m["value"]) is not None
        ]
        if not cells:
            continue
        low = [(kind, key, m) for kind, key, m, value in cells if value < cut]
        flagged = [c for c in low if c[2]["flag"]]
        lowest = min(cells, key=lambda c: c[3])
        intro.append(
            f"Rated {threshold} or above: {len(cells)} ratios, lowest {lowest[3]:.2f} "
            f"({_KIND_TITLES.get(lowest[0], lowest[0]).lower()}: {label(lowest[1])}); "
            f"{len(low)} under {cut:.2f}, {len(flagged)} of them beyond chance."
        )
        for kind in by_kind:
            rows = [
                PanelRow((KEY, "impact_ratio", threshold, kind, key), m, label(key))
                for k2, key, m in low
                if k2 == kind
            ]
            if rows:
                title = f"Under {cut:.2f} at {threshold}+: {_KIND_TITLES.get(kind, kind)}"
                tables.append(SectionTable(title, rows, kind="impact"))
    if not intro:
        return None
    intro.append(
        "Selection: rated at or above the threshold. A ratio's interval inverts the clustered "
        "test behind its flag (source resumes as clusters); a ratio under the cut is flagged "
        "only when that test finds it under four-fifths beyond chance, after the report's "
        "correction for multiple tests, otherwise it is marked not significant. Every ratio "
        "is in the spreadsheet export."
    )
    return Section("Impact ratios (D2)", intro, tables)


def sections(block: D2Dict, cut: float) -> list[Section]:
    """The report's D2 sections: the differences (with its chart), the impact ratios under
    `cut`, and the manipulation check, blinded condition and prompts."""
    ref = reference(block)
    tables = [
        SectionTable(
            f"Standardized difference vs {ref}",
            [PanelRow((KEY, "smd", g), m, label(g)) for g, m in _all(block["smd"])],
        ),
        SectionTable(
            "By race (additive model)",
            [PanelRow((KEY, "smd_race", g), m, label(g)) for g, m in _all(block["smd_race"])],
        ),
        SectionTable(
            "By gender (additive model)",
            [PanelRow((KEY, "smd_gender", g), m, label(g)) for g, m in _all(block["smd_gender"])],
        ),
    ]
    out = [
        Section(
            HEADING,
            [
                "Each real resume is copied once per group with a strongly signalling name, "
                "matching pronouns and a college drawn independently of group, and rated 1-5 "
                f"(Gaebler et al. 2024). Differences are in standard deviations of the ratings, "
                f"against {ref} candidates."
            ],
            [t for t in tables if t.rows],
        )
    ]
    impact = _impact(block["impact_ratio"], cut)
    if impact is not None:
        out.append(impact)
    extra = [
        SectionTable(
            "Manipulation check: the model perceived the signal we meant",
            [
                PanelRow((KEY, "manipulation", k), m, m["title"])
                for k, m in block["manipulation"].items()
            ],
        ),
        SectionTable(
            "Blinded: shift against the copy with identity removed",
            [PanelRow((KEY, "blinded", g), m, label(g)) for g, m in _all(block["blinded"])],
        ),
    ]
    for prompt, cells in block["by_prompt"].items():
        extra.append(
            SectionTable(
                f"Prompt {prompt}",
                [PanelRow((KEY, "by_prompt", prompt, g), m, label(g)) for g, m in _all(cells)],
            )
        )
    extra = [t for t in extra if t.rows]
    if extra:
        out.append(Section("Manipulation check, blinded condition and prompts (D2)", [], extra))
    return out


def _named(facts: Mapping[str, Any]) -> bool:
    return bool((facts.get("conditions") or [None])[0] != "blinded")


def _group(facts: Mapping[str, Any]) -> str:
    return str((facts.get("groups") or [""])[0])


def drill(p: Sequence[str], ref: str) -> Drill | None:
    """The ratings (or manipulation-check answers) behind a D2 number; `ref` is the
    reference group's key."""
    if len(p) < 3:
        return None
    part = p[1]

    def rating(kind: str, facts: Mapping[str, Any]) -> bool:
        return kind == "rating" and _named(facts)

    if part == "smd":
        g = p[2]
        return Drill(
            f"Ratings of {label(g)} and {label(ref)} copies of the same resumes",
            lambda kind, facts, shown: rating(kind, facts) and _group(facts) in (g, ref),
        )
    if part in ("smd_race", "smd_gender"):
        by = "race" if part == "smd_race" else "sex"
        want, base = p[2], group_part(ref, by)
        return Drill(
            f"Ratings of {label(want)} and {label(base)} copies",
            lambda kind, facts, shown: (
                rating(kind, facts) and group_part(_group(facts), by) in (want, base)
            ),
        )
    if part == "impact_ratio" and len(p) >= 5:
        threshold, grouping, key = p[2], p[3], p[4]
        return Drill(
            f"Ratings of {label(key)} copies (selected: rated {threshold} or above)",
            lambda kind, facts, shown: (
                rating(kind, facts) and group_part(_group(facts), grouping) == key
            ),
            "The ratio compares this share with the highest group's.",
        )
    if part == "manipulation":
        return Drill(
            "Answers to 'what race and gender do you perceive?'",
            lambda kind, facts, shown: kind == "manipulation",
        )
    if part == "blinded":
        g = p[2]
        return Drill(
            f"Ratings of {label(g)} copies and of the copies with no identity",
            lambda kind, facts, shown: (
                kind == "rating" and (_group(facts) == g or not _named(facts))
            ),
        )
    if part == "by_prompt" and len(p) >= 4:
        prompt, g = p[2], p[3]
        return Drill(
            f"Ratings under prompt {prompt} of {label(g)} and {label(ref)} copies",
            lambda kind, facts, shown: (
                rating(kind, facts) and facts.get("preset") == prompt and _group(facts) in (g, ref)
            ),
        )
    return None


def cell_words(cell: str) -> str:
    """A plan cell ("black_woman", "check black_woman", "blinded") in a recruiter's words."""
    if cell.startswith("check "):
        return f"Which group the model reads: {cell[6:]}"
    return "Rated with no identity" if cell == "blinded" else f"Rated as {cell}"


def describe_cases(cases: Sequence[Case]) -> str:
    """'4 sets of copies (one per source resume: one copy per group, and one with no
    identity).'"""
    blinded = any("blinded" in (c.meta.get("conditions") or []) for c in cases)
    return (
        f"{len(cases)} set(s) of copies (one per source resume: one copy per group"
        + (", and one with no identity" if blinded else "")
        + ")."
    )
