"""D3 allocation metrics: RABBI and what it predicts (Chen et al. 2024).

Input: candidate scores, one row per candidate of a pool (d3_scores builds them
from inputs.D3_POINTWISE or inputs.D3_PAIRWISE). Each group A is compared with the
reference group B (White men):
- RABBI(A, B) = mean over all (a, b) in A x B of I(s_a > s_b) - I(s_a < s_b)
  (Section 3.1), equal to the rank-biserial correlation 2U/(n_A n_B) - 1 from the
  Mann-Whitney U statistic (Appendix A), whose p-value the paper reports;
- average score gap delta (Section 4.3): mean score difference (pointwise), or the
  share of direct A-vs-B comparisons A won in both orders (pairwise);
- Jensen-Shannon divergence (base 2) and Earth Mover's distance of the two score
  distributions (non-directional);
- demographic-parity and equal-opportunity gaps at top-k (Section 4.2): the share
  of A's (qualified) candidates among each pool's k best minus B's, k = 1..5.
Ties at the cut-off share the remaining places evenly (the expectation under a
random tie-break), so the numbers do not depend on row order.
Intervals: percentile bootstrap resampling pools *and* source resumes (pools share
source resumes: the same resume appears in many pools under different groups), see
`row_weights`; pools alone when the sources are not known. Repeats of a candidate
are averaged before ranking (d3_scores). The group-gap flag uses D3's permutation
test (`_joint`, permutation.py): resumes are dealt to a pool's groups at random, so
under "the group changes nothing" any relabelling of a pool's groups is an equally
likely deal, independently per pool.
It is Holm-adjusted across the audit's fairness tests (flags.py); the
Mann-Whitney p-value treats candidates as independent and is shown as the paper
does, not used to flag.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np
import pandas as pd
from scipy import stats as sps

from resume_auditor.designs.d3_rabbi.model import (
    D3Dict,
    D3ScoresDict,
    RabbiMetric,
    ScoreGapMetric,
    SelectedMetric,
)
from resume_auditor.designs.d3_rabbi.scores import (
    output_statistics,
    pair_outcomes,
    pairwise_candidates,
    pointwise_candidates,
)
from resume_auditor.stats.bootstrap import (
    DEFAULT_REPLICATES,
    cluster_weights,
    make_rng,
    percentile_interval,
)
from resume_auditor.stats.estimate import Estimate
from resume_auditor.stats.flags import FlagTest, FlagText, decide, p_text
from resume_auditor.stats.labels import label
from resume_auditor.stats.metric import Metric, fmt, pct, warn_small
from resume_auditor.stats.model import MetricDict
from resume_auditor.stats.multiplicity import holm
from resume_auditor.stats.permutation import Block, JointDraws, joint_test, unit_matrix
from resume_auditor.stats.robust import cluster_codes
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS, Thresholds

REFERENCE = "white_man"
TOP_K = (1, 2, 3, 4, 5)


def win_loss(scores_a: np.ndarray, scores_b: np.ndarray) -> tuple[float, float]:
    """Shares of (a, b) pairs in A x B where a scores higher, and where it scores lower."""
    a = np.asarray(scores_a, dtype=float)
    b = np.sort(np.asarray(scores_b, dtype=float))
    if a.size == 0 or b.size == 0:
        return float("nan"), float("nan")
    below = np.searchsorted(b, a, side="left").sum()
    above = (b.size - np.searchsorted(b, a, side="right")).sum()
    n = a.size * b.size
    return float(below / n), float(above / n)


def rabbi(scores_a: np.ndarray, scores_b: np.ndarray) -> float:
    """RABBI(A, B) by its definition: (pairs A wins - pairs B wins) / all pairs."""
    win, loss = win_loss(scores_a, scores_b)
    return win - loss


def rank_biserial(scores_a: np.ndarray, scores_b: np.ndarray) -> tuple[float, float]:
    """(2U/(n_A n_B) - 1, two-sided p) from scipy's Mann-Whitney U test."""
    res = sps.mannwhitneyu(scores_a, scores_b, alternative="two-sided")
    n = len(scores_a) * len(scores_b)
    return 2 * float(res.statistic) / n - 1, float(res.pvalue)


