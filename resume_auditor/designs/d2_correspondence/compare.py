"""D2's headline measures for comparing models on the same copies (issue 28).

Gaebler et al. compare models by how much higher or lower each group's copies of the
same resumes are rated than the reference group's, in standard deviations of the
ratings. The measure per group is the run's own standardized difference
(`d2.smd.<group>`): (mean rating of the group's copies - mean of the reference's) /
the standard deviation of every named copy's rating, which is a smooth function of
sums, recomputed per source resume so that stats/compare.py can leave a resume out of
both runs at once.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from resume_auditor.designs.d2_correspondence.inputs import D2_RATINGS
from resume_auditor.designs.d2_correspondence.stats import REFERENCE
from resume_auditor.domain.groups import group_label
from resume_auditor.stats.compare import Comparable, Measure, SumsFunction
from resume_auditor.stats.inputs import validate

logger = logging.getLogger(__name__)

# the sums every measure reads: every named copy's rating, its square and count, and the
# reference group's rating and count; then a group's rating and count
COMMON = ("y", "y2", "one", "y_ref", "n_ref")


def _smd(sums: np.ndarray) -> np.ndarray:
    y, y2, n, y_ref, n_ref, y_g, n_g = (sums[..., i] for i in range(7))
    with np.errstate(divide="ignore", invalid="ignore"):
        var = (y2 - y * y / n) / (n - 1)
        out = (y_g / n_g - y_ref / n_ref) / np.sqrt(var)
    return np.where((n > 1) & (n_g > 0) & (n_ref > 0) & (var > 0), out, np.nan)


def comparable(ratings: pd.DataFrame) -> Comparable | None:
    """D2's ratings table of one run as a comparison table (None: nothing rated)."""
    if ratings.empty:
        return None
    df = validate(ratings, D2_RATINGS)
    if "condition" in df.columns:
        df = df[df["condition"] == "named"]
    df = df[df["rating"].notna() & df["group"].notna()]
    if df.empty:
        return None
    y = df["rating"].to_numpy(dtype=float)
    group = df["group"].astype(str).to_numpy()
    ref = group == REFERENCE
    table = pd.DataFrame(
        {
            "cluster": df["cluster"].astype(str).to_numpy(),
            "y": y,
            "y2": y * y,
            "one": 1.0,
            "y_ref": np.where(ref, y, 0.0),
            "n_ref": ref.astype(float),
        }
    )
    if not ref.any():
        return None
    f: SumsFunction = _smd
    measures = []
    for g in sorted(set(group) - {REFERENCE}):
        mine = group == g
        table[f"y_{g}"] = np.where(mine, y, 0.0)
        table[f"n_{g}"] = mine.astype(float)
        name = group_label(g)
        measures.append(
            Measure(
                f"smd.{g}",
                f"Rated higher or lower: {name}",
                (*COMMON, f"y_{g}", f"n_{g}"),
                f,
                f"rates {name} candidates' copies higher (against {group_label(REFERENCE)} "
                "candidates' copies of the same resumes)",
                path=("d2", "smd", g),
                unit="sd",
                kind="fairness",
            )
        )
    return Comparable(table, tuple(measures)) if measures else None


__all__ = ["comparable"]
