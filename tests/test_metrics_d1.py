"""D1 metrics against a fixture computed by hand from the paper's formulas (Eq. 3-9)."""

from __future__ import annotations

import pandas as pd
import pytest

from resume_auditor.designs.d1_castleman.stats import compute_d1
from resume_auditor.stats.intervals import clustered_proportion, wilson

ROWS = [
    # pair, kind, truth, cluster, group_a, group_b, ord, label
    (1, "unequal", "a", 1, "bw", "bw", "ab", "first"),  # a: correct
    (1, "unequal", "a", 1, "bw", "bw", "ba", "first"),  # b: unjustified selection
    (2, "unequal", "a", 1, "wm", "wm", "ab", "abstain"),  # unjustified abstention
    (2, "unequal", "a", 1, "wm", "wm", "ba", "second"),  # a: correct
    (3, "unequal", "a", 2, "bw", "bw", "ab", "first"),  # correct
    (3, "unequal", "a", 2, "bw", "bw", "ba", "second"),  # correct
    (4, "unequal", "b", 2, "wm", "wm", "ab", "second"),  # b: correct
    (4, "unequal", "b", 2, "wm", "wm", "ba", "invalid"),  # left out
    (5, "equal", "equal", 1, "bw", "wm", "ab", "abstain"),
    (5, "equal", "equal", 1, "bw", "wm", "ba", "first"),  # b (wm) picked, shown first
    (6, "equal", "equal", 2, "bw", "wm", "ab", "first"),  # a (bw) picked, shown first
    (6, "equal", "equal", 2, "bw", "wm", "ba", "abstain"),
    (7, "equal", "equal", 2, "bw", "bw", "ab", "second"),  # b, shown second
    (7, "equal", "equal", 2, "bw", "bw", "ba", "second"),  # a, shown second
]


def frame() -> pd.DataFrame:
    df = pd.DataFrame(
        ROWS, columns=["pair_id", "kind", "truth", "cluster", "group_a", "group_b", "ord", "label"]
    )
    df["rep"] = 0
    df["k"] = 1
    return df


def test_point_estimates_match_hand_computation() -> None:
    r = compute_d1(frame())
    m = {k: v.estimate for k, v in r.metrics.items()}
    assert r.invalid == 1 and r.judgments == 14
    assert (m["criterion_validity"].successes, m["criterion_validity"].n) == (5, 7)
    assert m["unjustified_selection"].value == pytest.approx(1 / 2)
    assert m["unjustified_abstention"].value == pytest.approx(1 / 2)
    assert (m["discrim_validity"].successes, m["discrim_validity"].n) == (2, 6)
    assert (m["first_position_rate"].successes, m["first_position_rate"].n) == (2, 4)
    assert (m["order_consistency"].successes, m["order_consistency"].n) == (1, 6)
    sr = {g: v.estimate for g, v in r.selection_rate.items()}
    assert set(sr) == {"bw", "wm"}  # same-group pair 7 does not count
    assert (sr["bw"].successes, sr["bw"].n) == (1, 4)
    assert (sr["wm"].successes, sr["wm"].n) == (1, 4)


def test_clustered_interval_matches_hand_computation() -> None:
    # CriterionValidity: clusters {1: 2 of 4 correct, 2: 3 of 3}. CR1 variance
    # 2 * ((-6/7)^2 + (6/7)^2) / 49 = 144/2401; n_eff = (10/49) / (144/2401) = 3.4028;
    # t(0.975, df=1) = 12.7062; Wilson on (p=5/7, n_eff) gives [0.01055, 0.99830].
    cv = compute_d1(frame()).metrics["criterion_validity"].estimate
    assert cv.value == pytest.approx(5 / 7)
    assert cv.low == pytest.approx(0.010549, abs=1e-5)
    assert cv.high == pytest.approx(0.998297, abs=1e-5)
    assert cv.clusters == 2


def test_effective_size_follows_the_clustered_variance() -> None:
    # DV: clusters {1: abstained 1 of 2, 2: 1 of 4}, p = 1/3. Residual sums +1/3 and
    # -1/3; CR1 variance 2 * (2/9) / 36 = 1/81; n_eff = (2/9) / (1/81) = 18 (more than
    # the 6 answers: they are less alike within a resume than across), t(0.975, 1).
    dv = compute_d1(frame()).metrics["discrim_validity"].estimate
    low, high = wilson(2 / 6 * 18, 18, 12.706204736174694)
    assert (dv.low, dv.high) == pytest.approx((low, high))


def test_independent_clusters_approach_the_plain_wilson_interval() -> None:
    outcomes = [i % 3 == 0 for i in range(600)]
    clusters = list(range(600))  # every answer its own cluster
    est = clustered_proportion(outcomes, clusters)
    plain = wilson(200, 600, 1.96)
    assert est.low == pytest.approx(plain[0], abs=0.003)
    assert est.high == pytest.approx(plain[1], abs=0.003)


def test_one_cluster_says_the_interval_is_too_narrow() -> None:
    est = clustered_proportion([True, False, True, True], [1, 1, 1, 1])
    assert est.clusters == 1 and "too narrow" in est.note
    assert est.low is not None and est.low < 0.75 < (est.high or 0)


def test_empty_input_gives_no_numbers() -> None:
    r = compute_d1(frame().iloc[0:0])
    assert r.metrics == {} and r.judgments == 0
    est = clustered_proportion([], [])
    assert est.value is None and est.n == 0


def test_flags_follow_the_papers_thresholds() -> None:
    # Two resumes: CriterionValidity 71% and DiscrimValidity 33% are under the papers'
    # thresholds, but a test on two resumes cannot say so: shown, not flagged.
    r = compute_d1(frame())
    assert r.flags() == []
    for key in ("criterion_validity", "discrim_validity"):
        shown = r.metrics[key].as_dict()
        assert shown["flag"] is None and shown["not_significant"] is True
    # The same rates on twelve resumes are findings.
    many = pd.concat(
        [
            frame().assign(
                cluster=frame()["cluster"] + 10 * i, pair_id=frame()["pair_id"] + 100 * i
            )
            for i in range(6)
        ]
    )
    flags = " ".join(compute_d1(many).flags())
    assert "CriterionValidity" in flags and "DiscrimValidity" in flags
