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

A D4 batch shows every group, so a ranking lost whole loses every group alike. A
ranking read only in part does not: cut short ("3. ..."), or stopped at an unknown or
repeated name, it leaves *some* candidates unranked, and which ones can depend on
their group (a model that passes over one group's candidates). Such rankings are
left out of D4's average ranks, so the answers dropped are those in which the model
treated some groups differently. For every read ranking (whole or in part) each
candidate shown is ranked or left out (the one candidate a list read to its end
leaves out is placed last by the reader, `inferred`, and counts as ranked: D4's
ranks use it); the second test asks whether the share left out depends on the
group:

- statistic: Pearson's chi-square of the (group x left out) table over the
  candidates shown in read rankings;
- null distribution: the groups relabelled at random among the candidates of each
  batch, the same relabelling for every order and repeat of the batch (the batch's
  candidates were dealt to groups at random, so under "the group does not matter"
  the labels are exchangeable; a candidate the model skips for its text, in every
  order, stays one candidate).

Both tests feed the design's missing-answers flag.

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
from resume_auditor.stats.model import MissingDesignDict, UnrankedDict

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
        Column("design", "text", "the test case's design label (test_case.design)"),
        Column("prompt", "text", "prompt preset id"),
        Column("cluster", "id", "source resume: requests of one resume share it"),
        Column("position", "int", "where the candidate was shown, 1 = first", low=1, high=1000),
        Column("group", "text", "the candidate's group (empty: blinded or none)", nullable=True),
        Column("status", "choice", "what became of the request's answer", choices=STATUSES),
        Column(
            "candidate",
            "id",
            "the candidate shown (its variant): rows of one candidate in every order and "
            "repeat of its batch share it",
            required=False,
            nullable=True,
        ),
        Column(
            "unranked",
            "bool",
            "in a ranking read whole or in part: true when this candidate was left out of "
            "it; empty for every other answer",
            required=False,
            nullable=True,
        ),
    ),
)


@dataclass
class UnrankedResult:
    """Candidates left out of the rankings read in part, by group and position."""

    rankings: int = 0  # rankings read, whole or in part
    partial: int = 0  # of them, read in part
    by_group: dict[str, dict[str, int]] = field(default_factory=dict)
    by_position: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    metric: Metric | None = None

    def as_dict(self) -> UnrankedDict:
        return {
            "rankings": self.rankings,
            "partial": self.partial,
            "by_group": self.by_group,
            "by_position": self.by_position,
            "metric": None if self.metric is None else self.metric.as_dict(),
            "flag": None if self.metric is None else (self.metric.flag or None),
        }


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
    unranked: UnrankedResult | None = None

    def all_metrics(self) -> list[Metric]:
        found = [self.metric] if self.metric is not None else []
        if self.unranked is not None and self.unranked.metric is not None:
            found.append(self.unranked.metric)
        return found

    @property
    def flag(self) -> str:
        """Every missing-answer flag of the design, in one text ('' when none)."""
        return " ".join(m.flag for m in self.all_metrics() if m.flag)

    @property
    def lost(self) -> int:
        return sum(self.counts.get(s, 0) for s in LOST)

    def as_dict(self) -> MissingDesignDict:
        out: MissingDesignDict = {
            "requests": self.requests,
            "counts": {s: self.counts.get(s, 0) for s in STATUSES},
            "lost": self.lost,
            "by_group": self.by_group,
            "by_position": self.by_position,
            "by_prompt": self.by_prompt,
            "metric": None if self.metric is None else self.metric.as_dict(),
            "flag": self.flag or None,
        }
        if self.unranked is not None:
            out["unranked"] = self.unranked.as_dict()
        return out


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
        if "unranked" in grouped and grouped["unranked"].notna().any():
            read = grouped[grouped["unranked"].notna()]
            result.unranked = _unranked(result.design, read, generator, draws)
        out[result.design] = result
    return out


def _left(slots: pd.DataFrame) -> dict[str, int]:
    left = int(slots["unranked"].astype(bool).sum())
    return {"shown": len(slots), "left_out": left}