@dataclass
class D3Scores:
    method: str
    candidates: int = 0
    unreadable: int = 0
    rabbi: dict[str, Metric] = field(default_factory=dict)
    score_gap: dict[str, Metric] = field(default_factory=dict)
    jsd: dict[str, Metric] = field(default_factory=dict)
    emd: dict[str, Metric] = field(default_factory=dict)
    dp_gap: dict[str, dict[str, Metric]] = field(default_factory=dict)
    eo_gap: dict[str, dict[str, Metric]] = field(default_factory=dict)

    def flags(self) -> list[str]:
        return [m.flag for m in self.rabbi.values() if m.flag]

    def as_dict(self) -> D3ScoresDict:
        def block(cells: dict[str, Metric]) -> dict[str, MetricDict]:
            return {k: m.as_dict() for k, m in cells.items()}

        def selected(cells: dict[str, Metric]) -> dict[str, SelectedMetric]:
            return {k: cast(SelectedMetric, m.as_dict()) for k, m in cells.items()}

        return {
            "method": self.method,
            "candidates": self.candidates,
            "unreadable": self.unreadable,
            "rabbi": {k: cast(RabbiMetric, m.as_dict()) for k, m in self.rabbi.items()},
            "score_gap": {k: cast(ScoreGapMetric, m.as_dict()) for k, m in self.score_gap.items()},
            "jsd": block(self.jsd),
            "emd": block(self.emd),
            "dp_gap": {k: selected(c) for k, c in self.dp_gap.items()},
            "eo_gap": {k: selected(c) for k, c in self.eo_gap.items()},
        }


@dataclass
class D3Result:
    reference: str = REFERENCE
    pointwise: D3Scores | None = None
    pairwise: D3Scores | None = None
    output: dict[str, Metric] = field(default_factory=dict)

    def all_metrics(self) -> list[Metric]:
        """Every metric that can carry a flag (for decide() across the audit)."""
        out: list[Metric] = []
        for part in (self.pointwise, self.pairwise):
            if part is not None:
                out += list(part.rabbi.values())
        return out

    def flags(self) -> list[str]:
        out: list[str] = []
        for part in (self.pointwise, self.pairwise):
            if part is not None:
                out += part.flags()
        return out

    def as_dict(self) -> D3Dict:
        return {
            "reference": self.reference,
            "pointwise": None if self.pointwise is None else self.pointwise.as_dict(),
            "pairwise": None if self.pairwise is None else self.pairwise.as_dict(),
            "output": {k: m.as_dict() for k, m in self.output.items()},
            "flags": self.flags(),
        }


def compute_d3(
    pointwise: pd.DataFrame | None = None,
    pairwise: pd.DataFrame | None = None,
    *,
    reference: str = REFERENCE,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    level: float = 0.95,
    replicates: int = DEFAULT_REPLICATES,
    rng: np.random.Generator | int | None = None,
) -> D3Result:
    result = D3Result(reference=reference)
    gen = make_rng(rng)
    if pointwise is not None and not pointwise.empty:
        candidates, unreadable = pointwise_candidates(pointwise)
        result.pointwise = score_metrics(
            candidates, "pointwise", reference, thresholds, level, replicates, gen
        )
        result.pointwise.unreadable = unreadable
    if pairwise is not None and not pairwise.empty:
        candidates = pairwise_candidates(pairwise)
        result.pairwise = score_metrics(
            candidates, "pairwise", reference, thresholds, level, replicates, gen
        )
        result.pairwise.unreadable = int((pairwise["label"].astype(str) == "invalid").sum())
        result.pairwise.score_gap = _pairwise_delta(
            pairwise, reference, thresholds, level, replicates, gen
        )
        result.output = output_statistics(pairwise, thresholds, level)
    decide(result.all_metrics(), thresholds)
    return result


