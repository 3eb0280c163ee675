"""An NYC Local Law 144-style impact-ratio table from D1's equal pairs (moved from
report/impact.py with D1 into its folder; the groupings are shared: stats/ll144.py).

LL144 bias audits (and the EEOC four-fifths rule) report, for each sex, each
race/ethnicity and each intersectional category, a *selection rate* and its
*impact ratio*: the rate over the highest category's rate. D1 has no applicant
pool to select from, but it has the closest thing a controlled test can give:
pairs of equally qualified candidates who differ only in the signalled group.
Here a category's selection rate is the share of its comparisons with an
equally qualified candidate of *another* category (of that grouping) in which
its candidate was picked; abstentions count as "not selected", as in Castleman
et al. (2025), Appendix B.4. An unbiased model that picks gives every category
the same rate; one that always abstains selects no one and has no ratio.

Why a ratio is flagged only with a test behind it: the highest category is, by
construction, also the luckiest draw, so with the few dozen comparisons an audit
has, some ratio falls under 0.80 by chance alone most of the time (simulated
unbiased audits of 4-12 source resumes: a point estimate under 0.80 in 87-98% of
them; benchmarks/report_impact_flags.py). So the ratio is reported as LL144 asks,
next to the selection rate with its clustered 95% interval, and a ratio is
flagged only when a one-sided clustered test finds the category's rate under
four-fifths of another category's (stats/flags.py, `impact_p`), after Holm across
every fairness test of the audit. A ratio under 0.80 whose test does not reject
is shown, marked "not significant".
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import pandas as pd

from resume_auditor.designs.d1_castleman.model import ImpactCell, ImpactRatioDict
from resume_auditor.domain.groups import Group
from resume_auditor.stats.estimate import Estimate
from resume_auditor.stats.flags import FlagTest, FlagText, decide, impact_p, p_text
from resume_auditor.stats.intervals import clustered_proportion
from resume_auditor.stats.labels import label
from resume_auditor.stats.ll144 import GROUPINGS
from resume_auditor.stats.metric import Metric, pct, warn_small
from resume_auditor.stats.pair_choice import with_choice
from resume_auditor.stats.thresholds import Thresholds

_OTHER = {"sex": "sex", "race": "race/ethnicity", "intersectional": "group"}
_BY = {"sex": "by sex", "race": "by race/ethnicity", "intersectional": "by race/ethnicity and sex"}


def _part(key: object, grouping: str) -> str | None:
    """The category of a stored group key under a grouping ('black_woman' -> 'woman')."""
    if not isinstance(key, str):
        return None
    try:
        group = Group.parse(key)
    except ValueError:
        return key if grouping == "intersectional" else None
    if grouping == "sex":
        return group.gender
    if grouping == "race":
        return group.race
    return group.key


def _category_rows(
    equal: pd.DataFrame, grouping: str
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per category, over its comparisons with another category: picked, other picked, cluster."""
    side_a = equal["group_a"].map(lambda k: _part(k, grouping))
    side_b = equal["group_b"].map(lambda k: _part(k, grouping))
    rows = (side_a.notna() & side_b.notna() & (side_a != side_b)).to_numpy()
    a = side_a.to_numpy(dtype=object)[rows]
    b = side_b.to_numpy(dtype=object)[rows]
    choice = equal["choice"].to_numpy(dtype=object)[rows]
    clusters = equal["cluster"].to_numpy()[rows]
    out: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for category in sorted({str(x) for x in a} | {str(x) for x in b}):
        as_a, as_b = a == category, b == category
        mine = as_a | as_b
        picked = np.where(as_a, choice == "a", choice == "b")[mine]
        other = np.where(as_a, choice == "b", choice == "a")[mine]
        out[category] = (picked, other, clusters[mine])
    return out


def _impact_tests(
    rows: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]], cut: float
) -> dict[str, float | None]:
    """category -> p of "its impact ratio is at least `cut`" (flags.impact_p)."""
    picked = np.concatenate([p.astype(float) for p, _, _ in rows.values()])
    labels = np.concatenate([np.full(p.size, c, dtype=object) for c, (p, _, _) in rows.items()])
    clusters = np.concatenate([c for _, _, c in rows.values()])
    return {c: impact_p(picked, labels, clusters, c, cut) for c in rows}


