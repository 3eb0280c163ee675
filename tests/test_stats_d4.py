"""D4 FAIRE metrics (Wen et al. 2025) against hand computations."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from devtools import synthetic

from resume_auditor.designs.d4_faire.inputs import D4_DIMENSIONS
from resume_auditor.designs.d4_faire.stats import compute_d4
from resume_auditor.stats.inputs import StatsInputError

T2_975 = 4.302652729911275  # t(0.975, df = 2)


def scores() -> pd.DataFrame:
    def row(cluster: int, variant: str, group: str | None, value: float, rep: int = 0) -> dict:  # type: ignore[type-arg]
        return {"cluster": cluster, "variant": variant, "group": group, "rep": rep,
                **dict.fromkeys(D4_DIMENSIONS, value)}  # fmt: skip

    rows = [
        row(1, "original", None, 4),
        row(1, "name", "black", 5),  # +1
        row(2, "original", None, 3),
        row(2, "original", None, 5, rep=1),  # repeats average: original of resume 2 is 4
        row(2, "name", "black", 3),  # -1
        row(3, "original", None, 4),
        row(3, "name", "black", 5),  # +1
        row(3, "name", "white", 4),  # 0 (only resume 3 has a white copy)
    ]
    df = pd.DataFrame(rows)
    df.loc[len(df)] = {**row(1, "name", "white", 4), "impact": None}  # unreadable
    return df


def test_paired_differences_by_hand() -> None:
    r = compute_d4(scores())
    assert r.scores == 9 and r.unreadable == 1
    est = r.differences["name"]["overall"]["black"].estimate
    # differences +1, -1, +1: mean 1/3, SD sqrt(4/3), se 2/3, t = 0.5 on 2 df:
    # p = 1 - 0.5 / sqrt(2.25) = 2/3
    assert est.value == pytest.approx(1 / 3)
    assert (est.low, est.high) == pytest.approx((1 / 3 - T2_975 * 2 / 3, 1 / 3 + T2_975 * 2 / 3))
    assert est.extra["t"] == pytest.approx(0.5)
    assert est.extra["t_p"] == pytest.approx(2 / 3)
    for dim in D4_DIMENSIONS:
        assert r.differences["name"][dim]["black"].estimate.value == pytest.approx(1 / 3)
    white = r.differences["name"]["overall"]["white"].estimate
    assert white.value == pytest.approx(0.0) and white.n == 1 and white.low is None


def test_permutation_p_of_the_differences() -> None:
    # The flag's p relabels each resume's copies (original, black, white) at random
    # (permutation.py, checked against enumeration in test_stats_permutation.py); with
    # differences +1, -1, +1 it is nowhere near a flag. The other dimensions keep the
    # paired sign-flip p: patterns of (1, -1, 1) are all at least as extreme, p = 1.
    name = compute_d4(scores()).differences["name"]
    assert name["overall"]["black"].estimate.p is not None
    assert name["overall"]["black"].estimate.p > 0.2
    assert name["impact"]["black"].estimate.p == pytest.approx(1.0)


def test_average_ranks_by_hand() -> None:
    df = pd.DataFrame(
        {
            "batch_id": [1, 1, 2, 2, 3, 3],
            "group": ["woman", "man"] * 3,
            "rank": [1, 2, 1, 2, 2, 1],
            "batch_size": 2,
        }
    )
    r = compute_d4(rankings=df)
    woman = r.ranks["2"]["woman"].estimate
    # ranks 1, 1, 2: mean 4/3 (chance 1.5); centred -1/2, -1/2, +1/2, se 1/3
    assert woman.value == pytest.approx(4 / 3)
    # The t interval 4/3 -/+ t/3 runs past the ranks 1-2 a batch of two can give: cut there
    assert 4 / 3 - T2_975 / 3 < 1 and 4 / 3 + T2_975 / 3 > 2
    assert (woman.low, woman.high) == pytest.approx((1.0, 2.0))
    assert r.ranks["2"]["man"].estimate.value == pytest.approx(5 / 3)
    assert woman.extra["expected"] == 1.5
    assert "female candidates got an average rank" in r.ranks["2"]["woman"].reading


def test_planted_effects_are_flagged_and_none_are_not() -> None:
    rng = np.random.default_rng(21)
    r = compute_d4(
        synthetic.d4_scores(rng, resumes=30, effects={"black": 0.4}),
        synthetic.d4_rankings(rng, batches=80, bias={"white": 1.0}),
    )
    assert r.differences["name"]["overall"]["black"].flag
    assert r.ranks["4"]["white"].flag and r.ranks["4"]["white"].estimate.value < 2.5  # type: ignore[operator]
    null = compute_d4(synthetic.d4_scores(rng, resumes=30), synthetic.d4_rankings(rng, batches=80))
    assert not null.flags()
    json.dumps(r.as_dict(), allow_nan=False)


def test_a_rank_beyond_the_batch_is_refused() -> None:
    df = pd.DataFrame({"batch_id": [1, 1], "group": ["woman", "man"], "rank": [1, 3]})
    with pytest.raises(StatsInputError, match="batch 1 gives rank 3 in a batch of 2"):
        compute_d4(rankings=df)
