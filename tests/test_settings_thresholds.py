"""The user's thresholds.toml: today's files read, a version written, a bad file never replaced."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from resume_auditor.settings.thresholds import (
    USER_THRESHOLDS,
    active_thresholds,
    forget_user_thresholds,
    save_user_thresholds,
    shipped_thresholds,
    thresholds_stamp,
)
from resume_auditor.stats.thresholds import ThresholdError

# What the Settings dialog wrote before the settings had versions.
TODAY = """# Your flag thresholds (Resume Auditor settings). Delete this file to go back
# to the shipped ones in resources/thresholds.toml.

[criterion_validity]
value = 0.9
source = "Our hiring policy, March 2026"

[small_cell]
value = 50.0
source = "Our statistician"
"""


def test_a_thresholds_file_of_today_is_read(tmp_path: Path) -> None:
    (tmp_path / USER_THRESHOLDS).write_text(TODAY)
    active = active_thresholds(tmp_path)
    assert active.value("criterion_validity") == pytest.approx(0.9)
    assert active["small_cell"].source == "Our statistician"
    assert active.value("impact_ratio") == shipped_thresholds().value("impact_ratio")


def test_saved_thresholds_carry_a_version_and_read_back(tmp_path: Path) -> None:
    path = save_user_thresholds({"impact_ratio": (0.75, "Our counsel")}, tmp_path)
    data = tomllib.loads(path.read_text())
    assert data["version"] == 1
    assert data["impact_ratio"] == {"value": 0.75, "source": "Our counsel"}
    assert active_thresholds(tmp_path)["impact_ratio"].source == "Our counsel"
    assert not list(tmp_path.glob(".*.partial"))


def test_nothing_is_written_when_a_value_is_out_of_range(tmp_path: Path) -> None:
    with pytest.raises(ThresholdError):
        save_user_thresholds({"impact_ratio": (7.0, "a typo")}, tmp_path)
    assert not (tmp_path / USER_THRESHOLDS).exists()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[criterion_validity\nvalue = 0.9", "cannot be read"),
        ("[criterion_validty]\nvalue = 0.9", "Unknown threshold"),
        ("[impact_ratio]\nvalue = 4", "between"),
        ("version = 2\n[impact_ratio]\nvalue = 0.7", "newer Resume Auditor"),
        ('version = "x"\n', "version"),
    ],
)
def test_a_bad_thresholds_file_stops_with_what_to_fix_and_is_left_alone(
    tmp_path: Path, text: str, says: str
) -> None:
    """Flags decided on thresholds the user did not choose would mislead without a word:
    the user's file is neither replaced nor set aside."""
    path = tmp_path / USER_THRESHOLDS
    path.write_text(text)
    with pytest.raises(ThresholdError, match=says) as caught:
        active_thresholds(tmp_path)
    assert str(path) in str(caught.value)
    assert path.read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir()) == [USER_THRESHOLDS]


def test_back_to_the_shipped_thresholds_keeps_the_users_file(tmp_path: Path) -> None:
    assert forget_user_thresholds(tmp_path) is None
    (tmp_path / USER_THRESHOLDS).write_text(TODAY)
    before = thresholds_stamp(tmp_path)
    kept = forget_user_thresholds(tmp_path)
    assert kept is not None and kept.read_text() == TODAY
    assert active_thresholds(tmp_path) == shipped_thresholds()
    assert before != thresholds_stamp(tmp_path) == ()