def _table(
    grouping: str,
    rows: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    thresholds: Thresholds,
    level: float,
) -> dict[str, Metric]:
    rates = {c: float(p.mean()) for c, (p, _, _) in rows.items() if p.size}
    top = max(rates.values(), default=0.0)
    tops = [label(c) for c, r in rates.items() if r == top]
    cut = thresholds.value("impact_ratio")
    small = thresholds.value("small_cell")
    tests = _impact_tests(rows, cut)
    out: dict[str, Metric] = {}
    for category, (picked, other, clusters) in rows.items():
        rate = clustered_proportion(picked, clusters, level)
        n = rate.n
        extra: dict[str, Any] = {
            "selection_rate": rate.value,
            "selection_rate_ci": [rate.low, rate.high],
            "selected": rate.successes,
            "other_selected": int(other.sum()),
            "below_four_fifths": False,
        }
        note = rate.note
        if n == 0:
            value = None
        elif top <= 0:
            value = None
            note = (
                "no candidate of any category was picked over an equally qualified one, so "
                "there are no selections to compare"
            )
        else:
            value = (rate.value or 0.0) / top
            extra["below_four_fifths"] = value < cut
            if value == 1.0:
                note = "; ".join(x for x in ("highest selection rate: the reference", note) if x)
        est = Estimate(
            value,
            None,
            None,
            n,
            rate.clusters,
            level,
            p=tests[category],
            note=note,
            extra=extra,
        )
        est = warn_small(est, small)  # type: ignore[assignment]
        name = label(category)
        test = None
        if value is not None and len(rows) > 1:
            test = FlagTest(
                "fairness",
                f"d1.impact.{grouping}.{category}",
                tests[category],
                _impact_text(name, value, cut, grouping, rate.value, tops, top),
                crossed=value < cut,
                role="secondary",
            )
        sentence = (
            f"Against an equally qualified candidate of another {_OTHER[grouping]}, the {name} "
            f"candidate was picked in {rate.successes} of {n} comparisons ({pct(rate.value)})"
        )
        if value is not None:
            sentence += (
                f"; relative to the most-picked category that is an impact ratio of {value:.2f}"
            )
        out[category] = Metric(
            category, f"Impact ratio: {name}", est, sentence, unit="ratio", test=test
        )
    return out


def _impact_text(
    name: str,
    value: float,
    cut: float,
    grouping: str,
    rate: float | None,
    tops: list[str],
    top: float,
) -> FlagText:
    def text(p_adj: float, size: int) -> str:
        return (
            f"Impact ratio of {name} candidates is {value:.2f}, under {cut:.2f} "
            f"(four-fifths rule) beyond chance: against an equally qualified candidate of "
            f"another {_OTHER[grouping]} they were picked {pct(rate)} of the time, "
            f"{' and '.join(tops)} {pct(top)} ({p_text(p_adj)} after Holm across {size} "
            "fairness tests)."
        )

    return text


def impact_cells(
    judgments: pd.DataFrame, thresholds: Thresholds, *, level: float = 0.95
) -> dict[str, dict[str, Metric]]:
    """grouping -> category -> metric, flags decided within the table (decide again
    across the audit before `impact_dict`)."""
    out: dict[str, dict[str, Metric]] = {}
    if judgments.empty:
        return out
    df = with_choice(judgments)
    equal = df[(df["kind"] == "equal") & (df["choice"] != "invalid")]
    for grouping in GROUPINGS:
        rows = _category_rows(equal, grouping)
        if rows:
            out[grouping] = _table(grouping, rows, thresholds, level)
    decide([m for cells in out.values() for m in cells.values()], thresholds)
    return out


def impact_dict(cells: dict[str, dict[str, Metric]], thresholds: Thresholds) -> ImpactRatioDict:
    """The table as JSON-ready data: `sex`, `race`, `intersectional` (category -> metric
    object), `flags` (one line per grouping), and `design`, `basis`, `note` for the reader."""
    out: ImpactRatioDict = {
        "design": "D1",
        "basis": (
            "Selection rate: of a category's comparisons with an equally qualified candidate "
            "of another category, the share where its candidate was picked (abstentions count "
            "as not selected). Impact ratio: that rate over the highest category's rate."
        ),
        "note": (
            "Every category appears equally often by design, so none falls under the 2% of the "
            "data that NYC's rules let an auditor leave out. A category with fewer than "
            f"{thresholds.value('small_cell'):g} comparisons is too small to read much into. "
            f"A ratio under {thresholds.value('impact_ratio'):.2f} is flagged only when a "
            "one-sided test finds the category's rate under four-fifths of another's beyond "
            "chance (p after Holm across every fairness test of the audit under "
            f"{thresholds.value('group_gap_alpha'):g}); otherwise it is marked not significant."
        ),
        "flags": [],
        "sex": {},
        "race": {},
        "intersectional": {},
    }
    flags: list[str] = []
    for grouping, table in cells.items():
        typed = {k: cast(ImpactCell, m.as_dict()) for k, m in table.items()}
        if grouping == "sex":
            out["sex"] = typed
        elif grouping == "race":
            out["race"] = typed
        elif grouping == "intersectional":
            out["intersectional"] = typed
        low = [m for m in table.values() if m.flag and m.estimate.value is not None]
        if low:
            listed = ", ".join(f"{label(m.key)} {m.estimate.value:.2f}" for m in low)
            flags.append(
                f"Impact ratio under {thresholds.value('impact_ratio'):.2f} (four-fifths rule) "
                f"{_BY[grouping]} on equal pairs, beyond chance: {listed}."
            )
    out["flags"] = flags
    return out


def d1_impact_ratios(
    judgments: pd.DataFrame, thresholds: Thresholds, *, level: float = 0.95
) -> ImpactRatioDict:
    """The impact-ratio table of one D1 run on its own (flags decided within it)."""
    return impact_dict(impact_cells(judgments, thresholds, level=level), thresholds)
