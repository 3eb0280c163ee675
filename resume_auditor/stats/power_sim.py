"""Power by simulation through the tests the report runs, and the size that reaches 80%.

Why: the normal approximation in power.py ignored the test actually run (a sign-flip
test with a p-value floor, then Holm), so the plan promised power the report could
not deliver (issue 25: "D2 finds 1.19 SD with 80% power", measured 0 of 20 at 1.46
SD). Here each design's data are simulated at a given size with one group shifted
by a chosen effect, and the report's own test is run on them: the design's
permutation test (permutation.py) with its step-down, compared with the share of the
false-alarm rate that design's group tests get in the report (flags.decide's weights
before any share is passed on, so the figure is "at least"). Power is the share of
simulated audits that flag the shifted group.

What is simulated (stated wherever the figures are shown):
Each figure is from SIMS simulated audits (a standard error of about 3 points near
80%).

- D1: per source resume, each comparison of the shifted group with an equally
  qualified candidate of another group picks it with probability (1 + gap) / 2
  (forced choice, answers independent); other comparisons are even.
- D2: ratings 1-5, a resume's level N(3.3, 0.8) plus N(0, 0.6) per rating, rounded;
  the shift is the effect times the ratings' standard deviation.
- D3: per pool one candidate per group with a N(0, 1) score; the shifted group's
  scores move by the effect (in SD). With bare Yes/No answers (no log-probabilities)
  scores tie and power is lower than this.
- D4: five 1-5 dimensions per copy around the resume's level N(3.5, 0.5), N(0, 0.4)
  per dimension, rounded; the name-perturbed copy of the shifted group moves by the
  effect times the overall score's SD; ranked batches carry the same shift.
Results are cached per design, size, effect and share (in memory and in the data
folder), so a plan asks for each only once. After a run, `power_from_data` does the
same on the audit's own answers (resampled, every group difference removed, the
effect planted): page 1's power statement.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from resume_auditor.stats.permutation import Block, joint_test

logger = logging.getLogger(__name__)

SIMS = 200
DRAWS = 1999  # relabellings per simulated audit: resolution 1 / 2000, below every share
MOST = 256  # the largest size searched
SEARCH_SIMS = 40  # the search for the size uses coarse figures; the answer is checked
SEARCH_DRAWS = 999
VERSION = 1
TARGET = 0.8
# Effect sizes from the literature, user-choosable (plan --effect-* options):
DEFAULT_EFFECTS = {
    "D1": 0.10,  # a 10-point selection gap (Castleman et al. 2025 report gaps of this size)
    "D2": 0.30,  # 0.3 SD in ratings (Gaebler et al. 2024, Figure 2)
    "D3": 0.30,  # 0.3 SD in candidate scores
    "D4": 0.30,  # 0.3 SD in the overall score
}
UNIT_WORDS = {
    "D1": "source resumes",
    "D2": "source resumes",
    "D3": "pools (rounds)",
    "D4": "source resumes",
}


@dataclass(frozen=True)
class Size:
    """What a design's power depends on: its units, groups and answers per unit."""

    design: str
    units: int  # source resumes (D1, D2, D4 scores) or pools (D3)
    groups: int
    per_unit: int = 1  # D1: comparisons per group per resume; D2: ratings per copy
    batches: int = 0  # D4: ranked batches of `groups`


def effect_words(design: str, effect: float) -> str:
    if design == "D1":
        return f"a {100 * effect:.0f}-point selection gap"
    return f"a {effect:.2g} SD difference"


def _d1(rng: np.random.Generator, size: Size, effect: float) -> list[Block]:
    k = size.groups
    labels = [f"g{j}" for j in range(k)]
    per_pair = max(1, round(size.per_unit / max(k - 1, 1)))
    net = np.zeros((size.units, k))
    p_target = (1 + effect) / 2
    for a in range(k):
        for b in range(a + 1, k):
            p = p_target if a == 0 else 0.5
            wins = rng.binomial(per_pair, p, size=size.units)
            d = 2 * wins - per_pair
            net[:, a] += d
            net[:, b] -= d
    return [Block(net, labels, {g: f"d1.{g}" for g in labels})]


def _d2(rng: np.random.Generator, size: Size, effect: float) -> list[Block]:
    k = size.groups
    labels = [f"g{j}" for j in range(k)]
    sd = math.sqrt(0.8**2 + 0.6**2 + 1 / 12)
    level = rng.normal(3.3, 0.8, size=(size.units, 1, 1))
    noise = rng.normal(0, 0.6, size=(size.units, k, max(size.per_unit, 1)))
    shift = np.zeros((1, k, 1))
    shift[0, 0, 0] = -effect * sd
    ratings = np.clip(np.rint(level + noise + shift), 1, 5).mean(axis=2)
    keys = {g: f"d2.{g}" for g in labels[:-1]}
    return [Block(ratings, labels, keys, labels[-1])]


