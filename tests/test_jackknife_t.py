"""The jackknife t's reference when clusters differ in size (stats/jackknife_t.py, issue 28).

Checked against its definition: the weights against the jackknife built row by row, the
p-value against draws of Z / sqrt(sum w chi2) and Student's t for equal clusters, and,
on simulated audits with normal rows, the size it gives where t on G-1 degrees of
freedom is too liberal.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from resume_auditor.stats import jackknife_t
from resume_auditor.stats.compare import Measure, paired_difference, ratio, single

MEAN = Measure("v", "Validity", ("y", "one"), ratio(0, 1), "picks the right one more often")


def _rowwise_weights(sizes: list[np.ndarray]) -> np.ndarray:
    """The same weights built from the rows: each leave-out as a linear map of every row."""
    g = sizes[0].size
    blocks = []
    var = 0.0
    for m in sizes:
        cluster = np.repeat(np.arange(g), m.astype(int))
        total = cluster.size
        # d(mean without cluster k)/d(row i): 1/(total - m_k) when row i is not in k
        blocks.append((cluster[None, :] != np.arange(g)[:, None]) / (total - m[:, None]))
        var += 1.0 / total
    j = np.hstack([blocks[0]] + [-b for b in blocks[1:]])  # A minus B
    centred = j - j.mean(axis=0)
    w = np.linalg.eigvalsh((g - 1) / g * centred @ centred.T) / var
    return np.sort(w[w > 1e-12])


@pytest.mark.parametrize("sizes", [[3, 3, 3, 3], [1, 2, 3, 9, 4], [5, 5, 5, 5, 5, 20]])
def test_weights_equal_the_jackknife_built_row_by_row(sizes: list[int]) -> None:
    m = np.array(sizes, dtype=float)
    for runs in ([m], [m, m], [m, m[::-1].copy()]):
        w = jackknife_t.weights(runs)
        assert w is not None
        assert np.sort(w) == pytest.approx(_rowwise_weights(runs), rel=1e-9)


def test_equal_clusters_give_students_t_and_unequal_a_heavier_tail() -> None:
    m = np.full(8, 24.0)
    w = jackknife_t.weights([m, m])
    assert w is not None and w == pytest.approx(np.full(7, 1 / 7))
    # the same weights given as a general reference: Imhof's integral is Student's t
    imhof = jackknife_t.Reference(7.0, weights=tuple(float(x) for x in w))
    assert imhof.p(2.5) == pytest.approx(2 * stats.t.sf(2.5, 7), abs=1e-9)
    assert imhof.critical(0.95) == pytest.approx(stats.t.ppf(0.975, 7), abs=1e-7)
    ref = jackknife_t.reference([m, m - 1])  # equal clusters in each run
    assert ref == jackknife_t.Reference(7.0)
    uneven = np.array([24.0] * 6 + [48.0, 96.0])
    ru = jackknife_t.reference([uneven, uneven])
    assert ru is not None and ru.weights is not None
    assert ru.p(2.5) > 2 * stats.t.sf(2.5, 7)
    assert ru.critical(0.95) > stats.t.ppf(0.975, 7)


def test_p_value_is_the_distribution_of_z_over_the_weighted_chi_squares() -> None:
    w = np.array([0.05, 0.05, 0.1, 0.2, 0.6])
    rng = np.random.default_rng(1)
    draws = 400_000
    z = rng.normal(size=draws)
    v = (rng.chisquare(1, (draws, w.size)) * w).sum(axis=1)
    t = np.abs(z) / np.sqrt(v)
    ref = jackknife_t.Reference(3.0, weights=tuple(w))
    for x in (1.0, 2.0, 3.0, 5.0):
        p = ref.p(x)
        se = np.sqrt(p * (1 - p) / draws)
        assert abs(np.mean(t > x) - p) < 4 * se
    assert ref.p(ref.critical(0.95)) == pytest.approx(0.05, abs=1e-7)


def _table(sizes: list[int], y: np.ndarray) -> pd.DataFrame:
    clusters = [f"r{g}" for g, n in enumerate(sizes) for _ in range(n)]
    return pd.DataFrame({"cluster": clusters, "y": y, "one": 1.0})


def test_paired_difference_and_single_use_the_reference_of_their_cluster_sizes() -> None:
    sizes = [4, 4, 4, 4, 4, 12]
    rng = np.random.default_rng(2)
    a = _table(sizes, (rng.random(32) < 0.6).astype(float))
    b = _table(sizes, (rng.random(32) < 0.4).astype(float))
    est = paired_difference(a, b, MEAN)
    m = np.array(sizes, dtype=float)
    ref = jackknife_t.reference([m, m])
    assert ref is not None
    crit = ref.critical(0.95)
    se = (est.high - est.low) / (2 * crit)
    assert est.p == pytest.approx(ref.p(est.value / se))
    assert est.p > 2 * stats.t.sf(abs(est.value) / se, 5)  # t on G-1 df: too small
    # one run's own interval: the jackknife SE times the reference of its sizes alone
    one = single(a, MEAN)
    y = a["y"].to_numpy()
    ends = np.cumsum(sizes)
    sums = np.add.reduceat(y, ends - sizes)
    leave = (sums.sum() - sums) / (m.sum() - m)
    se1 = np.sqrt(5 / 6 * ((leave - leave.mean()) ** 2).sum())
    one_ref = jackknife_t.reference([m])
    assert one_ref is not None
    crit1 = one_ref.critical(0.95)
    assert crit1 > stats.t.ppf(0.975, 5)
    assert (one.high - one.low) / 2 == pytest.approx(crit1 * se1)


def test_a_row_without_the_measure_does_not_count_in_the_sizes() -> None:
    """Rows of other measures (0 in both columns) leave the reference of equal clusters."""
    a = _table([3, 3, 3], np.array([1, 0, 1, 1, 1, 0, 0, 1, 1], dtype=float))
    b = _table([3, 3, 3], np.array([0, 0, 1, 1, 0, 0, 0, 1, 0], dtype=float))
    plain = paired_difference(a, b, MEAN)
    other = pd.DataFrame({"cluster": ["r2"] * 6, "y": 0.0, "one": 0.0})
    padded = paired_difference(pd.concat([a, other]), pd.concat([b, other]), MEAN)
    assert (padded.p, padded.low, padded.high) == (plain.p, plain.low, plain.high)


def _size(reference: str, sizes: np.ndarray, audits: int, seed: int) -> float:
    """Share of null paired audits (normal rows) whose p is under 5%, vectorised."""
    rng = np.random.default_rng(seed)
    g = sizes.size
    sa = rng.normal(size=(audits, g)) * np.sqrt(sizes)
    sb = rng.normal(size=(audits, g)) * np.sqrt(sizes)
    total = sizes.sum()
    theta = sa.sum(1) / total - sb.sum(1) / total
    leave = (sa.sum(1)[:, None] - sa - (sb.sum(1)[:, None] - sb)) / (total - sizes)
    se = np.sqrt((g - 1) / g * ((leave - leave.mean(1, keepdims=True)) ** 2).sum(1))
    t = np.abs(theta) / se
    if reference == "g-1":
        return float(np.mean(t > stats.t.ppf(0.975, g - 1)))
    ref = jackknife_t.reference([sizes, sizes])
    assert ref is not None
    return float(np.mean(t > ref.critical(0.95)))


def test_unequal_clusters_keep_their_size_where_t_on_g_minus_1_does_not() -> None:
    """8 clusters, one with 4x the rows: t on 7 df rejects a true null in 5.5% of 100,000
    audits; the exact reference in 5.0% (a standard error of 0.07 points)."""
    sizes = np.array([24.0] * 6 + [48.0, 96.0])
    assert _size("g-1", sizes, 100_000, 3) > 0.054
    assert abs(_size("exact", sizes, 100_000, 3) - 0.05) < 0.0025
    # and for equal clusters nothing changes
    equal = np.full(8, 24.0)
    assert _size("exact", equal, 20_000, 4) == _size("g-1", equal, 20_000, 4)


def test_many_clusters_use_satterthwaite_on_the_safe_side_of_the_exact_reference() -> None:
    """Beyond EXACT_UP_TO clusters: one scaled chi-square, a little wider than exact."""
    rng = np.random.default_rng(7)
    for g in (40, 60):
        m = np.maximum(1.0, np.round(np.exp(rng.normal(3, 1.5, g))))
        exact = jackknife_t.reference([m, m])
        assert exact is not None and exact.weights is not None
        approx = jackknife_t.Reference(exact.df, exact.scale)
        ratio_ = approx.critical(0.95) / exact.critical(0.95)
        assert 1.0 <= ratio_ < 1.06
    big = np.maximum(1.0, np.round(np.exp(rng.normal(3, 1.0, jackknife_t.EXACT_UP_TO + 40))))
    ref = jackknife_t.reference([big, big])
    assert ref is not None and ref.weights is None and ref.df < big.size - 1
