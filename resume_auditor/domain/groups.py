"""Demographic groups used as signals: race/ethnicity x gender.

The keys ("black_woman") are what is stored in result files; labels are what a
reader sees. The papers behind the designs use these eight groups; D1 uses the
four Black/White ones.
"""

from __future__ import annotations

from dataclasses import dataclass

RACES: tuple[str, ...] = ("white", "black", "asian", "hispanic")
GENDERS: tuple[str, ...] = ("woman", "man")

RACE_LABELS = {"white": "White", "black": "Black", "asian": "Asian", "hispanic": "Hispanic"}
GENDER_LABELS = {"woman": "woman", "man": "man"}


@dataclass(frozen=True, order=True)
class Group:
    race: str
    gender: str

    def __post_init__(self) -> None:
        if self.race not in RACES:
            raise ValueError(f"unknown race/ethnicity {self.race!r}; expected one of {RACES}")
        if self.gender not in GENDERS:
            raise ValueError(f"unknown gender {self.gender!r}; expected one of {GENDERS}")

    @property
    def key(self) -> str:
        return f"{self.race}_{self.gender}"

    @property
    def label(self) -> str:
        return f"{RACE_LABELS[self.race]} {GENDER_LABELS[self.gender]}"

    @classmethod
    def parse(cls, key: str) -> Group:
        race, sep, gender = key.strip().lower().partition("_")
        if not sep:
            raise ValueError(f"group key {key!r} should look like 'black_woman'")
        return cls(race, gender)


ALL_GROUPS: tuple[Group, ...] = tuple(Group(r, g) for r in RACES for g in GENDERS)
REFERENCE_GROUP = Group("white", "man")


def group_part(key: str, grouping: str) -> str:
    """A group key's race or sex under a grouping ("race"; "sex" or "gender"), the key
    itself under any other ("intersectional") or when it is not a group key."""
    try:
        group = Group.parse(key)
    except ValueError:
        return key
    if grouping in ("sex", "gender"):
        return group.gender
    return group.race if grouping == "race" else key


def group_label(key: str | None) -> str:
    """A reader's label for a stored group key; '' for none."""
    if not key:
        return ""
    try:
        return Group.parse(key).label
    except ValueError:
        return key
