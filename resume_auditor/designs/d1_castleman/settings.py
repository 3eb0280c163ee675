"""D1's settings (`[designs.d1]` in a study file) as the interface's `Setting`s.

The same keys, kinds and defaults the study file has always had (docs/study-format.md).
The table is still read into `domain.study.D1Spec` by `domain.study.study_from_dict`
(`StudyConfig.d1`, which the GUI's D1 tab and the plan read too), so every message for a
bad value is the one it always was; these `Setting`s give the schema the registry
checks, the CLI's help and the GUI's words.
"""

from __future__ import annotations

from resume_auditor.designs.base import Setting
from resume_auditor.domain.groups import ALL_GROUPS, D1_GROUPS
from resume_auditor.domain.study import (
    D1_PAIR_TYPES,
    D1_SIGNALS,
    D1_SUMMARY_BLOCK,
    D1_UNEQUAL_GROUPS,
    D1Spec,
)

__all__ = ["SETTINGS", "D1Spec"]

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "groups",
        "strs",
        [g.key for g in D1_GROUPS],
        "Groups",
        "The groups whose names (or awards) the pairs carry; equal pairs need two.",
        choices=tuple(g.key for g in ALL_GROUPS),
        loose=True,
    ),
    Setting(
        "equal_pairs",
        "bool",
        True,
        "Equal pairs",
        "Pairs of equally qualified candidates who differ only in the group: is one "
        "group picked more often?",
    ),
    Setting(
        "unequal_pairs",
        "bool",
        True,
        "Unequal pairs",
        "Pairs where one candidate has k more qualifications: is the better one picked?",
    ),
    Setting(
        "k",
        "ints",
        [1],
        "Qualifications changed (k)",
        "How many required qualifications the less qualified copy lacks (or the more "
        "qualified one adds).",
        minimum=1,
    ),
    Setting(
        "signals",
        "strs",
        ["name"],
        "Group signal",
        "How the group is signalled: the name, or an award or organisation naming the "
        "group (Castleman et al., App. F).",
        choices=D1_SIGNALS,
    ),
    Setting(
        "unequal_groups",
        "str",
        "same",
        "Groups in unequal pairs",
        "Both candidates of an unequal pair from the same group, from different groups, or both.",
        choices=D1_UNEQUAL_GROUPS,
    ),
    Setting(
        "pair_types",
        "strs",
        list(D1_PAIR_TYPES),
        "Pair types",
        "Which unequal pairs: (c+, c), (c, c−), (c+, c−).",
        choices=D1_PAIR_TYPES,
    ),
    Setting(
        "summary_block",
        "str",
        "missing",
        "Qualifications block",
        "When unequal pairs use the qualifications block: where the body edits give "
        "none (missing), always, only, or never.",
        choices=D1_SUMMARY_BLOCK,
    ),
)
