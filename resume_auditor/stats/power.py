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
from collections.abc import Sequence
from statistics import NormalDist

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


def design_power_lines(found: Sequence[str], alpha: float = 0.05) -> list[str]:
    """Before a run: each design's line of the smallest group effect its test can flag
    with 80% power (`Design.approx_power`, from the helpers above: normal approximations
    at the share of alpha each test gets in the report's family, stats/flags.py; checked
    against planted-effect audits through the real path in benchmarks/null_calibration.py),
    under one line that says what they are."""
    if not found:
        return []
    return [
        "Power before the run (80% chance to flag, false-alarm rate "
        f"{alpha:g} shared by every fairness test of the report):",
        *found,
    ]
