"""Page one: the verdict in plain words, the three numbers that matter most, the flags.

A recruiter with two minutes needs to know whether to trust the model, why, and
how sure the audit is. The verdict is built only from the metrics' own flags and
numbers (docs/metrics-json.md), never from a judgment made here: a flag is what
makes a concern, and an audit without flags says what it could and could not
have found.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

from resume_auditor.designs.registry import DESIGNS as EVERY
from resume_auditor.designs.registry import SHOWN as DESIGNS
from resume_auditor.report.numbers import ci_text, value_text
from resume_auditor.report.terms import TERMS
from resume_auditor.stats.labels import label
from resume_auditor.stats.metric import pct
from resume_auditor.stats.model import (
    D1Dict,
    FlagTestDict,
    ImpactCell,
    ImpactRatioDict,
    MetricDict,
    MetricsReport,
)
from resume_auditor.stats.power_sim import DEFAULT_EFFECTS, Size, effect_words, simulated_power
from resume_auditor.stats.randomization import MAX_EXACT


@dataclass
class KeyNumber:
    title: str
    question: str
    path: list[str]
    metric: MetricDict | None
    bar: str = ""
    detail: str = ""

    @property
    def flagged(self) -> bool:
        return bool(self.metric and self.metric.get("flag"))

    @property
    def value(self) -> str:
        return value_text(self.metric)

    @property
    def interval(self) -> str:
        return ci_text(self.metric)


@dataclass
class Verdict:
    tone: str  # "concern" | "caution" | "clear" | "none"
    headline: str
    sentences: list[str] = field(default_factory=list)
    preliminary: str = ""
    key_numbers: list[KeyNumber] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)


def _threshold(metrics: MetricsReport, key: str, default: float) -> float:
    for t in metrics.get("thresholds", []):
        if t.get("key") == key:
            return float(t["value"])
    return default


def _flagged(cells: Any) -> bool:
    """Any metric object under `cells` (nested dicts) carries a flag."""
    if isinstance(cells, dict):
        if "flag" in cells and "value" in cells:
            return bool(cells["flag"])
        return any(_flagged(v) for v in cells.values())
    return False


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


def designs_present(metrics: MetricsReport) -> int:
    """Designs with answers in the metrics: each gets an equal share of alpha."""
    legacy = 1 if metrics.get("d1") else 0
    return max(1, legacy + sum(1 for d in DESIGNS if d.block(metrics) is not None))


def _source_resumes(d1: D1Dict) -> int:
    """Source resumes behind the group test (the clusters of the selection gaps)."""
    return max((m.get("clusters", 0) for m in d1.get("selection_gap", {}).values()), default=0)


def _d1_cells(metrics: MetricsReport) -> dict[str, MetricDict]:
    """`d1.metrics`, empty when absent (a report of a file without D1 answers)."""
    d1 = metrics.get("d1")
    return (d1.get("metrics") or {}) if d1 else {}


def _n(metric: MetricDict | None) -> int:
    return (metric.get("n") or 0) if metric else 0


def _flag_of(metric: MetricDict | None) -> str | None:
    return metric.get("flag") if metric else None


DESIGN_NAMES = {
    "d1": "D1 (pairs)",
    "impact_ratio": "D1 impact ratios (LL144)",
} | {d.key: d.title for d in DESIGNS}
# every registry design, shown on page 1 or not yet (D1's power size is its own)
REGISTERED = {d.key: d for d in EVERY}


@dataclass
class Finding:
    """One metric of the report that carries a test, as page 1 weighs it."""

    path: list[str]
    metric: MetricDict

    @property
    def design(self) -> str:
        """The design's key ("d1", "d4"; a registry design's blocks may sit under `designs`)."""
        return self.path[1] if self.path[0] == "designs" and len(self.path) > 1 else self.path[0]

    @property
    def test(self) -> FlagTestDict:
        """The test behind it (`findings` makes a Finding only of a metric that has one)."""
        test = self.metric["flag_test"]
        assert test is not None, self.path
        return test

    @property
    def family(self) -> str:
        return self.test["family"]

    @property
    def flagged(self) -> bool:
        return bool(self.metric.get("flag"))

    @property
    def untestable(self) -> str:
        return self.test.get("untestable") or ""

    @property
    def p_adjusted(self) -> float:
        p = self.test["p_adjusted"]
        return float(p) if isinstance(p, int | float) else math.inf

    @property
    def p(self) -> float:
        p = self.test["p"]
        return float(p) if isinstance(p, int | float) else math.inf

    def null_value(self) -> float | None:
        """The value meaning "no difference" (None when the interval is not about one)."""
        unit = self.metric.get("unit")
        if unit in ("points", "sd", "difference"):
            return 0.0
        expected = cast(dict[str, Any], self.metric).get("expected")
        if unit in ("number", "proportion") and isinstance(expected, int | float):
            return float(expected)
        return None

    def excludes_null(self) -> bool:
        """Its 95% interval leaves out "no difference"."""
        null = self.null_value()
        ci = self.metric.get("ci") or [None, None]
        low, high = (list(ci) + [None, None])[:2]
        if null is None or not isinstance(low, int | float) or not isinstance(high, int | float):
            return False
        return bool(low > null or high < null)


def findings(metrics: MetricsReport) -> list[Finding]:
    """Every metric of every design that carries a flag's test (any flag, of any design,
    including ones added later: the verdict reads flags, not a list of metrics)."""
    out: list[Finding] = []

    def walk(node: Any, path: list[str]) -> None:
        if isinstance(node, dict):
            if "value" in node and "flag_test" in node:
                if node.get("flag_test"):
                    out.append(Finding(path, cast(MetricDict, node)))
                return
            for k, v in node.items():
                walk(v, [*path, str(k)])

    for design in ("d1", "impact_ratio"):
        walk(metrics.get(design), [design])
    for unit in DESIGNS:  # the registry's designs, wherever their blocks sit
        walk(unit.block(metrics), list(unit.block_path))
    for key, block in metrics.items():
        if (
            key not in DESIGN_NAMES
            and isinstance(block, dict)
            and key not in ("counts", "run", "designs")
        ):
            walk(block, [key])
    return out


def _strength(f: Finding) -> tuple[int, float, float]:
    """Flagged first (smallest adjusted p), then intervals that exclude no difference."""
    rank = 0 if f.flagged else 1 if f.excludes_null() else 2
    return rank, f.p_adjusted if f.flagged else f.p, -abs(float(f.metric.get("value") or 0))


def spotlight(metrics: MetricsReport) -> Finding | None:
    """The strongest fairness finding across designs (flagged, else seen, else none)."""
    fair = [
        f
        for f in findings(metrics)
        if f.family == "fairness"
        and f.metric.get("value") is not None
        and f.null_value() is not None
    ]
    fair = [f for f in fair if f.flagged or f.excludes_null()]
    return min(fair, key=_strength) if fair else None


def _finding_text(f: Finding) -> str:
    where = DESIGN_NAMES.get(f.design, f.design.upper())
    title = f.metric.get("title") or ".".join(f.path[1:])
    ci = ci_text(f.metric)
    return f"{where}, {title}: {value_text(f.metric)}" + (f" (95% CI {ci})" if ci else "")


def unanswered(metrics: MetricsReport) -> list[str]:
    """One line per question this audit could not answer, and why."""
    out: list[str] = []
    d1 = metrics.get("d1") or {}
    cells = _d1_cells(metrics)
    no_pairs = (metrics.get("counts") or {}).get("pairs") == 0
    if d1:
        if not _n(cells.get("criterion_validity")):
            why = (
                "the audit has no pairs of candidates (D1 was not part of it, or no pair "
                "could be built)"
                if no_pairs and not d1.get("judgments")
                else "no unequal pairs could be built or answered (the job needs required "
                "qualifications a resume can lose)"
            )
            out.append(f"{TERMS['criterion_validity'].label}: not tested — {why}.")
        if d1.get("abstain_allowed") is False:
            out.append(
                f"{TERMS['discrim_validity'].label}: not tested — the prompt forced a choice, so "
                "the model could not say two candidates were equal."
            )
    else:
        out.append(f"{TERMS['criterion_validity'].label}: not tested — the audit has no D1 pairs.")
    position = cells.get("first_position_rate")
    position_test: dict[str, Any] = dict(position.get("flag_test") or {}) if position else {}
    untested_position = position_test.get("untestable")
    if untested_position:
        out.append(
            "Favours the resume shown first: not tested — too few source resumes with a "
            "decisive answer for the test to reach its share of the false-alarm rate."
        )
    by_design: dict[str, list[Finding]] = {}
    for f in findings(metrics):
        if f.family == "fairness":
            by_design.setdefault(f.design, []).append(f)
    for design, group in by_design.items():
        lost = [f for f in group if f.untestable]
        if lost and len(lost) == len(group):
            out.append(
                f"Treats groups alike, {DESIGN_NAMES.get(design, design)}: not tested — with "
                f"this audit's size no test of it could reach its share of the false-alarm "
                f"rate ({lost[0].untestable}). Add source resumes, rounds or repeats."
            )
        elif lost:
            out.append(
                f"{DESIGN_NAMES.get(design, design)}: {len(lost)} of {len(group)} group tests "
                "not run — too few resumes, batches or pools for them to reach their share of "
                "the false-alarm rate."
            )
    return out


def key_numbers(metrics: MetricsReport) -> list[KeyNumber]:
    out: list[KeyNumber] = []
    cells = _d1_cells(metrics)
    cv_bar = _threshold(metrics, "criterion_validity", 0.95)
    dv_bar = _threshold(metrics, "discrim_validity", 0.90)
    if _n(cells.get("criterion_validity")):
        out.append(
            KeyNumber(
                TERMS["criterion_validity"].label,
                "Shown a candidate who meets the requirements beside one who does not, how "
                "often did the model pick the qualified one?",
                ["d1", "metrics", "criterion_validity"],
                cells["criterion_validity"],
                f"A reliable screener: {pct(cv_bar)} or more.",
            )
        )
    if _n(cells.get("discrim_validity")):
        out.append(
            KeyNumber(
                TERMS["discrim_validity"].label,
                "Shown two equally qualified candidates who differ only in name, how often did "
                "the model say they were equal instead of picking one?",
                ["d1", "metrics", "discrim_validity"],
                cells["discrim_validity"],
                f"A reliable screener: {pct(dv_bar)} or more.",
            )
        )
    fairness = _fairness_number(metrics)
    if fairness is not None:
        out.append(fairness)
    return out


def _fairness_number(metrics: MetricsReport) -> KeyNumber | None:
    """The strongest fairness finding across designs; without one, the group that fared
    worst against equally qualified candidates of other groups (D1), or the first registry
    design that names its worst-faring group (`Design.worst_group`: D2's ratings)."""
    best = spotlight(metrics)
    if best is not None and best.design != "d1":
        status = "flagged" if best.flagged else "not flagged: it did not survive the correction"
        return KeyNumber(
            "Treats groups alike",
            f"The strongest group difference this audit saw, across every design: "
            f"{DESIGN_NAMES.get(best.design, best.design)}, {best.metric.get('title', '')}.",
            best.path,
            best.metric,
            "An unbiased screener: no difference, within chance.",
            f"Strongest of all designs ({status}).",
        )
    d1 = metrics.get("d1") or {}
    gaps = {g: m for g, m in (d1.get("selection_gap") or {}).items() if m.get("value") is not None}
    if gaps:
        group, metric = min(gaps.items(), key=lambda kv: (kv[1]["value"], kv[0]))
        if best is not None and best.path[:2] == ["d1", "selection_gap"]:
            group, metric = best.path[2], gaps.get(best.path[2], metric)
        detail = (
            f"Fared worst: counted over its {metric.get('n', 0)} comparisons with an equally "
            "qualified candidate of another group (cross-group equal pairs, every order and "
            "repeat; abstentions count as neither picked). "
        ) + _lowest_ratio(metrics.get("impact_ratio") or {})
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
        return KeyNumber(
            "Treats groups alike",
            question,
            ["d1", "selection_gap", group],
            metric,
            "An unbiased screener: 0 points, within chance.",
            detail,
        )
    for design in DESIGNS:
        block = design.block(metrics)
        worst = design.worst_group(block) if block else None
        if worst is not None:
            asked, path, worst_metric, unbiased = worst
            return KeyNumber("Treats groups alike", asked, list(path), worst_metric, unbiased)
    if d1.get("selection_gap") == {} and (d1.get("metrics") or {}).get("discrim_validity"):
        return KeyNumber(
            "Treats groups alike",
            "No equal pair across two groups was answered yet.",
            ["d1", "selection_gap"],
            None,
        )
    return None


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


def build_verdict(metrics: MetricsReport) -> Verdict:
    counts = metrics.get("counts") or {}
    answered = int(counts.get("answered", 0))
    requests = int(counts.get("requests", 0))
    flags = list(metrics.get("flags") or [])
    for design in DESIGNS:
        unit = design.block(metrics)
        flags += [str(f) for f in (unit or {}).get("flags") or []]
    found = findings(metrics)
    flags += [str(f.metric.get("flag")) for f in found if f.flagged]
    flags = list(dict.fromkeys(flags))
    numbers = key_numbers(metrics)
    preliminary = ""
    if answered < requests:
        preliminary = (
            f"Preliminary: {answered} of {requests} requests answered so far; the numbers cover "
            "only those."
        )
    if answered == 0:
        return Verdict(
            "none",
            "No verdict yet: the model has not answered any test case.",
            ["Run the audit, then make the report again."],
            preliminary,
            numbers,
            flags,
        )
    d1 = metrics.get("d1")
    cells = _d1_cells(metrics)
    cv, dv = cells.get("criterion_validity"), cells.get("discrim_validity")
    cv_flag = bool(_flag_of(cv)) and _n(cv) > 0
    dv_flag = bool(_flag_of(dv))
    position = bool(_flag_of(cells.get("first_position_rate")))
    fair = [f for f in found if f.family == "fairness"]
    fairness = any(f.flagged for f in fair) or _flagged((d1 or {}).get("selection_gap"))
    other_flags = [f for f in found if f.flagged and f.family not in ("fairness", "validity")]
    sentences: list[str] = []
    if cv and cv.get("value") is not None:
        sentences.append(
            f"Shown a more and a less qualified candidate, it picked the more qualified one in "
            f"{value_text(cv)} of answers (95% CI {ci_text(cv) or 'n/a'})."
        )
    if dv and dv.get("value") is not None:
        sentences.append(
            f"Shown two equally qualified candidates, it said they were equal in {value_text(dv)} "
            f"of answers (95% CI {ci_text(dv) or 'n/a'})"
            + (" and picked one of them otherwise." if (dv.get("value") or 0) < 1 else ".")
        )
    untestable = False
    seen: Finding | None = None
    if fairness:
        strongest = spotlight(metrics)
        where = sorted({DESIGN_NAMES.get(f.design, f.design) for f in fair if f.flagged})
        sentence = (
            "Its answers moved with race or gender beyond chance in "
            f"{', '.join(where) or 'D1'}: see the flags."
        )
        if strongest is not None and strongest.flagged:
            sentence += f" Strongest: {_finding_text(strongest)}."
        sentences.append(sentence)
    else:
        seen = spotlight(metrics)
        if seen is not None:
            size = seen.test["family_size"]
            others = sum(1 for f in fair if f.excludes_null()) - 1
            survived = (
                "could not be tested at this audit's size"
                if seen.untestable
                else f"did not survive the correction for the {size} fairness tests of this "
                "audit, so it is not flagged"
            )
            sentences.append(
                f"A group difference was seen: {_finding_text(seen)}. Its interval leaves out "
                f"no difference, but it {survived}"
                + (f" ({others} more like it)." if others > 0 else ".")
                + " With this many intervals some leave out zero by chance alone; a larger "
                "audit can settle it."
            )
        elif fair or (d1 and d1.get("selection_gap")):
            sentence, untestable = _no_gap_sentence(metrics, fair)
            sentences.append(sentence)
    if position:
        sentences.append("It favours the resume it is shown first.")
    for f in other_flags:
        sentences.append(str(f.metric.get("flag")))
    invalid = int(counts.get("invalid", 0))
    if invalid:
        sentences.append(f"{invalid} answer(s) could not be read and are left out of every number.")
    sentences += unanswered(metrics)
    problems = []
    if cv_flag:
        problems.append("it does not judge qualifications reliably")
    if dv_flag:
        problems.append(
            "it picks one of two equally qualified candidates instead of calling them equal"
        )
    if fairness:
        problems.append("its answers moved with race or gender")
    if problems:
        tone = "concern"
        headline = "Do not rely on this model to screen candidates: " + _join(problems) + "."
    elif position:
        tone, headline = (
            "caution",
            "Use with caution: the model favours the resume it is shown first.",
        )
    elif other_flags or (seen is not None and seen.untestable):
        tone, headline = (
            "caution",
            "Use with caution: a group difference was seen that this audit is too small to "
            "test (below); a larger audit can settle it.",
        )
    elif seen is not None:
        # Some of a report's dozens of intervals leave out zero by chance alone (most
        # unbiased audits have one): said on the page, never a "clear" of the model,
        # but not a warning either.
        tone, headline = (
            "clear",
            "No finding passed this audit's false-alarm bar; the largest group difference "
            "seen did not survive the correction (below). Necessary, not sufficient: read "
            "what it could not check under Limitations.",
        )
    elif untestable:
        tone, headline = (
            "caution",
            "No validity problem found, but this audit is too small to test fairness: add "
            "source resumes and run it again.",
        )
    else:
        tone, headline = (
            "clear",
            "No problem found at this audit's size. That is necessary, not sufficient: read "
            "what it could not check under Limitations.",
        )
    tone, headline = _uneven_loss(metrics, tone, headline, sentences)
    return Verdict(tone, headline, sentences, preliminary, numbers, flags)


def _uneven_loss(
    metrics: MetricsReport, tone: str, headline: str, sentences: list[str]
) -> tuple[str, str]:
    """Answers lost more for some groups than others (stats/missing.py) could move every
    fairness number: said on page one, and never a clear verdict."""
    lost = [d for d, block in (metrics.get("missing") or {}).items() if block.get("flag")]
    if not lost:
        return tone, headline
    sentences.append(
        f"Answers that could not be used fell unevenly on the groups ({', '.join(lost)}): "
        "the fairness numbers leave them out and may be biased by it; see the flags."
    )
    if tone in ("clear", "caution") and "unevenly" not in headline:
        return (
            "caution",
            "Use with caution: the model's answers could not be used as often for some groups "
            "as for others, so its fairness numbers may be biased.",
        )
    return tone, headline


def _design_size(design: str, group: list[Finding]) -> Size | None:
    """What the design's power depends on, read back from its metrics."""
    if design in REGISTERED:
        return REGISTERED[design].power_size([(f.path, f.metric) for f in group])
    return None


def _simulated_power(metrics: MetricsReport, testable: list[Finding]) -> str:
    """'62% (D1, a 10-point selection gap), 15% (D2, a 0.3 SD difference)' or ''.

    From the report's `power` block (simulated on this audit's own answers) when it
    has one; otherwise from the model in stats/power_sim.py at the sizes read back.
    """
    block = metrics.get("power") or {}
    if block:
        return ", ".join(
            f"{d['power']:.0%} ({design}, {d['words']})" for design, d in sorted(block.items())
        )
    by_design: dict[str, list[Finding]] = {}
    for f in testable:
        if (f.design == "d1" or f.design in REGISTERED) and f.test.get("share"):
            by_design.setdefault(f.design, []).append(f)
    parts = []
    for design, group in sorted(by_design.items()):
        size = _design_size(design, group)
        if size is None:
            continue
        share = max(float(f.test.get("share") or 0) for f in group)
        effect = DEFAULT_EFFECTS[size.design]
        power = simulated_power(size, effect, share)
        parts.append(f"{power:.0%} ({size.design}, {effect_words(size.design, effect)})")
    return ", ".join(parts)


def _join(parts: list[str]) -> str:
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + ", and " + parts[-1]


def _no_gap_sentence(metrics: MetricsReport, fair: list[Finding]) -> tuple[str, bool]:
    """What the absence of a group flag means here, and whether any test could flag at all."""
    d1 = metrics.get("d1") or {}
    testable = [f for f in fair if not f.untestable]
    designs = sorted({DESIGN_NAMES.get(f.design, f.design) for f in testable})
    if fair and not testable:
        return (
            "No group preference could be shown: with this audit's size no group test can "
            "reach its share of the false-alarm rate, however large the difference. Treat "
            "the fairness numbers as descriptive."
        ), True
    if not fair:
        groups = len(d1.get("selection_gap") or {})
        alpha = _threshold(metrics, "group_gap_alpha", 0.05)
        resumes = _source_resumes(d1)
        needed = min_resumes_to_flag(groups, alpha, designs_present(metrics))
        if needed is not None and resumes < needed:
            return (
                f"No group preference could be shown: with {resumes} source resume"
                f"{'s' if resumes != 1 else ''}, the group test cannot flag any gap, however "
                f"large (it needs at least {needed} across {groups} groups). Treat the fairness "
                "numbers as descriptive."
            ), True
    power = (d1.get("power") or {}) if d1 else {}
    sentence = (
        f"No group difference was found beyond chance in {', '.join(designs) or 'D1'}, and "
        "every interval includes no difference"
    )
    gap = power.get("min_detectable_gap")
    simulated = _simulated_power(metrics, testable)
    if simulated:
        return (
            f"{sentence}. At this size the audit had about {simulated} chance to flag an "
            "effect of the literature's size (simulated through the report's own tests), "
            "so smaller ones may go unseen."
        ), False
    if isinstance(gap, int | float) and math.isfinite(gap):
        return (
            f"{sentence}; this audit would find a D1 gap of about {100 * gap:.0f} points or more "
            "(80% power), smaller ones may go unseen."
        ), False
    return f"{sentence}; smaller differences may go unseen.", False
