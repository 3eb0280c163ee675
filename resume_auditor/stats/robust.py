"""Least squares with errors clustered by source resume (CR1 sandwich).

Gaebler et al. (Appendix, "Prompt Variations") estimate group differences "using a
linear model where the outcome is the model's hiring rating, the covariates are
gender and race, and errors are clustered at the level of the real application";
that is this estimator. The small-sample factor is Stata's / statsmodels' CR1,
G/(G-1) * (N-1)/(N-K), and tests use a t distribution on G-1 degrees of freedom, so
a study with few source resumes gets honestly wide intervals.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from resume_auditor.stats.estimate import Estimate, empty
from resume_auditor.stats.intervals import t_crit

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class OlsFit:
    beta: np.ndarray
    cov: np.ndarray  # cluster-robust covariance of beta (CR1)
    n: int
    clusters: int

    @property
    def df(self) -> int:
        return max(self.clusters - 1, 1)

    def se(self, j: int) -> float:
        return float(np.sqrt(max(self.cov[j, j], 0.0)))

    def interval(self, j: int, level: float) -> tuple[float, float]:
        crit = t_crit(level, self.df)
        b, s = float(self.beta[j]), self.se(j)
        return b - crit * s, b + crit * s

    def p_value(self, j: int) -> float | None:
        s = self.se(j)
        if s == 0:
            return None
        return float(2 * sps.t.sf(abs(float(self.beta[j])) / s, self.df))


def cluster_codes(clusters: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer codes 0..G-1 for cluster labels of any type."""
    _, inverse = np.unique(np.asarray(clusters).astype(str), return_inverse=True)
    return inverse.astype(np.int64), int(inverse.max()) + 1 if inverse.size else 0


def cluster_ols(y: np.ndarray, x: np.ndarray, clusters: np.ndarray) -> OlsFit | None:
    """OLS of y on the columns of x with CR1 cluster-robust covariance.

    Returns None when the design is rank-deficient (e.g. a group with no rows),
    which callers report as "cannot be estimated" rather than a wrong number.
    """
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    n, k = x.shape
    codes, g = cluster_codes(clusters)
    if n <= k or g < 1:
        return None
    xtx = x.T @ x
    if np.linalg.matrix_rank(xtx) < k:
        return None
    bread = np.linalg.inv(xtx)
    beta = bread @ (x.T @ y)
    resid = y - x @ beta
    scores = np.zeros((g, k))
    for j in range(k):
        scores[:, j] = np.bincount(codes, weights=x[:, j] * resid, minlength=g)
    meat = scores.T @ scores
    factor = (g / (g - 1)) * ((n - 1) / (n - k)) if g > 1 else 1.0
    cov = factor * bread @ meat @ bread
    return OlsFit(beta, cov, n, g)


def clustered_mean(values: np.ndarray, clusters: np.ndarray, level: float = 0.95) -> Estimate:
    """A mean with a cluster-robust t interval and the p-value of "the mean is 0"."""
    y = np.asarray(values, dtype=float)
    if y.size == 0:
        return empty(level)
    fit = cluster_ols(y, np.ones((y.size, 1)), np.asarray(clusters))
    if fit is None:
        return Estimate(float(y.mean()), None, None, int(y.size), 1, level, note="one answer")
    low, high = fit.interval(0, level)
    note = ""
    if fit.clusters < 2:
        note = "one source resume: no honest interval is possible"
        low = high = float("nan")
    elif fit.se(0) == 0:
        # Every answer alike (e.g. the model always abstained): a zero-width interval
        # would claim certainty the data cannot give.
        note = "every answer was the same, so there is no spread to build an interval from"
        low = high = float("nan")
    return Estimate(
        float(fit.beta[0]), low, high, fit.n, fit.clusters, level, p=fit.p_value(0), note=note
    )