def _d3(rng: np.random.Generator, size: Size, effect: float) -> list[Block]:
    k = size.groups
    labels = [f"g{j}" for j in range(k)]
    scores = rng.normal(0, 1, size=(size.units, k))
    scores[:, 0] -= effect
    ranks = scores.argsort(axis=1).argsort(axis=1).astype(float) + 1
    return [Block(ranks, labels, {g: f"d3.{g}" for g in labels[:-1]}, labels[-1])]


def _d4(rng: np.random.Generator, size: Size, effect: float) -> list[Block]:
    k = size.groups
    copies = ["original", *(f"name:g{j}" for j in range(k)), *(f"exp:g{j}" for j in range(k))]
    level = rng.normal(3.5, 0.5, size=(size.units, 1, 1))
    dims = np.clip(np.rint(level + rng.normal(0, 0.4, size=(size.units, len(copies), 5))), 1, 5)
    overall = dims.mean(axis=2)
    sd = float(np.sqrt(0.5**2 + 0.4**2 / 5 + 1 / 60))
    overall[:, 1] -= effect * sd
    keys = {c: f"d4.{c}" for c in copies[1:]}
    blocks = [Block(overall, copies, keys, "original")]
    if size.batches:
        z = rng.normal(0, 1, size=(size.batches, k))
        z[:, 0] -= effect
        ranks = (-z).argsort(axis=1).argsort(axis=1).astype(float) + 1 - (k + 1) / 2
        labels = [f"r{j}" for j in range(k)]
        blocks.append(Block(ranks, labels, {g: f"d4.rank.{g}" for g in labels}))
    return blocks


_SIMULATORS = {"D1": _d1, "D2": _d2, "D3": _d3, "D4": _d4}
_TARGET_KEY = {"D1": "d1.g0", "D2": "d2.g0", "D3": "d3.g0", "D4": "d4.name:g0"}


@lru_cache(maxsize=512)
def _simulate(
    size: Size, effect: float, share: float, sims: int, seed: int, draws: int = DRAWS
) -> float:
    rng = np.random.default_rng(seed)
    make = _SIMULATORS[size.design]
    hits = 0
    for i in range(sims):
        joint = joint_test(make(rng, size, effect), draws=draws, seed=seed + i)
        keys = list(joint.observed)
        p = joint.step_down(keys).get(_TARGET_KEY[size.design])
        hits += p is not None and p <= share
    return hits / sims


def simulated_power(
    size: Size,
    effect: float,
    share: float,
    *,
    sims: int = SIMS,
    seed: int = 0,
    cache: Path | None = None,
    draws: int = DRAWS,
) -> float:
    """Share of simulated audits of `size` whose shifted group is flagged at `share`."""
    if size.units < 2 or size.groups < 2:
        return 0.0
    key = json.dumps([VERSION, size.__dict__, round(effect, 6), round(share, 8), sims, seed, draws])
    stored = _read_cache(cache)
    if key in stored:
        return float(stored[key])
    power = _simulate(size, round(effect, 6), round(share, 8), sims, seed, draws)
    if cache is not None:
        stored[key] = power
        _write_cache(cache, stored)
    return power


def _read_cache(path: Path | None) -> dict[str, float]:
    if path is None or not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        logger.warning("the power cache %s cannot be read (%s); it is rebuilt", path, exc)
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _write_cache(path: Path, data: dict[str, float]) -> None:
    try:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:  # a cache must never stop a plan
        logger.warning("the power cache %s cannot be written: %s", path, exc)


@dataclass(frozen=True)
class Sizing:
    """A design's power now and the size that reaches the target."""

    design: str
    effect: float
    power_now: float
    units_now: int
    units_needed: int | None  # None: not reached within `most` units
    scale: float  # units_needed / units_now (requests scale with it)
    basis: str = "model"  # or "answers": simulated on an audit's own answers


