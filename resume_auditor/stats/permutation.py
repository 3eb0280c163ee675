"""One permutation test per design: relabel the groups within each unit, take the largest t.

Why: a sign-flip test of one group against another, over source resumes, cannot give
a p-value under 2 / 2^G for G resumes, and a resume whose two copies got the same
integer rating (a tie) drops out of it. With ten resumes, one tie and the share of
the false-alarm rate one of several tests gets, the flag was impossible however large
the bias (issue 25). The evidence is there, though: each source resume (D2, D4), ranked
batch (D4) or pool (D3) carries one copy per group, and under "the group changes
nothing" the copies' answers are exchangeable, so relabelling the groups *within*
each unit at random is an equally likely outcome of the experiment (Fisher's
randomization test over the larger exchangeable unit; for D1, the net wins of each
group within a resume's cross-group pairs). That gives (k!)^G arrangements instead of
2^G.

The statistic of each group is a one-sample t over the units (a group's value minus
the reference's, or its centred value), so units of different spread weigh alike and
the test stays close to valid for the weak null too (a studentized permutation test,
Chung & Romano 2013). A design's tests are read together through the largest |t|
(Westfall & Young 1993, step-down maxT): the first step is the design's omnibus test
"no group differs", and it gates the per-group tests, whose adjusted p-values never
fall below it. Every table of a design is relabelled in the same draw, each unit
independently, so one maximum covers a design's tables at once.

Random relabellings are drawn from a fixed seed (the same data give the same p);
p = (1 + draws at least as extreme) / (1 + draws), valid for any number of draws.
`floor` is the smallest p the data allow (how often relabelling reaches its most
extreme value: few units and ties make that common), and a test whose floor is above
its share of the false-alarm rate cannot fire and is reported as not tested
(flags.decide).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import numpy as np

logger = logging.getLogger(__name__)

DRAWS = 9999
LARGE_DRAWS = 2999  # beyond LARGE_CELLS answers a draw costs more and p needs less resolution
LARGE_CELLS = 1000
SEED = 20250425
_CHUNK_CELLS = 4_000_000  # draws x units x labels held at once


@dataclass
class Block:
    """One table of a design: `values[u, j]` is unit u's answer for label j (NaN: none).

    With `reference`, test `keys[j]` is label j minus the reference label, per unit;
    without, label j's own value (already centred on its null value, as D1's net wins
    or D4's ranks minus (n + 1) / 2). `keys` maps a label to its test's key; labels
    without a key are still relabelled (they are part of the unit's copies).
    """

    values: np.ndarray
    labels: list[str]
    keys: dict[str, str]
    reference: str | None = None


@dataclass
class JointDraws:
    """Observed and relabelled t of every test of one design, for the step-down."""

    blocks: list[Block] = field(default_factory=list)  # the data, for power from them
    observed: dict[str, float] = field(default_factory=dict)
    draws: dict[str, np.ndarray] = field(default_factory=dict)  # key -> |t| per draw
    floors: dict[str, float] = field(default_factory=dict)
    marginal: dict[str, float] = field(default_factory=dict)

    def step_down(self, keys: list[str]) -> dict[str, float]:
        """Westfall-Young step-down maxT adjusted p-values of `keys` (NaN tests left out)."""
        live = list(
            dict.fromkeys(k for k in keys if not math.isnan(self.observed.get(k, math.nan)))
        )
        if not live:
            return {}
        order = sorted(live, key=lambda k: -self.observed[k])
        stack = np.column_stack([self.draws[k] for k in order])
        # successive maxima from the least extreme upwards: step j's max is over order[j:]
        tail_max = np.maximum.accumulate(stack[:, ::-1], axis=1)[:, ::-1]
        n = stack.shape[0]
        out: dict[str, float] = {}
        running = 0.0
        for j, k in enumerate(order):
            t = self.observed[k]
            hits = int(np.sum(tail_max[:, j] >= _tolerant(t)))
            running = max(running, (1 + hits) / (1 + n))
            out[k] = min(1.0, running)
        return out


def _tolerant(t: float) -> float:
    return t * (1 - 1e-9) if math.isfinite(t) else t


def _t_stats(contrast: np.ndarray) -> np.ndarray:
    """|one-sample t| over axis -2 (units) of `contrast` (..., units, tests), NaN-aware.

    No spread and a mean off zero is infinitely extreme; no spread at zero is 0; fewer
    than two units is NaN (no test).
    """
    ok = ~np.isnan(contrast)
    n = ok.sum(axis=-2)
    x = np.where(ok, contrast, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x.sum(axis=-2) / n
        dev = np.where(ok, contrast - mean[..., None, :], 0.0)
        var = (dev**2).sum(axis=-2) / (n - 1)
        scale = var / n
        spread = scale > 1e-20 * np.maximum(1.0, mean**2)
        t = np.where(spread, np.abs(mean) / np.sqrt(np.where(spread, scale, 1.0)), 0.0)
        t = np.where(~spread & (np.abs(mean) > 1e-12), np.inf, t)
    return np.where(n >= 2, t, np.nan)


def _contrast(values: np.ndarray, block: Block, cols: list[int], ref: int | None) -> np.ndarray:
    picked = np.asarray(values[..., cols], dtype=float)
    return picked if ref is None else picked - np.asarray(values[..., [ref]], dtype=float)


def _floor(t_draws: np.ndarray, draws: int) -> float:
    """The smallest p the block's largest |t| can give: how often relabelling reaches the
    most extreme value it ever reaches (ties and few units make that common), and
    never below 1 / (draws + 1)."""
    if t_draws.size == 0:
        return 1.0
    top = np.where(np.isnan(t_draws), 0.0, t_draws).max(axis=1)
    most = float(top.max())
    return max(1.0 / (1 + draws), float(np.mean(top >= _tolerant(most))))


def joint_test(blocks: list[Block], draws: int | None = None, seed: int = SEED) -> JointDraws:
    """Relabel every block's units at random `draws` times; t of every keyed test.

    By default DRAWS, or LARGE_DRAWS for large tables (resolution 1 / 3,000, still
    far below the smallest share of alpha a design's test gets, 0.05 / 4 x 0.8).
    """
    if draws is None:
        cells = sum(int(np.asarray(b.values).size) for b in blocks)
        draws = DRAWS if cells <= LARGE_CELLS else LARGE_DRAWS
    out = JointDraws(blocks=list(blocks))
    rng = np.random.default_rng(seed)
    for block in blocks:
        values = np.asarray(block.values, dtype=float)
        if values.ndim != 2 or values.shape[0] == 0:
            continue
        units, width = values.shape
        ref = block.labels.index(block.reference) if block.reference is not None else None
        tested = [(j, block.keys[lab]) for j, lab in enumerate(block.labels) if lab in block.keys]
        if ref is not None:
            tested = [(j, k) for j, k in tested if j != ref]
        if not tested:
            continue
        cols = [j for j, _ in tested]
        observed = _t_stats(_contrast(values, block, cols, ref))
        per_chunk = max(1, _CHUNK_CELLS // max(units * width, 1))
        stats = []
        done = 0
        while done < draws:
            b = min(per_chunk, draws - done)
            order = np.argsort(rng.random((b, units, width)), axis=2)
            shuffled = np.take_along_axis(np.broadcast_to(values, (b, units, width)), order, 2)
            stats.append(_t_stats(_contrast(shuffled, block, cols, ref)))
            done += b
        t_draws = np.concatenate(stats, axis=0) if stats else np.empty((0, len(cols)))
        floor = _floor(t_draws, draws)
        for i, (_, key) in enumerate(tested):
            t = float(observed[i])
            col = np.where(np.isnan(t_draws[:, i]), 0.0, t_draws[:, i])
            out.observed[key] = t
            out.draws[key] = col
            out.floors[key] = floor
            if math.isfinite(t) or t == math.inf:
                out.marginal[key] = (1 + int(np.sum(col >= _tolerant(t)))) / (1 + draws)
    return out


def unit_matrix(
    unit: np.ndarray,
    label: np.ndarray,
    value: np.ndarray,
    labels: list[str],
    *,
    total: bool = False,
) -> np.ndarray:
    """(units, labels) matrix of the mean (or `total`) of each unit's rows per label (NaN: none)."""
    units, codes = np.unique(np.asarray(unit).astype(str), return_inverse=True)
    lab_index = {g: j for j, g in enumerate(labels)}
    lab = np.array([lab_index.get(str(x), -1) for x in label])
    keep = (lab >= 0) & ~np.isnan(np.asarray(value, dtype=float))
    sums = np.zeros((units.size, len(labels)))
    count = np.zeros((units.size, len(labels)))
    np.add.at(sums, (codes[keep], lab[keep]), np.asarray(value, dtype=float)[keep])
    np.add.at(count, (codes[keep], lab[keep]), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, sums if total else sums / count, np.nan)
