"""The reference distribution of a delete-one-cluster jackknife t when clusters differ in size.

With clusters of equal size the jackknife t of a mean is the one-sample t of the cluster
totals and follows Student's t on G-1 degrees of freedom (for normal totals). When the
clusters differ in size it does not: leaving out a large cluster moves the estimate a lot,
so the jackknife variance leans on the few large clusters (it is a weighted sum of
squares, with fewer effective terms than G-1) and is biased upward as well. A t on G-1
degrees of freedom is then too liberal: on simulated paired audits of 8 resumes with one
resume holding four times the rows of the others, six measures compared under Holm, a
difference was declared in 6.1% of 100,000 null audits instead of at most 5%
(benchmarks/compare_size_sim.py, docs/comparison.md).

Bell and McCaffrey (2002) and Imbens and Kolesár (2016) take the design into account
through a working model: the rows independent with one variance. Under it the estimate
and the jackknife variance are independent, and the variance is a weighted sum of
independent chi-squares whose weights are the eigenvalues of a matrix built from the
clusters' sizes alone (not from the observed residuals, so the reference is not noisy).
They approximate that sum by one scaled chi-square (Satterthwaite); with the jackknife's
weights that approximation over-corrects (a declared rate of 1.9% where 5% was meant,
on the same simulation), so here the distribution of T = Z / sqrt(sum w_j chi2_j) is
computed exactly, by Imhof's (1961) inversion of the characteristic function: one
integral per p-value. For clusters of equal size every weight is 1/(G-1) and this is
Student's t on G-1 degrees of freedom exactly, so balanced audits keep their intervals.

The exact distribution needs the weights, an eigen-decomposition of a G x G matrix, and
a root search for the critical value: milliseconds for tens of clusters, too slow for
hundreds of measures on audits of hundreds of resumes. From EXACT_UP_TO clusters on,
the reference is Satterthwaite's one scaled chi-square (its two moments need no
eigenvalues): it errs on the safe side by under half a percent of the interval's width
once its degrees of freedom pass 20, and by a few percent for a handful of giant
clusters among hundreds.

The working model is the design, not a fit: it reads only how many rows each cluster
has, so the same audit always gives the same reference.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import integrate, optimize
from scipy import stats as sps

logger = logging.getLogger(__name__)

# up to this many clusters the reference is exact (eigenvalues and Imhof's integral);
# beyond, Satterthwaite's approximation of the same weights
EXACT_UP_TO = 60


def _matrix(sizes: Sequence[np.ndarray]) -> tuple[np.ndarray, float] | None:
    """The jackknife variance's matrix under the working model (centred on both sides,
    over the estimate's variance): V = z' W z for z of independent N(0, 1) draws."""
    g = int(sizes[0].size) if sizes else 0
    if g < 2:
        return None
    k = np.zeros((g, g))
    var = 0.0
    for m in sizes:
        m = np.asarray(m, dtype=float)
        total = float(m.sum())
        if m.size != g or total <= 0 or np.any(total - m <= 0):
            return None
        left = total - m
        # covariance of the leave-outs: rows of every cluster but g and h, over the sizes
        k += (total - m[:, None] - m[None, :] + np.diag(m)) / np.outer(left, left)
        var += 1.0 / total
    # centring on both sides, in O(G^2): K - row means - column means + grand mean
    k = k - k.mean(axis=0, keepdims=True) - k.mean(axis=1, keepdims=True) + k.mean()
    return (g - 1) / g * k / var, var


def weights(sizes: Sequence[np.ndarray]) -> np.ndarray | None:
    """The jackknife variance's chi-square weights, over the estimate's variance.

    `sizes`: for each run compared (one for a run's own value, two for a paired
    difference A - B), the number of rows each cluster has, in the same cluster order.
    The estimate is taken as a difference of means (a rate or gap per run) and the
    leave-one-cluster-out values as those means without the cluster; under rows
    independent with one variance, T = estimate / jackknife SE is distributed as
    Z / sqrt(sum w_j chi2_j). None when no reference can be built (a run without rows, or
    a cluster holding every row of a run).
    """
    found = _matrix(sizes)
    if found is None:
        return None
    w = np.linalg.eigvalsh(found[0])
    top = float(w.max()) if w.size else 0.0
    w = w[w > 1e-12 * top] if top > 0 else w[:0]
    return w if w.size else None


@dataclass(frozen=True)
class Reference:
    """The distribution a jackknife t is read against: Student's t on `df` for `t * scale`
    (equal clusters: df G-1, scale 1; Satterthwaite's otherwise), or, with `weights`,
    Z / sqrt(sum w chi2) exactly."""

    df: float
    scale: float = 1.0
    weights: tuple[float, ...] | None = None

    def p(self, t: float) -> float:
        """Two-sided p of the jackknife t."""
        if self.weights is not None:
            return _p(abs(t), self.weights)
        return float(2 * sps.t.sf(abs(t) * self.scale, self.df))

    def critical(self, level: float) -> float:
        """The two-sided critical value of the jackknife t at `level`."""
        if self.weights is not None:
            return _critical(level, self.weights, self.df, self.scale)
        return float(sps.t.ppf(0.5 + level / 2, self.df)) / self.scale


def reference(sizes: Sequence[np.ndarray]) -> Reference | None:
    """The reference of a jackknife t over clusters of these sizes (`weights`' argument);
    None when none can be built (the caller then uses Student's t on G-1)."""
    g = int(sizes[0].size) if sizes else 0
    if g < 2:
        return None
    if all(np.ptp(np.asarray(m, dtype=float)) == 0 for m in sizes):
        return Reference(float(g - 1))  # equal clusters: Student's t exactly
    found = _matrix(sizes)
    if found is None:
        return None
    w_matrix = found[0]
    total = float(np.trace(w_matrix))
    square = float((w_matrix * w_matrix).sum())  # trace of W^2 (W symmetric)
    if total <= 0 or square <= 0:
        return None
    df = total * total / square
    scale = math.sqrt(total)  # V ~ total * chi2_df / df
    if g > EXACT_UP_TO:
        return Reference(df, scale)
    w = weights(sizes)
    if w is None:
        return None
    if np.all(np.abs(w * w.size - 1.0) <= _EQUAL):
        return Reference(float(w.size))
    return Reference(df, scale, tuple(float(x) for x in np.round(np.sort(w), 12)))


# relative spread of the weights under which they count as equal (Student's t exactly)
_EQUAL = 1e-9


@lru_cache(maxsize=4096)
def _p(t: float, w: tuple[float, ...]) -> float:
    """P(|T| > t) = P(chi2_1 - t^2 sum w_j chi2_j > 0), by Imhof's formula."""
    c = np.concatenate([[1.0], -t * t * np.asarray(w)])

    def integrand(u: float) -> float:
        cu = c * u
        beta = 0.5 * float(np.arctan(cu).sum())
        log_gamma = 0.25 * float(np.log1p(cu * cu).sum())
        return math.sin(beta) / (u * math.exp(log_gamma))

    value, _ = integrate.quad(integrand, 0.0, math.inf, limit=400, epsabs=1e-10)
    return float(min(1.0, max(0.0, 0.5 + value / math.pi)))


@lru_cache(maxsize=4096)
def _critical(level: float, w: tuple[float, ...], df: float, scale: float) -> float:
    alpha = 1.0 - level
    # between Student's t on as many df as weights (too liberal) and Satterthwaite's
    # (a little conservative), widened if ever it is not
    a = float(sps.t.ppf(1 - alpha / 2, len(w)))
    b = float(sps.t.ppf(1 - alpha / 2, df)) / scale
    low, high = 0.9 * min(a, b), 1.1 * max(a, b)
    while _p(low, w) < alpha:
        low /= 2.0
    while _p(high, w) > alpha:
        high *= 2.0
    return float(optimize.brentq(lambda x: _p(x, w) - alpha, low, high, xtol=1e-9))


__all__ = ["EXACT_UP_TO", "Reference", "reference", "weights"]
