"""Intervals cluster by what cases share: D3 repeats and sources, D4 batches."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from devtools import synthetic

from resume_auditor.designs.d3_rabbi.stats import compute_d3, row_weights
from resume_auditor.designs.d4_faire.stats import compute_d4
from resume_auditor.stats.bootstrap import cluster_weights


def test_d3_repeats_are_averaged_before_ranking() -> None:
    rng = np.random.default_rng(2)
    once = synthetic.d3_pointwise(rng, pools=30)
    if "candidate_id" not in once.columns:
        once = once.assign(candidate_id=np.arange(len(once)))
    twice = pd.concat([once.assign(rep=0), once.assign(rep=1)], ignore_index=True)
    a = compute_d3(once, replicates=50, rng=1).pointwise
    b = compute_d3(twice, replicates=50, rng=1).pointwise
    assert a is not None and b is not None
    assert b.candidates == a.candidates  # not doubled
    for g, m in a.rabbi.items():
        assert b.rabbi[g].estimate.value == pytest.approx(m.estimate.value)
        assert b.rabbi[g].estimate.n == m.estimate.n
    for k, cells in a.dp_gap.items():
        for g, m in cells.items():
            assert b.dp_gap[k][g].estimate.value == pytest.approx(m.estimate.value)


def test_d3_resamples_pools_and_source_resumes_together() -> None:
    cands = pd.DataFrame(
        {"cluster": [1, 1, 2, 2, 3, 3], "source": ["r1", "r2", "r2", "r3", "r3", "r1"]}
    )
    w = row_weights(cands, 200, np.random.default_rng(4))
    assert w.shape == (200, 6)
    # pool part first, then the source part from the same generator
    rng = np.random.default_rng(4)
    p = cluster_weights(3, 200, rng)
    s = cluster_weights(3, 200, rng)
    expected = p[:, [0, 0, 1, 1, 2, 2]] * s[:, [0, 1, 1, 2, 2, 0]]
    assert np.array_equal(w, expected)
    # without sources: pools alone
    alone = row_weights(cands[["cluster"]], 200, np.random.default_rng(4))
    assert np.array_equal(alone, p[:, [0, 0, 1, 1, 2, 2]])


def test_d4_ranks_cluster_by_batch_not_by_answer() -> None:
    rows = []
    for batch in range(6):
        for answer, order in enumerate(("ab", "ba")):
            first = "woman" if order == "ab" else "man"
            second = "man" if first == "woman" else "woman"
            rows.append((batch, 10 * batch + answer, first, 1, 2))
            rows.append((batch, 10 * batch + answer, second, 2, 2))
    df = pd.DataFrame(rows, columns=["batch_id", "answer_id", "group", "rank", "batch_size"])
    r = compute_d4(rankings=df)
    assert r.rankings == 12  # answers
    woman = r.ranks["2"]["woman"].estimate
    assert woman.clusters == 6  # batches
    # a pure position bias, balanced within each batch: every batch averages 1.5
    assert woman.value == pytest.approx(1.5) and not r.ranks["2"]["woman"].flag
