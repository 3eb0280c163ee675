"""D3 joins the comparison (issue 28): each group's RABBI, with its own leave-one-pool values.

RABBI compares every candidate of a group with every White man candidate across pools,
so it is not a function of per-pool sums; designs/d3_rabbi/compare.py computes the
value with each pool left out directly. Checked here against a brute-force
recomputation (ties, several candidates a pool, a pool with one side only), for
coverage and false alarms on simulated paired audits shaped like D3's pools (resumes
dealt to groups anew each round, a resume's quality shared by both models), and
through the real path in tests/test_compare.py (each model's value is its run's own
RABBI).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from resume_auditor.designs.d3_rabbi.compare import rabbi_leave_out
from resume_auditor.designs.d3_rabbi.stats import rabbi
from resume_auditor.stats.compare import Measure, paired_difference, ratio, single, value

RABBI = Measure(
    "rabbi",
    "RABBI",
    ("a", "b"),
    ratio(0, 1),
    "ranks the group above more often",
    unit="number",
    bounds=(-1.0, 1.0),
    cluster=("pool", "pools"),
    leave_out=rabbi_leave_out("a", "b"),
)


def _table(clusters: list[str], a: list[float], b: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"cluster": clusters, "a": a, "b": b})


def test_the_leave_outs_are_rabbi_recomputed_without_each_pool() -> None:
    rng = np.random.default_rng(2)
    n = 60
    clusters = [f"p{i}" for i in rng.integers(0, 9, n)]
    scores = rng.integers(1, 6, n).astype(float)  # a 1-5 rating: many ties
    side = rng.integers(0, 3, n)  # A, B, or another group
    a = np.where(side == 0, scores, np.nan)
    b = np.where(side == 1, scores, np.nan)
    # a pool with A candidates only
    clusters += ["lonely", "lonely"]
    a, b = np.append(a, [2.0, 5.0]), np.append(b, [np.nan, np.nan])
    table = _table(clusters, list(a), list(b))
    labels = np.array(sorted(set(clusters)), dtype=object)
    theta, leave, active = RABBI.leave_out(table, labels)  # type: ignore[misc]
    assert theta == pytest.approx(rabbi(a[~np.isnan(a)], b[~np.isnan(b)]))
    for i, lab in enumerate(labels):
        rest = table[table["cluster"] != lab]
        want = rabbi(rest["a"].dropna().to_numpy(), rest["b"].dropna().to_numpy())
        assert leave[i] == pytest.approx(want), lab
        assert active[i] == bool(table.loc[table["cluster"] == lab, ["a", "b"]].notna().any().any())
    assert value(table, RABBI) == pytest.approx(theta)
    est = single(table, RABBI)
    assert est.clusters == int(active.sum())
    assert -1.0 <= est.low <= est.value <= est.high <= 1.0


def test_a_pool_without_candidates_of_either_side_is_not_counted() -> None:
    a = _table(
        ["p1", "p1", "p2", "p2", "p3", "p3"],
        [3, math.nan, 1, math.nan, 2, math.nan],
        [math.nan, 2, math.nan, 2, math.nan, 3],
    )
    b = _table(
        list(a["cluster"]),
        [2, math.nan, 1, math.nan, 3, math.nan],
        [math.nan, 2, math.nan, 1, math.nan, 3],
    )
    outside = _table(["p4"], [math.nan], [math.nan])
    plain = paired_difference(a, b, RABBI)
    padded = paired_difference(pd.concat([a, outside]), pd.concat([b, outside]), RABBI)
    assert (padded.value, padded.low, padded.high, padded.clusters) == (
        plain.value,
        plain.low,
        plain.high,
        plain.clusters,
    )
    assert plain.clusters == 3


def _pools(
    rng: np.random.Generator, shift: float, pools: int = 10, groups: int = 8, sources: int = 8
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two models scoring the same D3 pools (one candidate per group, the resumes dealt
    anew each round): a resume's quality shared by both, each model its own taste per
    resume and its own noise; model A moves group 1's candidates by `shift`."""
    quality = rng.normal(0, 1, sources)
    deck = np.tile(np.arange(sources), math.ceil(groups / sources))
    pool = np.repeat(np.arange(pools), groups)
    group = np.tile(np.arange(groups), pools)
    source = np.concatenate([rng.choice(deck, groups, replace=False) for _ in range(pools)])
    out = []
    for s in (shift, 0.0):
        taste = rng.normal(0, 0.7, sources)
        latent = quality[source] + taste[source] + rng.normal(0, 1, pool.size)
        score = 1 / (1 + np.exp(-(latent + np.where(group == 1, s, 0.0))))  # like P(yes)
        out.append(
            _table(
                [f"p{p}" for p in pool],
                list(np.where(group == 1, score, np.nan)),
                list(np.where(group == 0, score, np.nan)),
            )
        )
    return out[0], out[1]


