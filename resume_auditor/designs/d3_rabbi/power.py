"""D3's power model: how one audit of its pools is simulated (stats/power_sim.py sizes it).

Why here: the shared simulator knows no design. Per pool one candidate per group
with a N(0, 1) score; the shifted group's scores move by the effect (in SD, no
calibration), and the test reads ranks within pools. With bare Yes/No answers (no
log-probabilities) scores tie and power is lower than this. Its units are pools
(rounds), so more repeats are not how it grows. Every draw is in the order the
shared simulator always made it, so cached powers stay valid.
"""

from __future__ import annotations

import logging

import numpy as np

from resume_auditor.stats.permutation import Block
from resume_auditor.stats.power_sim import Assumptions, PowerModel, Size, sd_words

logger = logging.getLogger(__name__)

LABEL = "D3"


def planted(effect: float, assume: Assumptions, groups: int = 2) -> float:
    """Scores are N(0, 1): the effect in SD is the shift itself."""
    return float(effect)


def simulate(rng: np.random.Generator, size: Size, effect: float) -> list[Block]:
    """One simulated audit: ranks within each pool, the first group `effect` SD lower,
    every group tested against the last (the reference)."""
    k = size.groups
    labels = [f"g{j}" for j in range(k)]
    scores = rng.normal(0, 1, size=(size.units, k))
    scores[:, 0] -= effect
    ranks = scores.argsort(axis=1).argsort(axis=1).astype(float) + 1
    return [Block(ranks, labels, {g: f"d3.{g}" for g in labels[:-1]}, labels[-1])]


MODEL = PowerModel(
    code=LABEL,
    simulate=simulate,
    target="d3.g0",
    default_effect=0.30,  # 0.3 SD in candidate scores
    unit_words="pools (rounds)",
    words=sd_words,
    shift=planted,
    repeats=False,  # its units are pools: more rounds, not repeats
)
