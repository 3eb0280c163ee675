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

What is simulated (stated wherever the figures are shown): one screener model for
every design, the one a real audit's answers come from (issue 25: the plan's own
sizing for D2 at 0.3 SD gave 53% measured power, not 80%, because the old per-design
models assumed ratings of one resume vary far less than ratings across resumes).
Each source resume has a quality u ~ N(0, spread); each answer reads
u + group shift + e, e ~ N(0, noise) drawn per answer (a name change, or a sample at
a temperature above 0: at temperature 0 repeats are one answer). `Assumptions`
holds spread, noise and an abstention band; the plan states them. The effect is
given in the report's own units and turned into the latent shift that produces it
under these assumptions (`rating_shift` for ratings on the shared 1-5 scale; a
design with other units calibrates its own), so "0.3 SD" is 0.3 of the report's
standard deviation of ratings, between-resume spread included.

Each figure is from SIMS simulated audits (a standard error of about 3 points near
80%).

This module is the shared machinery and knows no design: each design's folder
(`designs/<folder>/power.py`) says how one of its audits is simulated, which test
is counted, its default effect and its words, as a `PowerModel` it hands to
`register` through its `Design.power_models` (designs/registry.py registers them at
import); `Size.design` names the model, so the cache keys stay the tests' codes.
Results are cached per design, size, effect and share (in memory, and in a
`PowerStore` the caller may hand in: settings/power.py keeps one in the data
folder), so a plan asks for each only once; this module touches no file. After
a run, `power_from_data` does the same on the audit's own answers (resampled,
every group difference removed, the effect planted): page 1's power statement.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from typing import Protocol

import numpy as np

from resume_auditor.stats.permutation import Block, joint_test

logger = logging.getLogger(__name__)


class PowerStore(Protocol):
    """Where computed powers are kept between plans (settings.power.PowerCache)."""

    def get(self, key: str) -> float | None: ...

    def put(self, key: str, power: float) -> None: ...


SIMS = 200
DRAWS = 999  # relabellings per simulated audit: resolution 1 / 1000, below every share sized
MOST = 1024  # the largest size searched
SEARCH_SIMS = 40  # the search for the size uses coarse figures; the answer is checked
SEARCH_DRAWS = 999
VERSION = 2
TARGET = 0.8
_CALIBRATION = 200_000  # draws that turn an effect in report units into a latent shift


@dataclass(frozen=True)
class Assumptions:
    """What an answer varies with before any answer is seen (stated in the plan).

    spread: the standard deviation of source resumes' quality; noise: of one answer's
    own variation (what a name change or a sample at temperature adds); both in the
    latent units one rating step spans. abstain_band: D1 pairs whose latent difference
    is under it are called equal (0: forced choice, the cautious case for a gap in
    points). The defaults give two thirds of a rating's variance to the answer, one
    third to the resume; the plan also shows the cautious case spread = 0 (every
    difference between ratings is the answer's), and a pilot run replaces both with
    the audit's own answers (power_from_data).
    """

    spread: float = 0.7
    noise: float = 1.0
    abstain_band: float = 0.0


DEFAULT_ASSUMPTIONS = Assumptions()
CAUTIOUS = Assumptions(spread=0.0, noise=1.0)  # D2, D4: every difference is the answer's
# LL144: at a fixed impact ratio, abstentions shrink the gap in points (both rates fall),
# so with a prompt that allows abstaining the plan sizes the ratio for a model that
# abstains on about a third of equal pairs (D1's gap in points: forced choice is cautious)
ABSTAINING = Assumptions(abstain_band=0.6)


@dataclass(frozen=True)
class Size:
    """What a design's power depends on: its units, groups and answers per unit."""

    design: str
    units: int  # source resumes (D1, D2, D4 scores) or pools (D3)
    groups: int
    per_unit: int = 1  # D1: comparisons per group per resume; D2: informative ratings per copy
    batches: int = 0  # D4: ranked batches of `groups`
    assume: Assumptions = DEFAULT_ASSUMPTIONS


Simulate = Callable[[np.random.Generator, Size, float], list[Block]]
Shift = Callable[[float, Assumptions, int], float]


@dataclass(frozen=True)
class PowerModel:
    """One test a design's plan sizes, simulated by the design's own folder.

    code: `Size.design` (the design's label, or a second test's code such as D1's
    impact ratio); simulate(rng, size, effect): one simulated audit's blocks for the
    design's permutation test, the effect planted on the first group; target: the
    test key whose flag is counted; default_effect: the effect the plan and page 1
    size for, in `words`' units; unit_words: what `Size.units` counts, in words;
    words(effect): the effect in words; shift(effect, assumptions, groups): the latent
    shift `simulate` plants for that effect (`latent_shift`); repeats: whether its
    units are resumes whose answers more informative repeats multiply (False: a unit
    is a pool, grown by more rounds).
    """

    code: str
    simulate: Simulate
    target: str
    default_effect: float
    unit_words: str
    words: Callable[[float], str]
    shift: Shift
    repeats: bool = True


_MODELS: dict[str, PowerModel] = {}


def register(*models: PowerModel) -> None:
    """Each design's folder hands its models here (designs/registry.py, at import):
    this module knows no design, and a model registered twice replaces the first."""
    for m in models:
        _MODELS[m.code] = m