@pytest.mark.parametrize("shift", [0.0, 2.0])
def test_paired_rabbi_intervals_cover_and_the_null_is_rarely_called(shift: float) -> None:
    """600 simulated paired audits of 10 pools of 8: coverage 93-97%, false calls <= 6.5%.
    The truth of a planted shift is the mean difference over 4,000 other audits."""
    rng = np.random.default_rng(17)
    truth = 0.0
    if shift:
        draws = [_pools(rng, shift) for _ in range(4000)]
        truth = float(np.mean([value(a, RABBI) - value(b, RABBI) for a, b in draws]))  # type: ignore[operator]
    hits = calls = 0
    n = 600
    for _ in range(n):
        a, b = _pools(rng, shift)
        e = paired_difference(a, b, RABBI)
        assert e.low is not None and e.high is not None and e.p is not None
        hits += e.low <= truth <= e.high
        calls += e.p < 0.05
    assert 0.93 <= hits / n <= 0.97
    if shift == 0.0:
        assert calls / n <= 0.065
    else:
        assert calls / n > 0.3


def test_both_scoring_methods_give_the_runs_own_rabbi() -> None:
    """Pointwise and pairwise tables of 12 pools of 4 (repeats, unreadable answers, ties):
    each group's comparison value is compute_d3's RABBI of the same tables."""
    from itertools import combinations

    from resume_auditor.designs.d3_rabbi.compare import comparable
    from resume_auditor.designs.d3_rabbi.stats import compute_d3

    rng = np.random.default_rng(8)
    groups = ["white_man", "black_woman", "asian_man", "hispanic_woman"]
    point, pair = [], []
    for pool in range(12):
        for i, g in enumerate(groups):
            for rep in range(2):
                p = float(rng.random())
                point.append(
                    {
                        "pool_id": pool,
                        "candidate_id": pool * 10 + i,
                        "group": g,
                        "p_yes": None if rng.random() < 0.05 else round(p, 1),
                        "p_no": round(1 - p, 1),
                        "rep": rep,
                    }
                )
        for (i, ga), (j, gb) in combinations(enumerate(groups), 2):
            for order in ("ab", "ba"):
                pair.append(
                    {
                        "pool_id": pool,
                        "cand_a": pool * 10 + i,
                        "cand_b": pool * 10 + j,
                        "group_a": ga,
                        "group_b": gb,
                        "ord": order,
                        "label": str(rng.choice(["first", "second", "tie", "invalid"])),
                    }
                )
    pointwise, pairwise = pd.DataFrame(point), pd.DataFrame(pair)
    own = compute_d3(pointwise, pairwise, replicates=50, rng=0)
    found = comparable(pointwise, pairwise)
    assert found is not None
    keys = {m.key for m in found.measures}
    assert keys == {f"{m}.rabbi.{g}" for m in ("pointwise", "pairwise") for g in groups[1:]}
    for m in found.measures:
        method, _, group = m.key.split(".")
        block = own.pointwise if method == "pointwise" else own.pairwise
        assert block is not None
        assert value(found.table, m) == pytest.approx(block.rabbi[group].estimate.value)
        est = single(found.table, m)
        assert est.clusters == 12 and est.low is not None


def test_pools_of_unequal_size_read_the_jackknife_t_against_their_own_reference() -> None:
    """D3's own leave-outs count each pool's A and B candidates as its rows: pools of
    equal size keep Student's t on G - 1 df, a pool twice as large the exact reference."""
    from scipy import stats

    from resume_auditor.stats import jackknife_t

    rng = np.random.default_rng(4)

    def tables(sizes: list[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
        clusters = [f"p{i}" for i, n in enumerate(sizes) for _ in range(2 * n)]
        side = np.tile([0, 1], sum(sizes))  # A and B candidates alternate in every pool
        out = []
        for _ in range(2):
            s = rng.integers(1, 6, side.size).astype(float)
            out.append(
                _table(
                    clusters,
                    list(np.where(side == 0, s, np.nan)),
                    list(np.where(side == 1, s, np.nan)),
                )
            )
        return out[0], out[1]

    equal = paired_difference(*tables([2] * 6), RABBI)
    se = (equal.high - equal.low) / (2 * stats.t.ppf(0.975, 5))
    assert equal.p == pytest.approx(2 * stats.t.sf(abs(equal.value) / se, 5))
    sizes = [2, 2, 2, 2, 2, 6]
    est = paired_difference(*tables(sizes), RABBI)
    m = 2.0 * np.array(sizes)
    ref = jackknife_t.reference([m, m])
    assert ref is not None and ref.weights is not None
    se = (est.high - est.low) / (2 * ref.critical(0.95))
    assert est.p == pytest.approx(ref.p(est.value / se))
