"""D1 group metrics, breakdowns and error agreement against hand computations.

Castleman et al. (2025): Eq. 3 (CriterionValidity), 4-5 (errors), 6 and 8
(OverAssessment), 7 (DiscrimValidity), 9 (SelectionRate), App. D (breakdowns),
App. D.3 (error agreement). Every expected number below is worked out in the
comments from the rows, not read back from the code.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from resume_auditor.designs.d1_castleman.agreement import error_agreement
from resume_auditor.designs.d1_castleman.stats import compute_d1
from resume_auditor.stats.inputs import StatsInputError
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS, thresholds_from_mapping

COLUMNS = [
    "pair_id", "kind", "truth", "cluster", "k", "group_a", "group_b", "ord", "label",
    "signal", "qual_type", "change_location", "generator",
]  # fmt: skip
BW, WM, BM = "black_woman", "white_man", "black_man"
ROWS = [
    # unequal pairs (within group); choice in comments
    (
        1,
        "unequal",
        "a",
        1,
        1,
        BW,
        BW,
        "ab",
        "first",
        "name",
        "soft_skill",
        "summary",
        "claude",
    ),  # a ok
    (
        1,
        "unequal",
        "a",
        1,
        1,
        BW,
        BW,
        "ba",
        "first",
        "name",
        "soft_skill",
        "summary",
        "claude",
    ),  # b wrong pick
    (
        2,
        "unequal",
        "b",
        2,
        2,
        WM,
        WM,
        "ab",
        "second",
        "name",
        "education",
        "body",
        "gemini",
    ),  # b ok
    (
        2,
        "unequal",
        "b",
        2,
        2,
        WM,
        WM,
        "ba",
        "abstain",
        "name",
        "education",
        "body",
        "gemini",
    ),  # wrong abstain
    (3, "unequal", "a", 2, 1, WM, WM, "ab", "first", "name", "education", "body", "gemini"),  # a ok
    (
        3,
        "unequal",
        "a",
        2,
        1,
        WM,
        WM,
        "ba",
        "second",
        "name",
        "education",
        "body",
        "gemini",
    ),  # a ok
    # equal pairs
    (4, "equal", "equal", 1, 0, BW, WM, "ab", "first", "name", None, None, None),  # a (bw)
    (4, "equal", "equal", 1, 0, BW, WM, "ba", "first", "name", None, None, None),  # b (wm)
    (5, "equal", "equal", 2, 0, BW, WM, "ab", "abstain", "name", None, None, None),
    (5, "equal", "equal", 2, 0, BW, WM, "ba", "second", "name", None, None, None),  # a (bw)
    (6, "equal", "equal", 2, 0, BW, BM, "ab", "first", "explicit", None, None, None),  # a (bw)
    (6, "equal", "equal", 2, 0, BW, BM, "ba", "first", "explicit", None, None, None),  # b (bm)
    (7, "equal", "equal", 1, 0, WM, WM, "ab", "second", "explicit", None, None, None),  # b (wm)
    (7, "equal", "equal", 1, 0, WM, WM, "ba", "abstain", "explicit", None, None, None),
]


def frame() -> pd.DataFrame:
    df = pd.DataFrame(ROWS, columns=COLUMNS)
    df["rep"] = 0
    return df


def counts(metric: object) -> tuple[int, int]:
    est = metric.estimate  # type: ignore[attr-defined]
    return est.successes, est.n


def test_core_metrics_by_hand() -> None:
    r = compute_d1(frame())
    m = r.metrics
    assert counts(m["criterion_validity"]) == (4, 6)  # pairs 1ab, 2ab, 3ab, 3ba
    assert counts(m["unjustified_selection"]) == (1, 2)  # 1ba
    assert counts(m["unjustified_abstention"]) == (1, 2)  # 2ba
    assert counts(m["discrim_validity"]) == (2, 8)  # 5ab, 7ba
    # decisive equal: 4ab first, 4ba first, 5ba second, 6ab first, 6ba first, 7ab second
    assert counts(m["first_position_rate"]) == (4, 6)
    # both orders: only pair 3 names the same candidate twice (a, a)
    assert counts(m["order_consistency"]) == (1, 7)


def test_selection_rates_and_gaps_by_hand() -> None:
    r = compute_d1(frame())
    sr = {g: counts(m) for g, m in r.selection_rate.items()}
    # bw in 4ab(picked) 4ba 5ab(abstain) 5ba(picked) 6ab(picked) 6ba; same-group pair 7 left out
    assert sr == {BW: (3, 6), WM: (1, 4), BM: (1, 2)}
    gap = {g: m.estimate for g, m in r.selection_gap.items()}
    # d for bw: +1 -1 0 +1 +1 -1 -> 1/6; wm: -1 +1 0 -1 -> -1/4; bm: -1 +1 -> 0
    assert gap[BW].value == pytest.approx(1 / 6)
    assert gap[WM].value == pytest.approx(-1 / 4)
    assert gap[BM].value == pytest.approx(0)
    # bw: cluster sums 0 (c1, 2 answers) and 1 (c2, 4); residual sums -1/3, +1/3;
    # CR1 variance 2 * (2/9) / 36 = 1/81, se 1/9, t(0.975, 1) = 12.7062
    assert gap[BW].low == pytest.approx(1 / 6 - 12.706204736174694 / 9)
    assert gap[BW].high == pytest.approx(1 / 6 + 12.706204736174694 / 9)
    # two resumes' net wins relabelled within each resume (permutation.py): nowhere near
    # significant; the permutation test itself is checked against enumeration elsewhere
    assert gap[BW].p is not None and gap[BW].p > 0.2
    assert gap[BM].p is None  # one source resume: nothing to test
    assert gap[BW].p_holm is not None and gap[BW].p_holm >= gap[BW].p
    assert r.selection_gap[BW].unit == "points"
    assert r.selection_gap[BW].as_dict()["picked"] == pytest.approx(3 / 6)


def test_over_assessment_by_hand() -> None:
    r = compute_d1(frame())
    uneq = {g: counts(m) for g, m in r.over_assessment["unequal"].items()}
    # less qualified: pair 1 -> group_b (bw), wrong once of 2; pairs 2, 3 -> wm, wrong 1 of 4
    assert uneq == {BW: (1, 2), WM: (1, 4)}
    eq = {g: counts(m) for g, m in r.over_assessment["equal"].items()}
    # every appearance on an equal pair, same-group pair 7 included (two wm slots)
    assert eq == {BW: (3, 6), WM: (2, 8), BM: (1, 2)}


def test_breakdowns_by_hand() -> None:
    b = compute_d1(frame()).breakdowns
    cells = {key: {v: counts(m) for v, m in part.items()} for key, part in b.items()}
    assert cells["criterion_validity_by_k"] == {"1": (3, 4), "2": (1, 2)}
    assert cells["criterion_validity_by_qual_type"] == {"education": (3, 4), "soft_skill": (1, 2)}
    assert cells["criterion_validity_by_change_location"] == {"body": (3, 4), "summary": (1, 2)}
    assert cells["criterion_validity_by_generator"] == {"claude": (1, 2), "gemini": (3, 4)}
    assert cells["discrim_validity_by_signal"] == {"explicit": (1, 4), "name": (1, 4)}


def test_breakdowns_appear_only_with_their_columns() -> None:
    df = frame().drop(columns=["qual_type", "change_location", "generator"])
    b = compute_d1(df).breakdowns
    assert set(b) == {"criterion_validity_by_k", "discrim_validity_by_signal"}


def test_power_uses_the_audits_own_counts() -> None:
    power = compute_d1(frame()).power
    assert power["comparisons_per_group"] == {BW: 6, WM: 4, BM: 2}
    assert power["abstain_rate"] == pytest.approx(1 / 6)  # 5ab of the 6 cross-group answers
    assert "2 equal-pair answers per group" in power["sentence"]


def test_small_cells_carry_a_warning_and_json_is_strict() -> None:
    r = compute_d1(frame())
    assert "too few" in r.metrics["criterion_validity"].estimate.note
    text = json.dumps(r.as_dict(), allow_nan=False)
    assert '"selection_gap"' in text and '"over_assessment"' in text


def _unequal(resumes: int, correct_per_resume: int, of: int = 4) -> pd.DataFrame:
    """Unequal pairs on `resumes` resumes, `correct_per_resume` of `of` answered right."""
    rows = []
    for c in range(resumes):
        for i in range(of):
            label = "first" if i < correct_per_resume else "second"
            rows.append((c * of + i, "unequal", "a", c, 1, BW, BW, "ab", label))
    return pd.DataFrame(rows, columns=COLUMNS[:9])


def test_thresholds_change_flags_and_say_so() -> None:
    df = _unequal(12, 2)  # CriterionValidity 50% on 12 resumes: far under 95%
    assert any("CriterionValidity" in f for f in compute_d1(df).flags())
    lenient = thresholds_from_mapping({"criterion_validity": {"value": 0.5}})
    assert not any("CriterionValidity" in f for f in compute_d1(df, thresholds=lenient).flags())
    assert lenient["criterion_validity"].source.startswith("Your setting")
    assert DEFAULT_THRESHOLDS["criterion_validity"].source.startswith("Castleman")


def test_position_bias_is_flagged_when_clear() -> None:
    rows = []
    for c in range(8):  # 8 resumes, every decisive answer picks the first shown
        for order in ("ab", "ba"):
            rows.append((c, "equal", "equal", c, 0, BW, WM, order, "first"))
    df = pd.DataFrame(rows, columns=COLUMNS[:9])
    r = compute_d1(df)
    assert r.metrics["first_position_rate"].estimate.value == 1.0
    assert "Position bias" in r.metrics["first_position_rate"].flag


def test_bad_input_gets_a_plain_message() -> None:
    df = frame()
    df.loc[3, "label"] = "maybe"
    with pytest.raises(StatsInputError, match=r"column 'label', row 4 holds 'maybe'"):
        compute_d1(df)
    with pytest.raises(StatsInputError, match="missing column"):
        compute_d1(frame().drop(columns=["cluster"]))


def test_error_agreement_by_hand() -> None:
    a = frame()
    b = frame()
    # run B: 1ba picks abstain instead of b (a different wrong answer), 2ba abstains as A
    # does, 4ab picks b instead of a (still a wrong pick on an equal pair, different one),
    # 7ab abstains (right where A was wrong).
    b.loc[1, "label"] = "abstain"
    b.loc[6, "label"] = "second"
    b.loc[12, "label"] = "abstain"
    agree = error_agreement(a, b)
    # A wrong: 1ba, 2ba, 4ab, 4ba, 5ba, 6ab, 6ba, 7ab = 8; B wrong: 1ba, 2ba, 4ab, 4ba, 5ba,
    # 6ab, 6ba = 7. Both wrong on 7; same answer on 2ba, 4ba, 5ba, 6ab, 6ba = 5 of 7.
    assert (agree.a_wrong, agree.b_wrong, agree.shared) == (8, 7, 14)
    m = agree.metrics["error_agreement"].estimate
    assert (m.successes, m.n) == (5, 7)
    shared = agree.metrics["shared_errors"].estimate
    assert (shared.successes, shared.n) == (7, 8)
    # chance: A's wrong answers a 3/8, b 4/8, abstain 1/8; B's a 2/7, b 3/7, abstain 2/7
    assert agree.chance == pytest.approx(3 / 8 * 2 / 7 + 4 / 8 * 3 / 7 + 1 / 8 * 2 / 7)


def test_a_validity_under_its_threshold_by_chance_is_shown_not_flagged() -> None:
    # 3 of 4 right on each of 3 resumes (75%) is under 95% as a point estimate, and with
    # three resumes a test cannot tell it from 95%: shown, marked not significant.
    df = _unequal(3, 3)
    cv = compute_d1(df).metrics["criterion_validity"]
    assert cv.estimate.value == pytest.approx(0.75)
    assert cv.flag == "" and cv.as_dict()["not_significant"] is True


def test_forced_choice_reports_no_abstention_metric() -> None:
    r = compute_d1(frame(), abstain_allowed=False)
    assert "discrim_validity" not in r.metrics and "unjustified_abstention" not in r.metrics
    assert not any("DiscrimValidity" in f for f in r.flags())
    assert r.as_dict()["abstain_allowed"] is False
    assert "criterion_validity" in r.metrics and r.selection_rate
