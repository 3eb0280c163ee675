"""A sign-flip test of "the mean is zero" over source resumes.

Why not the t-test: flags must keep their promised false-alarm rate with the 4
to 20 source resumes a real audit has, at Holm's small per-test levels (0.05 / 4),
where the t approximation to a sum of a few +1/-1/0 answers is least reliable.
Under "no group gap" each resume's sum of d (picked minus opponent picked) is
symmetric around zero: every pair is shown in both orders, so position bias
cancels in distribution, not only on average. Flipping the signs of whole-resume
sums then gives the exact null distribution of the studentized mean (Fisher's
randomization test; the wild cluster bootstrap with the null imposed and
Rademacher weights, Cameron, Gelbach & Miller 2008). With up to 12 resumes all
2^G sign patterns are enumerated; beyond that a seeded random sample of 4,999,
and beyond 2,000 resumes the t-test (where it is accurate).
With very few resumes the smallest possible p-value is 2 / 2^G (0.125 for 4
resumes): the test then honestly cannot flag anything.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from resume_auditor.stats.robust import cluster_codes, clustered_mean

MAX_EXACT = 12
DRAWS = 4999
MAX_CLUSTERS = 2000  # beyond this the t approximation is exact enough and far cheaper


@cache
def _all_signs(g: int) -> np.ndarray:
    out = np.array(list(itertools.product((1.0, -1.0), repeat=g)))
    out.setflags(write=False)
    return out


def _signs(g: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    if g <= MAX_EXACT:
        return _all_signs(g), True
    return rng.choice(np.array([1.0, -1.0]), size=(DRAWS, g)), False


@cache
def swap_patterns(g: int, draws: int = DRAWS) -> np.ndarray:
    """Which of g clusters to swap between two runs, one row a pattern (bool, patterns x g);
    row 0 swaps none (the data as observed). Every one of the 2^g patterns up to
    MAX_EXACT clusters, else row 0 and `draws` drawn from a fixed seed: the same clusters
    always get the same patterns, so the same audit always gets the same p-values.
    Swapping a cluster between two models' runs is flipping the sign of its paired
    difference (stats/compare.py)."""
    if g <= MAX_EXACT:
        out = _all_signs(g) < 0
    else:
        drawn = np.random.default_rng(0).integers(0, 2, size=(draws, g)).astype(bool)
        out = np.vstack([np.zeros((1, g), dtype=bool), drawn])
    out.setflags(write=False)
    return out


def sign_flip_floor(values: np.ndarray, clusters: np.ndarray) -> float:
    """The smallest p-value sign_flip_p can give for these data: 2 / 2^(clusters whose
    sum is not zero), or its sampled resolution beyond MAX_EXACT clusters."""
    y = np.asarray(values, dtype=float)
    codes, g = cluster_codes(np.asarray(clusters))
    if y.size == 0 or g < 2:
        return 1.0
    if g > MAX_CLUSTERS:
        return 0.0
    sums = np.bincount(codes, weights=y, minlength=g)
    live = int(np.sum(np.abs(sums) > 1e-12))
    if g > MAX_EXACT:
        return max(1.0 / (DRAWS + 1), 2.0 / 2.0 ** min(live, 60))
    return min(1.0, 2.0 / 2.0**live) if live else 1.0


def sign_flip_p(
    values: np.ndarray, clusters: np.ndarray, rng: np.random.Generator | None = None
) -> float | None:
    """Two-sided p-value of mean(values) == 0, flipping whole clusters; None if untestable."""
    y = np.asarray(values, dtype=float)
    if y.size == 0:
        return None
    codes, g = cluster_codes(np.asarray(clusters))
    if g < 2:
        return None
    if g > MAX_CLUSTERS:
        return clustered_mean(y, codes).p
    sums = np.bincount(codes, weights=y, minlength=g)
    sizes = np.bincount(codes, minlength=g).astype(float)
    n = float(y.size)
    signs, exact = _signs(g, rng if rng is not None else np.random.default_rng(0))
    flipped = signs * sums[None, :]  # (patterns, clusters)
    mean = flipped.sum(axis=1) / n
    resid = flipped - sizes[None, :] * mean[:, None]
    var = (g / (g - 1)) * np.sum(resid**2, axis=1) / n**2
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(var > 0, np.abs(mean) / np.sqrt(var), np.where(mean != 0, np.inf, 0.0))
    observed_mean = sums.sum() / n
    observed_var = (g / (g - 1)) * float(np.sum((sums - sizes * observed_mean) ** 2)) / n**2
    if observed_var == 0:
        if observed_mean == 0:
            return 1.0
        observed = float("inf")  # every resume agrees exactly: as extreme as it gets
    else:
        observed = abs(observed_mean) / np.sqrt(observed_var)
    extreme = int(np.sum(t >= observed * (1 - 1e-12)))
    patterns = int(signs.shape[0])
    if exact:
        return extreme / patterns
    return (extreme + 1) / (patterns + 1)
