"""Which of two candidates a two-candidate answer chose, in the case's terms.

An answer says 'first' or 'second' of the order it was shown in; the case knows its
candidates as 'a' and 'b'. D1's statistics, the report's impact-ratio table and its
examples, and the cross-run error agreement all read answers this way, so it is
shared here rather than owned by one of them.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

logger = logging.getLogger(__name__)

__all__ = ["choice_of", "with_choice"]


def with_choice(df: pd.DataFrame) -> pd.DataFrame:
    """Add `choice` ('a'|'b'|'abstain'|'invalid'): the label read in case terms."""
    out = df.copy()
    first_is_a = (out["ord"] == "ab").to_numpy()
    label = out["label"].to_numpy(dtype=object)
    choice = np.where(
        label == "first",
        np.where(first_is_a, "a", "b"),
        np.where(label == "second", np.where(first_is_a, "b", "a"), label),
    )
    out["choice"] = choice
    return out


def choice_of(label: str, order: str) -> str:
    """One answer's choice in case terms ('a', 'b', or its label: 'abstain', 'invalid'),
    as `with_choice` reads a table of them; `order` is the order shown ('ab' or 'ba')."""
    if label in ("first", "second"):
        first_is_a = order == "ab"
        return "a" if (label == "first") == first_is_a else "b"
    return label
