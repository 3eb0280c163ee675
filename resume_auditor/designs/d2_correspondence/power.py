"""D2's power model: how one audit of its ratings is simulated (stats/power_sim.py sizes it).

Why here: the shared simulator knows no design. A rating is floor(3.5 + u + shift + e)
in 1..5 (integer ratings, ties), averaged over informative repeats; the effect is
the difference in ratings over their standard deviation (power_sim.rating_shift).
Every draw is in the order the shared simulator always made it, so cached powers
stay valid.
"""

from __future__ import annotations

import logging

import numpy as np

from resume_auditor.stats.permutation import Block
from resume_auditor.stats.power_sim import (
    Assumptions,
    PowerModel,
    Size,
    rating,
    rating_shift,
    sd_words,
)

logger = logging.getLogger(__name__)

LABEL = "D2"


def planted(effect: float, assume: Assumptions, groups: int = 2) -> float:
    """The latent shift that moves one copy's rating by `effect` SD."""
    return rating_shift(effect, assume)


def simulate(rng: np.random.Generator, size: Size, effect: float) -> list[Block]:
    """One simulated audit: each copy's mean rating, the first group `effect` SD lower,
    every group tested against the last (the reference)."""
    k = size.groups
    labels = [f"g{j}" for j in range(k)]
    delta = planted(effect, size.assume)
    level = rng.normal(0, size.assume.spread, size=(size.units, 1, 1))
    noise = rng.normal(0, size.assume.noise, size=(size.units, k, max(size.per_unit, 1)))
    shift = np.zeros((1, k, 1))
    shift[0, 0, 0] = -delta
    ratings = rating(level + noise + shift).mean(axis=2)
    keys = {g: f"d2.{g}" for g in labels[:-1]}
    return [Block(ratings, labels, keys, labels[-1])]


MODEL = PowerModel(
    code=LABEL,
    simulate=simulate,
    target="d2.g0",
    default_effect=0.30,  # 0.3 SD in ratings (Gaebler et al. 2024, Figure 2)
    unit_words="source resumes",
    words=sd_words,
    shift=planted,
)
