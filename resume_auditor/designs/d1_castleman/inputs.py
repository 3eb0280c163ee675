"""D1's tidy table: one answer to one pair in one order (docs/stats-inputs.md), and its
derivation from the answers every design shares (the store's `answers()`).

It lives with D1 because only D1's statistics, views and report figures read it; the
columns' checker (`stats.inputs.validate`) and the details of variants are shared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from resume_auditor.stats.inputs import CLUSTER, REP, Column, TableSpec, VariantDetails

D1_JUDGMENTS = TableSpec(
    "d1_judgments",
    "D1 judgments table",
    "one answer of the model to one pair in one presentation order",
    (
        Column("pair_id", "id", "the test case (pair of resumes)"),
        Column("kind", "choice", "equal or unequal pair", choices=("equal", "unequal")),
        Column(
            "truth",
            "choice",
            "which variant is more qualified (a, b) or equal",
            choices=("a", "b", "equal"),
        ),
        CLUSTER,
        Column("group_a", "text", "group key of variant A, e.g. black_woman", nullable=True),
        Column("group_b", "text", "group key of variant B", nullable=True),
        Column("ord", "choice", "ab: A shown first; ba: B shown first", choices=("ab", "ba")),
        Column(
            "label",
            "choice",
            "the answer in presentation terms",
            choices=("first", "second", "abstain", "invalid"),
        ),
        REP,
        Column("k", "int", "qualifications that differ (0 on equal pairs)", required=False),
        Column(
            "signal",
            "text",
            "how demographics are signalled: name, explicit, ...",
            required=False,
            nullable=True,
        ),
        Column(
            "qual_type",
            "text",
            "kind of qualification changed: soft_skill, education, hard_skill, ...",
            required=False,
            nullable=True,
        ),
        Column(
            "gap",
            "int",
            "qualifications that truly differ: k, or 2k for a (c+, c-) pair (0 on equal pairs)",
            required=False,
        ),
        Column(
            "pair_type",
            "text",
            "more_base (c+, c), base_less (c, c-) or more_less (c+, c-); empty on equal pairs",
            required=False,
            nullable=True,
        ),
        Column(
            "change_location",
            "choice",
            "where the change sits in the resume",
            required=False,
            nullable=True,
            choices=("summary", "body", "both"),
        ),
        Column(
            "generator",
            "text",
            "model that generated the variant (empty: built without an LLM)",
            required=False,
            nullable=True,
        ),
    ),
)


JUDGMENT_COLUMNS = [
    "request_id",
    "run_id",
    "pair_id",
    "design",
    "kind",
    "truth",
    "cluster",
    "k",
    "group_a",
    "group_b",
    "signal",
    "differs",
    "ord",
    "rep",
    "label",
    "justification",
    "pair_type",
    "gap",
    "qual_type",
    "change_location",
    "generator",
    "construction",
]
"""D1's judgments table (D1_JUDGMENTS' columns and the ids a view shows)."""


def d1_judgments(
    answers: pd.DataFrame,
    variants: VariantDetails | Callable[[], VariantDetails],
    columns: Sequence[str] = JUDGMENT_COLUMNS,
) -> pd.DataFrame:
    """D1's judgments table from the answers every design shares (store `answers()`).

    The one place the D1 columns are derived: a pair is the answer's case
    (`pair_id` = `case_id`, `kind` its equal/unequal kind); what changed
    (`qual_type`, `change_location`, `generator`) comes from the variants the
    pair was built from (`variants`, or what reads them: read only when asked for).
    Rows of other designs are left out. `columns`: only those (JUDGMENT_COLUMNS'
    names), derived from only the answers' columns they need: the comparison of
    models reads seven.
    """
    wanted = list(columns)
    if answers.empty or "design" not in answers:
        return pd.DataFrame(columns=wanted)
    frame = answers[answers["design"] == "D1"].reset_index(drop=True)
    frame = frame.drop(columns=["kind"], errors="ignore").rename(
        columns={"case_id": "pair_id", "case_kind": "kind"}
    )
    if frame.empty:
        return pd.DataFrame(columns=wanted)
    for column in ("pair_id", "cluster", "k", "gap"):
        if column in wanted:
            frame[column] = frame[column].astype("int64")
    if {"qual_type", "change_location", "generator"} & set(wanted):
        known_variants = variants() if callable(variants) else variants
        # a pair's details are the same on each of its many answers: worked out once a pair
        known: dict[tuple[str, tuple[int, ...]], tuple[str | None, str | None, str | None]] = {}
        details = []
        for kind, ids in zip(frame["kind"].tolist(), frame["case_variants"].tolist(), strict=True):
            key = (kind, tuple(ids))
            if key not in known:
                known[key] = _changed(kind, ids, known_variants)
            details.append(known[key])
        frame["qual_type"] = [d[0] for d in details]
        frame["change_location"] = [d[1] for d in details]
        frame["generator"] = [d[2] for d in details]
    if "construction" in wanted:
        # '' (an equal pair, or a file from before schema 7 with nothing to say): None, so
        # the breakdown by construction leaves it out rather than count it as a value
        frame["construction"] = [
            c if isinstance(c, str) and c and k == "unequal" else None
            for c, k in zip(frame["construction"].tolist(), frame["kind"].tolist(), strict=True)
        ]
    return frame[wanted]


def _changed(
    kind: str, ids: list[int], variants: VariantDetails
) -> tuple[str | None, str | None, str | None]:
    """(qual_type, change_location, generator) of an unequal pair: the changed
    variant's (or both's) details; None when not recorded (and on equal pairs), so
    the D1 breakdowns leave such pairs out rather than count them as a value."""
    if kind != "unequal":
        return None, None, None
    changed = [variants.get(v, ("", "", "", "")) for v in ids]
    changed = [d for d in changed if d[0] in ("more", "less")]
    out: list[str | None] = []
    for i in (1, 2, 3):
        known = sorted({d[i] for d in changed if d[i]})
        if i == 2 and len(known) > 1:
            out.append("both")
        else:
            out.append("+".join(known) or None)
    return out[0], out[1], out[2]
