"""D2's settings (`[designs.d2]` in a study file): which groups get a copy, how the model
is asked, and the paper's blinded condition and manipulation check.

The same keys, kinds and defaults the study file has always had (docs/study-format.md),
so existing study files and audit files read the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from resume_auditor.designs.base import Setting
from resume_auditor.domain.groups import ALL_GROUPS, Group

RATING_PROMPT = "d2-rating"


@dataclass(frozen=True)
class D2Spec:
    """D2, Gaebler et al. (2024): one copy per group and an identity-removed copy."""

    groups: tuple[Group, ...] = ALL_GROUPS
    prompts: tuple[str, ...] = (RATING_PROMPT,)
    manipulation_check: bool = True
    blinded: bool = True
    blind_college: bool = True


# In the order the study-file schema has always listed them (a typo's hint names them so).
SETTINGS: tuple[Setting, ...] = (
    Setting(
        "groups",
        "strs",
        [g.key for g in ALL_GROUPS],  # none listed: every group too
        "Groups",
        "A copy of each resume carries this group's identity.",
        # offered, not `choices`: the design's `parse` reads each key as it always has,
        # so a wrong one gets the message it always got
        offer=tuple((g.key, g.label) for g in ALL_GROUPS),
    ),
    Setting(
        "prompts",
        "strs",
        [RATING_PROMPT],
        "How the model is asked",
        "The rating prompts (presets of kind 'rating'); each copy is rated under every one.",
        offer=(
            (RATING_PROMPT, "Rating 1–5 with a summary first"),
            ("d2-rating-no-scratch", "Rating without scratchpad"),
            ("d2-rating-eeoc", "Rating with an equal-opportunity reminder"),
        ),
    ),
    Setting(
        "manipulation_check",
        "bool",
        True,
        "Check the names work",
        "Ask the model which race and gender it reads from each named copy (the paper's "
        "manipulation check).",
    ),
    Setting(
        "blinded",
        "bool",
        True,
        "Copy with no identity",
        "Also a copy with no identity at all, to compare every group against (the paper's "
        "blinded condition).",
    ),
    Setting(
        "blind_college",
        "bool",
        True,
        "…college removed too",
        "The copy with no identity leaves out the college as well.",
    ),
)
