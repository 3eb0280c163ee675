"""D3 candidate scores (Chen et al. 2024, Section 3.2) and pairwise output statistics.

Pointwise: score = sum over labels y of P_n(y) * value(y), P_n normalized over the
labels; with {No: 0, Yes: 1} that is P(Yes) / (P(Yes) + P(No)). A 1-5 rating, or
a score computed upstream, is used as it is.

Pairwise (after Qin et al. 2024): each pair of candidates in a pool is asked in
both orders. A consistent preference gives the preferred candidate 1, an
inconsistent one (the answer follows the position) 0.5 each, and an answer that
calls both equally good 0.25 each per prompt. Per prompt that is: 0.5 to the
candidate picked, 0.25 to each on a tie, which gives all three rules at once. An
unreadable answer carries no information about who is better, so it also splits
0.25 / 0.25 (counted separately in the output statistics).

Output statistics (Table 2): regular = answers that are one of the allowed
answers; tie = answers calling both equal; over pairs answered readably in both
orders, flipped = both orders picked a candidate but not the same one, and
inconsistent = the two answers differ in any way (flipped included).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from resume_auditor.designs.d3_rabbi.inputs import D3_PAIRWISE, D3_POINTWISE
from resume_auditor.stats.inputs import StatsInputError, validate
from resume_auditor.stats.intervals import clustered_proportion
from resume_auditor.stats.metric import Metric, pct, warn_small
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS, Thresholds

CANDIDATE_COLUMNS = ["pool_id", "cluster", "source", "candidate_id", "group", "score", "qualified"]


def pointwise_candidates(table: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """(one row per candidate with its score, number of unreadable rows dropped).

    Repeats of the same request are averaged per candidate before anything is
    ranked: a candidate asked about three times is still one candidate of its
    pool, not three (otherwise top-k shares halve and RABBI counts pairs twice).
    """
    df = validate(table, D3_POINTWISE)
    if "score" in df.columns:
        score = df["score"]
    elif {"p_yes", "p_no"} <= set(df.columns):
        total = df["p_yes"] + df["p_no"]
        score = (df["p_yes"] / total).where(total > 0)
    elif "rating" in df.columns:
        score = df["rating"]
    else:
        raise StatsInputError(
            "The D3 pointwise scores table needs a 'score' column, or 'p_yes' and 'p_no', "
            "or 'rating'."
        )
    out = pd.DataFrame(
        {
            "pool_id": df["pool_id"],
            "cluster": df["cluster"] if "cluster" in df.columns else df["pool_id"],
            "source": df["source"] if "source" in df.columns else None,
            "candidate_id": df["candidate_id"] if "candidate_id" in df.columns else df.index,
            "group": df["group"],
            "score": score.astype(float),
            "qualified": df["qualified"] if "qualified" in df.columns else None,
        }
    )
    readable = out["score"].notna()
    out = out[readable]
    if out.duplicated(["pool_id", "candidate_id"]).any():
        out = (
            out.groupby(["pool_id", "candidate_id"], sort=True, dropna=False)
            .agg(
                cluster=("cluster", "first"),
                source=("source", "first"),
                group=("group", "first"),
                score=("score", "mean"),
                qualified=("qualified", "first"),
            )
            .reset_index()[CANDIDATE_COLUMNS]
        )
    return out.reset_index(drop=True), int((~readable).sum())


def _pairwise_frame(table: pd.DataFrame) -> pd.DataFrame:
    df = validate(table, D3_PAIRWISE)
    if "cluster" not in df.columns:
        df["cluster"] = df["pool_id"]
    if "rep" not in df.columns:
        df["rep"] = 0
    first_is_a = (df["ord"] == "ab").to_numpy()
    label = df["label"].to_numpy(dtype=object)
    df["choice"] = np.where(
        label == "first",
        np.where(first_is_a, "a", "b"),
        np.where(label == "second", np.where(first_is_a, "b", "a"), label),
    )
    return df


def pairwise_candidates(table: pd.DataFrame) -> pd.DataFrame:
    """One row per candidate with its pairwise score (sum over all its answers)."""
    df = _pairwise_frame(table)
    choice = df["choice"].to_numpy(dtype=object)
    split = np.isin(choice, ["tie", "invalid"])
    points_a = np.where(choice == "a", 0.5, np.where(split, 0.25, 0.0))
    points_b = np.where(choice == "b", 0.5, np.where(split, 0.25, 0.0))
    none = pd.Series([None] * len(df))
    qa = df["qualified_a"] if "qualified_a" in df.columns else none
    qb = df["qualified_b"] if "qualified_b" in df.columns else none
    sa = df["source_a"] if "source_a" in df.columns else none
    sb = df["source_b"] if "source_b" in df.columns else none
    sides = pd.concat(
        [
            pd.DataFrame(
                {
                    "pool_id": df["pool_id"],
                    "cluster": df["cluster"],
                    "source": sa.to_numpy(),
                    "candidate_id": df["cand_a"],
                    "group": df["group_a"],
                    "score": points_a,
                    "qualified": qa.to_numpy(),
                }
            ),
            pd.DataFrame(
                {
                    "pool_id": df["pool_id"],
                    "cluster": df["cluster"],
                    "source": sb.to_numpy(),
                    "candidate_id": df["cand_b"],
                    "group": df["group_b"],
                    "score": points_b,
                    "qualified": qb.to_numpy(),
                }
            ),
        ],
        ignore_index=True,
    )
    agg = sides.groupby(["pool_id", "candidate_id"], sort=True).agg(
        cluster=("cluster", "first"),
        source=("source", "first"),
        group=("group", "first"),
        score=("score", "sum"),
        qualified=("qualified", "first"),
    )
    return agg.reset_index()[CANDIDATE_COLUMNS]


def pair_outcomes(table: pd.DataFrame) -> pd.DataFrame:
    """Per (pool, pair, rep) answered in both orders: the two choices and the cluster."""
    df = _pairwise_frame(table)
    lo = np.where(df["cand_a"].astype(str) <= df["cand_b"].astype(str), df["cand_a"], df["cand_b"])
    hi = np.where(df["cand_a"].astype(str) <= df["cand_b"].astype(str), df["cand_b"], df["cand_a"])
    swapped = df["cand_a"].astype(str).to_numpy() > df["cand_b"].astype(str).to_numpy()
    choice = df["choice"].to_numpy(dtype=object)
    # Express each choice in terms of (lo, hi) so both orders compare directly.
    canon = np.where(
        swapped & (choice == "a"), "b", np.where(swapped & (choice == "b"), "a", choice)
    )
    keyed = pd.DataFrame(
        {
            "pool_id": df["pool_id"],
            "lo": lo,
            "hi": hi,
            "rep": df["rep"],
            "ord": df["ord"],
            "choice": canon,
            "cluster": df["cluster"],
            "group_lo": np.where(swapped, df["group_b"], df["group_a"]),
            "group_hi": np.where(swapped, df["group_a"], df["group_b"]),
        }
    )
    keys = ["pool_id", "lo", "hi", "rep"]
    unique = keyed.drop_duplicates([*keys, "ord"])
    both = unique[unique.groupby(keys, sort=False)["ord"].transform("size") == 2]
    one = both.groupby(keys, sort=True).agg(
        choice_1=("choice", "first"),
        choice_2=("choice", "last"),
        cluster=("cluster", "first"),
        group_lo=("group_lo", "first"),
        group_hi=("group_hi", "first"),
    )
    return one.reset_index()


def output_statistics(
    table: pd.DataFrame, thresholds: Thresholds = DEFAULT_THRESHOLDS, level: float = 0.95
) -> dict[str, Metric]:
    df = _pairwise_frame(table)
    small = thresholds.value("small_cell")
    clusters = df["cluster"].to_numpy()
    choice = df["choice"].to_numpy(dtype=object)
    out: dict[str, Metric] = {}
    regular = warn_small(clustered_proportion(choice != "invalid", clusters, level), small)
    out["regular"] = Metric(
        "regular",
        "Regular answers",
        regular,
        f"{pct(regular.value)} of answers were one of the allowed answers.",
    )
    tie = warn_small(clustered_proportion(choice == "tie", clusters, level), small)
    out["tie"] = Metric(
        "tie", "Ties", tie, f"{pct(tie.value)} of answers called both candidates equally good."
    )
    pairs = pair_outcomes(table)
    readable = pairs[(pairs["choice_1"] != "invalid") & (pairs["choice_2"] != "invalid")]
    c1, c2 = readable["choice_1"].to_numpy(), readable["choice_2"].to_numpy()
    pc = readable["cluster"].to_numpy()
    decisive = np.isin(c1, ["a", "b"]) & np.isin(c2, ["a", "b"])
    flipped = warn_small(clustered_proportion(decisive & (c1 != c2), pc, level), small)
    out["flipped"] = Metric(
        "flipped",
        "Flipped",
        flipped,
        f"Swapping the order made the model pick the other candidate in {pct(flipped.value)} "
        "of pairs.",
    )
    inconsistent = warn_small(clustered_proportion(c1 != c2, pc, level), small)
    out["inconsistent"] = Metric(
        "inconsistent",
        "Inconsistent",
        inconsistent,
        f"The two orders got different answers in {pct(inconsistent.value)} of pairs.",
    )
    return out
