"""The reference distribution of a delete-one-cluster jackknife t when clusters differ in size.

With clusters of equal size the jackknife t of a mean is the one-sample t of the cluster
totals and follows Student's t on G-1 degrees of freedom (for normal totals). When the
clusters differ in size it does not: leaving out a large cluster moves the estimate a lot,
so the jackknife variance leans on the few large clusters (it is a weighted sum of
squares, with fewer effective terms than G-1) and is biased upward as well. A t on G-1
degrees of freedom is then too liberal: on simulated paired audits of 8 resumes with one
resume holding four times the rows of the others, six measures compared under Holm, a
difference was declared in 6.2% of null audits instead of at most 5%
(benchmarks/compare_size_sim.py, docs/comparison.md).

Bell and McCaffrey (2002) and Imbens and Kolesár (2016) take the design into account
through a working model: the rows independent with one variance. Under it the estimate
and the jackknife variance are independent, and the variance is a weighted sum of
independent chi-squares whose weights are the eigenvalues of a matrix built from the
clusters' sizes alone (not from the observed residuals, so the reference is not noisy).
They approximate that sum by one scaled chi-square (Satterthwaite); with the jackknife's
weights that approximation over-corrects (a declared rate of 1.5% where 5% was meant,
on the same simulation), so here the distribution of T = Z / sqrt(sum w_j chi2_j) is
computed exactly, by Imhof's (1961) inversion of the characteristic function: one
integral per p-value. For clusters of equal size every weight is 1/(G-1) and this is
Student's t on G-1 degrees of freedom exactly, so balanced audits keep their intervals.

The working model is the design, not a fit: it reads only how many rows each cluster
has, so the same audit always gives the same reference.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from scipy import integrate, optimize
from scipy import stats as sps

logger = logging.getLogger(__name__)

# relative spread of the weights under which they count as equal (Student's t exactly)
_EQUAL = 1e-9


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
    g = int(sizes[0].size) if sizes else 0
    if g < 2:
        return None
    k = np.zeros((g, g))
    var = 0.0
    for m in sizes:
        m = np.asarray(m, dtype=float)
        total = float(m.sum())
        if total <= 0 or np.any(total - m <= 0):
            return None
        left = total - m
        # covariance of the leave-outs: rows of every cluster but g and h, over the sizes
        k += (total - m[:, None] - m[None, :] + np.diag(m)) / np.outer(left, left)
        var += 1.0 / total
    centre = np.eye(g) - 1.0 / g
    w = np.linalg.eigvalsh((g - 1) / g * centre @ k @ centre) / var
    w = w[w > 1e-12 * max(float(w.max()), 0.0)] if w.size and w.max() > 0 else w[:0]
    return w if w.size else None


def _student(w: np.ndarray) -> int | None:
    """The degrees of freedom when every weight is 1/df (Student's t exactly), else None."""
    df = int(w.size)
    return df if np.all(np.abs(w * df - 1.0) <= _EQUAL) else None


def _key(w: np.ndarray) -> tuple[float, ...]:
    return tuple(float(x) for x in np.round(np.sort(w), 12))


@lru_cache(maxsize=4096)
def _p(t: float, w: tuple[float, ...]) -> float:
    """P(|T| > t) = P(chi2_1 - t^2 sum w_j chi2_j > 0), by Imhof's formula."""
    c = np.concatenate([[1.0], -t * t * np.asarray(w)])

    def integrand(u: float) -> float:
        cu = c * u
        beta = 0.5 * float(np.arctan(cu).sum())
        gamma = float(np.prod((1.0 + cu * cu) ** 0.25))
        return math.sin(beta) / (u * gamma)

    value, _ = integrate.quad(integrand, 0.0, math.inf, limit=400, epsabs=1e-10)
    return float(min(1.0, max(0.0, 0.5 + value / math.pi)))


def p_value(t: float, w: np.ndarray | None, df: int) -> float:
    """Two-sided p of a jackknife t: exact under the working model when `w` is given,
    Student's t on `df` degrees of freedom when not (or when the weights are equal)."""
    t = abs(t)
    student = _student(w) if w is not None else df
    if student is not None:
        return float(2 * sps.t.sf(t, student))
    assert w is not None
    return _p(t, _key(w))


@lru_cache(maxsize=4096)
def _critical(level: float, w: tuple[float, ...]) -> float:
    alpha = 1.0 - level
    low = float(sps.norm.ppf(1 - alpha / 2)) * 0.5
    high = 2.0 * low
    while _p(high, w) > alpha:
        high *= 2.0
    return float(optimize.brentq(lambda x: _p(x, w) - alpha, low, high, xtol=1e-8))


def critical(level: float, w: np.ndarray | None, df: int) -> float:
    """The two-sided critical value at `level` (the same reference as `p_value`)."""
    student = _student(w) if w is not None else df
    if student is not None:
        return float(sps.t.ppf(0.5 + level / 2, student))
    assert w is not None
    return _critical(level, _key(w))


__all__ = ["critical", "p_value", "weights"]