def model(code: str) -> PowerModel:
    """The registered model of `code` (`Size.design`)."""
    try:
        return _MODELS[code]
    except KeyError:
        raise KeyError(
            f"no power model for {code!r}: the designs register theirs when "
            "resume_auditor.designs.registry is imported"
        ) from None


def default_effects() -> dict[str, float]:
    """Each registered test's default effect by code (the plan's --effect-* defaults)."""
    return {code: m.default_effect for code, m in _MODELS.items()}


def effect_words(design: str, effect: float) -> str:
    """The effect of test `design` in words ("a 0.3 SD difference")."""
    return model(design).words(effect)


def unit_words(design: str) -> str:
    """What test `design`'s units are, in words ("source resumes")."""
    return model(design).unit_words


def latent_shift(
    design: str, effect: float, assume: Assumptions = DEFAULT_ASSUMPTIONS, groups: int = 2
) -> float:
    """The latent shift (one group lower) test `design`'s simulation plants to give
    `effect` in the report's units under `assume` (benchmarks build oracles with it)."""
    return model(design).shift(effect, assume, groups)


def sd_words(effect: float) -> str:
    """An effect in its test's standard deviation, in words (the designs' shared unit)."""
    return f"a {effect:.2g} SD difference"


def rating(x: np.ndarray) -> np.ndarray:
    """A latent value read as a 1-5 rating (floor(3.5 + x), clipped): the designs'
    shared rating scale, with its ties."""
    return np.clip(np.floor(3.5 + x), 1, 5)


@lru_cache(maxsize=256)
def rating_shift(effect: float, assume: Assumptions = DEFAULT_ASSUMPTIONS, dims: int = 1) -> float:
    """The latent shift (one group lower) that moves the mean of `dims` 1-5 ratings of
    one copy (each with its own answer noise, one resume quality u under them) by
    `effect` standard deviations of that mean, between-resume spread included. Found
    by bisection on a fixed draw, so the same inputs give the same shift."""
    from scipy.optimize import brentq

    if effect == 0:
        return float(effect)
    rng = np.random.default_rng(12345)
    u = rng.normal(0, assume.spread, (_CALIBRATION, 1))
    e = rng.normal(0, assume.noise, (_CALIBRATION, dims))
    base = rating(u + e).mean(axis=1)
    sd = float(base.std())
    if sd <= 0:
        return 0.0

    def moved(delta: float) -> float:
        return float(base.mean() - rating(u + e - delta).mean(axis=1).mean()) / sd

    top = 10.0 * (assume.noise + assume.spread + 1)
    if moved(top) < abs(effect):
        return top
    return float(brentq(lambda d: moved(d) - abs(effect), 0.0, top))


@lru_cache(maxsize=512)
def _simulate(
    size: Size, effect: float, share: float, sims: int, seed: int, draws: int = DRAWS
) -> float:
    rng = np.random.default_rng(seed)
    sized = model(size.design)
    hits = 0
    for i in range(sims):
        joint = joint_test(sized.simulate(rng, size, effect), draws=draws, seed=seed + i)
        keys = list(joint.observed)
        p = joint.step_down(keys).get(sized.target)
        hits += p is not None and p <= share
    return hits / sims


def simulated_power(
    size: Size,
    effect: float,
    share: float,
    *,
    sims: int = SIMS,
    seed: int = 0,
    cache: PowerStore | None = None,
    draws: int = DRAWS,
) -> float:
    """Share of simulated audits of `size` whose shifted group is flagged at `share`."""
    if size.units < 2 or size.groups < 2:
        return 0.0
    key = json.dumps([VERSION, asdict(size), round(effect, 6), round(share, 8), sims, seed, draws])
    stored = cache.get(key) if cache is not None else None
    if stored is not None:
        return float(stored)
    power = _simulate(size, round(effect, 6), round(share, 8), sims, seed, draws)
    if cache is not None:
        cache.put(key, power)
    return power


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
    power_cautious: float | None = None  # at units_needed, under CAUTIOUS assumptions
    repeats_needed: int | None = None  # informative repeats per answer at units_now, if any
    power_repeats: float | None = None  # at units_now with repeats_needed


def size_for_power(
    size: Size,
    effect: float,
    share: float,
    *,
    target: float = TARGET,
    most: int = MOST,
    sims: int = SIMS,
    cache: PowerStore | None = None,
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
        grown = replace(size, units=units, batches=_batches(size, units))
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


REPEATS = (2, 3, 4, 6, 8, 12, 16)  # informative repeats tried when resumes are all there are


def repeats_for_power(
    size: Size,
    effect: float,
    share: float,
    *,
    target: float = TARGET,
    sims: int = SIMS,
    cache: PowerStore | None = None,
) -> tuple[int, float] | None:
    """The fewest informative repeats (answers per copy or pair, at a temperature above
    0) with `target` power at this many resumes, and the power then; None when even
    the most tried do not reach it, or for designs whose units are not resumes."""
    if not model(size.design).repeats or size.units < 2:
        return None
    base = max(size.per_unit, 1)
    for r in REPEATS:
        grown = replace(size, per_unit=base * r, batches=size.batches * r)
        coarse = simulated_power(
            grown, effect, share, sims=SEARCH_SIMS, cache=cache, draws=SEARCH_DRAWS
        )
        if coarse < target - 0.1:
            continue
        fine = simulated_power(grown, effect, share, sims=sims, cache=cache)
        if fine >= target:
            return r, fine
    return None


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