def _unranked(
    design: str, read: pd.DataFrame, rng: np.random.Generator, draws: int
) -> UnrankedResult:
    """Who was left out of the rankings read in part, and the test by group."""
    result = UnrankedResult()
    flags = read.groupby("request", sort=False)["unranked"].apply(lambda s: bool(s.any()))
    result.rankings = len(flags)
    result.partial = int(flags.sum())
    for g, slots in read.groupby("group", sort=True):
        result.by_group[str(g)] = _left(slots)
    for pos, slots in read.groupby("position", sort=True):
        result.by_position[str(int(pos))] = {
            str(g): _left(s) for g, s in slots.groupby("group", sort=True)
        }
    shares = {g: c["left_out"] / max(1, c["shown"]) for g, c in result.by_group.items()}
    title = f"{design}: candidates left out of rankings read in part, by group"
    key = f"missing.{design}.unranked"
    clusters = int(read["cluster"].nunique())
    if len(shares) < 2:
        est = Estimate(None, None, None, result.rankings, clusters, note="fewer than two groups")
        result.metric = Metric(key, title, est, "", unit="points")
        return result
    high = max(shares, key=lambda g: shares[g])
    low = min(shares, key=lambda g: shares[g])
    left = sum(c["left_out"] for c in result.by_group.values())
    p = unranked_p(read, rng, draws) if left else None
    spread = shares[high] - shares[low]
    note = "" if left else "no candidate was left out of a read ranking"
    est = Estimate(spread, None, None, result.rankings, clusters, p=p, note=note)
    most, least = group_label(high), group_label(low)
    reading = (
        f"{result.partial} of {result.rankings} {design} rankings read were read only in part, "
        f"leaving {left} candidate(s) unranked; {article(most)} {most} candidate was left out "
        f"in {pct(shares[high])} of its places in read rankings, {article(least)} {least} "
        f"candidate in {pct(shares[low])}"
    )

    def text(p_adj: float, size: int) -> str:
        return (
            f"{design}: rankings read only in part left some groups out more than others: "
            f"{article(most)} {most} candidate was left unranked in {pct(shares[high])} of its "
            f"places in read rankings, against {pct(shares[low])} for {least} "
            f"({p_text(p_adj)} after Holm across {size} validity tests). {design}'s average "
            "ranks leave these rankings out, so they drop the answers in which the model "
            "passed over some groups, and may be biased by it."
        )

    test = FlagTest("validity", key, p, text, crossed=spread > 0)
    result.metric = Metric(key, title, est, reading, unit="points", test=test)
    return result


def unranked_p(read: pd.DataFrame, rng: np.random.Generator, draws: int) -> float | None:
    """p of "whether a candidate is left out of a read ranking does not depend on its group".

    Pearson's chi-square of the (group x left out) table over the candidates shown in
    read rankings; the groups relabelled among each batch's candidates (one
    relabelling per batch and draw, shared by every order and repeat of the batch).
    """
    if "candidate" in read and read["candidate"].notna().all():
        who = read["candidate"].astype(str)
    else:  # no candidate ids: each place in each request is its own candidate
        who = read["request"].astype(str) + "\x00" + read["position"].astype(str)
    key = read["cluster"].astype(str) + "\x00" + who
    cand_codes, cands = pd.factorize(key)
    first = pd.Series(range(len(read))).groupby(cand_codes).first().to_numpy()
    groups = sorted({str(g) for g in read["group"]})
    gindex = {g: j for j, g in enumerate(groups)}
    slot_group = np.array([gindex[str(g)] for g in read["group"]])
    cand_group = slot_group[first]
    cand_cluster = pd.factorize(read["cluster"].astype(str).to_numpy()[first])[0]
    left = read["unranked"].astype(bool).to_numpy(float)
    if left.sum() in (0, len(left)):
        return None
    size = len(groups)
    observed = _chi2_slots(left, slot_group[None, :], size)[0]
    base = np.argsort(cand_cluster, kind="stable")
    exceed, done = 0, 0
    while done < draws:
        batch = min(250, draws - done)
        keys = cand_cluster[base][None, :] * 2.0 + rng.random((batch, len(cands)))
        order = np.argsort(keys, axis=1)
        relabelled = np.empty((batch, len(cands)), dtype=int)
        relabelled[:, base] = cand_group[base][order]
        stat = _chi2_slots(left, relabelled[:, cand_codes], size)
        exceed += int(np.sum(stat >= observed - 1e-9))
        done += batch
    return (1 + exceed) / (1 + draws)


def _chi2_slots(left: np.ndarray, slot_groups: np.ndarray, size: int) -> np.ndarray:
    """Pearson's chi-square of group x (left out, ranked), one per row of `slot_groups`
    (each row gives every slot's group under one relabelling)."""
    rows = slot_groups.shape[0]
    flat = (slot_groups + size * np.arange(rows)[:, None]).ravel()
    totals = np.bincount(flat, minlength=rows * size).reshape(rows, size).astype(float)
    weights = np.tile(left, rows)
    lost = np.bincount(flat, weights=weights, minlength=rows * size).reshape(rows, size)
    lost_by_group = np.asarray(lost, dtype=float)
    shown = totals
    share = left.sum() / max(1.0, float(left.size))
    expected_lost = share * shown
    expected_kept = (1 - share) * shown
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(expected_lost > 0, (lost_by_group - expected_lost) ** 2 / expected_lost, 0.0)
        kept = shown - lost_by_group
        b = np.where(expected_kept > 0, (kept - expected_kept) ** 2 / expected_kept, 0.0)
    return np.asarray(a.sum(axis=1) + b.sum(axis=1))


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
