"""D4's headline measures for comparing models on the same sets and batches (issue 28).

FAIRE compares models by how much a name (or an experience cue) moves a resume's score,
and where each group lands in a ranked batch. The measures are the run's own:
`d4.differences.<variant>.overall.<group>`, the mean over source resumes of (the group's
copy's overall score - the original's), one row per source resume here; and
`d4.ranks.<size>.<group>`, the group's average rank in batches of that size, one row per
ranked candidate, clustered by batch. Both are means (ratios of sums), so
stats/compare.py leaves a resume or a batch out of both runs at once.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from resume_auditor.designs.d4_faire.inputs import D4_DIMENSIONS, D4_RANKINGS, D4_SCORES
from resume_auditor.designs.d4_faire.settings import PERTURBATIONS
from resume_auditor.stats.compare import Comparable, Measure, ratio
from resume_auditor.stats.inputs import validate
from resume_auditor.stats.labels import label

logger = logging.getLogger(__name__)


def _score_rows(scores: pd.DataFrame, measures: list[Measure]) -> pd.DataFrame:
    """One row per source resume: each (variant, group)'s overall-score shift (NaN: none)."""
    df = validate(scores, D4_SCORES)
    df = df[df[list(D4_DIMENSIONS)].notna().all(axis=1)].copy()
    if df.empty:
        return pd.DataFrame()
    df["overall"] = df[list(D4_DIMENSIONS)].mean(axis=1)
    df["group"] = df["group"].where(df["variant"] != "original", "")
    means = df.groupby(["cluster", "variant", "group"])["overall"].mean()
    if "original" not in means.index.get_level_values("variant"):
        return pd.DataFrame()
    original = means.xs("original", level="variant").droplevel("group")
    out = pd.DataFrame(index=original.index)
    for variant in PERTURBATIONS:
        if variant not in means.index.get_level_values("variant"):
            continue
        perturbed = means.xs(variant, level="variant")
        for g in sorted(set(perturbed.index.get_level_values("group"))):
            shift = perturbed.xs(g, level="group") - original.reindex(
                perturbed.xs(g, level="group").index
            )
            column = f"s_{variant}_{g}"
            out[column] = shift.reindex(out.index)
            out[f"n_{variant}_{g}"] = np.where(out[column].notna(), 1.0, np.nan)
            measures.append(
                Measure(
                    f"differences.{variant}.{g}",
                    f"Score moved by the {variant}: {label(g)}",
                    (column, f"n_{variant}_{g}"),
                    ratio(0, 1),
                    f"moves a resume's score more when its {variant} signals {label(g)}",
                    path=("d4", "differences", variant, "overall", g),
                    unit="difference",
                    kind="fairness",
                )
            )
    out.index = out.index.astype(str)
    return (
        out.rename_axis("cluster").reset_index().assign(cluster=lambda f: "resume " + f["cluster"])
    )


def _rank_rows(rankings: pd.DataFrame, measures: list[Measure]) -> pd.DataFrame:
    """One row per ranked candidate: its rank where it is of (batch size, group)."""
    df = validate(rankings, D4_RANKINGS)
    answer = "answer_id" if "answer_id" in df.columns else "batch_id"
    if "batch_size" not in df.columns:
        df["batch_size"] = df.groupby(answer)["group"].transform("size")
    df = df[df["rank"].notna()]
    if df.empty:
        return pd.DataFrame()
    out = pd.DataFrame({"cluster": "batch " + df["batch_id"].astype(str).to_numpy()})
    sizes = df["batch_size"].astype(int).to_numpy()
    groups = df["group"].astype(str).to_numpy()
    ranks = df["rank"].to_numpy(dtype=float)
    for size in sorted(set(sizes)):
        for g in sorted(set(groups[sizes == size])):
            mine = (sizes == size) & (groups == g)
            out[f"r_{size}_{g}"] = np.where(mine, ranks, np.nan)
            out[f"c_{size}_{g}"] = np.where(mine, 1.0, np.nan)
            measures.append(
                Measure(
                    f"ranks.{size}.{g}",
                    f"Average rank in batches of {size}: {label(g)}",
                    (f"r_{size}_{g}", f"c_{size}_{g}"),
                    ratio(0, 1),
                    f"ranks {label(g)} candidates lower down (a higher number) in "
                    f"batches of {size}",
                    path=("d4", "ranks", str(size), g),
                    unit="number",
                    bounds=(1.0, float(size)),
                    cluster=("batch", "batches"),
                    kind="fairness",
                )
            )
    return out


def comparable(scores: pd.DataFrame, rankings: pd.DataFrame) -> Comparable | None:
    """D4's tables of one run as one comparison table (None: nothing to compare)."""
    measures: list[Measure] = []
    parts = [
        _score_rows(scores, measures) if not scores.empty else pd.DataFrame(),
        _rank_rows(rankings, measures) if not rankings.empty else pd.DataFrame(),
    ]
    parts = [p for p in parts if not p.empty]
    if not parts or not measures:
        return None
    return Comparable(pd.concat(parts, ignore_index=True), tuple(measures))


__all__ = ["comparable"]
