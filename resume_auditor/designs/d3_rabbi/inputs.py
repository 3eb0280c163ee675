"""D3's two tidy tables, the statistics' inputs (docs/stats-inputs.md): one row per
candidate scored alone, and one per answer to a pair of a pool in one order.

`designs/d3_rabbi/table.py` builds them from the answers; `scores.py` validates them
with the shared checker (stats/inputs.validate) before computing anything.
"""

from __future__ import annotations

from resume_auditor.stats.inputs import REP, Column, TableSpec

D3_POINTWISE = TableSpec(
    "d3_pointwise",
    "D3 pointwise scores table",
    "one candidate of one pool, scored on its own",
    (
        Column("pool_id", "id", "the pool (round) the candidate competes in"),
        Column(
            "cluster",
            "id",
            "unit of independence; defaults to pool_id",
            required=False,
        ),
        Column(
            "source",
            "id",
            "the source resume the candidate was built from (pools share them: intervals "
            "then resample pools and source resumes both)",
            required=False,
            nullable=True,
        ),
        Column(
            "candidate_id",
            "id",
            "the candidate (variant); repeats of one candidate are averaged",
            required=False,
        ),
        REP,
        Column("group", "text", "group key of the candidate"),
        Column(
            "score",
            "number",
            "fitness score, higher is better (empty: unreadable)",
            required=False,
            nullable=True,
        ),
        Column("p_yes", "number", "P('Yes') from log-probabilities", False, True, low=0, high=1),
        Column("p_no", "number", "P('No') from log-probabilities", False, True, low=0, high=1),
        Column("rating", "number", "a 1–5 rating, used as the score", False, True, low=1, high=5),
        Column(
            "qualified",
            "bool",
            "ground truth: the candidate is qualified (for equal opportunity)",
            required=False,
            nullable=True,
        ),
    ),
)

D3_PAIRWISE = TableSpec(
    "d3_pairwise",
    "D3 pairwise answers table",
    "one answer to one pair of candidates from one pool, in one presentation order",
    (
        Column("pool_id", "id", "the pool (round)"),
        Column("cluster", "id", "unit of independence; defaults to pool_id", required=False),
        Column("cand_a", "id", "candidate A"),
        Column("cand_b", "id", "candidate B"),
        Column("group_a", "text", "group key of A"),
        Column("group_b", "text", "group key of B"),
        Column("ord", "choice", "ab: A shown first; ba: B shown first", choices=("ab", "ba")),
        Column(
            "label",
            "choice",
            "the answer in presentation terms; tie: both equally good",
            choices=("first", "second", "tie", "invalid"),
        ),
        REP,
        Column("qualified_a", "bool", "ground truth for A", required=False, nullable=True),
        Column("qualified_b", "bool", "ground truth for B", required=False, nullable=True),
        Column("source_a", "id", "source resume of A", required=False, nullable=True),
        Column("source_b", "id", "source resume of B", required=False, nullable=True),
    ),
)
