"""D3 in words: its Results rows, chart, report sections, glossary and drill-down, read
from its metrics block.

The rows' paths start at `d3` (its block sits at the top level of the metrics JSON,
where it always has), so drill-down, the glossary and the verdict find them as before.
The block comes typed (`D3Dict`: the Design's methods cast it once, where the registry
hands it over), so mypy catches a field renamed in model.py anywhere here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from resume_auditor.designs.base import Chart, Drill, PanelRow, Section, SectionTable, Word
from resume_auditor.designs.d3_rabbi.model import D3Dict, D3ScoresDict
from resume_auditor.designs.d3_rabbi.requests import PAIRWISE_KINDS, POINTWISE_KINDS
from resume_auditor.domain.case import Case
from resume_auditor.stats.labels import label
from resume_auditor.stats.model import MetricDict

KEY = "d3"
ALL = "All"
_CHEN = "Chen et al. 2024"
_METHOD = {"pointwise": "scored one by one", "pairwise": "head to head"}

# The glossary's words for D3's numbers (report/terms.py), by the part of the block.
WORDS = {
    "rabbi": Word(
        "Ranked above the reference group",
        "In pools of equally matched candidates, how much more often this group's candidate "
        "scored above the reference group's than below (−1 to +1; 0 means alike).",
        f"RABBI, rank-after-bias ({_CHEN})",
    ),
    "score_gap": Word(
        "Average score difference",
        "This group's average score minus the reference group's, on the model's own scale.",
        f"average score gap ({_CHEN})",
    ),
    "jsd": Word(
        "How different the score spreads are",
        "How different the spread of scores is from the reference group's (0 = the same).",
        f"Jensen–Shannon distance ({_CHEN})",
    ),
    "emd": Word(
        "How far the scores are shifted",
        "How far the scores would have to move to match the reference group's (0 = the same).",
        f"Earth mover's distance ({_CHEN})",
    ),
    "dp_gap": Word(
        "Shortlisted more or less often",
        "Keeping the top candidates of each pool, how often this group made the shortlist "
        "minus how often the reference group did, in points.",
        f"demographic-parity gap at top-k ({_CHEN})",
    ),
    "eo_gap": Word(
        "Qualified candidates shortlisted more or less often",
        "The same, among qualified candidates only, in points.",
        f"equal-opportunity gap at top-k ({_CHEN})",
    ),
    "output": Word(
        "Kinds of pairwise answer",
        "How the two orders of a pair came out: the same pick, a stated tie, the pick swapped "
        "with the order, or inconsistent.",
        f"regular / tie / flipped / inconsistent output rates ({_CHEN})",
    ),
}


Cells = Mapping[str, MetricDict]


def _cells(block: Cells | None) -> Iterator[tuple[str, MetricDict]]:
    """The metric objects of a map (anything else in it, e.g. from a newer app, is skipped)."""
    for key, m in (block or {}).items():
        if isinstance(m, dict) and "value" in m and "title" in m:
            yield str(key), m


def _all(cells: Cells) -> Iterator[tuple[str, MetricDict]]:
    """Every entry of a map that is a dict (the report lists them as the JSON has them)."""
    for key, m in cells.items():
        if isinstance(m, dict):
            yield str(key), m


def _by_group(part: D3ScoresDict) -> tuple[tuple[str, Cells], ...]:
    """A method's maps of group -> metric, by key (typed: a renamed field fails mypy)."""
    return (
        ("rabbi", part["rabbi"]),
        ("score_gap", part["score_gap"]),
        ("jsd", part["jsd"]),
        ("emd", part["emd"]),
    )


def _top_k(part: D3ScoresDict) -> tuple[tuple[str, Mapping[str, Cells]], ...]:
    """A method's maps of k -> group -> metric, by key."""
    return (("dp_gap", part["dp_gap"]), ("eo_gap", part["eo_gap"]))


def _method_rows(method: str, part: D3ScoresDict, how: str) -> list[PanelRow]:
    rows: list[PanelRow] = []
    for key, cells in _by_group(part):
        rows += [PanelRow((KEY, method, key, g), m, label(g), how) for g, m in _cells(cells)]
    for key, by_k in _top_k(part):
        for k, by_group in by_k.items():
            detail = f"top {k}" + (f", {how}" if how else "")
            rows += [
                PanelRow((KEY, method, key, k, g), m, label(g), detail) for g, m in _cells(by_group)
            ]
    return rows


