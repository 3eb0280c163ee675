"""D1's settings (`[designs.d1]` in a study file) as the interface's `Setting`s.

The same keys, kinds and defaults the study file has always had (docs/study-format.md).
The table is read into `D1Spec` by `spec.d1_from_table` (not by the generic
`Design.spec`), so every message for a bad value is the one it always was; these
`Setting`s give the schema the registry checks and the Test cases step's form
(ui/widgets/design_form.py), in the words its own tab had.
"""

from __future__ import annotations

from resume_auditor.designs.base import Setting
from resume_auditor.designs.d1_castleman.spec import (
    D1_GROUPS,
    D1_PAIR_TYPES,
    D1_SIGNALS,
    D1_SUMMARY_BLOCK,
    D1_UNEQUAL_GROUPS,
    D1Spec,
)
from resume_auditor.domain.groups import ALL_GROUPS

__all__ = ["SETTINGS", "D1Spec"]

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "groups",
        "strs",
        [g.key for g in D1_GROUPS],
        "Groups",
        "Candidates of this group appear in the pairs (equal pairs need two).",
        choices=tuple(g.key for g in ALL_GROUPS),
        loose=True,
    ),
    Setting(
        "equal_pairs",
        "bool",
        True,
        "Equally qualified pairs",
        "The same qualifications under two identities: a fair screener says these two are "
        "equal (or picks each half the time).",
    ),
    Setting(
        "signals",
        "strs",
        ["name"],
        "Identity shows",
        "How the group shows in an equal pair: through the name, or through an award or "
        "organisation that names the group (Castleman et al., App. F).",
        choices=D1_SIGNALS,
        offer=(("name", "through the name"), ("explicit", "through awards and memberships")),
        tips=(
            ("name", "The paper's implicit signal: only the name differs."),
            (
                "explicit",
                "The paper's explicit signal (Castleman et al., Appendix F): an award or an "
                "organisation that names the group, e.g. a Black or women's professional "
                "society.",
            ),
        ),
    ),
    Setting(
        "unequal_pairs",
        "bool",
        True,
        "Unequal pairs",
        "One candidate is clearly more qualified: does the model pick the better one?",
    ),
    Setting(
        "pair_types",
        "strs",
        list(D1_PAIR_TYPES),
        "Kinds of unequal pair",
        "Which kinds of unequal pair to build.",
        choices=D1_PAIR_TYPES,
        offer=(
            ("more_base", "Extra preferred skills vs just qualified"),
            ("base_less", "Qualified vs missing a requirement"),
            ("more_less", "Extra skills vs missing a requirement"),
        ),
        tips=(
            (
                "more_base",
                "One candidate has everything required plus some preferred qualifications; "
                "the other has exactly what is required. The paper calls this pair (c+, c).",
            ),
            (
                "base_less",
                "One candidate has exactly what is required; the other lacks some of it. The "
                "paper calls this pair (c, c−).",
            ),
            (
                "more_less",
                "Both differences at once: the widest gap. The paper calls this pair (c+, c−).",
            ),
        ),
    ),
    Setting(
        "k",
        "ints",
        [1],
        "Differ by",
        "How many qualifications the two candidates of an unequal pair differ by (the paper's k).",
        minimum=1,
        offer=tuple((k, f"{k} qualification{'s' if k > 1 else ''}") for k in (1, 2, 3)),
        tips=tuple(
            (
                k,
                f"The two candidates differ by {k} qualification{'s' if k > 1 else ''} "
                f"(k = {k} in the paper).",
            )
            for k in (1, 2, 3)
        ),
    ),
    Setting(
        "unequal_groups",
        "str",
        "same",
        "Unequal pairs are from",
        "Whether the two candidates of an unequal pair carry identities of the same group, "
        "of different groups, or both kinds of pair are built.",
        choices=D1_UNEQUAL_GROUPS,
        offer=(
            ("same", "the same group"),
            ("cross", "different groups"),
            ("both", "both (same and different groups)"),
        ),
    ),
    Setting(
        "summary_block",
        "str",
        "missing",
        "Qualifications block",
        "Unequal pairs without a generator model: the resume with a short block in its "
        "summary that states the job's required qualifications (c), k fewer (c-) or k "
        "preferred ones more (c+); the rest of the resume is the same in every copy. Models "
        "tend to miss changes in a summary more than in the body (Castleman et al., App. "
        "D.1), so the Results break validity down by how a pair was built.",
        choices=D1_SUMMARY_BLOCK,
        offer=(
            ("missing", "where no body edit can be made"),
            ("always", "always, beside the body edits"),
            ("only", "only the summary block"),
            ("never", "never"),
        ),
    ),
)