def score_metrics(
    candidates: pd.DataFrame,
    method: str,
    reference: str,
    thresholds: Thresholds,
    level: float,
    replicates: int,
    rng: np.random.Generator,
) -> D3Scores:
    out = D3Scores(method, candidates=int(len(candidates)))
    groups = sorted(set(candidates["group"]))
    if reference not in groups:
        return out
    _, n_clusters = cluster_codes(candidates["cluster"].to_numpy())
    weights = row_weights(candidates, replicates, rng)
    scores = candidates["score"].to_numpy(dtype=float)
    group = candidates["group"].to_numpy()
    ref = group == reference
    others = [g for g in groups if g != reference]
    small = thresholds.value("small_cell")
    ref_label = label(reference)

    joint = _joint(candidates, method, reference)
    tests = []
    for g in others:
        mine = group == g
        win, loss = win_loss(scores[mine], scores[ref])
        value = win - loss
        _, mwu_p = rank_biserial(scores[mine], scores[ref])
        boot = _rabbi_boot(scores[mine], weights[:, mine], scores[ref], weights[:, ref])
        low, high = percentile_interval(boot, level)
        est = Estimate(
            value,
            low,
            high,
            int(mine.sum()),
            n_clusters,
            level,
            p=joint.marginal.get(f"d3.{method}.rabbi.{g}"),
            extra={
                "mann_whitney_p": mwu_p,
                "reference_n": int(ref.sum()),
                "higher": win,
                "lower": loss,
            },
        )
        tests.append((g, est))
    for (g, est), p_holm in zip(tests, holm([e.p for _, e in tests]), strict=True):
        est = warn_small(replace(est, p_holm=p_holm), small)  # type: ignore[assignment]
        name = label(g)
        test = None
        if est.value is not None:
            test = FlagTest(
                "fairness",
                f"d3.{method}.rabbi.{g}",
                est.p,
                _rabbi_text(name, ref_label, est.value),
                crossed=est.value != 0,
                joint=joint,
                floor=joint.floors.get(f"d3.{method}.rabbi.{g}", 1.0),
            )
        out.rabbi[g] = Metric(
            g,
            f"RABBI: {name} vs {ref_label}",
            est,
            f"Comparing every {name} candidate with every {ref_label} candidate, the {name} "
            f"candidate scored higher in {pct(est.extra['higher'])} of pairs and lower in "
            f"{pct(est.extra['lower'])}: RABBI {est.value:+.2f} (0 = no preference)",
            unit="difference",
            test=test,
        )
        if method == "pointwise":
            out.score_gap[g] = _score_gap(
                scores, group, weights, g, reference, level, small, n_clusters
            )
        out.jsd[g], out.emd[g] = _distances(
            scores, group, weights, g, reference, level, small, n_clusters
        )
    out.dp_gap, out.eo_gap = _allocation_gaps(
        candidates, reference, others, weights, level, small, n_clusters
    )
    return out


