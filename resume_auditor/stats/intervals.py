"""Confidence intervals for proportions when observations come in clusters.

Pairs built from the same source resume are not independent. We estimate the
variance of a proportion with a cluster-robust (CR1 sandwich) estimator, turn it
into an effective sample size (never above the real one), and put a Wilson score
interval on that, with a t critical value on (clusters - 1) degrees of freedom so
that few clusters give honestly wide intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps


@dataclass(frozen=True)
class Proportion:
    value: float | None
    low: float | None
    high: float | None
    n: int
    successes: int
    clusters: int
    level: float = 0.95
    note: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "value": self.value,
            "ci": [self.low, self.high],
            "level": self.level,
            "n": self.n,
            "successes": self.successes,
            "clusters": self.clusters,
            "note": self.note,
        }


def wilson(successes: float, n: float, crit: float) -> tuple[float, float]:
    """Wilson score interval for successes/n (n may be an effective, non-integer size)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + crit**2 / n
    centre = (p + crit**2 / (2 * n)) / denom
    half = crit * math.sqrt(p * (1 - p) / n + crit**2 / (4 * n * n)) / denom
    # The score interval always contains p; clamp away floating-point crumbs.
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def clustered_proportion(
    outcomes: Sequence[bool] | np.ndarray,
    clusters: Sequence[object] | np.ndarray,
    level: float = 0.95,
) -> Proportion:
    y = np.asarray(outcomes, dtype=float)
    g = np.asarray(clusters)
    n = int(y.size)
    if n == 0:
        return Proportion(None, None, None, 0, 0, 0, level, "no observations")
    successes = int(y.sum())
    p = successes / n
    labels, inverse = np.unique(g, return_inverse=True)
    n_clusters = int(labels.size)
    alpha = 1 - level
    if n_clusters < 2:
        crit = float(sps.norm.ppf(1 - alpha / 2))
        low, high = wilson(successes, n, crit)
        return Proportion(
            p,
            low,
            high,
            n,
            successes,
            n_clusters,
            level,
            "one source resume: the interval assumes independent answers and is too narrow",
        )
    # CR1 cluster-robust variance of the mean.
    resid_sums = np.bincount(inverse, weights=y - p, minlength=n_clusters)
    var_cluster = (n_clusters / (n_clusters - 1)) * float(np.sum(resid_sums**2)) / n**2
    var_iid = p * (1 - p) / n
    if var_cluster > 0 and var_iid > 0:
        n_eff = min(float(n), p * (1 - p) / var_cluster)
    else:
        n_eff = float(n)
    crit = float(sps.t.ppf(1 - alpha / 2, df=n_clusters - 1))
    low, high = wilson(p * n_eff, n_eff, crit)
    note = ""
    if n_clusters < 5:
        note = f"only {n_clusters} source resumes: the interval is wide by design"
    return Proportion(p, low, high, n, successes, n_clusters, level, note)
