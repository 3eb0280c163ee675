"""How big a group gap an audit of a given size can find, before it is run.

The D1 group gap (d1_groups.selection_gaps) is the mean of d = +1 / -1 / 0 over a
group's comparisons with equally qualified candidates of other groups (picked /
opponent picked / abstained). With abstention rate a and true gap g, d has
variance (1 - a) - g^2, and the test is flagged when its Holm-adjusted p-value is
under alpha; Holm's first step tests at alpha / m for m groups, so the power at
alpha / m is a slight underestimate ("at least"). Answers from the same resume
are correlated; `design_effect` (1 + (answers per resume - 1) * ICC) widens the
variance accordingly and defaults to 1 (independent answers), which the sentences
say.

These normal-approximation figures are checked against simulated audits in
benchmarks/stats_power.py.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import pandas as pd
from scipy import optimize

_NORMAL = NormalDist()


def gap_power(
    n_per_group: float,
    gap: float,
    *,
    groups: int = 4,
    alpha: float = 0.05,
    abstain_rate: float = 0.0,
    design_effect: float = 1.0,
) -> float:
    """Chance that a true selection gap `gap` (e.g. 0.10 = 10 points) is flagged."""
    decisive = 1.0 - abstain_rate
    if n_per_group <= 0 or decisive <= 0:
        return 0.0
    g = min(abs(gap), math.sqrt(decisive))
    crit = _NORMAL.inv_cdf(1 - alpha / (2 * max(groups, 1)))
    se0 = math.sqrt(decisive * design_effect / n_per_group)
    se1 = math.sqrt(max(decisive - g * g, 1e-12) * design_effect / n_per_group)
    return _NORMAL.cdf((g - crit * se0) / se1) + _NORMAL.cdf((-g - crit * se0) / se1)


def min_detectable_gap(
    n_per_group: float,
    *,
    power: float = 0.8,
    groups: int = 4,
    alpha: float = 0.05,
    abstain_rate: float = 0.0,
    design_effect: float = 1.0,
) -> float | None:
    """The smallest gap found with the given power; None when even the largest is not."""
    decisive = 1.0 - abstain_rate
    top = math.sqrt(decisive) * 0.999
    if n_per_group <= 0 or decisive <= 0:
        return None

    def f(g: float) -> float:
        return (
            gap_power(
                n_per_group,
                g,
                groups=groups,
                alpha=alpha,
                abstain_rate=abstain_rate,
                design_effect=design_effect,
            )
            - power
        )

    if f(top) < 0:
        return None
    return float(optimize.brentq(f, 1e-9, top, xtol=1e-6))


def proportion_margin(
    n: float, p: float = 0.9, level: float = 0.95, design_effect: float = 1.0
) -> float:
    """Half-width of a proportion's interval with n answers (normal approximation)."""
    if n <= 0:
        return 1.0
    z = _NORMAL.inv_cdf(0.5 + level / 2)
    return z * math.sqrt(p * (1 - p) * design_effect / n)


def power_sentence(
    n_per_group: float,
    *,
    groups: int = 4,
    alpha: float = 0.05,
    abstain_rate: float = 0.0,
    design_effect: float = 1.0,
) -> str:
    gap = min_detectable_gap(
        n_per_group,
        groups=groups,
        alpha=alpha,
        abstain_rate=abstain_rate,
        design_effect=design_effect,
    )
    n = int(round(n_per_group))
    if abstain_rate >= 1:
        return (
            f"The model abstained on all {n} equal-pair answers per group, so there is no "
            "selection gap to measure."
        )
    if gap is None:
        return (
            f"With {n} equal-pair answers per group no selection gap can be detected "
            "reliably: add source resumes or repeats."
        )
    independence = (
        " if answers about the same resume are not strongly alike" if design_effect == 1 else ""
    )
    return (
        f"With {n} equal-pair answers per group you can detect a selection gap of "
        f"{100 * gap:.0f} points (80% power, {100 * alpha:.0f}% false-alarm rate across "
        f"{groups} groups){independence}."
    )


def plan_d1(
    pairs: pd.DataFrame,
    *,
    orders: int = 2,
    reps: int = 1,
    abstain_rate: float = 0.0,
    alpha: float = 0.05,
    design_effect: float = 1.0,
) -> dict[str, Any]:
    """Before a run: answers per group on equal cross-group pairs, and what they can find.

    `pairs` has one row per D1 case with `kind`, `group_a`, `group_b` (as the
    result file's pair table); each is asked in `orders` orders `reps` times.
    `abstain_rate` is a guess of how often the model will abstain (0 for forced
    choice, the cautious default).
    """
    cross = pairs[
        (pairs["kind"] == "equal")
        & pairs["group_a"].notna()
        & pairs["group_b"].notna()
        & (pairs["group_a"] != pairs["group_b"])
    ]
    groups = sorted(set(cross["group_a"]).union(cross["group_b"]))
    if not groups:
        return {"comparisons_per_group": {}, "min_detectable_gap": None, "sentence": ""}
    per_pair = orders * reps
    counts = {
        g: int(((cross["group_a"] == g) | (cross["group_b"] == g)).sum()) * per_pair for g in groups
    }
    n = min(counts.values())
    return {
        "comparisons_per_group": counts,
        "min_detectable_gap": min_detectable_gap(
            n,
            groups=len(groups),
            alpha=alpha,
            abstain_rate=abstain_rate,
            design_effect=design_effect,
        ),
        "sentence": power_sentence(
            n,
            groups=len(groups),
            alpha=alpha,
            abstain_rate=abstain_rate,
            design_effect=design_effect,
        ),
    }
