"""D3's settings (`[designs.d3]` in a study file): who competes in a pool, how often, and
what the model is asked about each candidate.

The same keys, kinds and defaults the study file has always had (docs/study-format.md),
so existing study files and audit files read the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from resume_auditor.designs.base import Setting
from resume_auditor.domain.groups import ALL_GROUPS, Group

POINTWISE_PROMPT = "d3-yes-no"
PAIRWISE_PROMPT = "d3-pairwise"


@dataclass(frozen=True)
class D3Spec:
    """D3, Chen et al. (2024): pools with one candidate per group, `rounds` of them."""

    groups: tuple[Group, ...] = ALL_GROUPS
    rounds: int = 10
    prompt: str = POINTWISE_PROMPT  # pointwise; "" for none
    pairwise_prompt: str = ""  # e.g. "d3-pairwise"; every pair of a pool in both orders
    unqualified_share: float = 0.5  # share of a pool given a less-qualified (c-) text
    k: int = 1


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "groups",
        "strs",
        [g.key for g in ALL_GROUPS],  # none listed: every group too
        "Groups",
        "Each pool has one candidate of this group.",
        choices=tuple(g.key for g in ALL_GROUPS),
        loose=True,
    ),
    Setting(
        "rounds",
        "int",
        10,
        "Rounds",
        "Each round deals the resumes to the groups anew.",
        minimum=1,
    ),
    Setting(
        "prompt",
        "str",
        POINTWISE_PROMPT,
        "Question for each candidate",
        "The question the model answers about each candidate alone.",
        offer=(
            (POINTWISE_PROMPT, "Yes / no: would you interview?"),
            ("d3-rating", "Rating 1–5"),
            ("", "None (pairwise only)"),
        ),
    ),
    Setting(
        "pairwise_prompt",
        "str",
        "",
        "Comparisons of two",
        "Also compare every two candidates of a pool, in both orders.",
        offer=(
            ("", "No comparisons"),
            (PAIRWISE_PROMPT, "Also compare every two candidates of a pool, in both orders"),
        ),
    ),
    Setting(
        "unqualified_share",
        "number",
        0.5,
        "Share of less-qualified candidates",
        "The share of a pool given a less-qualified copy: these are the 'unqualified' "
        "candidates the selection rates are measured against.",
        maximum=0.95,
    ),
    Setting(
        "k",
        "int",
        1,
        "They lack",
        "How many required qualifications a less-qualified copy lacks (the paper's k).",
        minimum=1,
    ),
)
