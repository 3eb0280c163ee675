"""A bootstrap that varies by nothing gives no interval, not a zero-width one."""

from __future__ import annotations

import numpy as np

from resume_auditor.stats.bootstrap import (
    cluster_weights,
    percentile_interval,
    pivotal_interval,
)


def test_one_cluster_has_no_interval() -> None:
    # one source resume: every replicate draws it, so every replicate is the estimate
    weights = cluster_weights(1, 200, np.random.default_rng(1))
    reps = (weights @ np.array([0.0])) / weights.sum(axis=1)
    assert pivotal_interval(0.0, reps) == (None, None)
    assert percentile_interval(reps) == (None, None)


def test_varying_replicates_still_give_an_interval() -> None:
    weights = cluster_weights(8, 400, np.random.default_rng(2))
    values = np.array([0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0])
    reps = (weights @ values) / weights.sum(axis=1)
    low, high = percentile_interval(reps)
    assert low is not None and high is not None and low < 0.625 < high
    plow, phigh = pivotal_interval(0.625, reps)
    assert plow is not None and phigh is not None and plow < phigh


def test_d4_equal_differences_give_no_interval_and_no_warning() -> None:
    # a model that ignores names moves every resume's score by exactly the same amount;
    # the suite turns warnings into errors, so scipy's precision-loss warning would fail here
    from resume_auditor.designs.d4_faire.stats import _paired

    est = _paired(np.array([0.3, 0.1 + 0.2] * 3), 0.95)  # equal up to rounding
    assert est.low is None and est.high is None and est.n == 6
    est = _paired(np.array([0.5, 0.0, 1.0, 0.5, 0.25, 0.75]), 0.95)
    assert est.low is not None and est.high is not None and est.low < 0.5 < est.high
