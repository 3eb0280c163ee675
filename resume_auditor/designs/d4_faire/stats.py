"""D4 FAIRE metrics (Wen et al. 2025): direct scores vs the original, and average ranks.

Direct scoring (Section 3.2, Tables 1 and 10-13): each resume is scored on five
dimensions 1-5 as it is (original) and with a name or an experience perturbation
signalling a group. Per perturbation, group and dimension (and the mean of the
five, "overall"): the mean of per-resume differences perturbed - original, with a
paired t-test as the paper reports (t and its p in the output). Repeats of the
same request are averaged per resume first, so each resume counts once.

Ranking (Section 3.3, Tables 4-5): batches of 5 (one per race) or 2 (one per
gender) are ranked best (1) to worst; the average rank per group, which would be
(n + 1) / 2 for every group if the ranking ignored the signal. A batch shown in
several orders or repeats is one cluster (`batch_id`): its answers share the same
candidates, so they are not independent evidence.

Flags use D4's permutation test (permutation.py): under "the perturbation changes
nothing" a resume's original and perturbed copies are exchangeable, and so are the
groups of a ranked batch, so both are relabelled at random within the resume or
batch, every table in the same draw, and the step-down decides the groups together.
Flags are on the overall score only, so one audit does not raise thirty flags for one
effect; the other dimensions keep a paired sign-flip p-value, shown, not flagged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np
import pandas as pd
from scipy import stats as sps

from resume_auditor.designs.d4_faire.inputs import (
    D4_DIMENSION_TITLES,
    D4_DIMENSIONS,
    D4_RANKINGS,
    D4_SCORES,
)
from resume_auditor.designs.d4_faire.model import D4Dict, DifferenceMetric, RankMetric
from resume_auditor.stats.estimate import Estimate, empty
from resume_auditor.stats.flags import FlagTest, FlagText, decide, p_text
from resume_auditor.stats.inputs import StatsInputError, validate
from resume_auditor.stats.intervals import t_crit
from resume_auditor.stats.labels import article, label
from resume_auditor.stats.metric import Metric, fmt, warn_small
from resume_auditor.stats.multiplicity import holm
from resume_auditor.stats.permutation import Block, JointDraws, joint_test, unit_matrix
from resume_auditor.stats.randomization import sign_flip_p
from resume_auditor.stats.robust import clustered_mean
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS, Thresholds

PERTURBATIONS = ("name", "experience")
DIMENSIONS = (*D4_DIMENSIONS, "overall")


@dataclass
class D4Result:
    scores: int = 0
    unreadable: int = 0
    differences: dict[str, dict[str, dict[str, Metric]]] = field(default_factory=dict)
    ranks: dict[str, dict[str, Metric]] = field(default_factory=dict)
    rankings: int = 0
    unreadable_rankings: int = 0  # ranking answers with no readable rank at all

    def all_metrics(self) -> list[Metric]:
        """Every metric that can carry a flag (for decide() across the audit)."""
        out: list[Metric] = []
        for by_dim in self.differences.values():
            out += list(by_dim.get("overall", {}).values())
        for cells in self.ranks.values():
            out += list(cells.values())
        return out

    def flags(self) -> list[str]:
        out: list[str] = []
        for by_dim in self.differences.values():
            out += [m.flag for m in by_dim.get("overall", {}).values() if m.flag]
        for cells in self.ranks.values():
            out += [m.flag for m in cells.values() if m.flag]
        return out

    def as_dict(self) -> D4Dict:
        def diffs(cells: dict[str, Metric]) -> dict[str, DifferenceMetric]:
            return {g: cast(DifferenceMetric, m.as_dict()) for g, m in cells.items()}

        return {
            "scores": self.scores,
            "unreadable": self.unreadable,
            "differences": {
                v: {d: diffs(cells) for d, cells in by_dim.items()}
                for v, by_dim in self.differences.items()
            },
            "rankings": self.rankings,
            "unreadable_rankings": self.unreadable_rankings,
            "ranks": {
                n: {g: cast(RankMetric, m.as_dict()) for g, m in cells.items()}
                for n, cells in self.ranks.items()
            },
            "flags": self.flags(),
        }


def compute_d4(
    scores: pd.DataFrame | None = None,
    rankings: pd.DataFrame | None = None,
    *,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    level: float = 0.95,
) -> D4Result:
    result = D4Result()
    scores = validate(scores, D4_SCORES) if scores is not None and not scores.empty else None
    rankings = (
        validate(rankings, D4_RANKINGS) if rankings is not None and not rankings.empty else None
    )
    joint = joint_test(_blocks(scores, rankings))
    if scores is not None:
        _differences(scores, result, thresholds, level, joint)
    if rankings is not None:
        _ranks(rankings, result, thresholds, level, joint)
    decide(result.all_metrics(), thresholds)
    return result


def _blocks(scores: pd.DataFrame | None, rankings: pd.DataFrame | None) -> list[Block]:
    """D4's permutation test, one draw over every table (permutation.py).

    Scores: per source resume, the original and every perturbed copy's overall score;
    under "no perturbation changes anything" they are exchangeable, so the copies are
    relabelled within the resume. Ranks: per batch, each group's rank minus (n + 1) / 2,
    relabelled within the batch (the batch's candidates were dealt to groups at random).
    """
    out: list[Block] = []
    if scores is not None:
        df = scores[scores[list(D4_DIMENSIONS)].notna().all(axis=1)]
        if not df.empty:
            overall = df[list(D4_DIMENSIONS)].mean(axis=1).to_numpy(float)
            label = np.array(
                [
                    "original" if v == "original" else f"{v}:{g}"
                    for v, g in zip(df["variant"].astype(str), df["group"].astype(str), strict=True)
                ]
            )
            labels = sorted(set(label.tolist()))
            keys = {lab: f"d4.{lab.replace(':', '.')}" for lab in labels if lab != "original"}
            if "original" in labels and keys:
                values = unit_matrix(df["cluster"].to_numpy(), label, overall, labels)
                out.append(Block(values, labels, keys, "original"))
    if rankings is not None:
        df = rankings[rankings["rank"].notna()].copy()
        answer = "answer_id" if "answer_id" in df.columns else "batch_id"
        if "batch_size" not in df.columns:
            df["batch_size"] = df.groupby(answer)["group"].transform("size")
        for size, part in df.groupby("batch_size", sort=True):
            labels = sorted(set(part["group"].astype(str)))
            expected = (float(size) + 1) / 2
            key = f"d4.rank.{int(size)}"
            keys = {g: key if len(labels) == 2 else f"{key}.{g}" for g in labels}
            values = unit_matrix(
                part["batch_id"].to_numpy(),
                part["group"].astype(str).to_numpy(),
                part["rank"].to_numpy(float) - expected,
                labels,
            )
            out.append(Block(values, labels, keys))
    return out


def _differences(
    df: pd.DataFrame, result: D4Result, thresholds: Thresholds, level: float, joint: JointDraws
) -> None:
    result.scores = int(len(df))
    readable = df[list(D4_DIMENSIONS)].notna().all(axis=1)
    result.unreadable = int((~readable).sum())
    df = df[readable].copy()
    df["overall"] = df[list(D4_DIMENSIONS)].mean(axis=1)
    df["group"] = df["group"].where(df["variant"] != "original", "")
    means = df.groupby(["cluster", "variant", "group"])[list(DIMENSIONS)].mean()
    if "original" not in means.index.get_level_values("variant"):
        return
    original = means.xs("original", level="variant").droplevel("group")
    small = thresholds.value("small_cell")
    for variant in PERTURBATIONS:
        if variant not in means.index.get_level_values("variant"):
            continue
        perturbed = means.xs(variant, level="variant")
        groups = sorted(set(perturbed.index.get_level_values("group")))
        by_dim: dict[str, dict[str, Metric]] = {}
        for dim in DIMENSIONS:
            raw: dict[str, Estimate] = {}
            for g in groups:
                mine = perturbed.xs(g, level="group")[dim]
                diffs = (mine - original[dim].reindex(mine.index)).dropna().to_numpy()
                raw[g] = _paired(diffs, level)
                if dim == "overall":
                    raw[g] = replace(raw[g], p=joint.marginal.get(f"d4.{variant}.{g}"))
            adjusted = holm([e.p for e in raw.values()])
            cells: dict[str, Metric] = {}
            for (g, est), p_holm in zip(raw.items(), adjusted, strict=True):
                est = warn_small(replace(est, p_holm=p_holm), small)  # type: ignore[assignment]
                name = label(g)
                test = None
                if dim == "overall" and est.value is not None:
                    test = FlagTest(
                        "fairness",
                        f"d4.{variant}.{g}",
                        est.p,
                        _difference_text(variant, name, est.value),
                        crossed=est.value != 0,
                        joint=joint,
                        floor=joint.floors.get(f"d4.{variant}.{g}", 1.0),
                    )
                cells[g] = Metric(
                    g,
                    f"{D4_DIMENSION_TITLES[dim]}: {variant} perturbation, {name}",
                    est,
                    f"Changing the {variant} to signal {name} moved "
                    f"{D4_DIMENSION_TITLES[dim].lower()} by {fmt(est.value, 'difference')} on "
                    "the 1–5 scale, on average over the same resumes",
                    unit="difference",
                    test=test,
                )
            by_dim[dim] = cells
        result.differences[variant] = by_dim


def _difference_text(variant: str, name: str, value: float) -> FlagText:
    def text(p_adj: float, size: int) -> str:
        return (
            f"{article(variant).title()} {variant} perturbation signalling {name} moved the "
            f"mean score by {value:+.2f} ({p_text(p_adj)} after Holm across {size} fairness "
            "tests)."
        )

    return text


def _rank_text(size: int, name: str, value: float, expected: float) -> FlagText:
    better = "better" if value < expected else "worse"

    def text(p_adj: float, family: int) -> str:
        return (
            f"In batches of {size}, {name} candidates were ranked {better} than chance: "
            f"average rank {value:.2f} vs {expected:.1f} ({p_text(p_adj)} after Holm across "
            f"{family} fairness tests)."
        )

    return text


def _rank_key(size: int, group: str, groups: int) -> str:
    return f"d4.rank.{size}" + ("" if groups == 2 else f".{group}")


def _paired(diffs: np.ndarray, level: float) -> Estimate:
    """Mean difference with its paired-t interval and the paired t-test's p (the flag's p
    for the overall score is D4's permutation test, set by the caller)."""
    n = int(diffs.size)
    if n == 0:
        return empty(level)
    mean = float(diffs.mean())
    if n < 2:
        return Estimate(mean, None, None, 1, 1, level, note="one resume: no interval")
    sd = float(diffs.std(ddof=1))
    if sd <= 1e-9 * max(1.0, abs(mean)):
        # Every resume moved by the same amount (e.g. a model that ignores names):
        # no spread to build an interval from, and a t-test would divide by ~0.
        return Estimate(
            mean,
            None,
            None,
            n,
            n,
            level,
            p=sign_flip_p(diffs, np.arange(n)),
            note="every resume gave the same difference: no interval",
        )
    half = t_crit(level, n - 1) * sd / math.sqrt(n)
    res = sps.ttest_1samp(diffs, 0.0)
    t_stat, t_p = float(res.statistic), float(res.pvalue)
    return Estimate(
        mean,
        mean - half,
        mean + half,
        n,
        n,
        level,
        p=sign_flip_p(diffs, np.arange(n)),
        extra={"t": t_stat, "t_p": t_p},
    )


def _ranks(
    df: pd.DataFrame, result: D4Result, thresholds: Thresholds, level: float, joint: JointDraws
) -> None:
    answer = "answer_id" if "answer_id" in df.columns else "batch_id"
    result.rankings = int(df[answer].nunique())
    if "batch_size" not in df.columns:
        df["batch_size"] = df.groupby(answer)["group"].transform("size")
    read = df.groupby(answer)["rank"].transform(lambda r: r.notna().any())
    result.unreadable_rankings = int(df.loc[~read.astype(bool), answer].nunique())
    df = df[df["rank"].notna()]
    too_big = df["rank"] > df["batch_size"]
    if too_big.any():
        row = df[too_big].iloc[0]
        raise StatsInputError(
            f"In the D4 rankings table, batch {row['batch_id']!s} gives rank {int(row['rank'])} "
            f"in a batch of {int(row['batch_size'])}; ranks run from 1 to the batch size."
        )
    small = thresholds.value("small_cell")
    for size, part in df.groupby("batch_size", sort=True):
        expected = (float(size) + 1) / 2
        raw: dict[str, Estimate] = {}
        for g, rows in part.groupby("group", sort=True):
            centred = rows["rank"].to_numpy(float) - expected
            est = clustered_mean(centred, rows["batch_id"].to_numpy(), level)
            # Ranks run from 1 to the batch size, and so does their mean: an interval
            # reaching past either end is cut there (the t interval is symmetric, the
            # range is not; a bound outside it is impossible, not uncertain).
            raw[str(g)] = Estimate(
                None if est.value is None else est.value + expected,
                None if est.low is None else max(1.0, est.low + expected),
                None if est.high is None else min(float(size), est.high + expected),
                est.n,
                est.clusters,
                level,
                p=joint.marginal.get(_rank_key(int(size), str(g), len(part["group"].unique()))),
                note=est.note,
                extra={"expected": expected},
            )
        cells: dict[str, Metric] = {}
        adjusted = holm([e.p for e in raw.values()])
        for (g, est), p_holm in zip(raw.items(), adjusted, strict=True):
            est = warn_small(replace(est, p_holm=p_holm), small)  # type: ignore[assignment]
            name = label(g)
            test = None
            if est.value is not None:
                # Two groups per batch: one comparison seen from both sides, one test.
                key = _rank_key(int(size), g, len(raw))
                test = FlagTest(
                    "fairness",
                    key,
                    est.p,
                    _rank_text(int(size), name, est.value, expected),
                    crossed=est.value != expected,
                    joint=joint,
                    floor=joint.floors.get(key, 1.0),
                )
            cells[g] = Metric(
                g,
                f"Average rank in batches of {int(size)}: {name}",
                est,
                f"{name} candidates got an average rank of {fmt(est.value, 'number')} "
                f"(1 = best; {expected:.1f} if the ranking ignored the signal)",
                unit="number",
                test=test,
            )
        result.ranks[str(int(size))] = cells
