"""D2 correspondence metrics (Gaebler et al. 2024) against hand computations."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from devtools import synthetic

from resume_auditor.designs.d2_correspondence.stats import compute_d2
from resume_auditor.stats.inputs import StatsInputError

T2_975 = 4.302652729911275  # t(0.975, df = 2)
T2_85 = 1.3862065601673441  # t(0.85, df = 2): the 70% interval

WM, BW = "white_man", "black_woman"


def ratings() -> pd.DataFrame:
    rows = [
        # cluster, condition, group, rating, perceived race, perceived gender
        (1, "named", WM, 3, "white", "man"),
        (1, "named", BW, 4, "black", "woman"),
        (2, "named", WM, 4, "white", None),
        (2, "named", BW, 4, "asian", "woman"),
        (3, "named", WM, 2, None, None),
        (3, "named", BW, 5, " Black ", "woman"),
        (1, "blinded", None, 3, None, None),
        (2, "blinded", None, 3, None, None),
        (3, "blinded", None, 3, None, None),
        (3, "named", BW, None, None, None),  # an unreadable answer
    ]
    return pd.DataFrame(
        rows,
        columns=["cluster", "condition", "group", "rating", "perceived_race", "perceived_gender"],
    )


# Named ratings 3, 4, 4, 4, 2, 5: mean 11/3, squared deviations sum 16/3, SD sqrt(16/15).
SD = (16 / 15) ** 0.5


def test_standardized_difference_by_hand() -> None:
    r = compute_d2(ratings())
    assert r.ratings == 10 and r.unreadable == 1
    assert r.sd == pytest.approx(SD)
    est = r.smd[BW].estimate
    # beta_1 = 13/3 - 3 = 4/3. CR1 by hand: (X'X)^-1 = [[1/3, -1/3], [-1/3, 2/3]], cluster
    # scores (-1/3, -1/3), (2/3, -1/3), (-1/3, 2/3); sandwich[1, 1] = 14/27; factor
    # 3/2 * 5/4 = 15/8 -> var(beta_1) = 35/36.
    se = (35 / 36) ** 0.5
    assert est.value == pytest.approx((4 / 3) / SD)
    assert (est.low, est.high) == pytest.approx(
        ((4 / 3 - T2_975 * se) / SD, (4 / 3 + T2_975 * se) / SD)
    )
    assert est.extra["ci70"] == pytest.approx(
        [(4 / 3 - T2_85 * se) / SD, (4 / 3 + T2_85 * se) / SD]
    )
    # per-resume differences 1, 0, 3; two groups, so relabelling within a resume is a
    # sign flip: |t| as large in 4 of 8 patterns, p = 0.5 (9,999 random relabellings)
    assert est.p == pytest.approx(0.5, abs=0.02)
    assert r.smd[BW].unit == "sd" and "70%" not in r.smd[BW].as_dict()["reading"]


def test_race_and_gender_models_by_hand() -> None:
    # A balanced 2 x 2 design: the additive model's coefficients are the marginal
    # differences. White 3, 4, 2, 3, 3, 3 (mean 3), Black 3, 5, 4, 4, 3, 4 (23/6); men
    # mean 3, women 23/6. All twelve: sum of squares 147 - 41^2/12, SD over 11 df.
    rows = [
        (1, "white_man", 3), (1, "white_woman", 4), (1, "black_man", 3), (1, BW, 5),
        (2, "white_man", 2), (2, "white_woman", 3), (2, "black_man", 4), (2, BW, 4),
        (3, "white_man", 3), (3, "white_woman", 3), (3, "black_man", 3), (3, BW, 4),
    ]  # fmt: skip
    r = compute_d2(pd.DataFrame(rows, columns=["cluster", "group", "rating"]), replicates=50)
    sd = ((147 - 41**2 / 12) / 11) ** 0.5
    assert r.smd_race["black"].estimate.value == pytest.approx((5 / 6) / sd)
    assert r.smd_gender["woman"].estimate.value == pytest.approx((5 / 6) / sd)
    assert "female candidates" in r.smd_gender["woman"].reading
    # ...while in the first table race and gender move together and cannot be separated
    confounded = compute_d2(ratings()).smd_race["black"].estimate
    assert confounded.value is None and "cannot be estimated" in confounded.note


def test_impact_ratios_by_hand() -> None:
    air = compute_d2(ratings(), replicates=200).impact_ratio
    # >= 4: wm 1 of 3, bw 3 of 3 -> wm 1/3; >= 3: 2/3; >= 5: wm 0 of 3, bw 1 of 3 -> 0
    assert air["4"]["group"][WM].estimate.value == pytest.approx(1 / 3)
    assert air["3"]["group"][WM].estimate.value == pytest.approx(2 / 3)
    assert air["5"]["group"][WM].estimate.value == pytest.approx(0.0)
    top = air["4"]["group"][BW].estimate
    assert top.value == 1.0 and top.low is None and "by definition" in top.note
    assert air["4"]["race"]["white"].estimate.value == pytest.approx(1 / 3)
    assert air["4"]["gender"]["man"].estimate.value == pytest.approx(1 / 3)
    # three resumes: too few for the ratio's clustered test, so no interval either
    assert (air["4"]["group"][WM].estimate.low, air["4"]["group"][WM].estimate.high) == (None, None)
    # 0.33 from three resumes is a point estimate, not a finding: shown, not flagged
    cell = air["4"]["group"][WM]
    assert cell.flag == "" and cell.as_dict()["not_significant"] is True
    assert cell.test is not None and cell.test.p is None  # three resumes: too few to test


def test_impact_flags_need_a_test_and_are_one_line_per_threshold() -> None:
    rng = np.random.default_rng(3)
    # Black women rated a full point lower on 40 resumes: their share at 4+ falls far under
    # four-fifths of the others'
    df = synthetic.d2_ratings(rng, clusters=40, effects={BW: -1.5})
    r = compute_d2(df, replicates=100)
    cell = r.impact_ratio["4"]["group"][BW]
    assert cell.estimate.value is not None and cell.estimate.value < 0.5
    assert cell.flag and "beyond chance" in cell.flag
    assert cell.test is not None and cell.test.p_adjusted is not None
    assert cell.test.p_adjusted < 0.05
    air = [f for f in r.flags() if f.startswith("Impact ratio")]
    assert len(air) == len(set(air)) <= 9
    assert any("rating 4+ by group: Black woman" in f for f in air)


def test_a_model_that_ignores_names_raises_no_impact_flag() -> None:
    # The case: an unbiased model flagged in every audit on point estimates alone.
    rng = np.random.default_rng(8)
    flagged = 0
    below = 0
    for _ in range(40):
        r = compute_d2(synthetic.d2_ratings(rng, clusters=12), replicates=20)
        cells = [m for m in r.all_metrics() if m.key and m.unit == "ratio"]
        flagged += any(m.flag for m in cells)
        below += any(m.as_dict()["not_significant"] for m in cells)
    assert below >= 30  # the old rule would have flagged these
    assert flagged <= 2


def test_manipulation_check_by_hand() -> None:
    m = compute_d2(ratings()).manipulation
    # race answered 5 times (cluster 3's White man copy did not say), right 4 (not 'asian')
    assert (m["race"].estimate.successes, m["race"].estimate.n) == (4, 5)
    assert (m["gender"].estimate.successes, m["gender"].estimate.n) == (4, 4)
    assert (m["both"].estimate.successes, m["both"].estimate.n) == (3, 4)


def test_blinded_shift_by_hand() -> None:
    b = compute_d2(ratings()).blinded
    assert b[BW].estimate.value == pytest.approx((13 / 3 - 3) / SD)
    assert b[WM].estimate.value == pytest.approx(0.0)


def test_prompt_variants_get_their_own_differences() -> None:
    rng = np.random.default_rng(4)
    df = synthetic.d2_ratings(rng, clusters=10, prompts=("plain", "eeoc"))
    r = compute_d2(df, replicates=50)
    assert set(r.by_prompt) == {"plain", "eeoc"}
    assert set(r.by_prompt["plain"]) == set(synthetic.D2_GROUP_KEYS) - {WM}


def test_a_planted_effect_is_flagged_and_none_is_not() -> None:
    rng = np.random.default_rng(11)
    planted = compute_d2(synthetic.d2_ratings(rng, clusters=40, effects={BW: 0.8}), replicates=100)
    assert planted.smd[BW].flag and planted.smd[BW].estimate.value > 0  # type: ignore[operator]
    null = compute_d2(synthetic.d2_ratings(rng, clusters=40), replicates=100)
    assert not any(m.flag for m in null.smd.values())
    json.dumps(planted.as_dict(), allow_nan=False)


def test_named_rows_need_a_group() -> None:
    df = ratings()
    df.loc[0, "group"] = None
    with pytest.raises(StatsInputError, match="named rows need a group"):
        compute_d2(df)


def test_impact_interval_inverts_the_flag_test() -> None:
    rng = np.random.default_rng(5)
    r = compute_d2(synthetic.d2_ratings(rng, clusters=30, effects={BW: -1.5}), replicates=20)
    for by_kind in r.impact_ratio.values():
        for cells in by_kind.values():
            for m in cells.values():
                est = m.estimate
                if est.low is None or est.high is None or est.value == 1.0:
                    continue
                assert 0 <= est.low <= est.value <= est.high <= 1
    cell = r.impact_ratio["4"]["group"][BW].estimate
    assert cell.high is not None and cell.high < 0.8  # far below: the whole interval too
