"""How big a group gap an audit of a given size can find, before it is run.

The D1 group gap (designs/d1_castleman/groups.selection_gaps) is the mean of d = +1 / -1 / 0 over a
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
        f"{100 * gap:.0f} points (80% power, a {alpha:.3g} false-alarm rate shared by the "
        f"{groups} groups' tests){independence}."
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


def design_alpha(alpha: float, designs: int, primary_tests: int) -> float:
    """The share of alpha one primary test of a design gets in the report's family.

    stats/flags.py: each design present an equal share, primary tests 80% of it
    (the figure assumes the secondary tests exist, the usual case).
    """
    return alpha / max(designs, 1) * 0.8 / max(primary_tests, 1)


def mean_effect_power(effect_in_sd: float, units: int, alpha_test: float) -> float:
    """Power of a two-sided test of a mean over `units` independent units, effect in SD units."""
    if units < 2:
        return 0.0
    crit = _NORMAL.inv_cdf(1 - alpha_test / 2)
    shift = abs(effect_in_sd) * math.sqrt(units)
    return _NORMAL.cdf(shift - crit) + _NORMAL.cdf(-shift - crit)


def can_flag(units: int, alpha_test: float) -> bool:
    """Whether a sign-flip test over `units` clusters can reach `alpha_test` at all.

    Its smallest p-value is 2 / 2^units (exact enumeration, randomization.py): with
    four source resumes that is 0.125, so nothing can be flagged, however large.
    """
    return units >= 2 and (units > 30 or 2.0 / 2.0**units < alpha_test)


def min_detectable_effect(units: int, alpha_test: float, power: float = 0.8) -> float | None:
    """Smallest mean effect (in SD units of one unit's value) found with `power`."""
    if not can_flag(units, alpha_test):
        return None
    return (_NORMAL.inv_cdf(1 - alpha_test / 2) + _NORMAL.inv_cdf(power)) / math.sqrt(units)


def design_power_lines(sizes: dict[str, dict[str, int]], alpha: float = 0.05) -> list[str]:
    """Before a run: the smallest group effect each design can flag with 80% power.

    `sizes`: per design present ("D1".."D4"), its counts: D1 `answers_per_group`,
    `resumes` and `groups`; D2 `resumes`, `groups`; D3 `pools`, `groups`; D4 `resumes`,
    `groups`, `batches`, `batch_size`. Normal approximations at the share of alpha
    each test gets in the report's family (stats/flags.py); checked against
    planted-effect audits through the real path in benchmarks/null_calibration.py.
    Effects are in each design's own unit: D2 and D4 scores in standard deviations
    of a resume's difference between two names (about the SD of the ratings when
    copies of a resume are rated alike half the time), D3 as RABBI, D4 ranks in
    places.
    """
    designs = len(sizes)
    out: list[str] = []
    for design, n in sorted(sizes.items()):
        groups = max(int(n.get("groups", 2)), 2)
        if design == "D1":
            a = design_alpha(alpha, designs, groups)
            gap = None
            if can_flag(n.get("resumes", 0), a):
                gap = min_detectable_gap(n.get("answers_per_group", 0), groups=1, alpha=a)
            out.append(
                f"D1: a selection gap of {100 * gap:.0f} points or more (forced choice)."
                if gap is not None
                else "D1: too few source resumes or answers to flag even a large selection gap."
            )
        elif design == "D2":
            a = design_alpha(alpha, designs, groups - 1)
            mde = min_detectable_effect(n.get("resumes", 0), a)
            out.append(
                f"D2: a standardized difference of {mde:.2f} SD or more."
                if mde is not None
                else "D2: too few source resumes to flag even a large rating difference."
            )
        elif design == "D3":
            a = design_alpha(alpha, designs, groups - 1)
            mde = min_detectable_effect(n.get("pools", 0), a)
            out.append(
                f"D3: a RABBI of {min(mde, 1.0):.2f} or more (pointwise)."
                if mde is not None and mde < 1
                else "D3: too few pools to flag even a strong ranking preference."
            )
        elif design == "D4":
            batch = max(int(n.get("batch_size", 5)), 2)
            tests = 2 * groups + groups  # differences (2 perturbations) and ranks
            a = design_alpha(alpha, designs, tests)
            mde = min_detectable_effect(n.get("resumes", 0), a)
            rank_sd = math.sqrt((batch * batch - 1) / 12)
            mde_rank = min_detectable_effect(n.get("batches", 0), a)
            parts = []
            if mde is not None:
                parts.append(f"a score difference of {mde:.2f} SD")
            if mde_rank is not None:
                parts.append(f"an average rank {mde_rank * rank_sd:.2f} places off chance")
            out.append(
                "D4: "
                + (
                    " or ".join(parts) + " or more."
                    if parts
                    else "too few source resumes and batches to flag even a large effect."
                )
            )
    if out:
        out.insert(
            0,
            "Power before the run (80% chance to flag, false-alarm rate "
            f"{alpha:g} shared by every fairness test of the report):",
        )
    return out
