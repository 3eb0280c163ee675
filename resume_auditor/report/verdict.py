"""Page one: the verdict in plain words, the three numbers that matter most, the flags.

A recruiter with two minutes needs to know whether to trust the model, why, and
how sure the audit is. The verdict is built only from the metrics' own flags and
numbers (docs/metrics-json.md), never from a judgment made here: a flag is what
makes a concern, and an audit without flags says what it could and could not
have found.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from resume_auditor.designs.base import Design, KeyFigure, PageOne
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.report.numbers import ci_text, thresholds_by_key, value_text
from resume_auditor.stats.model import FlagTestDict, MetricDict, MetricsReport
from resume_auditor.stats.power_sim import Size, default_effects, effect_words, simulated_power


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


def designs_present(metrics: MetricsReport) -> int:
    """Designs with answers in the metrics: each gets an equal share of alpha."""
    return max(1, sum(1 for d in DESIGNS if d.block(metrics) is not None))


def _pages(metrics: MetricsReport) -> list[tuple[Design[Any], PageOne]]:
    """What each design says on page 1 beyond its tested findings (`Design.page_one`),
    in the registry's order."""
    thresholds = thresholds_by_key(metrics)
    designs = designs_present(metrics)
    counts: Mapping[str, Any] = metrics.get("counts") or {}
    out = []
    for design in DESIGNS:
        page = design.page_one(
            design.block(metrics),
            thresholds=thresholds,
            designs=designs,
            built=counts.get(design.counted) if design.counted else None,
        )
        if page is not None:
            out.append((design, page))
    return out


def _key_number(figure: KeyFigure) -> KeyNumber:
    return KeyNumber(
        figure.title,
        figure.question,
        list(figure.path),
        figure.metric,
        figure.bar,
        figure.detail,
    )


# page 1's name of each design's numbers, by the key their paths start with
DESIGN_NAMES = {k: name for d in DESIGNS for k, name in d.page_names().items()}
BY_KEY = {d.key: d for d in DESIGNS}


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
    out = [line for _design, page in _pages(metrics) for line in page.unanswered]
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
    out = [_key_number(f) for _design, page in _pages(metrics) for f in page.numbers]
    fairness = _fairness_number(metrics)
    if fairness is not None:
        out.append(fairness)
    return out


def _fairness_number(metrics: MetricsReport) -> KeyNumber | None:
    """A design's own number for the strongest fairness finding across designs, or for
    none (`Design.fairness_number`: D1's worst selection gap); else that strongest
    finding; without one, the first registry design that names its worst-faring group
    (`Design.worst_group`: D2's ratings), or one that waits for answers (`PageOne.pending`)."""
    best = spotlight(metrics)
    for design in DESIGNS:
        block = design.block(metrics)
        own = design.fairness_number(block, best.path if best else None) if block else None
        if own is not None:
            return _key_number(own)
    if best is not None:
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
    for design in DESIGNS:
        block = design.block(metrics)
        worst = design.worst_group(block) if block else None
        if worst is not None:
            asked, path, worst_metric, unbiased = worst
            return KeyNumber("Treats groups alike", asked, list(path), worst_metric, unbiased)
    for _design, page in _pages(metrics):
        if page.pending is not None:
            return _key_number(page.pending)
    return None


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
    pages = [page for _design, page in _pages(metrics)]
    cautions = [c for page in pages for c in page.cautions]
    fair = [f for f in found if f.family == "fairness"]
    fairness = any(f.flagged for f in fair) or any(page.group_flag for page in pages)
    other_flags = [f for f in found if f.flagged and f.family not in ("fairness", "validity")]
    sentences = [
        said.replace("{value}", value_text(m)).replace("{ci}", ci_text(m) or "n/a")
        for page in pages
        for said, m in page.sentences
    ]
    untestable = False
    seen: Finding | None = None
    if fairness:
        strongest = spotlight(metrics)
        where = sorted({DESIGN_NAMES.get(f.design, f.design) for f in fair if f.flagged})
        sentence = (
            "Its answers moved with race or gender beyond chance in "
            f"{', '.join(where) or _labels(metrics, flagged=True)}: see the flags."
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
        elif fair or any(page.groups for page in pages):
            sentence, untestable = _no_gap_sentence(metrics, fair)
            sentences.append(sentence)
    sentences += [said for said, _headline in cautions]
    for f in other_flags:
        sentences.append(str(f.metric.get("flag")))
    invalid = int(counts.get("invalid", 0))
    if invalid:
        sentences.append(f"{invalid} answer(s) could not be read and are left out of every number.")
    sentences += unanswered(metrics)
    problems = [problem for page in pages for problem in page.problems]
    if fairness:
        problems.append("its answers moved with race or gender")
    if problems:
        tone = "concern"
        headline = "Do not rely on this model to screen candidates: " + _join(problems) + "."
    elif cautions:
        tone, headline = "caution", cautions[0][1]
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
    if design in BY_KEY:
        return BY_KEY[design].power_size([(f.path, f.metric) for f in group])
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
        if f.design in BY_KEY and f.test.get("share"):
            by_design.setdefault(f.design, []).append(f)
    parts = []
    for design, group in sorted(by_design.items()):
        size = _design_size(design, group)
        if size is None:
            continue
        share = max(float(f.test.get("share") or 0) for f in group)
        effect = default_effects()[size.design]
        power = simulated_power(size, effect, share)
        parts.append(f"{power:.0%} ({size.design}, {effect_words(size.design, effect)})")
    return ", ".join(parts)


def _join(parts: list[str]) -> str:
    if len(parts) < 2:
        return "".join(parts)
    return ", ".join(parts[:-1]) + ", and " + parts[-1]


def _labels(metrics: MetricsReport, *, flagged: bool = False) -> str:
    """The designs with group numbers of their own beyond their tested findings (only
    those with one flagged), by label: what page 1 names when no finding says whose."""
    return ", ".join(
        d.label for d, page in _pages(metrics) if (page.group_flag if flagged else page.groups)
    )


def _no_gap_sentence(metrics: MetricsReport, fair: list[Finding]) -> tuple[str, bool]:
    """What the absence of a group flag means here, and whether any test could flag at all."""
    pages = [page for _design, page in _pages(metrics)]
    testable = [f for f in fair if not f.untestable]
    designs = sorted({DESIGN_NAMES.get(f.design, f.design) for f in testable})
    if fair and not testable:
        return (
            "No group preference could be shown: with this audit's size no group test can "
            "reach its share of the false-alarm rate, however large the difference. Treat "
            "the fairness numbers as descriptive."
        ), True
    if not fair:
        too_few = next((page.too_few for page in pages if page.too_few), "")
        if too_few:
            return too_few, True
    sentence = (
        f"No group difference was found beyond chance in {', '.join(designs) or _labels(metrics)}"
        ", and every interval includes no difference"
    )
    simulated = _simulated_power(metrics, testable)
    if simulated:
        return (
            f"{sentence}. At this size the audit had about {simulated} chance to flag an "
            "effect of the literature's size (simulated through the report's own tests), "
            "so smaller ones may go unseen."
        ), False
    detectable = [page.detectable for page in pages if page.detectable]
    if detectable:
        return (
            f"{sentence}; this audit would find {', '.join(detectable)}, smaller ones may go "
            "unseen."
        ), False
    return f"{sentence}; smaller differences may go unseen.", False
