"""D5's settings (`[designs.d5]` in a study file): who is ranked, how often, in what orders."""

from __future__ import annotations

from dataclasses import dataclass

from resume_auditor.designs.base import Setting
from resume_auditor.domain.groups import ALL_GROUPS, Group

PROMPT = "d5-ranking"


@dataclass(frozen=True)
class D5Spec:
    """`groups`: one copy of each resume per group, ranked together (Bloomberg: all
    eight race x gender groups); `batches`: batches per resume, each with fresh names;
    `orders`: shown orders per batch, rows of a Latin square so that, with as many
    orders as groups, every group is shown at every place once; `top_k`: the
    shortlist size of the top-k selection rate; `prompt`: a preset of kind ranking."""

    groups: tuple[Group, ...] = ALL_GROUPS
    batches: int = 1
    orders: int = 8
    top_k: int = 4
    prompt: str = PROMPT


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "groups",
        "strs",
        [g.key for g in ALL_GROUPS],
        "Groups ranked together",
        "One copy of each resume per group, each under a name typical of that group "
        "(Bloomberg used all eight race × gender groups).",
        choices=tuple(g.key for g in ALL_GROUPS),
    ),
    Setting(
        "batches",
        "int",
        1,
        "Batches per resume",
        "How many times each resume is ranked with a fresh set of names.",
        minimum=1,
    ),
    Setting(
        "orders",
        "int",
        8,
        "Shown orders per batch",
        "Each batch is ranked in this many shuffled orders. With as many orders as groups, "
        "every group is shown first, second, … exactly once, so the order cannot favour one.",
        minimum=1,
    ),
    Setting(
        "top_k",
        "int",
        4,
        "Shortlist size",
        "The top-k selection rate counts how often a group's candidate is among the first k.",
        minimum=1,
    ),
    Setting(
        "prompt",
        "str",
        PROMPT,
        "Prompt",
        "The ranking prompt (a preset of kind 'ranking').",
        gui=False,
    ),
)
