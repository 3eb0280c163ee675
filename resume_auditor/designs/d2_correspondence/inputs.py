"""D2's tidy table, the statistics' input (docs/stats-inputs.md): one rating of one copy
of a real resume, named for a group or blinded, with what the model took it to be.

`designs/d2_correspondence/table.py` builds it from the answers; `stats.py` validates it
with the shared checker (stats/inputs.validate) before computing anything.
"""

from __future__ import annotations

from resume_auditor.stats.inputs import REP, Column, TableSpec

D2_RATINGS = TableSpec(
    "d2_ratings",
    "D2 ratings table",
    "one pointwise rating of one synthetic (or blinded) copy of a real resume",
    (
        Column(
            "cluster",
            "id",
            "the source resume the row was built from; rows sharing it are not independent",
        ),
        Column(
            "condition",
            "choice",
            "named: identity signals filled in for `group`; blinded: identity removed",
            required=False,
            choices=("named", "blinded"),
        ),
        Column(
            "group",
            "text",
            "group key signalled, e.g. black_woman (empty on blinded rows)",
            nullable=True,
        ),
        Column(
            "rating",
            "number",
            "overall hire rating 1–5 (empty: unreadable answer)",
            nullable=True,
            low=1,
            high=5,
        ),
        Column("experience", "number", "sub-rating 1–5", False, True, low=1, high=5),
        Column("professionalism", "number", "sub-rating 1–5", False, True, low=1, high=5),
        Column("fit", "number", "sub-rating 1–5", False, True, low=1, high=5),
        Column("prompt", "text", "prompt variant id", required=False, nullable=True),
        REP,
        Column(
            "perceived_race",
            "text",
            "manipulation check: race the model perceived (empty: not asked or no answer)",
            required=False,
            nullable=True,
        ),
        Column(
            "perceived_gender",
            "text",
            "manipulation check: gender the model perceived (empty: not asked or no answer)",
            required=False,
            nullable=True,
        ),
    ),
)