def size_for_power(
    size: Size,
    effect: float,
    share: float,
    *,
    target: float = TARGET,
    most: int = MOST,
    sims: int = SIMS,
    cache: Path | None = None,
) -> Sizing:
    """Power at this size, and about the fewest units (resumes, pools) with `target` power.

    Coarse figures (SEARCH_SIMS audits, SEARCH_DRAWS relabellings) bracket the size by
    doubling and narrow it to about 15%; the size found is then checked with `sims`
    audits and raised by 15% steps until it holds. Answers per unit and groups stay as
    planned.
    """
    now = simulated_power(size, effect, share, sims=sims, cache=cache)
    if now >= target:
        return Sizing(size.design, effect, now, size.units, size.units, 1.0)

    def at(units: int, fine: bool = False) -> float:
        grown = Size(size.design, units, size.groups, size.per_unit, _batches(size, units))
        if fine:
            return simulated_power(grown, effect, share, sims=sims, cache=cache)
        return simulated_power(
            grown, effect, share, sims=SEARCH_SIMS, cache=cache, draws=SEARCH_DRAWS
        )

    low, high = max(size.units, 2), max(size.units * 2, 4)
    while at(high) < target:
        low, high = high, high * 2
        if high > most:
            return Sizing(size.design, effect, now, size.units, None, math.inf)
    while high - low > max(1, int(0.15 * low)):
        mid = (low + high) // 2
        if at(mid) >= target:
            high = mid
        else:
            low = mid
    while at(high, fine=True) < target:
        high = int(math.ceil(high * 1.15))
        if high > most:
            return Sizing(size.design, effect, now, size.units, None, math.inf)
    return Sizing(size.design, effect, now, size.units, high, high / max(size.units, 1))


def power_from_data(
    blocks: list[Block],
    target: str,
    shift: float,
    share: float,
    *,
    sims: int = SIMS,
    draws: int = SEARCH_DRAWS,
    seed: int = 0,
    scale: float = 1.0,
) -> float | None:
    """Power of the report's test on data like this audit's, with `shift` planted on `target`.

    Each simulated audit resamples this audit's units (resumes, batches; `scale` times
    as many, for an audit that much larger) with replacement, removes every group's
    own difference (so the planted shift is the only one), adds `shift` to the target
    test's label, and runs the design's
    permutation test with its step-down: the answers' own spread, ties and
    correlations, not assumed ones. None when the target is not in the blocks.
    """
    where = next(
        ((i, lab) for i, b in enumerate(blocks) for lab, k in b.keys.items() if k == target), None
    )
    if where is None:
        return None
    rng = np.random.default_rng(seed)
    hits = 0
    for i in range(sims):
        made = []
        for j, b in enumerate(blocks):
            values = np.asarray(b.values, dtype=float)
            if values.shape[0] < 2:
                made.append(b)
                continue
            count = max(2, int(round(values.shape[0] * scale)))
            rows = values[rng.integers(0, values.shape[0], count)]
            with np.errstate(invalid="ignore"):
                means = np.nanmean(values, axis=0)
            means = np.where(np.isnan(means), 0.0, means)
            if b.reference is not None:
                ref = b.labels.index(b.reference)
                rows = rows - (means - means[ref])[None, :]
            else:
                rows = rows - means[None, :]
            if j == where[0]:
                col = b.labels.index(where[1])
                rows[:, col] += shift
                if b.reference is None and len(b.labels) > 1:  # net wins sum to zero
                    others = [c for c in range(len(b.labels)) if c != col]
                    rows[:, others] -= shift / len(others)
            made.append(Block(rows, b.labels, b.keys, b.reference))
        joint = joint_test(made, draws=draws, seed=seed + i)
        p = joint.step_down(list(joint.observed)).get(target)
        hits += p is not None and p <= share
    return hits / sims


def scale_from_data(
    blocks: list[Block],
    target: str,
    shift: float,
    share: float,
    *,
    goal: float = TARGET,
    most: float = 64.0,
) -> tuple[float, float | None]:
    """(power now, the factor on units that reaches `goal`: None past `most`), from this
    audit's own answers (power_from_data): a pilot run tells how large an audit must be."""
    now = power_from_data(blocks, target, shift, share) or 0.0
    if now >= goal:
        return now, 1.0

    def at(scale: float, sims: int = SEARCH_SIMS) -> float:
        return power_from_data(blocks, target, shift, share, sims=sims, scale=scale) or 0.0

    low, high = 1.0, 2.0
    while at(high) < goal:
        low, high = high, high * 2
        if high > most:
            return now, None
    while high / low > 1.15:
        mid = math.sqrt(low * high)
        if at(mid) >= goal:
            high = mid
        else:
            low = mid
    while at(high, SIMS) < goal:
        high *= 1.15
        if high > most:
            return now, None
    return now, high


def _batches(size: Size, units: int) -> int:
    if not size.batches or not size.units:
        return size.batches
    return max(1, round(size.batches * units / size.units))
