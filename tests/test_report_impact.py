"""The LL144-style impact-ratio table from D1's equal pairs (designs/d1_castleman/impact.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from resume_auditor.designs.d1_castleman.impact import d1_impact_ratios
from resume_auditor.designs.d1_castleman.stats import compute_d1
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS

GROUPS = ("black_woman", "black_man", "white_woman", "white_man")


def _row(pair: int, cluster: int, a: str, b: str, ord_: str, picked: str) -> dict[str, object]:
    """One answer; `picked` is 'a', 'b' or 'abstain' in case terms."""
    if picked == "abstain":
        label = "abstain"
    else:
        first_is_a = ord_ == "ab"
        label = "first" if (picked == "a") == first_is_a else "second"
    return {
        "request_id": 0,
        "run_id": 1,
        "pair_id": pair,
        "design": "D1",
        "kind": "equal",
        "truth": "equal",
        "cluster": cluster,
        "k": 0,
        "group_a": a,
        "group_b": b,
        "signal": "name",
        "differs": "",
        "ord": ord_,
        "rep": 0,
        "label": label,
        "justification": "",
    }


def _frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df["request_id"] = range(1, len(df) + 1)
    return df


def _design(clusters: int, choose) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    """Every unordered pair of groups (same group included), both orders, per cluster."""
    rows = []
    pair = 0
    for c in range(clusters):
        for a, b in itertools.combinations_with_replacement(GROUPS, 2):
            pair += 1
            for ord_ in ("ab", "ba"):
                rows.append(_row(pair, c, a, b, ord_, choose(c, a, b, ord_)))
    return _frame(rows)


def test_rates_and_ratios_by_hand() -> None:
    rows = [
        # cluster 1: a Black woman and a White man, picked once each; a tie abstained
        _row(1, 1, "black_woman", "white_man", "ab", "b"),
        _row(1, 1, "black_woman", "white_man", "ba", "b"),
        _row(2, 1, "black_woman", "white_woman", "ab", "b"),
        _row(2, 1, "black_woman", "white_woman", "ba", "abstain"),
        # same sex and race: counts nowhere
        _row(3, 1, "white_man", "white_man", "ab", "a"),
        # cluster 2: Black man vs White man, Black man picked once
        _row(4, 2, "black_man", "white_man", "ab", "a"),
        _row(4, 2, "black_man", "white_man", "ba", "b"),
    ]
    out = d1_impact_ratios(_frame(rows), DEFAULT_THRESHOLDS)
    race = out["race"]
    # Black: 6 cross-race comparisons, picked 1 (pair 4 ab); White: 6, picked 4.
    assert (race["black"]["n"], race["black"]["selected"]) == (6, 1)
    assert (race["white"]["n"], race["white"]["selected"]) == (6, 4)
    assert race["white"]["value"] == 1.0
    assert race["black"]["value"] == pytest.approx((1 / 6) / (4 / 6))
    assert race["black"]["below_four_fifths"] is True
    sex = out["sex"]
    # Cross-sex comparisons: pair 1 (woman vs man) only, both orders: man picked twice.
    assert (sex["woman"]["n"], sex["woman"]["selected"]) == (2, 0)
    assert (sex["man"]["n"], sex["man"]["selected"]) == (2, 2)
    assert sex["woman"]["value"] == 0.0 and sex["man"]["value"] == 1.0
    inter = out["intersectional"]
    assert inter["white_man"]["selection_rate"] == pytest.approx(3 / 4)
    assert inter["black_woman"]["selection_rate"] == 0.0
    assert all(
        m["unit"] == "ratio" for g in ("sex", "race", "intersectional") for m in out[g].values()
    )
    # Far too little data for a test to say anything: nothing is flagged.
    assert out["flags"] == []
    assert "too few" in race["black"]["note"]


def test_no_selections_means_no_ratio() -> None:
    out = d1_impact_ratios(_design(6, lambda *_: "abstain"), DEFAULT_THRESHOLDS)
    for grouping in ("sex", "race", "intersectional"):
        for metric in out[grouping].values():
            assert metric["value"] is None
            assert "no candidate of any category was picked" in metric["note"]
    assert out["flags"] == []


def test_planted_preference_is_flagged_and_matches_the_group_gap_test() -> None:
    rng = np.random.default_rng(3)

    def prefer_white(c: int, a: str, b: str, ord_: str) -> str:
        ra, rb = a.split("_")[0], b.split("_")[0]
        if ra == rb:
            return "abstain"
        white = "a" if ra == "white" else "b"
        other = "b" if white == "a" else "a"
        return white if rng.random() < 0.9 else other

    df = _design(12, prefer_white)
    out = d1_impact_ratios(df, DEFAULT_THRESHOLDS)
    assert out["race"]["black"]["value"] < 0.8
    assert out["race"]["black"]["flag"]
    assert out["race"]["white"]["flag"] is None  # the favoured group is not flagged
    assert any("by race/ethnicity on equal pairs" in f for f in out["flags"])
    # Every ratio's flag is a test of "at least four-fifths", in the fairness family
    for metric in out["race"].values():
        assert metric["flag_test"]["family"] == "fairness"
    assert out["race"]["black"]["flag_test"]["p_adjusted"] < 0.05
    assert out["race"]["white"]["flag_test"]["p"] > 0.5
    # ...and the group gap test of the same comparisons agrees
    gaps = compute_d1(df).selection_gap
    assert gaps["black_woman"].flag and gaps["black_man"].flag


def test_an_even_handed_model_is_not_flagged() -> None:
    def alternate(c: int, a: str, b: str, ord_: str) -> str:
        return "a" if ord_ == "ab" else "b"  # always the first shown: no group preference

    out = d1_impact_ratios(_design(12, alternate), DEFAULT_THRESHOLDS)
    assert out["flags"] == []
    for grouping in ("sex", "race", "intersectional"):
        values = [m["value"] for m in out[grouping].values()]
        assert values and all(v == pytest.approx(1.0) for v in values)


def test_empty_and_unparseable_groups() -> None:
    empty = d1_impact_ratios(
        _frame([_row(1, 1, "white_man", "white_man", "ab", "a")]).iloc[:0], DEFAULT_THRESHOLDS
    )
    assert empty["sex"] == empty["race"] == empty["intersectional"] == {}
    odd = _frame(
        [
            _row(1, 1, "martian", "white_man", "ab", "a"),
            _row(1, 1, "martian", "white_man", "ba", "a"),
        ]
    )
    out = d1_impact_ratios(odd, DEFAULT_THRESHOLDS)
    assert out["sex"] == {} and out["race"] == {}
    assert set(out["intersectional"]) == {"martian", "white_man"}
