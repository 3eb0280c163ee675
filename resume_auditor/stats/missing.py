"""Missing answers, measured and tested by group: never hidden (issue 29).

Every metric leaves out the answers it cannot use: unreadable ones, refusals,
requests that failed, and rankings or score sets read only in part. That is
harmless when the loss falls evenly on the groups an audit compares, and it
biases every fairness number when it does not. Real models do make it uneven: the
names they re-spell are not spread evenly over the groups (Bloomberg's gpt-3.5
answers lost to a strict reader were a Black or a White man's in 145 of 337), and a
content filter or a refusal can key on a name.

So, for every design, each request's status (read, partial, unreadable, refused,
failed) is counted per group shown, per presentation position and per prompt, and
one test asks whether the share lost depends on the groups a request showed:

- statistic: Pearson's chi-square of the (group x lost) table over the candidates
  shown (a request showing two groups counts once for each);
- null distribution: the requests' statuses permuted among the requests of the
  same resume (cluster) and prompt, so a resume or prompt that is hard to answer
  for every group is not taken for a group effect, and no large-sample
  approximation is needed for the few losses a good run has. Requests that all
  show the same groups (a D4 batch shows every group) cannot differ: p = 1.

The test is a `FlagTest` of the "validity" family, decided with every other flag
of the report (stats/flags.py `decide`): when it rejects, the design's fairness
numbers stand on answers the model's groups did not lose evenly, which the
report says on its first page.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from resume_auditor.stats.estimate import Estimate
from resume_auditor.stats.flags import FlagTest, p_text
from resume_auditor.stats.inputs import Column, TableSpec, validate
from resume_auditor.stats.labels import article
from resume_auditor.stats.labels import label as group_label
from resume_auditor.stats.metric import Metric, pct
from resume_auditor.stats.model import MissingDesignDict

logger = logging.getLogger(__name__)

STATUSES = ("read", "partial", "unreadable", "refused", "failed")
LOST = ("partial", "unreadable", "refused", "failed")
DRAWS = 2000  # permutations: p-values to about +-0.005 near 0.05

MISSING_ROWS = TableSpec(
    "missing",
    "missing-answers table",
    "one candidate shown in one request",
    (
        Column("request", "id", "request id: the rows of one request share it"),
        Column("design", "text", "D1, D2, D3 or D4"),
        Column("prompt", "text", "prompt preset id"),
        Column("cluster", "id", "source resume: requests of one resume share it"),
        Column("position", "int", "where the candidate was shown, 1 = first", low=1, high=1000),
        Column("group", "text", "the candidate's group (empty: blinded or none)", nullable=True),
        Column("status", "choice", "what became of the request's answer", choices=STATUSES),
    ),
)


@dataclass
class MissingResult:
    """One design's missing answers: counts, where they fell, and the test by group."""

    design: str
    requests: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    by_group: dict[str, dict[str, int]] = field(default_factory=dict)
    by_position: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    by_prompt: dict[str, dict[str, int]] = field(default_factory=dict)
    metric: Metric | None = None

    def all_metrics(self) -> list[Metric]:
        return [] if self.metric is None else [self.metric]

    @property
    def lost(self) -> int:
        return sum(self.counts.get(s, 0) for s in LOST)

    def as_dict(self) -> MissingDesignDict:
        return {
            "requests": self.requests,
            "counts": {s: self.counts.get(s, 0) for s in STATUSES},
            "lost": self.lost,
            "by_group": self.by_group,
            "by_position": self.by_position,
            "by_prompt": self.by_prompt,
            "metric": None if self.metric is None else self.metric.as_dict(),
            "flag": None if self.metric is None else (self.metric.flag or None),
        }


def _counts(statuses: pd.Series) -> dict[str, int]:
    found = statuses.value_counts()
    return {s: int(found.get(s, 0)) for s in STATUSES}


def compute_missing(
    rows: pd.DataFrame, *, rng: int | np.random.Generator = 0, draws: int = DRAWS
) -> dict[str, MissingResult]:
    """Per design: counts by status, group, position and prompt, and the test by group.

    Flags are not decided here: the caller passes every result's `all_metrics()` to
    stats.flags.decide with the rest of the report's tests.
    """
    df = validate(rows, MISSING_ROWS)
    generator = np.random.default_rng(rng)
    out: dict[str, MissingResult] = {}
    for design, part in df.groupby("design", sort=True):
        result = MissingResult(str(design))
        requests = part.drop_duplicates("request")
        result.requests = len(requests)
        result.counts = _counts(requests["status"])
        grouped = part[part["group"].notna() & (part["group"].astype(str) != "")]
        for g, slots in grouped.groupby("group", sort=True):
            result.by_group[str(g)] = _counts(slots.drop_duplicates("request")["status"])
        for pos, slots in grouped.groupby("position", sort=True):
            result.by_position[str(int(pos))] = {
                str(g): _counts(s["status"]) for g, s in slots.groupby("group", sort=True)
            }
        for prompt, reqs in requests.groupby("prompt", sort=True):
            result.by_prompt[str(prompt)] = _counts(reqs["status"])
        result.metric = _metric(result, grouped, generator, draws)
        out[result.design] = result
    return out


