"""D3's headline measures for comparing models on the same pools (issue 28).

Chen et al. compare models by RABBI: how often a group's candidates are ranked above
the reference group's (White men's), over every pair of one candidate of each. The
measure per group and scoring method is the run's own RABBI
(`d3.<method>.rabbi.<group>`, Section 3.1):

    RABBI(A, B) = (1 / (n_A n_B)) * sum over a in A, b in B of sign(s_a - s_b)

over every A and B candidate of the run (each candidate's repeats averaged first,
unreadable ones dropped, exactly as designs/d3_rabbi/stats.py does).

RABBI compares candidates *across* pools, so it is not a function of per-pool sums:
leaving a pool out removes its A candidates' comparisons with every B candidate, its
B candidates' with every A candidate, and adds back its own A-with-B comparisons,
counted twice. `leave_out` computes exactly that for every pool at once (sorting, no
loop over pairs), and stats/compare.py's jackknife uses it. RABBI is a two-sample
U-statistic (a V-statistic over pools), whose delete-one-unit jackknife variance is
consistent (Arvesen 1969): it is asymptotically a mean of per-pool terms (its Hájek
projection), which is why the jackknife that serves the smooth functions of means
serves it too. Checked on simulated paired audits (tests/test_compare_d3.py) and
through the real path (benchmarks/compare_calibration.py --design d3).

The cluster is the pool: D3's own unit, and what its answers share when the model
ranks a pool's candidates against each other (pairwise). Pools also share source
resumes; docs/comparison.md says what that does to the interval.
"""

from __future__ import annotations

import logging
import math

import numpy as np
import pandas as pd

from resume_auditor.designs.d3_rabbi.scores import pairwise_candidates, pointwise_candidates
from resume_auditor.designs.d3_rabbi.stats import REFERENCE
from resume_auditor.stats.compare import Comparable, LeaveOut, Measure, ratio
from resume_auditor.stats.labels import label

logger = logging.getLogger(__name__)

METHOD_WORDS = {"pointwise": "scored alone", "pairwise": "compared in pairs"}


def rabbi_leave_out(a_column: str, b_column: str) -> LeaveOut:
    """RABBI of the candidates with an `a_column` score against those with a `b_column`
    score, and the same with each cluster's candidates left out (NaN: a side left
    without candidates)."""

    def leave_out(table: pd.DataFrame, labels: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        g = int(labels.size)
        codes = pd.Categorical(table["cluster"].astype(str), categories=labels).codes
        x = table[a_column].to_numpy(dtype=float)
        y = table[b_column].to_numpy(dtype=float)
        has_a, has_b = ~np.isnan(x), ~np.isnan(y)
        a, ca = x[has_a], codes[has_a].astype(np.int64)
        b, cb = y[has_b], codes[has_b].astype(np.int64)
        na = np.bincount(ca, minlength=g).astype(float)
        nb = np.bincount(cb, minlength=g).astype(float)
        active = (na + nb) > 0
        if a.size == 0 or b.size == 0:
            return math.nan, np.full(g, np.nan), active
        # every score as its rank among all scores (ties equal), so that a cluster's
        # candidates can be sorted by (cluster, rank) in one integer key
        values, rank = np.unique(np.concatenate([a, b]), return_inverse=True)
        ra, rb = rank[: a.size].astype(np.int64), rank[a.size :].astype(np.int64)
        m = np.int64(values.size)
        b_sorted, a_sorted = np.sort(rb), np.sort(ra)
        # per A candidate: B candidates below minus above; per B: A above minus below
        w = _below(b_sorted, ra) - _above(b_sorted, ra)
        v = _above(a_sorted, rb) - _below(a_sorted, rb)
        total = float(w.sum())
        rows = np.bincount(ca, weights=w, minlength=g)
        cols = np.bincount(cb, weights=v, minlength=g)
        # within a cluster: its A candidates against its own B candidates
        kb = np.sort(cb * m + rb)
        ka = ca * m + ra
        start, end = ca * m, ca * m + m
        inside = (np.searchsorted(kb, ka, "left") - np.searchsorted(kb, start, "left")) - (
            np.searchsorted(kb, end, "left") - np.searchsorted(kb, ka, "right")
        )
        own = np.bincount(ca, weights=inside, minlength=g)
        den = (a.size - na) * (b.size - nb)
        with np.errstate(divide="ignore", invalid="ignore"):
            leave = (total - rows - cols + own) / den
        leave = np.where(den > 0, leave, np.nan)
        return total / (a.size * b.size), leave, active

    return leave_out


def _below(sorted_ranks: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    return np.searchsorted(sorted_ranks, ranks, "left").astype(float)


def _above(sorted_ranks: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    return (sorted_ranks.size - np.searchsorted(sorted_ranks, ranks, "right")).astype(float)


def comparable(pointwise: pd.DataFrame, pairwise: pd.DataFrame) -> Comparable | None:
    """D3's tables of one run as a comparison table: one row per candidate and scoring
    method, a column per method and group holding the candidate's score (None: no
    candidate of the reference group and another)."""
    frames: list[pd.DataFrame] = []
    measures: list[Measure] = []
    for method, raw in (("pointwise", pointwise), ("pairwise", pairwise)):
        if raw.empty:
            continue
        if method == "pointwise":
            candidates = pointwise_candidates(raw)[0]
        else:
            candidates = pairwise_candidates(raw)
        group = candidates["group"].astype(str).to_numpy()
        if candidates.empty or REFERENCE not in set(group):
            continue
        score = candidates["score"].to_numpy(dtype=float)
        part = pd.DataFrame({"cluster": candidates["cluster"].astype(str).to_numpy()})
        ref_column = f"{method}.{REFERENCE}"
        part[ref_column] = np.where(group == REFERENCE, score, np.nan)
        for g in sorted(set(group) - {REFERENCE}):
            column = f"{method}.{g}"
            part[column] = np.where(group == g, score, np.nan)
            measures.append(
                Measure(
                    f"{method}.rabbi.{g}",
                    f"RABBI ({METHOD_WORDS[method]}): {label(g)}",
                    (column, ref_column),
                    ratio(0, 1),  # not used: the leave-outs are RABBI's own
                    f"ranks {label(g)} candidates above {label(REFERENCE)} candidates more "
                    f"often ({METHOD_WORDS[method]}; RABBI)",
                    path=("d3", method, "rabbi", g),
                    unit="number",
                    kind="fairness",
                    bounds=(-1.0, 1.0),
                    cluster=("pool", "pools"),
                    leave_out=rabbi_leave_out(column, ref_column),
                )
            )
        frames.append(part)
    if not measures:
        return None
    return Comparable(pd.concat(frames, ignore_index=True), tuple(measures))


__all__ = ["comparable", "rabbi_leave_out"]
