"""D4's power model: how one audit of its copies and batches is simulated (stats/power_sim.py).

Why here: the shared simulator knows no design. Five 1-5 dimensions per copy, each
floor(3.5 + u + shift + e) with its own e; the overall score is their mean and the
effect is in its SD (power_sim.rating_shift over five dimensions); ranked batches
of different resumes rank u + shift + e. Every draw is in the order the shared
simulator always made it, so cached powers stay valid.
"""

from __future__ import annotations

import logging
import math

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

LABEL = "D4"
DIMENSIONS = 5  # the 1-5 dimensions its overall score is the mean of


def planted(effect: float, assume: Assumptions, groups: int = 2) -> float:
    """The latent shift that moves the overall score (the mean of its dimensions) by
    `effect` SD."""
    return rating_shift(effect, assume, DIMENSIONS)


def simulate(rng: np.random.Generator, size: Size, effect: float) -> list[Block]:
    """One simulated audit: each copy's overall score against the original (the first
    name group `effect` SD lower) and, with batches, the ranks within each batch."""
    k = size.groups
    copies = ["original", *(f"name:g{j}" for j in range(k)), *(f"exp:g{j}" for j in range(k))]
    a = size.assume
    delta = planted(effect, a)
    level = rng.normal(0, a.spread, size=(size.units, 1, 1))
    dims = DIMENSIONS * max(size.per_unit, 1)  # informative repeats: more readings of each copy
    latent = level + rng.normal(0, a.noise, size=(size.units, len(copies), dims))
    latent[:, 1, :] -= delta
    overall = rating(latent).mean(axis=2)
    keys = {c: f"d4.{c}" for c in copies[1:]}
    blocks = [Block(overall, copies, keys, "original")]
    if size.batches:
        z = rng.normal(0, math.hypot(a.spread, a.noise), size=(size.batches, k))
        z[:, 0] -= delta
        ranks = (-z).argsort(axis=1).argsort(axis=1).astype(float) + 1 - (k + 1) / 2
        labels = [f"r{j}" for j in range(k)]
        blocks.append(Block(ranks, labels, {g: f"d4.rank.{g}" for g in labels}))
    return blocks


MODEL = PowerModel(
    code=LABEL,
    simulate=simulate,
    target="d4.name:g0",
    default_effect=0.30,  # 0.3 SD in the overall score
    unit_words="source resumes",
    words=sd_words,
    shift=planted,
)
