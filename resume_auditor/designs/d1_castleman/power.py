"""D1's power model: how one audit of its pairs is simulated (stats/power_sim.py sizes it).

Why here: the shared simulator (stats/power_sim.py) knows no design; D1's pairs, its
gap in points and its impact ratio are D1's. A pair of copies of one source resume
differs by the groups' shifts plus two answers' noise; the model picks the higher
unless they are within the abstention band (0: forced choice). The gap is picked
minus other picked, in points. LL144 ("IR"): an impact ratio r for one group (its
selection rate r times the others'), found by the same gap test. Every draw is in
the order the shared simulator always made it, so cached powers stay valid.
"""

from __future__ import annotations

import logging
import math
from functools import lru_cache

import numpy as np

from resume_auditor.designs.d1_castleman.plan import IMPACT
from resume_auditor.stats.permutation import Block
from resume_auditor.stats.power_sim import DEFAULT_ASSUMPTIONS, Assumptions, PowerModel, Size

logger = logging.getLogger(__name__)

LABEL = "D1"
TARGET = "d1.g0"  # the first group's gap test, the one the effect is planted on


def _pair_sd(assume: Assumptions) -> float:
    return max(assume.noise, 1e-9) * math.sqrt(2.0)


@lru_cache(maxsize=256)
def gap_shift(effect: float, assume: Assumptions = DEFAULT_ASSUMPTIONS) -> float:
    """The latent shift (one group lower) that gives a selection gap of `effect` (a
    fraction: picked minus other picked against an equal candidate of another group)."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    if effect == 0:
        return float(effect)
    pair_sd = _pair_sd(assume)
    band = assume.abstain_band

    def gap(delta: float) -> float:  # the lower group's gap, as a positive number
        return float(norm.cdf((band + delta) / pair_sd) - norm.cdf((band - delta) / pair_sd))

    return float(brentq(lambda d: gap(d) - abs(effect), 0.0, 20.0 * pair_sd))


@lru_cache(maxsize=256)
def ratio_shift(effect: float, assume: Assumptions = DEFAULT_ASSUMPTIONS, groups: int = 2) -> float:
    """The latent shift (one group lower) that gives an impact ratio of `effect` against
    the other groups (forced choice, or the abstention band)."""
    from scipy.optimize import brentq
    from scipy.stats import norm

    if effect == 0:
        return float(effect)
    pair_sd = _pair_sd(assume)
    band = assume.abstain_band
    null_rate = 1 - norm.cdf(band / pair_sd)

    def ratio(delta: float) -> float:
        # LL144: the group's selection rate over the most selected group's; each other
        # group meets it in 1 of its (groups - 1) opponents
        picked = 1 - norm.cdf((band + delta) / pair_sd)
        beats = 1 - norm.cdf((band - delta) / pair_sd)
        other = (beats + (groups - 2) * null_rate) / max(groups - 1, 1)
        return float(picked / other)

    target = min(max(effect, 1e-6), 1 - 1e-9)
    return float(brentq(lambda d: ratio(d) - target, 0.0, 20.0 * pair_sd))


def _net_wins(rng: np.random.Generator, size: Size, delta: float) -> list[Block]:
    """Net wins per source resume and group over every cross-group pair, the first
    group `delta` lower on the latent scale."""
    k = size.groups
    labels = [f"g{j}" for j in range(k)]
    per_pair = max(1, round(size.per_unit / max(k - 1, 1)))
    pair_sd = size.assume.noise * math.sqrt(2.0)
    band = size.assume.abstain_band
    net = np.zeros((size.units, k))
    for a in range(k):
        for b in range(a + 1, k):
            diff = rng.normal(-delta if a == 0 else 0.0, pair_sd, size=(size.units, per_pair))
            d = (diff > band).sum(axis=1) - (diff < -band).sum(axis=1)
            net[:, a] += d
            net[:, b] -= d
    return [Block(net, labels, {g: f"d1.{g}" for g in labels})]


def _gap_shift(effect: float, assume: Assumptions, groups: int) -> float:
    return gap_shift(effect, assume)


def simulate_gap(rng: np.random.Generator, size: Size, effect: float) -> list[Block]:
    """One simulated audit of its gap test, the first group's gap `effect` (a fraction)."""
    return _net_wins(rng, size, gap_shift(effect, size.assume))


def simulate_impact(rng: np.random.Generator, size: Size, effect: float) -> list[Block]:
    """One simulated audit of its gap test with the first group at impact ratio `effect`."""
    return _net_wins(rng, size, ratio_shift(effect, size.assume, size.groups))


GAP_MODEL = PowerModel(
    code=LABEL,
    simulate=simulate_gap,
    target=TARGET,
    default_effect=0.10,  # a 10-point gap (Castleman et al. 2025 report gaps of this size)
    unit_words="source resumes",
    words=lambda effect: f"a {100 * effect:.0f}-point selection gap",
    shift=_gap_shift,
)
IMPACT_MODEL = PowerModel(
    code=IMPACT,
    simulate=simulate_impact,
    target=TARGET,
    default_effect=0.80,  # an impact ratio of 0.8: NYC Local Law 144's four-fifths line
    unit_words="source resumes",
    words=lambda effect: f"an impact ratio of {effect:.2g}",
    shift=ratio_shift,
)
MODELS = (GAP_MODEL, IMPACT_MODEL)
