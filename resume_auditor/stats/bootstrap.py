"""Cluster bootstrap: resample whole source resumes, not single answers.

Every replicate draws G source resumes with replacement out of G. Drawing a
resume c times is the same as giving each of its rows weight c, so a replicate is
one row of a (replicates x clusters) matrix of multinomial counts. Statistics that
are ratios of per-cluster sums (selection rates, impact ratios, mean ranks, RABBI)
then cost one matrix product for all replicates at once, which is what keeps 1,000
replicates over 20,000 judgments well under a second.

The random generator is passed in (default: a fixed seed) so the same data always
give the same interval: an audit re-opened from its bundle must show the same
numbers.
"""

from __future__ import annotations

import numpy as np

DEFAULT_REPLICATES = 1000
DEFAULT_SEED = 20250101


def make_rng(seed: int | np.random.Generator | None = None) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(DEFAULT_SEED if seed is None else seed)


def cluster_weights(
    n_clusters: int, replicates: int = DEFAULT_REPLICATES, rng: np.random.Generator | None = None
) -> np.ndarray:
    """(replicates, n_clusters) counts: how often each cluster is drawn in each replicate."""
    rng = make_rng(rng)
    if n_clusters <= 0:
        return np.zeros((replicates, 0))
    counts = rng.multinomial(n_clusters, np.full(n_clusters, 1.0 / n_clusters), size=replicates)
    return counts.astype(float)  # float: matrix products then use BLAS


def per_cluster_sums(codes: np.ndarray, values: np.ndarray, n_clusters: int) -> np.ndarray:
    return np.bincount(codes, weights=np.asarray(values, dtype=float), minlength=n_clusters)


def _usable(replicates: np.ndarray) -> np.ndarray | None:
    """The finite replicates, or None when they cannot make an interval.

    Fewer than 20, or all equal: a bootstrap over one cluster (or over answers that
    all agree) varies by nothing, and a zero-width interval would claim a
    certainty the data do not have (e.g. "its whole interval is below 0.80" from a
    single resume). Such a metric is reported without an interval.
    """
    values = np.asarray(replicates, dtype=float)
    reps: np.ndarray = values[np.isfinite(values)]
    if reps.size < 20 or float(np.ptp(reps)) == 0.0:
        return None
    return reps


def pivotal_interval(
    estimate: float, replicates: np.ndarray, level: float = 0.95
) -> tuple[float | None, float | None]:
    """The basic ("pivotal") bootstrap interval [2t - q_hi, 2t - q_lo].

    Gaebler et al. (Figure 1) report pivotal 95% intervals for impact ratios.
    Replicates that could not be computed (NaN, e.g. a group drawn with no rows)
    are dropped; with fewer than 20 usable replicates there is no interval.
    """
    reps = _usable(replicates)
    if reps is None or not np.isfinite(estimate):
        return None, None
    alpha = 1 - level
    q_lo, q_hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return float(2 * estimate - q_hi), float(2 * estimate - q_lo)


def percentile_interval(
    replicates: np.ndarray, level: float = 0.95
) -> tuple[float | None, float | None]:
    reps = _usable(replicates)
    if reps is None:
        return None, None
    alpha = 1 - level
    q_lo, q_hi = np.quantile(reps, [alpha / 2, 1 - alpha / 2])
    return float(q_lo), float(q_hi)
