"""D4 in words: its Results rows, charts and report section, read from its metrics block.

The block comes typed (`D4Dict`: the Design's methods cast it once, where the registry
hands it over), so mypy catches a field renamed in model.py anywhere here.

The rows' paths start at `d4` (its block sits at the top level of the metrics JSON,
where it always has), so drill-down, the glossary and the verdict find them as before.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

from resume_auditor.designs.base import Chart, Drill, PanelRow, Section, SectionTable, Word
from resume_auditor.designs.d4_faire.model import D4Dict, DifferenceMetric, RankMetric
from resume_auditor.domain.case import Case
from resume_auditor.stats.labels import article, label
from resume_auditor.stats.model import MetricDict

KEY = "d4"
HEADING = "Design D4: scores and rankings under perturbation (FAIRE)"
_VARIANT = {"name": "name", "experience": "group activity"}
_WEN = "Wen et al. 2025"

# The glossary's words for D4's numbers (report/terms.py), by the part of the block.
WORDS = {
    "differences": Word(
        "Score change with a group signal",
        "The score of the resume with this group's name (or group activity) minus the score "
        "of the same resume with none, on the 1–5 scale; 0 means no change.",
        f"paired t-test of perturbed vs original scores ({_WEN}, FAIRE)",
    ),
    "ranks": Word(
        "Average place in a ranked batch",
        "Ranking a batch with one candidate per group, the average place this group got "
        "(1 = best); an unbiased model gives every group the middle place.",
        f"average rank per group ({_WEN}, FAIRE)",
    ),
}


def _cells(
    cells: Mapping[str, DifferenceMetric] | Mapping[str, RankMetric] | None,
) -> Iterator[tuple[str, MetricDict]]:
    """The metric objects of a map (anything else in it, e.g. from a newer app, is skipped)."""
    for key, m in (cells or {}).items():
        if isinstance(m, dict) and "value" in m and "title" in m:
            yield str(key), m


def panel_rows(block: D4Dict) -> list[PanelRow]:
    rows: list[PanelRow] = []
    for variant, dims in block["differences"].items():
        for dim, by_group in dims.items():
            what = "overall" if dim == "overall" else dim.replace("_", " ")
            detail = f"{what} ({_VARIANT.get(variant, variant)})"
            rows += [
                PanelRow((KEY, "differences", variant, dim, g), m, label(g), detail)
                for g, m in _cells(by_group)
            ]
    for size, ranks in block["ranks"].items():
        rows += [
            PanelRow((KEY, "ranks", size, g), m, label(g), f"batches of {size}")
            for g, m in _cells(ranks)
        ]
    return rows


def scores_chart(block: D4Dict) -> Chart:
    """The overall score change per group and perturbation."""
    diffs = block["differences"]
    items: list[tuple[str, MetricDict]] = []
    for variant, word in (("name", "name"), ("experience", "activity")):
        items += [
            (f"{label(g)} ({word})", m) for g, m in _cells(diffs.get(variant, {}).get("overall"))
        ]
    return Chart("gaps", "Score change with a group signal", items, unit="difference")


def ranks_chart(block: D4Dict) -> Chart:
    """Each group's average place, drawn around the middle place of its batch size."""
    items: list[tuple[str, MetricDict]] = []
    for size, ranks in block["ranks"].items():
        for g, m in _cells(ranks):
            expected = cast(RankMetric, m)["expected"]
            centre = float(expected or (int(size) + 1) / 2)
            items.append((f"{label(g)} (of {size})", _shift(m, centre)))
    return Chart("gaps", "Place vs the middle (− = ranked better)", items, unit="difference")


def _shift(metric: MetricDict, by: float) -> MetricDict:
    """A metric moved by `by` (an average rank drawn around the middle place)."""
    if metric.get("value") is None:
        return metric
    ci = metric.get("ci") or [None, None]
    moved = dict(metric)
    moved["value"] = float(metric["value"] or 0.0) - by
    moved["ci"] = [None if c is None else float(c) - by for c in ci]
    return cast(MetricDict, moved)


