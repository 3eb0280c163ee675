"""D3 allocation metrics (Chen et al. 2024) against hand computations and scipy."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from devtools import synthetic

from resume_auditor.designs.d3_rabbi.scores import pairwise_candidates, pointwise_candidates
from resume_auditor.designs.d3_rabbi.stats import compute_d3, rabbi, rank_biserial, selected_share
from resume_auditor.stats.inputs import StatsInputError

BW, WM, HM = "black_woman", "white_man", "hispanic_man"


def test_rabbi_by_hand() -> None:
    # a = 3 beats 2, 2, 0 (+3); a = 1 beats 0, loses to 2, 2 (-1); a = 2 ties 2, 2, beats 0 (+1)
    assert rabbi(np.array([3, 1, 2]), np.array([2, 2, 0])) == pytest.approx(3 / 9)


def test_rabbi_is_the_mann_whitney_rank_biserial_on_random_data() -> None:
    rng = np.random.default_rng(2024)
    for _ in range(200):
        n_a, n_b = rng.integers(1, 40, size=2)
        # integer scores make ties common, which is where a sloppy formula goes wrong
        a = rng.integers(0, 6, n_a).astype(float)
        b = rng.integers(0, 6, n_b).astype(float) + rng.choice([0.0, 0.5])
        r_rb, p = rank_biserial(a, b)
        assert rabbi(a, b) == pytest.approx(r_rb, abs=1e-12)
        assert 0 <= p <= 1
    a, b = rng.normal(0, 1, 300), rng.normal(0.2, 1, 250)
    assert rabbi(a, b) == pytest.approx(rank_biserial(a, b)[0], abs=1e-12)


def test_pointwise_score_normalizes_yes_and_no() -> None:
    df = pd.DataFrame(
        {"pool_id": [1, 1], "group": [BW, WM], "p_yes": [0.6, None], "p_no": [0.2, 0.5]}
    )
    cands, unreadable = pointwise_candidates(df)
    assert cands["score"].tolist() == pytest.approx([0.75]) and unreadable == 1


def test_ties_at_the_cut_share_the_places() -> None:
    cands = pd.DataFrame({"pool_id": [1, 1, 1, 1], "score": [0.9, 0.5, 0.5, 0.1]})
    assert selected_share(cands, 2).tolist() == pytest.approx([1, 0.5, 0.5, 0])
    assert selected_share(cands, 1).tolist() == pytest.approx([1, 0, 0, 0])


def pools() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "pool_id": [1, 1, 1, 2, 2, 2],
            "group": [BW, WM, HM, BW, WM, HM],
            "score": [0.9, 0.5, 0.1, 0.2, 0.8, 0.5],
            "qualified": [True, False, True, True, True, False],
        }
    )


def test_allocation_gaps_by_hand() -> None:
    p = compute_d3(pools(), replicates=100).pointwise
    assert p is not None
    # top-1: bw picked in pool 1 only (1/2), wm in pool 2 only (1/2)
    assert p.dp_gap["1"][BW].estimate.value == pytest.approx(0.0)
    # top-2: bw 1 of 2, wm 2 of 2
    assert p.dp_gap["2"][BW].estimate.value == pytest.approx(-0.5)
    # equal opportunity, top-1: qualified bw 1 of 2 selected; the one qualified wm (pool 2) 1 of 1
    assert p.eo_gap["1"][BW].estimate.value == pytest.approx(-0.5)
    assert "3" not in p.dp_gap  # pools of 3: top-3 selects everyone, nothing to compare
    for g in (BW, HM):  # every group's cell says what it is
        assert p.eo_gap["1"][g].title.startswith("Equal-opportunity gap at top-1")
        assert "of qualified" in p.eo_gap["1"][g].reading
        assert p.dp_gap["1"][g].title.startswith("Demographic-parity gap at top-1")
    assert p.rabbi[BW].estimate.value == pytest.approx(0.0)  # 0.9 beats both, 0.2 loses to both
    # no overlap in 10 bins on [0, 1]: JSD = 1; EMD of {0.2, 0.9} vs {0.5, 0.8} = (0.3 + 0.1) / 2
    assert p.jsd[BW].estimate.value == pytest.approx(1.0)
    assert p.emd[BW].estimate.value == pytest.approx(0.2)
    assert p.score_gap[BW].estimate.value == pytest.approx(0.55 - 0.65)


def pairwise() -> pd.DataFrame:
    rows = [
        # pool, cand_a, cand_b, group_a, group_b, ord, label
        (1, 1, 2, BW, WM, "ab", "first"),  # 1
        (1, 1, 2, BW, WM, "ba", "second"),  # 1 again (shown second): consistent
        (1, 1, 3, BW, HM, "ab", "first"),  # 1
        (1, 1, 3, BW, HM, "ba", "first"),  # 3: the answer follows the position
        (1, 2, 3, WM, HM, "ab", "tie"),  # 0.25 each
        (1, 2, 3, WM, HM, "ba", "invalid"),  # no information: 0.25 each
    ]
    return pd.DataFrame(
        rows, columns=["pool_id", "cand_a", "cand_b", "group_a", "group_b", "ord", "label"]
    )


def test_pairwise_scores_by_hand() -> None:
    cands = pairwise_candidates(pairwise()).set_index("candidate_id")["score"]
    # 1: 0.5 + 0.5 + 0.5; 2: 0.25 + 0.25; 3: 0.5 + 0.25 + 0.25
    assert cands.to_dict() == pytest.approx({1: 1.5, 2: 0.5, 3: 1.0})


def test_pairwise_output_statistics_by_hand() -> None:
    r = compute_d3(pairwise=pairwise(), replicates=50)
    out = {k: (m.estimate.successes, m.estimate.n) for k, m in r.output.items()}
    # 6 answers, 1 unreadable, 1 tie; pairs readable in both orders: (1,2) and (1,3);
    # (1,3) picked a different candidate in each order
    assert out == {"regular": (5, 6), "tie": (1, 6), "flipped": (1, 2), "inconsistent": (1, 2)}
    assert r.pairwise is not None
    won = r.pairwise.score_gap[BW].estimate
    assert won.value == 1.0 and won.extra["reverse"] == 0.0  # bw won both orders vs wm


def test_a_planted_bias_is_flagged_and_none_is_not() -> None:
    rng = np.random.default_rng(8)
    planted = compute_d3(synthetic.d3_pointwise(rng, pools=150, bias={BW: 1.0}), replicates=200)
    assert planted.pointwise is not None and planted.pointwise.rabbi[BW].flag
    assert planted.pointwise.rabbi[BW].estimate.value > 0  # type: ignore[operator]
    null = compute_d3(synthetic.d3_pointwise(rng, pools=150), replicates=200)
    assert null.pointwise is not None and not null.flags()
    json.dumps(planted.as_dict(), allow_nan=False)


def test_pairwise_at_scale_runs_and_stays_json() -> None:
    rng = np.random.default_rng(9)
    r = compute_d3(pairwise=synthetic.d3_pairwise(rng, pools=20), replicates=100)
    assert r.pairwise is not None and set(r.output) == {"regular", "tie", "flipped", "inconsistent"}
    json.dumps(r.as_dict(), allow_nan=False)


def test_a_table_without_a_score_is_refused() -> None:
    with pytest.raises(StatsInputError, match="needs a 'score' column"):
        compute_d3(pd.DataFrame({"pool_id": [1], "group": [BW]}))


def test_bootstrap_emd_matches_scipy_with_weights() -> None:
    from scipy import stats as sps

    from resume_auditor.designs.d3_rabbi.stats import _emd_boot

    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 5, 50).astype(float), rng.normal(2, 1, 70)  # ties included
    wa = rng.integers(0, 3, (6, 50)).astype(float)
    wb = rng.integers(1, 3, (6, 70)).astype(float)
    expected = [sps.wasserstein_distance(a, b, wa[i], wb[i]) for i in range(6)]
    assert _emd_boot(a, wa, b, wb) == pytest.approx(expected)