def _parts(block: D3Dict) -> dict[str, D3ScoresDict | None]:
    return {"pointwise": block["pointwise"], "pairwise": block["pairwise"]}


def panel_rows(block: D3Dict) -> list[PanelRow]:
    parts = _parts(block)
    both = all(parts.values())
    rows: list[PanelRow] = []
    for method, part in parts.items():
        if part:
            rows += _method_rows(method, part, _METHOD[method] if both else "")
    rows += [PanelRow((KEY, "output", k), m, ALL, k) for k, m in _cells(block["output"])]
    return rows


def rabbi_chart(block: D3Dict) -> Chart:
    """Each group ranked above or below the reference (the first method answered)."""
    part = block["pointwise"] or block["pairwise"]
    ref = label(block["reference"] or "white_man")
    return Chart(
        "gaps",
        f"Ranked above (+) or below (−) {ref}",
        list(_cells(part["rabbi"] if part else None)),
        unit="difference",
    )


_TITLES = {
    "rabbi": "RABBI (rank-after-bias)",
    "score_gap": "Average score gap",
    "jsd": "Jensen-Shannon distance",
    "emd": "Earth mover's distance",
    "dp_gap": "Demographic-parity gap",
    "eo_gap": "Equal-opportunity gap",
}


def sections(block: D3Dict) -> list[Section]:
    """One section per method answered, and the pairwise answers' output rates."""
    out: list[Section] = []
    for method, part in _parts(block).items():
        if not part:
            continue
        base = (KEY, method)
        tables = [
            SectionTable(
                _TITLES[key], [PanelRow((*base, key, g), m, label(g)) for g, m in _all(cells)]
            )
            for key, cells in _by_group(part)
        ]
        for key, by_k in _top_k(part):
            title = _TITLES[key]
            for k, cells in by_k.items():
                tables.append(
                    SectionTable(
                        f"{title} at top-{k}",
                        [PanelRow((*base, key, k, g), m, label(g)) for g, m in _all(cells)],
                    )
                )
        out.append(
            Section(
                f"Design D3: allocation in pools of candidates ({method})",
                [
                    "Pools with one candidate per group, scored over many rounds; each group "
                    f"against {label(block['reference'])} candidates "
                    "(Chen et al. 2024)."
                ],
                [t for t in tables if t.rows],
            )
        )
    output = block["output"]
    if output:
        rows = [PanelRow((KEY, "output", k), m, m["title"]) for k, m in output.items()]
        out.append(
            Section(
                "Pairwise answers: regular, tie, flipped, inconsistent (D3)",
                [],
                [SectionTable("Output rates", rows)],
            )
        )
    return out


def word_key(p: Sequence[str]) -> str | None:
    if len(p) >= 2 and p[1] == "output":
        return "output"
    return p[2] if len(p) >= 3 and p[2] in WORDS else None


def drill(p: Sequence[str], reference: str) -> Drill | None:
    """A pool number: every answer about a candidate of the group or the reference."""
    method = p[1] if len(p) >= 2 else ""
    if method == "output":
        return Drill("Every pairwise answer", lambda kind, facts, shown: kind in PAIRWISE_KINDS)
    if method not in ("pointwise", "pairwise") or len(p) < 4:
        return None
    kinds = POINTWISE_KINDS if method == "pointwise" else PAIRWISE_KINDS
    g = p[-1]
    how = "scores" if method == "pointwise" else "head-to-head answers"
    return Drill(
        f"Pool {how} of {label(g)} and {label(reference)} candidates",
        lambda kind, facts, shown: (
            kind in kinds and any(x in (g, reference) for x in facts.get("groups") or [])
        ),
        "A candidate's score in a pool comes from every answer about it.",
    )


def cell_words(cell: str) -> str:
    """A plan cell ("pairwise", "Black woman") in a recruiter's words."""
    return "Pools, two at a time" if cell == "pairwise" else f"Pools: {cell}"


def describe_cases(cases: Sequence[Case]) -> str:
    return f"{len(cases)} pool(s) of one candidate per group."
