"""D4's settings (`[designs.d4]` in a study file): who is signalled, how, and what is asked.

The same keys, kinds and defaults the study file has always had (docs/study-format.md),
so existing study files and audit files read the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from resume_auditor.designs.base import Setting
from resume_auditor.domain.groups import ALL_GROUPS, Group

PERTURBATIONS = ("name", "experience")
SCORING_PROMPT = "d4-direct-scoring"
RANKING_PROMPT = "d4-ranking"


@dataclass(frozen=True)
class D4Spec:
    """D4, FAIRE (Wen et al. 2025): scored perturbations and ranked batches.

    `scoring_prompt` / `ranking_prompt`: "" for none (at least one is needed);
    `orders_per_batch`: presentation orders sampled per ranked batch; `all_orders`:
    every permutation of every batch instead.
    """

    groups: tuple[Group, ...] = ALL_GROUPS
    perturbations: tuple[str, ...] = PERTURBATIONS
    scoring_prompt: str = SCORING_PROMPT
    ranking_prompt: str = RANKING_PROMPT
    race_batches: int = 10
    gender_batches: int = 10
    orders_per_batch: int = 1
    all_orders: bool = False


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "groups",
        "strs",
        [g.key for g in ALL_GROUPS],  # none listed: every group too
        "Groups",
        "Name-perturbed copies carry this group's names; ranked batches take one "
        "candidate per race (or per gender) of these groups.",
        choices=tuple(g.key for g in ALL_GROUPS),
        loose=True,
    ),
    Setting(
        "perturbations",
        "strs",
        list(PERTURBATIONS),
        "Change",
        "What signals the group in a scored copy: the name, or an activity that names "
        "the group (FAIRE, Appendix C).",
        choices=PERTURBATIONS,
    ),
    Setting(
        "scoring_prompt",
        "str",
        SCORING_PROMPT,
        "Scores",
        "Score each resume 1–5 on relevance, impact, skills, achievements and fit (a "
        "preset of kind 'dimensions'; empty: no scoring).",
        offer=((SCORING_PROMPT, "Score each resume 1–5 on five dimensions"), ("", "No scores")),
    ),
    Setting(
        "ranking_prompt",
        "str",
        RANKING_PROMPT,
        "Rankings",
        "Rank a batch of resumes from best to worst (a preset of kind 'ranking'; "
        "empty: no ranking).",
        offer=((RANKING_PROMPT, "Rank batches from best to worst"), ("", "No rankings")),
    ),
    Setting(
        "race_batches",
        "int",
        10,
        "Batches by race",
        "Ranked batches of one candidate per race (one gender per batch).",
        minimum=0,
    ),
    Setting(
        "gender_batches",
        "int",
        10,
        "Batches by gender",
        "Ranked batches of two candidates, one woman and one man (one race per batch).",
        minimum=0,
    ),
    Setting(
        "orders_per_batch",
        "int",
        1,
        "Orders per batch",
        "Presentation orders drawn per batch (from the seed).",
        minimum=1,
    ),
    Setting(
        "all_orders",
        "bool",
        False,
        "Every possible order",
        "Show every batch in every possible order instead.",
    ),
)
