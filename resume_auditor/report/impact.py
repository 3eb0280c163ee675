"""An NYC Local Law 144-style impact-ratio table from D1's equal pairs.

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
them, a cluster-bootstrap interval wholly under 0.80 in 16-43%;
benchmarks/report_impact_flags.py). So the ratio is reported as LL144 asks,
without an interval of its own, next to the selection rate with its clustered
95% interval and the group test the app uses everywhere: the sign-flip test over
source resumes of "picked minus the other picked" (stats/randomization.py),
Holm-adjusted across every test in the table. A ratio is flagged when it
is under the four-fifths threshold *and* that test finds the category picked
less often than the others beyond chance.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from resume_auditor.domain.groups import Group
from resume_auditor.stats.d1 import with_choice
from resume_auditor.stats.estimate import Estimate
from resume_auditor.stats.intervals import clustered_proportion
from resume_auditor.stats.labels import label
from resume_auditor.stats.metric import Metric, pct, warn_small
from resume_auditor.stats.multiplicity import holm
from resume_auditor.stats.randomization import sign_flip_p
from resume_auditor.stats.thresholds import Thresholds

# The groupings LL144 asks for, in its order.
GROUPINGS = ("sex", "race", "intersectional")
GROUPING_TITLES = {
    "sex": "By sex",
    "race": "By race/ethnicity",
    "intersectional": "Intersectional (race/ethnicity and sex)",
}
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


def _tests(
    groupings: dict[str, dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]],
) -> dict[tuple[str, str], tuple[float | None, float | None]]:
    """(grouping, category) -> (p, p after Holm across the whole table).

    One family for the whole table, so the chance of any false alarm in it stays at
    the threshold. A grouping of two categories is one comparison seen from both
    sides: it counts as one test.
    """
    raw: dict[tuple[str, str], float | None] = {}
    family: list[tuple[str, str]] = []
    for grouping, rows in groupings.items():
        for i, (category, (picked, other, clusters)) in enumerate(rows.items()):
            raw[(grouping, category)] = sign_flip_p(
                picked.astype(float) - other.astype(float), clusters
            )
            if len(rows) > 2 or i == 0:
                family.append((grouping, category))
    adjusted = dict(zip(family, holm([raw[k] for k in family]), strict=True))
    out: dict[tuple[str, str], tuple[float | None, float | None]] = {}
    for (grouping, category), p in raw.items():
        rows = groupings[grouping]
        key = (grouping, category) if len(rows) > 2 else (grouping, next(iter(rows)))
        out[(grouping, category)] = (p, adjusted[key])
    return out


def _table(
    grouping: str,
    rows: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    tests: dict[tuple[str, str], tuple[float | None, float | None]],
    thresholds: Thresholds,
    level: float,
) -> dict[str, Metric]:
    rates = {c: float(p.mean()) for c, (p, _, _) in rows.items() if p.size}
    top = max(rates.values(), default=0.0)
    tops = [label(c) for c, r in rates.items() if r == top]
    cut = thresholds.value("impact_ratio")
    alpha = thresholds.value("group_gap_alpha")
    small = thresholds.value("small_cell")
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
            p=tests[(grouping, category)][0],
            p_holm=tests[(grouping, category)][1],
            note=note,
            extra=extra,
        )
        est = warn_small(est, small)  # type: ignore[assignment]
        name = label(category)
        ph = tests[(grouping, category)][1]
        flag = ""
        if value is not None and value < cut and ph is not None and ph < alpha:
            flag = (
                f"Impact ratio of {name} candidates is {value:.2f}, under {cut:.2f} "
                f"(four-fifths rule): against an equally qualified candidate of another "
                f"{_OTHER[grouping]} they were picked {pct(rate.value)} of the time, "
                f"{' and '.join(tops)} {pct(top)} (p = {ph:.3f}; threshold {alpha:g})."
            )
        sentence = (
            f"Against an equally qualified candidate of another {_OTHER[grouping]}, the {name} "
            f"candidate was picked in {rate.successes} of {n} comparisons ({pct(rate.value)})"
        )
        if value is not None:
            sentence += (
                f"; relative to the most-picked category that is an impact ratio of {value:.2f}"
            )
        out[category] = Metric(category, f"Impact ratio: {name}", est, sentence, flag, unit="ratio")
    return out


def d1_impact_ratios(
    judgments: pd.DataFrame, thresholds: Thresholds, *, level: float = 0.95
) -> dict[str, Any]:
    """The table as JSON-ready data: `sex`, `race`, `intersectional` (category -> metric
    object), `flags` (one line per grouping), and `design`, `basis`, `note` for the reader."""
    out: dict[str, Any] = {
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
            f"A ratio under {thresholds.value('impact_ratio'):.2f} is flagged only when the "
            "group test also finds the category picked less often beyond chance "
            f"(p after Holm across the table under {thresholds.value('group_gap_alpha'):g})."
        ),
        "flags": [],
    }
    for grouping in GROUPINGS:
        out[grouping] = {}
    if judgments.empty:
        return out
    df = with_choice(judgments)
    equal = df[(df["kind"] == "equal") & (df["choice"] != "invalid")]
    groupings = {g: rows for g in GROUPINGS if (rows := _category_rows(equal, g))}
    tests = _tests(groupings)
    flags: list[str] = []
    for grouping, rows in groupings.items():
        cells = _table(grouping, rows, tests, thresholds, level)
        out[grouping] = {k: m.as_dict() for k, m in cells.items()}
        low = [m for m in cells.values() if m.flag]
        if low:
            listed = ", ".join(f"{label(m.key)} {m.estimate.value:.2f}" for m in low)
            flags.append(
                f"Impact ratio under {thresholds.value('impact_ratio'):.2f} (four-fifths rule) "
                f"{_BY[grouping]} on equal pairs, beyond chance: {listed}."
            )
    out["flags"] = flags
    return out