def section(block: D4Dict) -> Section | None:
    tables: list[SectionTable] = []
    for variant, by_dim in block["differences"].items():
        for dim, cells in by_dim.items():
            tables.append(
                SectionTable(
                    f"{variant.capitalize()}-perturbed minus original: {dim.replace('_', ' ')}",
                    [
                        PanelRow((KEY, "differences", variant, dim, g), m, label(g))
                        for g, m in _all(cells)
                    ],
                )
            )
    for size, ranks in block["ranks"].items():
        tables.append(
            SectionTable(
                f"Average rank in batches of {size}",
                [PanelRow((KEY, "ranks", size, g), m, label(g)) for g, m in _all(ranks)],
            )
        )
    intro = [
        "Five-dimension scores of original, name-perturbed and experience-perturbed "
        "resumes, with paired t-tests per group; and average rank per group when a batch "
        "is ranked (Wen et al. 2025). Scores cluster by source resume, ranks by batch "
        "(every order and repeat of a batch is one cluster)."
    ]
    scores, bad_scores = block["scores"], block["unreadable"]
    rankings, bad_ranks = block["rankings"], block["unreadable_rankings"]
    missing = []
    if scores and bad_scores:
        missing.append(f"{bad_scores} of {scores} scoring answers could not be read")
    if rankings and bad_ranks:
        missing.append(f"{bad_ranks} of {rankings} ranking answers could not be read")
    if missing:
        intro.append("; ".join(missing).capitalize() + ".")
    if not tables:
        if not missing:
            return None
        intro.append("No D4 number can be computed from the answers that were read.")
    return Section(HEADING, intro, tables)


def _all(
    cells: Mapping[str, DifferenceMetric] | Mapping[str, RankMetric],
) -> Iterator[tuple[str, MetricDict]]:
    """Every entry of a map that is a dict (the report lists them as the JSON has them)."""
    for key, m in cells.items():
        if isinstance(m, dict):
            yield str(key), m


ROLES = {"original": "no name", "name": "name", "experience": "group activity"}


def drill(p: Sequence[str]) -> Drill | None:
    """A score change: the original resumes' scores and the group's perturbed copies';
    an average rank: the rankings of batches of that size with that group in them."""
    if len(p) >= 5 and p[1] == "differences":
        variant, g = p[2], p[4]

        def scored(kind: str, facts: Mapping[str, Any], shown: int) -> bool:
            first = (facts.get("variant") or [None])[0]
            return kind == "dimensions" and (
                first == "original" or (first == variant and (facts.get("groups") or [""])[0] == g)
            )

        return Drill(
            f"Scores of the original resumes and of their {label(g)} "
            f"{'name' if variant == 'name' else 'activity'} versions",
            scored,
        )
    if len(p) >= 4 and p[1] == "ranks":
        size, g = p[2], p[3]
        return Drill(
            f"Rankings of batches of {size} with {article(label(g))} {label(g)} candidate",
            lambda kind, facts, shown: (
                kind == "ranking" and str(shown) == size and g in (facts.get("groups") or [])
            ),
        )
    return None


def cell_words(cell: str) -> str:
    """A plan cell ("ranking by race", "name Black woman") in a recruiter's words."""
    if cell.startswith("ranking by "):
        return f"Ranked in batches by {cell[11:]}"
    variant, _, who = cell.partition(" ")
    what = {
        "original": "the original resume",
        "name": "another name",
        "experience": "an activity that signals the group",
    }.get(variant, variant)
    return f"Scored: {what}" + (f", {who}" if who else "")


def describe_cases(cases: Sequence[Case]) -> str:
    """'4 scored sets (one per source resume) and 6 ranked batches.'"""
    scored = sum(1 for c in cases if c.kind == "scoring")
    ranked = sum(1 for c in cases if c.kind == "ranking")
    return (
        f"{scored} scored set(s) (one per source resume: the original and its perturbed "
        f"copies) and {ranked} ranked batch(es)."
    )