def _metric(
    result: MissingResult, grouped: pd.DataFrame, rng: np.random.Generator, draws: int
) -> Metric:
    """The spread of the share lost between groups, with its permutation test."""
    shares = {
        g: sum(c[s] for s in LOST) / max(1, sum(c.values())) for g, c in result.by_group.items()
    }
    design = result.design
    title = f"{design}: answers lost, by group"
    if len(shares) < 2:
        est = Estimate(None, None, None, result.requests, 0, note="fewer than two groups shown")
        return Metric(f"missing.{design}", title, est, "", unit="points")
    high = max(shares, key=lambda g: shares[g])
    low = min(shares, key=lambda g: shares[g])
    p = permutation_p(grouped, rng, draws) if result.lost else None
    note = "" if result.lost else "no answer was lost"
    clusters = int(grouped["cluster"].nunique())
    spread = shares[high] - shares[low]
    est = Estimate(spread, None, None, result.requests, clusters, p=p, note=note)
    parts = [f"{result.counts.get(s, 0)} {s}" for s in LOST if result.counts.get(s, 0)]
    most, least = group_label(high), group_label(low)
    reading = (
        f"{result.lost} of {result.requests} {design} answers were lost"
        + (f" ({', '.join(parts)})" if parts else "")
        + f"; the share lost was {pct(shares[high])} for answers showing {article(most)} "
        f"{most} candidate and {pct(shares[low])} for {least}"
    )

    def text(p_adj: float, size: int) -> str:
        return (
            f"{design}: answers were lost unevenly by group: {pct(shares[high])} of the answers "
            f"showing {article(most)} {most} candidate could not be used, against "
            f"{pct(shares[low])} for {least} ({p_text(p_adj)} after Holm across "
            f"{size} validity tests). {design}'s fairness numbers leave these answers out and "
            "may be biased by it."
        )

    test = FlagTest("validity", f"missing.{design}", p, text, crossed=spread > 0)
    return Metric(f"missing.{design}", title, est, reading, unit="points", test=test)


def permutation_p(grouped: pd.DataFrame, rng: np.random.Generator, draws: int) -> float | None:
    """p of "a request's chance of being lost does not depend on the groups it shows".

    Pearson's chi-square of the (group x lost) table over the shown candidates; the
    requests' lost/kept statuses permuted within (cluster, prompt) strata.
    """
    reqs = grouped.drop_duplicates("request").reset_index(drop=True)
    index = {r: i for i, r in enumerate(reqs["request"].tolist())}
    groups = sorted({str(g) for g in grouped["group"]})
    gindex = {g: j for j, g in enumerate(groups)}
    shown = np.zeros((len(reqs), len(groups)))
    for r, g in zip(grouped["request"], grouped["group"], strict=True):
        shown[index[r], gindex[str(g)]] += 1
    lost = reqs["status"].isin(LOST).to_numpy(float)
    if lost.sum() in (0, len(lost)):
        return None
    strata = pd.factorize(reqs["cluster"].astype(str) + "\x00" + reqs["prompt"].astype(str))[0]
    observed = _chi2(lost[None, :], shown)[0]
    # Only strata holding both lost and kept requests change under permutation.
    per = np.bincount(strata, weights=lost)
    size = np.bincount(strata)
    mixed = np.flatnonzero((per > 0) & (per < size))
    moving = np.isin(strata, mixed)
    fixed_lost = lost * ~moving
    idx = np.flatnonzero(moving)
    sub_strata, sub_lost = strata[idx], lost[idx]
    base = np.argsort(sub_strata, kind="stable")
    exceed, done = 0, 0
    while done < draws:
        batch = min(250, draws - done)
        # Sorting by (stratum, random) and putting the statuses back in stratum order
        # shuffles them within each stratum.
        keys = sub_strata[None, :] * 2.0 + rng.random((batch, idx.size))
        order = np.argsort(keys, axis=1)
        permuted = np.tile(fixed_lost, (batch, 1))
        permuted[:, idx[base]] = sub_lost[order]
        exceed += int(np.sum(_chi2(permuted, shown) >= observed - 1e-9))
        done += batch
    return (1 + exceed) / (1 + draws)


def _chi2(lost: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """Pearson's chi-square of the group x (lost, kept) table, one per row of `lost`."""
    totals = shown.sum(axis=0)
    lost_by_group = lost @ shown
    share = lost_by_group.sum(axis=1, keepdims=True) / max(1.0, float(totals.sum()))
    expected_lost = share * totals
    expected_kept = (1 - share) * totals
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(expected_lost > 0, (lost_by_group - expected_lost) ** 2 / expected_lost, 0.0)
        kept = totals - lost_by_group
        b = np.where(expected_kept > 0, (kept - expected_kept) ** 2 / expected_kept, 0.0)
    return np.asarray(a.sum(axis=1) + b.sum(axis=1))


def status_of(label: Any, parsed: Mapping[str, Any] | None, *, failed: bool = False) -> str:
    """A stored answer's status: failed, refused, unreadable, partial or read."""
    if failed:
        return "failed"
    if label == "invalid" or label is None:
        return "refused" if (parsed or {}).get("refused") else "unreadable"
    return "partial" if label == "partial" else "read"
