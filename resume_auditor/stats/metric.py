"""A reported metric: a titled estimate, one plain-English sentence, and a flag.

The same shape serves every design so the report, the CLI and the GUI render
any metric the same way (docs/metrics-json.md, "A metric object").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

from resume_auditor.stats.estimate import Estimate
from resume_auditor.stats.flags import FlagTest
from resume_auditor.stats.intervals import Proportion
from resume_auditor.stats.model import MetricDict, Unit

# How a value reads: a proportion (shown as %), a gap in percentage points, a
# standardized difference (in standard deviations), a ratio, a signed difference
# (+0.12), or a plain number.
UNITS = ("proportion", "points", "sd", "ratio", "difference", "number")


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def points(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:+.0f} points"


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit == "proportion":
        return pct(value)
    if unit == "points":
        return points(value)
    if unit == "sd":
        return f"{value:+.2f} SD"
    if unit == "difference":
        return f"{value:+.2f}"
    if unit == "number":
        return f"{value:.3g}"
    return f"{value:.2f}"


def interval_text(est: Proportion | Estimate, unit: str) -> str:
    """'; 95% CI 40%–60%, n = 30' — empty when there is no estimate."""
    if est.value is None:
        return ""
    if est.low is None or est.high is None:
        return f"; no interval, n = {est.n}"
    level = f"{100 * est.level:.0f}%"
    if unit == "points":
        span = f"{100 * est.low:+.0f} to {100 * est.high:+.0f} points"
    elif unit == "proportion":
        span = f"{pct(est.low)}–{pct(est.high)}"
    elif unit == "sd":
        span = f"{est.low:+.2f} to {est.high:+.2f} SD"
    elif unit == "difference":
        span = f"{est.low:+.2f} to {est.high:+.2f}"
    elif unit == "number":
        span = f"{est.low:.3g}–{est.high:.3g}"
    else:
        span = f"{est.low:.2f}–{est.high:.2f}"
    return f"; {level} CI {span}, n = {est.n}"


@dataclass
class Metric:
    key: str
    title: str
    estimate: Proportion | Estimate
    reading: str  # the plain sentence, without its interval
    flag: str = ""
    unit: Unit = "proportion"
    test: FlagTest | None = None  # the test behind a possible flag (stats/flags.py)

    def as_dict(self) -> MetricDict:
        sentence = self.reading
        if self.estimate.value is None:
            # "picked that candidate n/a of the time" reads as a finding; say what is missing.
            why = self.estimate.note or "no answers to compute it from"
            sentence = f"{self.title}: not computed ({why})."
        reading = sentence.rstrip(".") + interval_text(self.estimate, self.unit) + "."
        test = None if self.test is None else self.test.as_dict()
        # Extra fields of the estimate (stats/model.py, the metric kinds) come along.
        out = cast(
            MetricDict,
            {
                "title": self.title,
                **self.estimate.as_dict(),
                "unit": self.unit,
                "sentence": sentence,
                "reading": reading,
            },
        )
        out["flag"] = self.flag or None
        out["flag_test"] = test
        # The p-value the flag was decided on (after Holm across the report's family).
        out["p_adjusted"] = None if test is None else test["p_adjusted"]
        # A point estimate past its threshold whose test did not reject: shown, never flagged.
        out["not_significant"] = bool(self.test is not None and self.test.crossed and not self.flag)
        return out


def warn_small(est: Proportion | Estimate, small_cell: float) -> Proportion | Estimate:
    """The estimate with a too-few-answers warning added to its note when n is small."""
    if est.n == 0 or est.n >= small_cell:
        return est
    warning = f"only {est.n} answers: too few to read much into"
    note = f"{est.note}; {warning}" if est.note else warning
    return replace(est, note=note)
