"""The statistical building blocks against hand computations."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from resume_auditor.designs.d2_correspondence.inputs import D2_RATINGS
from resume_auditor.designs.d4_faire.inputs import D4_RANKINGS
from resume_auditor.stats.bootstrap import cluster_weights, percentile_interval, pivotal_interval
from resume_auditor.stats.inputs import StatsInputError, validate
from resume_auditor.stats.intervals import wilson
from resume_auditor.stats.metric import Metric
from resume_auditor.stats.multiplicity import holm
from resume_auditor.stats.power import gap_power, min_detectable_gap, power_sentence
from resume_auditor.stats.randomization import sign_flip_p
from resume_auditor.stats.robust import cluster_ols, clustered_mean
from resume_auditor.stats.thresholds import (
    DEFAULT_THRESHOLDS,
    ThresholdError,
    thresholds_from_mapping,
)

ROOT = Path(__file__).resolve().parent.parent


def test_holm_by_hand() -> None:
    # sorted 0.01, 0.03, 0.04 -> 3 * 0.01, 2 * 0.03, max(0.06, 1 * 0.04)
    assert holm([0.01, 0.04, 0.03, None]) == pytest.approx([0.03, 0.06, 0.06, None])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


def test_cluster_ols_by_hand() -> None:
    # y = 1, 2 (x = 0) and 3, 5 (x = 1): beta = (1.5, 2.5). Clusters {rows 0, 2}, {1, 3}.
    # (X'X)^-1 = [[.5, -.5], [-.5, 1]]; cluster scores (-1.5, -1) and (1.5, 1);
    # meat [[4.5, 3], [3, 2]]; sandwich [[.125, .125], [.125, .125]]; CR1 factor
    # G/(G-1) * (N-1)/(N-K) = 2 * 3/2 = 3 -> var(beta_1) = 0.375.
    x = np.array([[1, 0], [1, 0], [1, 1], [1, 1]], dtype=float)
    fit = cluster_ols(np.array([1.0, 2.0, 3.0, 5.0]), x, np.array([1, 2, 1, 2]))
    assert fit is not None
    assert fit.beta == pytest.approx([1.5, 2.5])
    assert fit.cov == pytest.approx(np.full((2, 2), 0.375))
    low, high = fit.interval(1, 0.95)
    assert (low, high) == pytest.approx((2.5 - 12.706204736 * math.sqrt(0.375),
                                         2.5 + 12.706204736 * math.sqrt(0.375)))  # fmt: skip


def test_rank_deficient_design_gives_no_number() -> None:
    x = np.array([[1, 0], [1, 0], [1, 0]], dtype=float)  # a group with no rows
    assert cluster_ols(np.array([1.0, 2.0, 3.0]), x, np.array([1, 2, 3])) is None


def test_clustered_mean_of_one_resume_has_no_interval() -> None:
    est = clustered_mean(np.array([1.0, 0.0, 1.0]), np.array([7, 7, 7]))
    assert est.value == pytest.approx(2 / 3)
    assert est.as_dict()["ci"] == [None, None] and "one source resume" in est.note


def test_identical_answers_give_no_interval_rather_than_a_zero_width_one() -> None:
    est = clustered_mean(np.zeros(12), np.repeat(np.arange(4), 3))
    assert est.value == 0.0 and est.low is None or est.as_dict()["ci"] == [None, None]
    assert "no spread" in est.note
    assert "abstained on all 24" in power_sentence(24, abstain_rate=1.0)


def test_sign_flip_exact_by_hand() -> None:
    # Cluster sums 1, 2, 3 (one answer each): |t| = 2 / sqrt(1/3) for +++ and ---; the
    # other six sign patterns give |t| of 0, 0.46 or 1.11 -> p = 2/8.
    assert sign_flip_p(np.array([1.0, 2.0, 3.0]), np.array([0, 1, 2])) == pytest.approx(0.25)
    # Every resume agreeing exactly is as extreme as can be: 2 / 2^5.
    assert sign_flip_p(np.full(5, 0.5), np.arange(5)) == pytest.approx(2 / 32)
    assert sign_flip_p(np.array([1.0, -1.0]), np.array([0, 0])) is None  # one resume


def test_sign_flip_sampled_for_many_resumes_is_seeded() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(0.3, 1, 60)
    p1 = sign_flip_p(values, np.arange(60), np.random.default_rng(1))
    p2 = sign_flip_p(values, np.arange(60), np.random.default_rng(1))
    assert p1 == p2 and p1 is not None and 0 < p1 < 0.1


def test_bootstrap_pieces() -> None:
    w = cluster_weights(5, 200, np.random.default_rng(0))
    assert w.shape == (200, 5) and (w.sum(axis=1) == 5).all()
    reps = np.linspace(0.0, 1.0, 101)  # quantiles 0.025 and 0.975 of these are exact
    assert pivotal_interval(0.6, reps) == pytest.approx((2 * 0.6 - 0.975, 2 * 0.6 - 0.025))
    assert percentile_interval(reps) == pytest.approx((0.025, 0.975))
    assert pivotal_interval(0.5, np.full(10, 0.5)) == (None, None)  # too few replicates


def test_wilson_known_value() -> None:
    low, high = wilson(5, 10, 1.959963984540054)
    assert (low, high) == pytest.approx((0.236593, 0.763407), abs=1e-6)


def test_power_by_hand() -> None:
    # One group, no abstention, n = 100, gap 0.28: se0 = 0.1, se1 = sqrt(1 - .0784) / 10,
    # power = Phi((0.28 - 1.96 * 0.1) / se1) = Phi(0.875) = 0.809.
    assert gap_power(100, 0.28, groups=1) == pytest.approx(0.8092, abs=1e-3)
    # With no gap the flag rate is the per-test level: alpha / groups.
    assert gap_power(100, 0.0, groups=4) == pytest.approx(0.05 / 4)
    gap = min_detectable_gap(100, groups=4)
    assert gap is not None and gap_power(100, gap, groups=4) == pytest.approx(0.8, abs=1e-4)
    assert min_detectable_gap(400, groups=4) < gap  # type: ignore[operator]
    with_abstention = min_detectable_gap(100, groups=4, abstain_rate=0.5)
    assert with_abstention is not None and with_abstention < gap
    assert "40 equal-pair answers per group" in power_sentence(40)
    assert min_detectable_gap(2, groups=4) is None
    assert "no selection gap can be detected reliably" in power_sentence(2)


def test_thresholds_parse_and_refuse_plainly() -> None:
    t = thresholds_from_mapping({"impact_ratio": {"value": 0.9, "source": "Our policy."}})
    assert t.value("impact_ratio") == 0.9 and t["impact_ratio"].source == "Our policy."
    with pytest.raises(ThresholdError, match="Unknown threshold"):
        thresholds_from_mapping({"impact": {"value": 0.9}})
    with pytest.raises(ThresholdError, match="between 0 and 1"):
        thresholds_from_mapping({"impact_ratio": {"value": 80}})
    with pytest.raises(ThresholdError, match="value = 0.8"):
        thresholds_from_mapping({"impact_ratio": 0.9})
    with pytest.raises(ThresholdError, match="must be a number"):
        thresholds_from_mapping({"impact_ratio": {"value": "high"}})


def test_shipped_thresholds_file_is_the_default() -> None:
    data = tomllib.loads((ROOT / "resources" / "thresholds.toml").read_text(encoding="utf-8"))
    assert thresholds_from_mapping(data) == DEFAULT_THRESHOLDS
    assert set(data) == {t.key for t in DEFAULT_THRESHOLDS}


def test_inputs_are_checked_with_row_numbers() -> None:
    ok = pd.DataFrame({"cluster": [1, 2], "group": ["black_woman", "white_man"], "rating": [4, 5]})
    assert validate(ok, D2_RATINGS)["rating"].tolist() == [4.0, 5.0]
    bad = ok.assign(rating=[4, 7])
    with pytest.raises(StatsInputError, match=r"'rating', row 2 holds 7; .*between 1 and 5"):
        validate(bad, D2_RATINGS)
    bad = ok.assign(rating=["4", "four"])
    with pytest.raises(StatsInputError, match="'four', which is not a number"):
        validate(bad, D2_RATINGS)
    ranks = pd.DataFrame({"batch_id": [1, 1], "group": ["a", "b"], "rank": [1, 1.5]})
    with pytest.raises(StatsInputError, match="whole numbers only"):
        validate(ranks, D4_RANKINGS)
    with pytest.raises(StatsInputError, match="'cluster' \\(the source resume"):
        validate(ok.drop(columns=["cluster"]), D2_RATINGS)
    with pytest.raises(StatsInputError, match="row 1 .* empty"):
        validate(ok.assign(cluster=[None, 2]), D2_RATINGS)


def test_metric_json_never_holds_nan() -> None:
    from resume_auditor.stats.estimate import Estimate

    m = Metric("x", "X", Estimate(float("nan"), None, float("inf"), 3, 2), "A sentence.")
    d = m.as_dict()
    assert d["value"] is None and d["ci"] == [None, None]


def test_every_input_column_is_documented() -> None:
    from resume_auditor.designs.registry import DESIGNS
    from resume_auditor.stats.inputs import ALL_TABLES

    doc = (ROOT / "docs" / "stats-inputs.md").read_text(encoding="utf-8")
    tables = [*ALL_TABLES, *(t for d in DESIGNS for t in d.input_tables)]
    assert {"d4_scores", "d4_rankings"} <= {t.key for t in tables}
    for table in tables:
        for column in table.columns:
            line = f"| `{column.name}` | {column.describe_type()} |"
            assert line in doc, f"{table.key}.{column.name} is not documented as {line}"


def test_power_plan_before_a_run() -> None:
    from resume_auditor.designs.d1_castleman.plan import plan_d1

    groups = ["black_woman", "black_man", "white_woman", "white_man"]
    rows = [("equal", a, b) for i, a in enumerate(groups) for b in groups[i:]]  # 10 per resume
    rows += [("unequal", g, g) for g in groups]
    pairs = pd.DataFrame(rows * 5, columns=["kind", "group_a", "group_b"])  # 5 resumes
    plan = plan_d1(pairs, orders=2, reps=1)
    # each group meets 3 others once per resume: 3 x 5 pairs x 2 orders = 30 answers
    assert plan["comparisons_per_group"] == dict.fromkeys(groups, 30)
    assert plan["min_detectable_gap"] == pytest.approx(min_detectable_gap(30, groups=4))
    assert plan["sentence"].startswith("With 30 equal-pair answers per group")
