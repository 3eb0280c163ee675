"""D4's two tidy tables, the statistics' inputs (docs/stats-inputs.md): the five
dimension scores of each scored copy, and each candidate's place in a ranked batch.

`designs/d4_faire/table.py` builds them from the answers; `stats.py` validates them
with the shared checker (stats/inputs.validate) before computing anything.
"""

from __future__ import annotations

from resume_auditor.stats.inputs import REP, Column, TableSpec

D4_DIMENSIONS = ("relevance", "impact", "skill_relevance", "achievements", "cultural_fit")
D4_DIMENSION_TITLES = {
    "relevance": "Relevance to the role",
    "impact": "Significance/impact",
    "skill_relevance": "Skill relevance",
    "achievements": "Achievements & impact",
    "cultural_fit": "Cultural fit & personal traits",
    "overall": "Mean of the five dimensions",
}

D4_SCORES = TableSpec(
    "d4_scores",
    "D4 direct scores table",
    "one direct scoring (five dimensions) of one resume version",
    (
        Column("cluster", "id", "the original resume this version comes from"),
        Column(
            "variant",
            "choice",
            "original, or perturbed by name or by experience",
            choices=("original", "name", "experience"),
        ),
        Column(
            "group", "text", "group signalled by the perturbation (empty on original)", True, True
        ),
        *(
            Column(d, "number", f"{D4_DIMENSION_TITLES[d]} score 1–5", True, True, low=1, high=5)
            for d in D4_DIMENSIONS
        ),
        REP,
    ),
)

D4_RANKINGS = TableSpec(
    "d4_rankings",
    "D4 rankings table",
    "one candidate's place in one ranked batch",
    (
        Column(
            "batch_id",
            "id",
            "the batch of candidates; all its answers (every order and repeat) share it and "
            "are one cluster",
        ),
        Column(
            "answer_id",
            "id",
            "the answer that gave the rank (defaults to batch_id)",
            required=False,
        ),
        Column("group", "text", "group signalled by the candidate"),
        Column(
            "rank",
            "int",
            "1 = best (empty: missing from the answer)",
            nullable=True,
            low=1,
            high=100,
        ),
        Column(
            "batch_size",
            "int",
            "candidates in the batch (5 by race, 2 by gender)",
            False,
            low=2,
            high=100,
        ),
    ),
)
