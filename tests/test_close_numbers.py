"""The report comparison the migration tests use tells a summation order from a change."""

from __future__ import annotations

from close_numbers import differences


def test_the_same_numbers_summed_in_another_order_are_the_same() -> None:
    assert (
        differences({"v": -3.0, "ci": [1.0, 2]}, {"v": -2.9999999999999964, "ci": [1, 2.0]}) == []
    )


def test_a_changed_number_count_key_or_flag_is_named_where_it_sits() -> None:
    found = differences(
        {"a": {"value": 0.5, "n": 10, "flag": None}, "b": [1.0]},
        {"a": {"value": 0.5000001, "n": 11, "flag": "gap"}, "b": [1.0, 2.0]},
    )
    assert found == [
        "/a/value: 0.5 != 0.5000001",
        "/a/n: 10 != 11",
        "/a/flag: None != 'gap'",
        "/b: 1 items != 2",
    ]
    assert differences({"x": 1}, {"y": 1}) == [": keys ['x'] != ['y']"]
    assert differences(None, 0.0) == [": None != 0.0"]
