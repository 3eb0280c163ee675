"""Flags are decisions: weighted Holm across a family, and the tests behind flags."""

from __future__ import annotations

import numpy as np
import pytest

from resume_auditor.stats.flags import (
    FlagTest,
    below_p,
    decide,
    impact_p,
    p_text,
    ratio_below_p,
    weighted_holm,
)
from resume_auditor.stats.multiplicity import holm
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS


def test_equal_weights_are_plain_holm() -> None:
    ps = [0.01, 0.04, None, 0.03, 0.5]
    assert weighted_holm(ps, [0.25] * 4) == pytest.approx(holm(ps))  # type: ignore[arg-type]


def test_weighted_holm_by_hand() -> None:
    # weights 0.5, 0.25, 0.25; p / w = 0.02, 0.08, 0.2. Step 1: 0.02 * 1 = 0.02;
    # step 2: 0.08 * 0.5 = 0.04; step 3: 0.2 * 0.25 = 0.05.
    out = weighted_holm([0.01, 0.02, 0.05], [0.5, 0.25, 0.25])
    assert out == pytest.approx([0.02, 0.04, 0.05])


class _M:
    def __init__(self, key: str, p: float | None, role: str = "primary") -> None:
        self.flag = "stale"
        self.test: FlagTest | None = FlagTest(
            "fairness", key, p, lambda q, n: f"{key} {p_text(q)} of {n}", True, role=role
        )


def test_decide_holds_alpha_across_designs_and_shares_keys() -> None:
    ms = [
        _M("d1.a", 0.001),
        _M("d1.b", 0.2),
        _M("d2.a", 0.02),
        _M("d2.imp", 0.0001, role="secondary"),
        _M("d2.imp", 0.0001, role="secondary"),  # the same test seen twice counts once
    ]
    decide(ms, DEFAULT_THRESHOLDS)
    # d1: two primaries share 1/2 -> 1/4 each; d2: primary 0.8/2, secondary 0.2/2.
    # p / w: d2.imp 0.001, d1.a 0.004, d2.a 0.05, d1.b 0.8; weight still in play at each
    # step 1, 0.9, 0.65, 0.25 -> adjusted 0.001, 0.0036, 0.0325, 0.2.
    assert ms[0].flag == "d1.a p = 0.004 of 4"
    assert ms[1].flag == ""
    assert ms[3].flag and ms[4].flag == ms[3].flag
    assert ms[0].test is not None and ms[0].test.family_size == 4
    assert ms[2].test is not None and ms[2].test.p_adjusted == pytest.approx(0.0325)
    assert ms[1].test is not None and ms[1].test.p_adjusted == pytest.approx(0.2)


def test_a_zero_rate_on_few_resumes_is_not_a_finding() -> None:
    y = np.array([0, 0, 1, 1, 1, 0], dtype=float)
    labels = np.array(["g", "g", "h", "h", "h", "h"])
    clusters = np.array([1, 2, 1, 2, 3, 3])
    assert ratio_below_p(y, labels == "g", labels == "h", clusters, 0.8) is None
    assert impact_p(y, labels, clusters, "g", 0.8) is None


def test_ratio_test_rejects_a_clear_gap_and_not_an_equal_rate() -> None:
    rng = np.random.default_rng(1)
    clusters = np.repeat(np.arange(20), 10)
    labels = np.tile(np.array(["g"] * 5 + ["h"] * 5), 20)
    fair = (rng.random(200) < 0.5).astype(float)
    assert (impact_p(fair, labels, clusters, "g", 0.8) or 1) > 0.2
    rate = np.where(labels == "g", 0.2, 0.6)
    unfair = (rng.random(200) < rate).astype(float)
    assert (impact_p(unfair, labels, clusters, "g", 0.8) or 1) < 0.001


def test_below_p_uses_the_answers_when_resumes_agree_exactly() -> None:
    y = np.array([1, 1, 1, 0] * 3, dtype=float)
    p = below_p(y, np.repeat([1, 2, 3], 4), 0.95)
    assert p is not None and 0.05 < p < 0.5


def test_null_false_alarm_rate_of_the_ratio_test() -> None:
    """Unbiased selections on 12 resumes: the test rejects about 5% at most."""
    rng = np.random.default_rng(7)
    clusters = np.repeat(np.arange(12), 8)
    labels = np.tile(np.array(["g", "h"] * 4), 12)
    base = rng.uniform(0.2, 0.8, size=(400, 12))
    rejected = 0
    for row in base:
        y = (rng.random(96) < row[clusters]).astype(float)
        p = ratio_below_p(y, labels == "g", labels == "h", clusters, 1.0)
        rejected += p is not None and p < 0.05
    assert rejected / 400 <= 0.08


def test_power_before_a_run_says_when_nothing_can_be_flagged() -> None:
    from resume_auditor.designs.registry import by_label
    from resume_auditor.stats.power import can_flag, design_power_lines

    d2, d3 = by_label()["D2"], by_label()["D3"]
    assert not can_flag(4, 0.05) and can_flag(8, 0.01)
    small = design_power_lines([d2.approx_power({"resumes": 4, "groups": 4}, 0.05, 1) or ""])
    assert "too few source resumes" in small[1]
    big = design_power_lines(
        [
            d2.approx_power({"resumes": 40, "groups": 8}, 0.05, 2) or "",
            d3.approx_power({"pools": 60, "groups": 8}, 0.05, 2) or "",
        ],
        alpha=0.05,
    )
    # D2: z(1 - 0.05 / 2 * 0.8 / 7 / 2) + z(0.8) over sqrt(40); two designs share alpha
    from statistics import NormalDist

    z = NormalDist().inv_cdf
    expected = (z(1 - 0.05 / 2 * 0.8 / 7 / 2) + z(0.8)) / 40**0.5
    assert f"{expected:.2f} SD" in big[1]
    assert big[2].startswith("D3: a RABBI of")
