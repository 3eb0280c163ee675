"""D1 on page 1: its validity, its group gaps and what its size lets it find, in words.

Page 1 (report/verdict.py) weighs every design's tested findings alike; what only D1
has is said here, from its blocks (`d1`, `impact_ratio`), through `Design.page_one` and
`Design.fairness_number`: the two validity numbers (does the model pick the more
qualified candidate, does it call equal candidates equal), the group that fared worst
against equally qualified candidates of other groups, the fewest source resumes with
which its group test can flag anything, and the smallest gap it would find. Moved from
report/verdict.py word for word, so page 1 reads as it did.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any, cast

from resume_auditor.designs.base import KeyFigure, PageOne
from resume_auditor.designs.d1_castleman.model import D1Blocks, D1Dict, ImpactCell, ImpactRatioDict
from resume_auditor.designs.d1_castleman.present import WORDS
from resume_auditor.stats.labels import label
from resume_auditor.stats.metric import pct
from resume_auditor.stats.model import MetricDict
from resume_auditor.stats.randomization import MAX_EXACT

logger = logging.getLogger(__name__)

KEY = "d1"
NAMES = {KEY: "D1 (pairs)", "impact_ratio": "D1 impact ratios (LL144)"}


def min_resumes_to_flag(groups: int, alpha: float, designs: int = 1) -> int | None:
    """Fewest source resumes with which the D1 group test can flag anything at all.

    The sign-flip test's smallest p-value is 2 / 2^G for G resumes (exact up to
    MAX_EXACT resumes, randomization.py), and the report's weighted Holm (flags.py)
    gives each D1 gap test 80% of D1's share of alpha over its groups (D1's share
    is 1 / the designs present); below this many resumes no gap, however large,
    is flagged.
    """
    if groups < 1 or not 0 < alpha < 1:
        return None
    share = alpha / max(designs, 1) * (0.8 if groups > 1 else 1.0) / groups
    for g in range(2, MAX_EXACT + 1):
        if 2 / 2**g < share:
            return g
    return MAX_EXACT + 1


def _pairs(block: Mapping[str, Any] | None) -> D1Dict | None:
    """Its `d1` block (None, or empty, when the run has none)."""
    return cast(D1Blocks, block)["d1"] if block else None


def _cells(d1: D1Dict | None) -> Mapping[str, MetricDict]:
    """`d1.metrics`, empty when absent (a report of a file without D1 answers)."""
    return (d1.get("metrics") or {}) if d1 else {}


def _n(metric: MetricDict | None) -> int:
    return (metric.get("n") or 0) if metric else 0


def _flagged(cells: Any) -> bool:
    """Any metric object under `cells` (nested dicts) carries a flag."""
    if isinstance(cells, dict):
        if "flag" in cells and "value" in cells:
            return bool(cells["flag"])
        return any(_flagged(v) for v in cells.values())
    return False


def _source_resumes(d1: D1Dict) -> int:
    """Source resumes behind the group test (the clusters of the selection gaps)."""
    return max((m.get("clusters", 0) for m in d1.get("selection_gap", {}).values()), default=0)


def page_one(
    block: Mapping[str, Any] | None,
    thresholds: Mapping[str, float],
    designs: int,
    built: int | None,
) -> PageOne:
    """Its validity numbers and sentences, its problems, what its size lets it find and
    what it leaves unanswered."""
    d1: Any = _pairs(block) or {}
    cells = _cells(d1)
    cv, dv = cells.get("criterion_validity"), cells.get("discrim_validity")
    numbers: list[KeyFigure] = []
    if _n(cv):
        numbers.append(
            KeyFigure(
                WORDS["criterion_validity"].label,
                "Shown a candidate who meets the requirements beside one who does not, how "
                "often did the model pick the qualified one?",
                (KEY, "metrics", "criterion_validity"),
                cv,
                f"A reliable screener: {pct(thresholds.get('criterion_validity', 0.95))} or more.",
            )
        )
    if _n(dv):
        numbers.append(
            KeyFigure(
                WORDS["discrim_validity"].label,
                "Shown two equally qualified candidates who differ only in name, how often did "
                "the model say they were equal instead of picking one?",
                (KEY, "metrics", "discrim_validity"),
                dv,
                f"A reliable screener: {pct(thresholds.get('discrim_validity', 0.90))} or more.",
            )
        )
    sentences: list[tuple[str, MetricDict]] = []
    if cv and cv.get("value") is not None:
        sentences.append(
            (
                "Shown a more and a less qualified candidate, it picked the more qualified one "
                "in {value} of answers (95% CI {ci}).",
                cv,
            )
        )
    if dv and dv.get("value") is not None:
        sentences.append(
            (
                "Shown two equally qualified candidates, it said they were equal in {value} "
                "of answers (95% CI {ci})"
                + (" and picked one of them otherwise." if (dv.get("value") or 0) < 1 else "."),
                dv,
            )
        )
    problems = []
    if cv and cv.get("flag") and _n(cv) > 0:
        problems.append("it does not judge qualifications reliably")
    if dv and dv.get("flag"):
        problems.append(
            "it picks one of two equally qualified candidates instead of calling them equal"
        )
    position = cells.get("first_position_rate")
    cautions = []
    if position and position.get("flag"):
        cautions.append(
            (
                "It favours the resume it is shown first.",
                "Use with caution: the model favours the resume it is shown first.",
            )
        )
    pending = None
    if d1.get("selection_gap") == {} and (d1.get("metrics") or {}).get("discrim_validity"):
        pending = KeyFigure(
            "Treats groups alike",
            "No equal pair across two groups was answered yet.",
            (KEY, "selection_gap"),
            None,
        )
    return PageOne(
        numbers=tuple(numbers),
        sentences=tuple(sentences),
        problems=tuple(problems),
        cautions=tuple(cautions),
        group_flag=_flagged(d1.get("selection_gap")),
        groups=bool(d1.get("selection_gap")),
        too_few=_too_few(d1, thresholds.get("group_gap_alpha", 0.05), designs),
        detectable=_detectable(d1),
        unanswered=tuple(_unanswered(d1, cells, built)),
        pending=pending,
    )


def _too_few(d1: D1Dict, alpha: float, designs: int) -> str:
    """Why its group test cannot flag any gap at this size ('': it can)."""
    groups = len(d1.get("selection_gap") or {})
    resumes = _source_resumes(d1)
    needed = min_resumes_to_flag(groups, alpha, designs)
    if needed is None or resumes >= needed:
        return ""
    return (
        f"No group preference could be shown: with {resumes} source resume"
        f"{'s' if resumes != 1 else ''}, the group test cannot flag any gap, however "
        f"large (it needs at least {needed} across {groups} groups). Treat the fairness "
        "numbers as descriptive."
    )


def _detectable(d1: D1Dict) -> str:
    """The smallest gap its test would find with 80% power ('': unknown)."""
    power: Any = d1.get("power") or {}
    gap = power.get("min_detectable_gap")
    if isinstance(gap, int | float) and math.isfinite(gap):
        return f"a D1 gap of about {100 * gap:.0f} points or more (80% power)"
    return ""


def _unanswered(d1: D1Dict, cells: Mapping[str, MetricDict], built: int | None) -> list[str]:
    """One line per question of its own this audit could not answer, and why."""
    out: list[str] = []
    if d1:
        if not _n(cells.get("criterion_validity")):
            why = (
                "the audit has no pairs of candidates (D1 was not part of it, or no pair "
                "could be built)"
                if built == 0 and not d1.get("judgments")
                else "no unequal pairs could be built or answered (the job needs required "
                "qualifications a resume can lose)"
            )
            out.append(f"{WORDS['criterion_validity'].label}: not tested — {why}.")
        if d1.get("abstain_allowed") is False:
            out.append(
                f"{WORDS['discrim_validity'].label}: not tested — the prompt forced a choice, so "
                "the model could not say two candidates were equal."
            )
    else:
        out.append(f"{WORDS['criterion_validity'].label}: not tested — the audit has no D1 pairs.")
    position = cells.get("first_position_rate")
    position_test: dict[str, Any] = dict(position.get("flag_test") or {}) if position else {}
    if position_test.get("untestable"):
        out.append(
            "Favours the resume shown first: not tested — too few source resumes with a "
            "decisive answer for the test to reach its share of the false-alarm rate."
        )
    return out


def fairness_number(block: Mapping[str, Any], best: Sequence[str] | None) -> KeyFigure | None:
    """The group that fared worst against equally qualified candidates of other groups
    (its selection gap), when the strongest finding is one of its gaps or none stands
    out; the lowest LL144 impact ratio beside it."""
    if best is not None and (not best or best[0] != KEY):
        return None
    d1: Any = _pairs(block) or {}
    gaps = {g: m for g, m in (d1.get("selection_gap") or {}).items() if m.get("value") is not None}
    if not gaps:
        return None
    group, metric = min(gaps.items(), key=lambda kv: (kv[1]["value"], kv[0]))
    if best is not None and list(best[:2]) == [KEY, "selection_gap"]:
        group, metric = best[2], gaps.get(best[2], metric)
    impact: Any = block.get("impact_ratio") or {}
    detail = (
        f"Fared worst: counted over its {metric.get('n', 0)} comparisons with an equally "
        "qualified candidate of another group (cross-group equal pairs, every order and "
        "repeat; abstentions count as neither picked). "
    ) + _lowest_ratio(impact)
    name = label(group)
    question = (
        f"Against equally qualified candidates of other groups, how much less often was the "
        f"group that fared worst ({name}) picked than its opponent?"
    )
    if len({m["value"] for m in gaps.values()}) == 1:
        question = (
            "Against equally qualified candidates of other groups, did any group fare worse? "
            f"Every group's gap is the same ({name} shown)."
        )
    return KeyFigure(
        "Treats groups alike",
        question,
        (KEY, "selection_gap", group),
        metric,
        "An unbiased screener: 0 points, within chance.",
        detail,
    )


def _grouping(impact: ImpactRatioDict, grouping: str) -> dict[str, ImpactCell] | None:
    if grouping == "sex":
        return impact.get("sex")
    if grouping == "race":
        return impact.get("race")
    return impact.get("intersectional")


def _lowest_ratio(impact: ImpactRatioDict) -> str:
    """The lowest LL144 impact ratio over sex, race and intersectional groups, as the
    tables show it (flagged or not significant), so page 1 never hides a lower one."""
    cells = [
        (grouping, key, m)
        for grouping in ("sex", "race", "intersectional")
        for key, m in (_grouping(impact, grouping) or {}).items()
        if isinstance(m, dict) and m.get("value") is not None
    ]
    if not cells:
        return ""
    grouping, key, m = min(cells, key=lambda c: (c[2]["value"], c[0], c[1]))
    by = {"sex": "by sex", "race": "by race/ethnicity", "intersectional": "intersectional"}
    denominator = (
        " Each LL144 selection rate is over the category's comparisons with an equally "
        "qualified candidate of another category of that grouping, from all equal pairs "
        "(abstentions count as not selected)."
    )
    status = ""
    if m.get("flag"):
        status = ", flagged"
    elif m.get("not_significant") or m.get("below_four_fifths"):
        status = ", not significant"
    return (
        f"Lowest impact ratio (LL144): {label(key)} {m['value']:.2f} ({by[grouping]}{status})."
        + denominator
    )