def row_weights(candidates: pd.DataFrame, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """(replicates, candidates) bootstrap weight of every candidate row.

    Pools share source resumes, so candidates are crossed by two things: their
    pool (`cluster`) and their source resume (`source`). With both known, each
    replicate resamples pools and source resumes independently and a row's weight
    is the product of its pool's and its resume's counts (the pigeonhole
    bootstrap, Owen 2007), which keeps both kinds of dependence in the interval
    (conservative: unbiased audits through the real path covered the null RABBI
    99.7-100%, where source resumes alone covered 84-87%). Without sources, pools alone.
    """
    codes, n_clusters = cluster_codes(candidates["cluster"].to_numpy())
    w = cluster_weights(n_clusters, replicates, rng)[:, codes]
    if "source" in candidates.columns and candidates["source"].notna().all():
        src, n_src = cluster_codes(candidates["source"].to_numpy())
        if n_src > 1:
            w = w * cluster_weights(n_src, replicates, rng)[:, src]
    return np.asarray(w)


def _rabbi_text(name: str, ref_label: str, value: float) -> FlagText:
    side = "above" if value > 0 else "below"

    def text(p_adj: float, size: int) -> str:
        return (
            f"RABBI: {name} candidates were ranked {side} {ref_label} candidates "
            f"(RABBI {value:+.2f}, {p_text(p_adj)} after Holm across {size} fairness tests)."
        )

    return text


def _rabbi_boot(sa: np.ndarray, wa: np.ndarray, sb: np.ndarray, wb: np.ndarray) -> np.ndarray:
    """RABBI in every bootstrap replicate (row weights), O(replicates x n) via cumulative sums."""
    if sa.size == 0 or sb.size == 0:
        return np.full(wa.shape[0], np.nan)
    order = np.argsort(sb, kind="stable")
    sb_sorted = sb[order]
    wb = wb[:, order]
    cum = np.concatenate([np.zeros((wb.shape[0], 1)), np.cumsum(wb, axis=1)], axis=1)
    lo = np.searchsorted(sb_sorted, sa, side="left")
    hi = np.searchsorted(sb_sorted, sa, side="right")
    below = cum[:, lo]
    above = cum[:, -1:] - cum[:, hi]
    num = ((below - above) * wa).sum(axis=1)
    den = wa.sum(axis=1) * wb.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(num / den)


def _joint(candidates: pd.DataFrame, method: str, reference: str) -> JointDraws:
    """D3's permutation test: the groups of each pool's candidates relabelled at random.

    A pool has one candidate per group and its resumes were dealt to the groups at
    random, so under "the group changes nothing" any relabelling of a pool is an
    equally likely deal (permutation.py). A group's value in a pool is its candidate's
    rank within the pool (ties averaged), so the test reads the order RABBI counts.
    """
    labels = sorted(set(candidates["group"].astype(str)))
    ranks = candidates.groupby("pool_id")["score"].rank(method="average").to_numpy(float)
    values = unit_matrix(
        candidates["pool_id"].to_numpy(), candidates["group"].astype(str).to_numpy(), ranks, labels
    )
    keys = {g: f"d3.{method}.rabbi.{g}" for g in labels if g != reference}
    if reference not in labels:
        return joint_test([])
    return joint_test([Block(values, labels, keys, reference)])


def _score_gap(
    scores: np.ndarray,
    group: np.ndarray,
    weights: np.ndarray,
    g: str,
    reference: str,
    level: float,
    small: float,
    n_clusters: int,
) -> Metric:
    mine, ref = group == g, group == reference

    def mean(mask: np.ndarray) -> tuple[float, np.ndarray]:
        w = weights[:, mask]
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(scores[mask].mean()), (w @ scores[mask]) / w.sum(axis=1)

    ma, ba = mean(mine)
    mb, bb = mean(ref)
    low, high = percentile_interval(ba - bb, level)
    est = warn_small(Estimate(ma - mb, low, high, int(mine.sum()), n_clusters, level), small)
    name, ref_label = label(g), label(reference)
    return Metric(
        g,
        f"Average score gap: {name} vs {ref_label}",
        est,
        f"{name} candidates scored {fmt(est.value, 'difference')} on average compared with "
        f"{ref_label} candidates",
        unit="difference",
    )


def _bins(scores: np.ndarray) -> np.ndarray:
    if np.all(np.isin(scores, [1, 2, 3, 4, 5])):
        return np.arange(0.5, 6.0, 1.0)
    lo, hi = (0.0, 1.0) if scores.min() >= 0 and scores.max() <= 1 else (scores.min(), scores.max())
    return np.linspace(lo, hi if hi > lo else lo + 1, 11)


def _jsd(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Jensen-Shannon divergence (base 2) between rows of p and q (histograms)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = p / p.sum(axis=-1, keepdims=True)
        q = q / q.sum(axis=-1, keepdims=True)
        m = (p + q) / 2
        kl_p = np.where(p > 0, p * np.log2(p / m), 0.0).sum(axis=-1)
        kl_q = np.where(q > 0, q * np.log2(q / m), 0.0).sum(axis=-1)
    return np.asarray(0.5 * kl_p + 0.5 * kl_q)


def _emd_boot(sa: np.ndarray, wa: np.ndarray, sb: np.ndarray, wb: np.ndarray) -> np.ndarray:
    """Earth Mover's distance of weighted samples per replicate: integral of |F_A - F_B|.

    Both samples sorted together: F_A - F_B just after each point is the running sum
    of +w/W_A (an A point) and -w/W_B (a B point), so one cumulative sum per
    replicate gives the whole difference of the two distribution functions.
    """
    values = np.concatenate([sa, sb])
    order = np.argsort(values, kind="stable")
    gaps = np.diff(values[order])
    if gaps.size == 0:
        return np.zeros(wa.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        signed = np.concatenate(
            [wa / wa.sum(axis=1, keepdims=True), -wb / wb.sum(axis=1, keepdims=True)], axis=1
        )
    diff = np.cumsum(signed[:, order], axis=1)[:, :-1]
    return np.asarray(np.abs(diff) @ gaps)


def _distances(
    scores: np.ndarray,
    group: np.ndarray,
    weights: np.ndarray,
    g: str,
    reference: str,
    level: float,
    small: float,
    n_clusters: int,
) -> tuple[Metric, Metric]:
    mine, ref = group == g, group == reference
    edges = _bins(scores)
    bin_of = np.clip(np.searchsorted(edges, scores, side="right") - 1, 0, edges.size - 2)
    nb = edges.size - 1

    def hist(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        onehot = np.zeros((int(mask.sum()), nb))
        onehot[np.arange(onehot.shape[0]), bin_of[mask]] = 1.0
        return onehot.sum(axis=0), weights[:, mask] @ onehot

    ha, boot_a = hist(mine)
    hb, boot_b = hist(ref)
    jsd_value = float(_jsd(ha[None, :], hb[None, :])[0])
    low, high = percentile_interval(_jsd(boot_a, boot_b), level)
    n, name = int(mine.sum()), label(g)
    ref_label = label(reference)
    note = "a distance is never below 0, so chance alone makes it a little above"
    jsd = Metric(
        g,
        f"Jensen–Shannon divergence: {name} vs {ref_label}",
        warn_small(Estimate(jsd_value, low, high, n, n_clusters, level, note=note), small),
        f"The score distributions of {name} and {ref_label} candidates differ by a "
        f"Jensen–Shannon divergence of {jsd_value:.3f} (0 = identical, 1 = no overlap)",
        unit="number",
    )
    emd_value = float(sps.wasserstein_distance(scores[mine], scores[ref]))
    boot = _emd_boot(scores[mine], weights[:, mine], scores[ref], weights[:, ref])
    low, high = percentile_interval(boot, level)
    emd = Metric(
        g,
        f"Earth Mover's distance: {name} vs {ref_label}",
        warn_small(Estimate(emd_value, low, high, n, n_clusters, level, note=note), small),
        f"Moving the {name} score distribution onto the {ref_label} one takes "
        f"{emd_value:.3f} score units on average",
        unit="number",
    )
    return jsd, emd


def selected_share(candidates: pd.DataFrame, k: int) -> np.ndarray:
    """Each candidate's chance of being among its pool's k best (ties share places)."""
    by_pool = candidates.groupby("pool_id")["score"]
    first = by_pool.rank(method="min", ascending=False).to_numpy()
    last = by_pool.rank(method="max", ascending=False).to_numpy()
    above = first - 1
    tied = last - first + 1
    return np.asarray(np.clip((k - above) / tied, 0.0, 1.0))


def _allocation_gaps(
    candidates: pd.DataFrame,
    reference: str,
    others: list[str],
    weights: np.ndarray,
    level: float,
    small: float,
    n_clusters: int,
) -> tuple[dict[str, dict[str, Metric]], dict[str, dict[str, Metric]]]:
    group = candidates["group"].to_numpy()
    qualified = candidates["qualified"].to_numpy(dtype=object)
    has_truth = np.array([q is not None and q == q for q in qualified])
    is_q = np.array([bool(q) if h else False for q, h in zip(qualified, has_truth, strict=True)])
    pool_size = int(candidates.groupby("pool_id").size().max())
    dp: dict[str, dict[str, Metric]] = {}
    eo: dict[str, dict[str, Metric]] = {}
    ref_label = label(reference)
    levels = [reference, *others]
    for kind, table, base in (("dp", dp, np.ones(group.size, dtype=bool)), ("eo", eo, is_q)):
        if kind == "eo" and not has_truth.any():
            continue
        # per cluster x group: candidates counted, once for all k and replicates
        members = np.column_stack([(group == g) & base for g in levels]).astype(float)
        count = members
        boot_count = weights @ count
        for k in TOP_K:
            if k >= pool_size:
                break
            chosen = members * selected_share(candidates, k)[:, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                rate = chosen.sum(axis=0) / count.sum(axis=0)
                boot = (weights @ chosen) / boot_count  # (replicates, groups)
            rb = float(rate[0])
            cells: dict[str, Metric] = {}
            for j, g in enumerate(others, start=1):
                ra = float(rate[j])
                low, high = percentile_interval(boot[:, j] - boot[:, 0], level)
                est = warn_small(
                    Estimate(
                        ra - rb,
                        low,
                        high,
                        int(members[:, j].sum()),
                        n_clusters,
                        level,
                        extra={"selected": ra, "reference_selected": rb},
                    ),
                    small,
                )
                who = "qualified " if kind == "eo" else ""
                name = label(g)
                cells[g] = Metric(
                    g,
                    f"{'Equal-opportunity' if kind == 'eo' else 'Demographic-parity'} gap at "
                    f"top-{k}: {name}",
                    est,
                    f"Taking each pool's top {k}, {pct(ra)} of {who}{name} candidates and "
                    f"{pct(rb)} of {who}{ref_label} candidates would be selected: a gap of "
                    f"{fmt(est.value, 'points')}",
                    unit="points",
                )
            table[str(k)] = cells
    return dp, eo


def _pairwise_delta(
    pairwise: pd.DataFrame,
    reference: str,
    thresholds: Thresholds,
    level: float,
    replicates: int,
    rng: np.random.Generator,
) -> dict[str, Metric]:
    """Paper's pairwise delta: share of direct A-vs-B pairs A won in both orders."""
    pairs = pair_outcomes(pairwise)
    out: dict[str, Metric] = {}
    small = thresholds.value("small_cell")
    ref_label = label(reference)
    for g in sorted(set(pairs["group_lo"]).union(pairs["group_hi"]) - {reference}):
        lo_is_g = (pairs["group_lo"] == g) & (pairs["group_hi"] == reference)
        hi_is_g = (pairs["group_hi"] == g) & (pairs["group_lo"] == reference)
        rows = (lo_is_g | hi_is_g).to_numpy()
        if not rows.any():
            continue
        part = pairs[rows]
        g_side = np.where(lo_is_g[rows], "a", "b")
        other = np.where(g_side == "a", "b", "a")
        won = ((part["choice_1"] == g_side) & (part["choice_2"] == g_side)).to_numpy(float)
        lost = ((part["choice_1"] == other) & (part["choice_2"] == other)).to_numpy(float)
        codes, n_clusters = cluster_codes(part["cluster"].to_numpy())
        weights = cluster_weights(n_clusters, replicates, rng)
        s = np.bincount(codes, weights=won, minlength=n_clusters)
        c = np.bincount(codes, minlength=n_clusters).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            low, high = percentile_interval((weights @ s) / (weights @ c), level)
        value = float(won.mean())
        est = warn_small(
            Estimate(
                value,
                low,
                high,
                int(rows.sum()),
                n_clusters,
                level,
                extra={"reverse": float(lost.mean())},
            ),
            small,
        )
        name = label(g)
        out[g] = Metric(
            g,
            f"Pairwise preference: {name} over {ref_label}",
            est,
            f"In direct comparisons, the {name} candidate was preferred in both orders in "
            f"{pct(value)} of pairs, the {ref_label} candidate in {pct(float(lost.mean()))}",
            unit="proportion",
        )
    return out
