"""Two models on the same test cases: the difference of a measure, with a paired interval.

A recruiter choosing between models asks "does A pick the more qualified candidate more
often than B, and by how much?". Both runs answered the same cases, so their answers are
paired through the cases' source resumes (or a design's own cluster, such as D5's
batch): a resume that is hard for A is often hard for B too. The interval of the
difference must use that pairing, or it is too wide when the models agree and too
narrow when the resumes differ a lot.

Every measure compared here is a smooth function of sums over answer rows (a rate is
picked/answers, a gap is (picked - other picked)/comparisons, an impact ratio is a
ratio of two rates), so one method serves every design: the delete-one-cluster
jackknife, leaving a source resume out of *both* runs at once (that is what makes it
paired), with a t interval on G-1 degrees of freedom when the clusters are of equal
size, as the designs' own clustered intervals use (stats/robust.py). For a mean with
clusters of equal size the jackknife variance is exactly the cluster-robust one. When
the clusters differ in size, t on G-1 degrees of freedom is too liberal, and the
reference is the jackknife t's exact distribution under rows independent with one
variance, which reads only the clusters' sizes (stats/jackknife_t.py). It needs no
model of the answers and no random numbers, so the same audit always gives the same
interval.

A measure that is not a function of cluster sums brings its own leave-outs
(`Measure.leave_out`): D3's RABBI compares every candidate of one group with every
candidate of another across pools, a two-sample U-statistic, whose delete-one-cluster
jackknife is consistent too (designs/d3_rabbi/compare.py).

Which differences are clear is decided by `adjust`: within one design and pair of
models, a randomization test that swaps whole clusters' answers between the two runs
(`swapped_t`, Westfall-Young's step-down max-|t|), exact under "the same policy"
whatever the number of clusters; across such families, Bonferroni.

The per-cluster sums make leaving a cluster out a subtraction, so a comparison of
10,000 answers a model costs microseconds per measure (docs/comparison.md).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from resume_auditor.stats import jackknife_t
from resume_auditor.stats.estimate import Estimate
from resume_auditor.stats.multiplicity import holm
from resume_auditor.stats.randomization import MAX_EXACT, swap_patterns

logger = logging.getLogger(__name__)

# f(sums) -> value, vectorised over the leading axes of `sums` (its last axis: the
# measure's columns, in the order of `Measure.columns`). NaN where undefined.
SumsFunction = Callable[[np.ndarray], np.ndarray]

# (value on every row, value with each cluster's rows left out, clusters with rows) of a
# measure that is not a function of per-cluster sums (D3's RABBI compares every candidate
# of one group with every candidate of another): given a run's table and the clusters'
# labels. A leave-out that is undefined is NaN.
LeaveOut = Callable[[pd.DataFrame, np.ndarray], tuple[float, np.ndarray, np.ndarray]]

# The swap test of `adjust` runs up to this many clusters: that is where the t reference
# is least reliable (8 resumes: Holm on t declared 5.07% of null audits; 16 and 32
# resumes: docs/comparison.md), and where its cost is small: beyond MAX_EXACT clusters
# it reads SWAP_DRAWS drawn patterns, 2.5 ms a difference at 40 clusters, where 4,999
# would cost about 13 (a comparison of 5 models has 60 differences a design).
SWAPS_UP_TO = 40
SWAP_DRAWS = 999
assert (SWAP_DRAWS + 1) & SWAP_DRAWS != 0  # drawn patterns are told from all 2^G by count

# The note of a difference that is the same on every cluster (no interval) begins so
SAME_EVERYWHERE = "the same difference on every"


def ratio(num: int = 0, den: int = 1) -> SumsFunction:
    """sum(column num) / sum(column den): a rate, or a mean when `den` counts rows."""

    def f(sums: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = sums[..., num] / sums[..., den]
        return np.where(sums[..., den] > 0, out, np.nan)

    return f


@dataclass(frozen=True)
class Measure:
    """One headline measure a design offers for comparing models.

    `columns`: the numeric row columns of the design's comparison table whose sums the
    measure is a function of; `f`: that function. `path`: where the run's own metric
    of the same value sits in its metrics JSON (the value is the same, checked by the
    tests; the interval here is the jackknife's, so that every interval of a comparison
    is of one kind).
    `more`: what a higher value means, completing "Model A ... than Model B"
    ("picks the more qualified candidate more often"); `unit` what the value is
    (a metric object's unit: "proportion" for a rate, "points" for a gap, "sd");
    the difference of two rates or gaps is in percentage points.
    """

    key: str
    label: str
    columns: tuple[str, ...]
    f: SumsFunction
    more: str
    path: tuple[str, ...] = ()
    unit: str = "proportion"
    kind: str = "validity"  # "validity" or "fairness": the sentence's and chart's grouping
    # where a value can lie when its unit does not say (D4's average rank: 1 to the batch
    # size); None: the unit's range (value_range)
    bounds: tuple[float, float] | None = None
    # what one cluster of its rows is, in a recruiter's words (one, several)
    cluster: tuple[str, str] = ("source resume", "source resumes")
    # a measure that is not a smooth function of cluster sums computes its own leave-outs
    # (then `f` is not used, and `columns` only says which columns it reads)
    leave_out: LeaveOut | None = None

    @property
    def range(self) -> tuple[float, float]:
        return self.bounds if self.bounds is not None else value_range(self.unit)


@dataclass(frozen=True)
class Comparable:
    """A run's answers of one design, ready to compare: one row per answer unit.

    `table` has a `cluster` column (the design's own clustering unit, shared by every
    run of the audit because the cases are) and every column a measure names.
    """

    table: pd.DataFrame
    measures: tuple[Measure, ...]


def clustered(table: pd.DataFrame) -> pd.DataFrame:
    """`table` with its `cluster` column as text categories: what `cluster_sums` and the
    leave-outs read, coded once a table rather than once a measure and pair of models
    (a comparison of 5 models codes each table about 30 times)."""
    if isinstance(table["cluster"].dtype, pd.CategoricalDtype):
        return table
    out = table.copy()
    out["cluster"] = pd.Categorical(table["cluster"].astype(str).to_numpy(dtype=object))
    return out


def _codes(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(each row's cluster as a number, the clusters' names as text by number)."""
    column = table["cluster"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = column.cat.categories
        if not pd.api.types.is_string_dtype(categories.dtype):
            categories = categories.astype(str)
        return column.cat.codes.to_numpy(), categories.to_numpy(dtype=object)
    codes, names = pd.factorize(column.astype(str).to_numpy(dtype=object))
    return codes, np.asarray(names, dtype=object)


def _rows_at(table: pd.DataFrame, labels: np.ndarray) -> np.ndarray:
    """Each row's cluster as its place in `labels`. Hashed once a name, not once a row:
    a comparison of 10,000 answers a model sums each table 30 times (`clustered` codes
    its rows once)."""
    codes, names = _codes(table)
    places: np.ndarray = pd.Index(labels).get_indexer(names)
    rows: np.ndarray = places[codes]
    return rows


def cluster_sums(table: pd.DataFrame, columns: Sequence[str], labels: np.ndarray) -> np.ndarray:
    """Per-cluster sums (len(labels) x len(columns)); a cluster without rows sums to 0."""
    return _sums_and_rows(table, columns, labels)[0]


def _sums_and_rows(
    table: pd.DataFrame, columns: Sequence[str], labels: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """`cluster_sums`, and how many rows of each cluster carry the measure (a sum counts
    them and one of their values is not 0): the design the jackknife t's reference
    reads (stats/jackknife_t.py). The rows are coded once for both."""
    out = np.zeros((labels.size, len(columns)))
    if table.empty:
        return out, np.zeros(labels.size)
    rows = _rows_at(table, labels)
    # column by column: a frame of the columns (table[list]) costs a copy and an index
    values = np.column_stack([table[c].to_numpy(dtype=float) for c in columns])
    keep = ~np.isnan(values).any(axis=1)
    kept, at = values[keep], rows[keep]
    for j in range(len(columns)):
        out[:, j] = np.bincount(at, weights=kept[:, j], minlength=labels.size)
    carries = (kept != 0).any(axis=1)
    return out, np.bincount(at[carries], minlength=labels.size).astype(float)


def cluster_rows(table: pd.DataFrame, columns: Sequence[str], labels: np.ndarray) -> np.ndarray:
    """How many rows of each cluster carry a measure with its own leave-outs (any of its
    columns present): the design its jackknife t's reference reads."""
    if table.empty:
        return np.zeros(labels.size)
    rows = _rows_at(table, labels)
    present = np.column_stack([~np.isnan(table[c].to_numpy(dtype=float)) for c in columns])
    return np.bincount(rows[present.any(axis=1)], minlength=labels.size).astype(float)


def _labels(*tables: pd.DataFrame) -> np.ndarray:
    """The clusters of the tables, each once, in the order they first appear (hashed:
    pd.unique, not a sort of strings)."""
    found = []
    for t in tables:
        if len(t):
            codes, names = _codes(t)
            found.append(names[pd.unique(codes)])
    if not found:
        return np.array([], dtype=object)
    return np.asarray(pd.unique(np.concatenate(found)), dtype=object)


def value(table: pd.DataFrame, measure: Measure) -> float | None:
    """The measure on one run's table (None: undefined, e.g. no such answers)."""
    if table.empty:
        return None
    if measure.leave_out is not None:
        theta = measure.leave_out(table, _labels(table))[0]
        return theta if math.isfinite(theta) else None
    sums = table[list(measure.columns)].to_numpy(dtype=float)
    sums = sums[~np.isnan(sums).any(axis=1)].sum(axis=0)
    out = float(measure.f(sums))
    return out if math.isfinite(out) else None


def _active(*sums: np.ndarray) -> np.ndarray:
    """The clusters a measure has rows in: leaving out one it has none in changes nothing,
    and counting it would shrink the interval."""
    total: np.ndarray = np.sum([np.abs(x).sum(axis=1) for x in sums], axis=0)
    return total > 0


def _jackknife(
    theta: float,
    leave: np.ndarray,
    n: int,
    clusters: int,
    level: float,
    measure: Measure,
    bounds: tuple[float, float],
    sizes: Sequence[np.ndarray],
    *,
    test: bool,
) -> Estimate:
    """The estimate `theta` with its delete-one-cluster interval from the leave-outs
    (`leave`: the estimate without each cluster; undefined ones are dropped and said),
    cut to `bounds`; with `test`, the p-value of "no difference". `sizes`: each run's
    rows per cluster, in the order of `leave`: clusters of equal size give t on G-1
    degrees of freedom, others the jackknife t's exact reference (stats/jackknife_t.py)."""
    one, many = measure.cluster
    kept = np.isfinite(leave)
    leave = leave[kept]
    g = int(leave.size)
    note = f"{clusters - g} {many} could not be left out" if g < clusters else ""
    if g < 2:
        note = f"fewer than two {many}: no honest interval is possible"
        return Estimate(theta, None, None, n, clusters, level, note=note)
    se = math.sqrt((g - 1) / g * float(((leave - leave.mean()) ** 2).sum()))
    if se == 0:
        p = (1.0 if theta == 0 else None) if test else None
        return Estimate(theta, None, None, n, g, level, p=p, note=f"{SAME_EVERYWHERE} {one}")
    ref = jackknife_t.reference([np.asarray(m)[kept] for m in sizes])
    ref = ref if ref is not None else jackknife_t.Reference(float(g - 1))
    crit = ref.critical(level)
    low, high = _cut(theta - crit * se, theta + crit * se, bounds)
    p = ref.p(theta / se) if test else None
    return Estimate(theta, low, high, n, g, level, p=p, note=note)


def paired_difference(
    a: pd.DataFrame, b: pd.DataFrame, measure: Measure, level: float = 0.95
) -> Estimate:
    """measure(A) - measure(B) with a delete-one-cluster jackknife interval and p-value.

    Leaving a cluster out removes it from both runs at once (the pairing). Leave-outs
    where the measure is undefined (the only resume with a group's comparisons) are
    dropped and said in the note; with fewer than two left there is no interval.
    """
    return paired_differences([a, b], measure, [(0, 1)], level)[0]


def paired_differences(
    tables: Sequence[pd.DataFrame],
    measure: Measure,
    pairs: Sequence[tuple[int, int]],
    level: float = 0.95,
) -> list[Estimate]:
    """`paired_difference` of each pair (i, j) of `tables`, in order: each table's sums by
    cluster are read once for all the pairs it is in (five models make ten pairs)."""
    return [e for e, _ in paired_with_swaps(tables, measure, pairs, level, swaps=False)]


def paired_with_swaps(
    tables: Sequence[pd.DataFrame],
    measure: Measure,
    pairs: Sequence[tuple[int, int]],
    level: float = 0.95,
    *,
    swaps: bool = True,
) -> list[tuple[Estimate, np.ndarray | None]]:
    """`paired_differences`, each with its studentized difference |t| under every swap
    pattern of the pair's clusters (`swapped_t`; None when the measure brings its own
    leave-outs, has no test, or has more than SWAPS_UP_TO clusters):
    what `adjust` reads. The patterns are over the clusters of the pair's two tables,
    so every measure of a design and pair gets the same ones."""
    if measure.leave_out is not None:
        return [
            (
                _own_paired(
                    tables[i],
                    tables[j],
                    measure,
                    _labels(tables[i], tables[j]),
                    int(len(tables[i]) + len(tables[j])),
                    level,
                ),
                None,
            )
            for i, j in pairs
        ]
    wanted = sorted({k for pair in pairs for k in pair})
    labels = _labels(*(tables[k] for k in wanted))
    sums = {k: _sums_and_rows(tables[k], measure.columns, labels) for k in wanted}
    out: list[tuple[Estimate, np.ndarray | None]] = []
    for i, j in pairs:
        n = int(len(tables[i]) + len(tables[j]))
        pattern = _pair_patterns(tables[i], tables[j], labels) if swaps else None
        out.append(_paired(sums[i], sums[j], n, measure, level, pattern))
    return out


def _pair_patterns(a: pd.DataFrame, b: pd.DataFrame, labels: np.ndarray) -> np.ndarray | None:
    """The swap patterns of the clusters of tables `a` and `b` (randomization.swap_patterns),
    as columns over `labels` (a cluster of `labels` neither has is never swapped)."""
    own = _labels(a, b)
    if own.size < 2 or own.size > SWAPS_UP_TO:
        return None
    patterns = swap_patterns(int(own.size), SWAP_DRAWS)
    out = np.zeros((patterns.shape[0], labels.size), dtype=bool)
    out[:, pd.Index(labels).get_indexer(own)] = patterns
    return out


def _paired(
    a: tuple[np.ndarray, np.ndarray],
    b: tuple[np.ndarray, np.ndarray],
    n: int,
    measure: Measure,
    level: float,
    patterns: np.ndarray | None = None,
) -> tuple[Estimate, np.ndarray | None]:
    """The paired difference from each run's sums and rows by cluster (`_sums_and_rows`
    over the same clusters); a cluster neither run has rows in is not counted. With
    `patterns` (over the same clusters), its |t| under each (`swapped_t`)."""
    (sa, ra), (sb, rb) = a, b
    active = _active(sa, sb) if len(sa) else np.zeros(0, dtype=bool)
    sa, sb = sa[active], sb[active]
    sizes = [ra[active], rb[active]]
    ta, tb = sa.sum(axis=0), sb.sum(axis=0)
    theta = float(measure.f(ta) - measure.f(tb)) if len(sa) else math.nan
    if not math.isfinite(theta):
        return Estimate(None, None, None, n, len(sa), level, note="not measured by both"), None
    leave = measure.f(ta[None, :] - sa) - measure.f(tb[None, :] - sb)
    bottom, top = measure.range
    span = top - bottom  # a difference lies within the width of the values' range
    est = _jackknife(theta, leave, n, len(sa), level, measure, (-span, span), sizes, test=True)
    if patterns is None or est.p is None:  # no test: the same difference on every cluster
        return est, None
    return est, swapped_t(sa, sb, measure.f, patterns[:, active])


def swapped_t(sa: np.ndarray, sb: np.ndarray, f: SumsFunction, patterns: np.ndarray) -> np.ndarray:
    """|t| = |difference| / jackknife SE of f(sums of A) - f(sums of B), for every pattern
    of clusters whose answers are swapped between the two runs (`patterns`: bool,
    patterns x clusters, row 0 swapping none: the observed |t|).

    Two models with the same policy answer each cluster's cases alike in distribution, so
    swapping whole clusters' answers between them leaves the data's distribution
    unchanged: the observed |t| is then one draw among the swapped ones, which is what
    makes `adjust`'s test exact (Fisher's randomization test; the sign flips of
    stats/randomization.py, for a paired difference). A swap whose difference has no
    spread, or is undefined, counts as extreme (inf) unless it is 0.
    """
    g, k = sa.shape
    diff = sb - sa
    ta, tb = sa.sum(axis=0), sb.sum(axis=0)
    out = np.empty(patterns.shape[0])
    step = max(1, 2_000_000 // max(1, g * k))  # patterns a block: bounded memory
    for lo in range(0, patterns.shape[0], step):
        swap = patterns[lo : lo + step].astype(float)  # (patterns, clusters)
        moved = swap @ diff  # what the swaps move from B's totals to A's
        total_a, total_b = ta + moved, tb - moved
        own_a = sa[None, :, :] + swap[:, :, None] * diff[None, :, :]
        own_b = sb[None, :, :] - swap[:, :, None] * diff[None, :, :]
        theta = f(total_a) - f(total_b)
        leave = f(total_a[:, None, :] - own_a) - f(total_b[:, None, :] - own_b)
        kept = np.isfinite(leave)
        count = kept.sum(axis=1)
        mean = np.where(kept, leave, 0.0).sum(axis=1) / np.maximum(count, 1)
        squares = (np.where(kept, leave - mean[:, None], 0.0) ** 2).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            se = np.sqrt((count - 1) / np.maximum(count, 1) * squares)
            t = np.abs(theta) / se
        t = np.where(se > 0, t, np.where(theta == 0, 0.0, np.inf))
        t = np.where(np.isfinite(theta) & (count >= 2), t, np.inf)
        out[lo : lo + step] = t
    return out


def _own_paired(
    a: pd.DataFrame,
    b: pd.DataFrame,
    measure: Measure,
    labels: np.ndarray,
    n: int,
    level: float,
) -> Estimate:
    """`paired_difference` for a measure with its own leave-outs: the same pairing (a
    cluster left out of both runs at once), the same jackknife."""
    assert measure.leave_out is not None
    none = np.zeros(0, dtype=bool)
    ta, la, aa = measure.leave_out(a, labels) if len(a) else (math.nan, none, none)
    tb, lb, ab = measure.leave_out(b, labels) if len(b) else (math.nan, none, none)
    theta = ta - tb
    if not math.isfinite(theta):
        return Estimate(None, None, None, n, 0, level, note="not measured by both")
    active = aa | ab
    leave = (la - lb)[active]
    sizes = [cluster_rows(t, measure.columns, labels)[active] for t in (a, b)]
    bottom, top = measure.range
    span = top - bottom
    g = int(active.sum())
    return _jackknife(theta, leave, n, g, level, measure, (-span, span), sizes, test=True)


def single(table: pd.DataFrame, measure: Measure, level: float = 0.95) -> Estimate:
    """One run's measure with the same jackknife interval (no test: nothing to compare)."""
    labels = _labels(table)
    n = int(len(table))
    if not labels.size:
        return Estimate(None, None, None, 0, 0, level, note="no answers")
    if measure.leave_out is not None:
        theta, leave, active = measure.leave_out(table, labels)
        if not math.isfinite(theta):
            return Estimate(None, None, None, n, int(active.sum()), level, note="no such answers")
        sizes = [cluster_rows(table, measure.columns, labels)[active]]
        g = int(active.sum())
        return _jackknife(
            theta, leave[active], n, g, level, measure, measure.range, sizes, test=False
        )
    sums, rows = _sums_and_rows(table, measure.columns, labels)
    active = _active(sums)
    sums = sums[active]
    sizes = [rows[active]]
    total = sums.sum(axis=0)
    theta = float(measure.f(total))
    if not math.isfinite(theta):
        return Estimate(None, None, None, n, len(sums), level, note="no such answers")
    leave = measure.f(total[None, :] - sums)
    return _jackknife(theta, leave, n, len(sums), level, measure, measure.range, sizes, test=False)


@dataclass
class Difference:
    """One measure compared between two runs (`estimate.p_holm` filled by `adjust`).

    `swaps`: the difference's |t| under every swap pattern of its clusters
    (`paired_with_swaps`), row 0 the observed; None when it has none."""

    design: str  # the design's label ("D1")
    measure: Measure
    run_a: int
    run_b: int
    estimate: Estimate
    swaps: np.ndarray | None = None


@dataclass(frozen=True)
class Family:
    """What `adjust` did with one design's differences between one pair of runs.

    `method`: "swaps" (the randomization test), or "holm" (Holm on the t-based
    p-values): for a measure with its own leave-outs (D3's RABBI), beyond SWAPS_UP_TO
    clusters, or `coarse`: the swap test could not reach alpha here, whatever the data
    (8 clusters have 256 swap patterns, so a p of at least 2/256, times the number of
    families: with ten, 0.078), so the t approximation is used instead. `floor`: that
    smallest adjusted p the swaps allow (None without swaps)."""

    design: str
    run_a: int
    run_b: int
    tests: int
    clusters: int
    method: str
    floor: float | None = None
    coarse: bool = False


def adjust(differences: Sequence[Difference], alpha: float = 0.05) -> list[Family]:
    """Adjust every difference's p-value for the whole comparison (into `p_holm`): the
    more comparisons a page shows, the stronger each must be to be called one.

    A family is one design's measures between one pair of runs. Within it, the
    step-down max-|t| of Westfall and Young (1993) over the swap patterns of its
    clusters (`swapped_t`): the adjusted p of the measure with the k-th largest |t| is
    the share of patterns whose largest |t| over it and the measures below it reaches
    its |t| (never below the one above). Two models with the same policy make every
    pattern as likely as the data, so the chance of any false call in a family is at
    most its level, exactly, with any number of clusters, any sizes and any dependence
    between the measures; Holm on t-based p-values came to 5.1-5.6% with 8 resumes
    (docs/comparison.md). Across families, Bonferroni: each p times the number of
    families. A family whose measures have no swaps (D3's RABBI, which brings its own
    leave-outs; more than SWAPS_UP_TO clusters, where the t reference is accurate), or
    whose swaps cannot reach `alpha`
    after that (too few clusters for the families compared: `Family.coarse`), is
    Holm-adjusted on its t-based p-values instead, times the number of families; when no
    family uses its swaps, Holm runs over every test at once (as before the swaps). A
    difference with no test (the same nonzero difference on every cluster) keeps None;
    one with no spread and no difference is a test whose observed |t| is 0.
    """
    families: dict[tuple[str, int, int], list[int]] = {}
    for i, d in enumerate(differences):
        families.setdefault((d.design, d.run_a, d.run_b), []).append(i)
    adjusted: list[float | None] = [None] * len(differences)
    found: list[
        tuple[tuple[str, int, int], list[int], list[float | None] | None, float | None]
    ] = []
    for key, members in families.items():
        tested = [i for i in members if differences[i].estimate.p is not None]
        if not tested:
            continue
        if all(differences[i].swaps is not None for i in tested):
            ps, floor = step_down_max_t([differences[i].swaps for i in tested])  # type: ignore[misc]
            found.append((key, tested, ps, floor))
        else:
            found.append((key, tested, None, None))
    count = len(found)
    coarse = [f is not None and count * f >= alpha for _, _, _, f in found]
    swapping = any(ps is not None and not c for (_, _, ps, _), c in zip(found, coarse, strict=True))
    if not swapping:  # Holm over every test, as one family
        every = [i for _, members, _, _ in found for i in members]
        for i, p in zip(every, holm([differences[i].estimate.p for i in every]), strict=True):
            adjusted[i] = p
    out: list[Family] = []
    for ((design, run_a, run_b), members, by_swaps, least), rough in zip(
        found, coarse, strict=True
    ):
        method = "swaps" if by_swaps is not None and not rough else "holm"
        if swapping:
            family = by_swaps if method == "swaps" else None
            if family is None:
                family = holm([differences[i].estimate.p for i in members])
            for i, q in zip(members, family, strict=True):
                adjusted[i] = None if q is None else min(1.0, count * q)
        clusters = max(differences[i].estimate.clusters for i in members)
        reach = None if least is None else min(1.0, count * least)
        out.append(Family(design, run_a, run_b, len(members), clusters, method, reach, rough))
    for d, p in zip(differences, adjusted, strict=True):
        e = d.estimate
        d.estimate = Estimate(
            e.value, e.low, e.high, e.n, e.clusters, e.level, p=e.p, p_holm=p, note=e.note
        )
    return out


def step_down_max_t(swaps: Sequence[np.ndarray]) -> tuple[list[float | None], float]:
    """Westfall-Young step-down max-|t| adjusted p-values of measures whose |t| under the
    same swap patterns are `swaps` (row 0 observed), in their order; and the smallest
    p-value the patterns allow, whatever the data."""
    t = np.vstack(swaps)  # (measures, patterns)
    observed = t[:, 0]
    order = np.argsort(-observed, kind="stable")
    # the running max over the measures from the k-th largest down, for every k
    tail_max = np.maximum.accumulate(t[order[::-1]], axis=0)[::-1]
    out: list[float | None] = [None] * len(swaps)
    running = 0.0
    for rank, j in enumerate(order):
        reach = tail_max[rank] >= observed[j] * (1 - 1e-9)
        running = max(running, float(reach.mean()))
        out[int(j)] = running
    # every pattern and its complement (all swapped but those) give a difference of the
    # same size: the data at their most extreme reach 2 of them; of drawn patterns, 1
    # (all 2^G patterns are a power of two; drawn ones, with the observed, are not)
    patterns = t.shape[1]
    every = patterns <= 2**MAX_EXACT and patterns & (patterns - 1) == 0
    return out, (2.0 if every else 1.0) / patterns


def value_range(unit: str) -> tuple[float, float]:
    """Where a value in `unit` can lie: a t interval is cut to it (a rate's at 0 and 100%)."""
    return {"proportion": (0.0, 1.0), "points": (-1.0, 1.0)}.get(unit, (-math.inf, math.inf))


def _cut(low: float, high: float, bounds: tuple[float, float]) -> tuple[float, float]:
    return max(low, bounds[0]), min(high, bounds[1])


# how a difference in each unit is written after its number
UNIT_WORDS = {"points": " points", "sd": " SD", "difference": " on the 1–5 scale"}


def difference_unit(unit: str) -> str:
    """The unit of a difference of two values in `unit` (two rates differ in points)."""
    return "points" if unit in ("proportion", "points") else unit


def _signed(x: float, measure: Measure) -> str:
    points = difference_unit(measure.unit) == "points"
    v = x * 100 if points else x
    text = f"{abs(v):.0f}" if points else f"{abs(v):.2f}"
    sign = "+" if v > 0 else "−" if v < 0 else "±"
    return f"{sign}{text}"


def sentence(
    d: Difference, name_a: str, name_b: str, alpha: float = 0.05, compared: int = 1
) -> str:
    """The difference in one plain sentence, as the comparison page and report say it.

    The model ahead is named first. "Clear" is the adjusted test (`adjust`) across the
    `compared` differences shown; a difference whose own interval excludes 0 but whose
    adjusted test does not pass says both, rather than hiding one of them.
    """
    e, m = d.estimate, d.measure
    unit = UNIT_WORDS.get(difference_unit(m.unit), "")
    if e.value is None:
        return f"{m.label}: not measured for both {name_a} and {name_b} ({e.note})."
    ahead, behind = (name_a, name_b) if e.value >= 0 else (name_b, name_a)
    size = _signed(abs(e.value), m)[1:] + unit
    if e.low is None or e.high is None:
        same = e.note.startswith(SAME_EVERYWHERE)
        if same and e.value == 0:
            return f"{m.label}: the same for {name_a} and {name_b} on every {m.cluster[0]}."
        if same:
            return (
                f"{ahead} {m.more} than {behind} by the same {size} on every {m.cluster[0]} "
                "(no spread, so no interval)."
            )
        return f"{m.label}: {ahead} ahead by {size}; no interval can be computed ({e.note})."
    low, high = (e.low, e.high) if e.value >= 0 else (-e.high, -e.low)
    amount = f"{_signed(abs(e.value), m)}{unit}, {round(e.level * 100)}% CI " + (
        f"{_signed(low, m)} to {_signed(high, m)}"
    )
    if e.p_holm is not None and e.p_holm < alpha:
        return f"{ahead} {m.more} than {behind}: {amount}."
    if e.p is not None and e.p < alpha and compared > 1:
        return (
            f"{ahead} {m.more} than {behind}: {amount}; but with {compared} differences "
            f"compared this could still be chance (adjusted p = {e.p_holm:.2g})."
        )
    return f"{m.label}: no clear difference between {name_a} and {name_b} ({amount})."


__all__ = [
    "Comparable",
    "Difference",
    "Family",
    "LeaveOut",
    "Measure",
    "adjust",
    "cluster_rows",
    "cluster_sums",
    "difference_unit",
    "paired_difference",
    "paired_differences",
    "paired_with_swaps",
    "step_down_max_t",
    "swapped_t",
    "ratio",
    "sentence",
    "single",
    "value_range",
    "value",
]
