"""Flags are decisions: a test per flag, the family's false-alarm rate shared by design.

A flag tells a non-expert "this model did something wrong". An audit that flags
an unbiased model is worse than none, so no flag fires on a point estimate
alone. Every metric that can raise a flag carries a `FlagTest`: the p-value of a
test whose null hypothesis is "nothing to flag" (no group gap; an impact ratio at
or above four-fifths; a validity at or above its threshold; no position bias), and
`decide` keeps the chance of *any* false alarm in a family at its alpha, however
many groups, thresholds and designs the report covers:

- "fairness": every group comparison the report can flag (D1 selection gaps and
  impact ratios, D2 standardized differences and impact ratios, D3 RABBI, D4 score
  differences and average ranks), at `group_gap_alpha`;
- "validity": CriterionValidity, DiscrimValidity and position bias, at
  `position_bias_alpha` (plain Holm).

Fairness shares are fixed by the design, never by the data: each design present
gets an equal share; within a design its primary group tests (one permutation test
over all its groups, stats/permutation.py, whose step-down gates the per-group
flags) 80% and the secondary ones (impact ratios, D2's race-only and gender-only
models) 20%, so forty-two impact-ratio cells do not drown the tests the papers
report. A share passes to the other tests once every test it covers has rejected
(Bretz et al. 2009); a test that cannot reach its share with the data at hand
(its smallest attainable p-value is above it) is left out and says so, so it takes
no alpha from tests that can fire (issue 25).

Each design's `compute_*` decides its own flags (a family per design) so it can
be used alone; the metrics of a whole audit (workflow/metrics.py) decide again
over everything the report shows, which is the family the report's first page
speaks for. Tests that are one comparison seen from two sides share a `key` and
count once.

A point estimate past a threshold whose test does not reject is still shown, with
`below_not_significant`: "0.74, below 0.80, not significant".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from scipy import stats as sps

from resume_auditor.stats.model import Family, FlagTestDict
from resume_auditor.stats.multiplicity import holm
from resume_auditor.stats.permutation import JointDraws
from resume_auditor.stats.robust import cluster_codes
from resume_auditor.stats.thresholds import Thresholds

# Words a decided flag: (p after Holm, tests in the family) -> the flag's sentence.
FlagText = Callable[[float, int], str]

FAMILIES = {"fairness": "group_gap_alpha", "validity": "position_bias_alpha"}
MIN_RATIO_CLUSTERS = 5  # source resumes each side of an impact-ratio test, at least


@dataclass
class FlagTest:
    """The test behind one possible flag, and the flag's sentence once decided.

    `text(p_adjusted, family_size)` words the flag; `crossed` says whether the point
    estimate is on the flag side of its threshold (shown as "not significant" when
    the test does not reject). `joint`: the design's permutation test this one is a
    member of (stats/permutation.py), whose step-down gives its p within the design;
    `floor`: the smallest p-value the test can give with these data. The decision
    fields are filled by `decide`; `untestable` says why a test could not fire.
    """

    family: Family
    key: str
    p: float | None
    text: Callable[[float, int], str]
    crossed: bool = False
    role: str = "primary"  # or "secondary": its share of alpha within its design
    joint: JointDraws | None = None
    floor: float = 0.0
    p_adjusted: float | None = None
    family_size: int = 0
    alpha: float = 0.05
    significant: bool = False
    share: float | None = None  # the share of alpha this test had at first
    untestable: str = ""

    def as_dict(self) -> FlagTestDict:
        out: FlagTestDict = {
            "family": self.family,
            "p": _finite(self.p),
            "p_adjusted": _finite(self.p_adjusted),
            "family_size": self.family_size,
            "alpha": self.alpha,
            "significant": self.significant,
            "crossed": self.crossed,
        }
        if self.untestable:
            out["untestable"] = self.untestable
        if self.share is not None:
            out["share"] = self.share
        return out


def p_text(p: float) -> str:
    """'p = 0.012', or 'p < 0.001' rather than a p of 0.000."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


class Flaggable(Protocol):
    """What decide() needs of a metric: a test and a writable flag."""

    test: FlagTest | None
    flag: str


@dataclass
class _Node:
    """Tests that share one share of alpha: a design's joint test, or one test alone."""

    design: str
    role: str
    keys: list[str]
    joint: JointDraws | None
    weight: float = 0.0


def decide(metrics: Iterable[Flaggable], thresholds: Thresholds) -> None:
    """Decide every flag of each family at its alpha; set each metric's flag.

    Fairness: each design present gets an equal share of alpha; within it its primary
    group tests 80% and the secondary ones 20% (all of it when only one kind is
    there). A design's primary tests that come from one permutation test (`joint`) are
    one node: its Westfall-Young step-down p-values are compared with the node's
    share, and the node's share passes to the other nodes only once every test in it
    has rejected (the sequentially rejective graphical procedure, Bretz et al. 2009);
    with one test per node this is Holm's weighted step-down. A test that cannot
    reach its share of alpha with these data (its `floor` is above it) is left out,
    so it does not take alpha from the tests that can fire, and says why.
    Validity: plain Holm across its tests.
    """
    by_family: dict[str, list[Flaggable]] = {}
    for m in metrics:
        if m.test is not None:
            by_family.setdefault(m.test.family, []).append(m)
    for family, members in by_family.items():
        alpha = thresholds.value(FAMILIES[family])
        tests: dict[str, FlagTest] = {}
        for m in members:
            assert m.test is not None
            tests.setdefault(m.test.key, m.test)
        adjusted, untestable, size = _decide_family(tests, alpha, family == "fairness")
        for m in members:
            t = m.test
            assert t is not None
            first = tests[t.key]
            t.p_adjusted = adjusted.get(t.key)
            t.untestable = untestable.get(t.key, "")
            t.share = first.share
            t.family_size = size
            t.alpha = alpha
            t.significant = t.p_adjusted is not None and t.p_adjusted < alpha
            m.flag = (
                t.text(t.p_adjusted, size) if t.significant and t.p_adjusted is not None else ""
            )


def _nodes(tests: dict[str, FlagTest], by_design: bool) -> list[_Node]:
    nodes: dict[tuple[str, int | str], _Node] = {}
    for key, t in tests.items():
        design = key.split(".")[0] if by_design else t.family
        role = t.role if by_design else "primary"
        ident: int | str = id(t.joint) if t.joint is not None else key
        node = nodes.setdefault((design, ident), _Node(design, role, [], t.joint))
        node.keys.append(key)
    return list(nodes.values())


def _weigh(nodes: list[_Node]) -> None:
    designs: dict[str, dict[str, list[_Node]]] = {}
    for n in nodes:
        designs.setdefault(n.design, {}).setdefault(n.role, []).append(n)
    for by_role in designs.values():
        shares = {"primary": 0.8, "secondary": 0.2} if len(by_role) > 1 else None
        for role, group in by_role.items():
            share = 1.0 if shares is None else shares.get(role, 0.2)
            for n in group:
                n.weight = share / len(group) / len(designs)


def _node_p(node: _Node, tests: dict[str, FlagTest]) -> dict[str, float]:
    """Each test's p within its node: the step-down of a joint test, else its own p."""
    if node.joint is not None:
        return node.joint.step_down(node.keys)
    out = {}
    for k in node.keys:
        p = tests[k].p
        if p is not None and math.isfinite(p):
            out[k] = float(p)
    return out


def _decide_family(
    tests: dict[str, FlagTest], alpha: float, by_design: bool
) -> tuple[dict[str, float], dict[str, str], int]:
    """(adjusted p per key, why a test could not fire, tests that could)."""
    untestable: dict[str, str] = {}
    nodes = _nodes(tests, by_design)
    for n in nodes:
        n.keys = [k for k in n.keys if tests[k].p is not None or tests[k].joint is not None]
    while True:
        nodes = [n for n in nodes if n.keys]
        _weigh(nodes)
        dropped = False
        for n in nodes:
            share = alpha * n.weight
            for k in list(n.keys):
                tests[k].share = share
                if tests[k].floor > share:
                    untestable[k] = (
                        f"cannot fire with these data: its smallest possible p-value "
                        f"({tests[k].floor:.2g}) is above its share of the false-alarm rate "
                        f"({share:.2g})"
                    )
                    n.keys.remove(k)
                    dropped = True
        if not dropped:
            break
    within = {id(n): _node_p(n, tests) for n in nodes}
    for n in nodes:
        n.keys = [k for k in n.keys if k in within[id(n)]]
    nodes = [n for n in nodes if n.keys]
    size = sum(len(n.keys) for n in nodes)
    adjusted: dict[str, float] = {}
    active = list(nodes)
    running = 0.0
    while active:
        total = sum(n.weight for n in active)
        best: tuple[float, _Node, str] | None = None
        for n in active:
            for k in n.keys:
                if k in adjusted:
                    continue
                q = within[id(n)][k] * total / n.weight if n.weight > 0 else math.inf
                if best is None or q < best[0]:
                    best = (q, n, k)
        if best is None:
            break
        q, node, key = best
        running = max(running, min(1.0, q))
        adjusted[key] = running
        if all(k in adjusted for k in node.keys):
            active.remove(node)
    return adjusted, untestable, size


def weighted_holm(
    pvalues: list[float | None], weights: list[float] | None = None
) -> list[float | None]:
    """Holm's weighted step-down adjusted p-values (None stays None); equal weights: Holm.

    `weights` has one entry per p-value that is present (not None), in order.

    Order by p / w; the j-th adjusted p is the running maximum of
    (p / w) * (sum of the weights not yet rejected), capped at 1.
    """
    if weights is None:
        return holm(pvalues)
    present = [(i, float(p)) for i, p in enumerate(pvalues) if p is not None and p == p]
    w_all = list(weights)
    out: list[float | None] = [None] * len(pvalues)
    if not present:
        return out
    p = np.array([q for _, q in present])
    w = np.array(w_all, dtype=float)
    if w.size != p.size:
        raise ValueError("one weight per p-value present")
    w = w / w.sum()
    q = p / w
    order = np.argsort(q, kind="stable")
    remaining = np.cumsum(w[order][::-1])[::-1]  # weight still in play at each step
    adjusted = np.minimum(1.0, np.maximum.accumulate(q[order] * remaining))
    for rank, j in enumerate(order):
        out[present[int(j)][0]] = float(adjusted[rank])
    return out


def below_p(
    values: np.ndarray, clusters: np.ndarray, bound: float, *, less: bool = True
) -> float | None:
    """One-sided p of "the mean of values is at least `bound`" (less=True), clustered.

    A cluster-robust (CR1) t-test on G - 1 degrees of freedom; with one cluster or
    no spread there is no test (None), so nothing is flagged on certainty the data
    cannot give.
    """
    y = np.asarray(values, dtype=float)
    if y.size == 0:
        return None
    codes, g = cluster_codes(np.asarray(clusters))
    if g < 2:
        return None
    mean = float(y.mean())
    resid = np.bincount(codes, weights=y - mean, minlength=g)
    var = (g / (g - 1)) * float(np.sum(resid**2)) / y.size**2
    if var <= 0 and y.size > 1:
        # Every resume gave the same rate: no spread between resumes, but the answers
        # still vary; a zero variance would claim a certainty the data cannot give.
        var = float(y.var(ddof=1)) / y.size
    if var <= 0:
        if mean == bound:
            return 1.0
        return 0.0 if (mean < bound) == less else 1.0
    t = (mean - bound) / math.sqrt(var)
    return float(sps.t.cdf(t, g - 1) if less else sps.t.sf(t, g - 1))


def ratio_below_p(
    y: np.ndarray,
    in_g: np.ndarray,
    in_h: np.ndarray,
    clusters: np.ndarray,
    cut: float,
) -> float | None:
    """One-sided p of "mean(y | g) >= cut * mean(y | h)", clustered (linearized CR1 t-test).

    The test behind an impact-ratio flag: rejecting says g's selection rate is under
    `cut` times h's beyond chance. Rows of g and h may share clusters (copies of the
    same resume); the variance uses each cluster's contribution to both means.
    """
    y = np.asarray(y, dtype=float)
    in_g, in_h = np.asarray(in_g, dtype=bool), np.asarray(in_h, dtype=bool)
    n_g, n_h = int(in_g.sum()), int(in_h.sum())
    if n_g == 0 or n_h == 0:
        return None
    codes, g = cluster_codes(np.asarray(clusters))
    seen_g, seen_h = np.unique(codes[in_g]).size, np.unique(codes[in_h]).size
    if min(seen_g, seen_h) < MIN_RATIO_CLUSTERS:
        # A t-test of a ratio from two or three resumes reads a zero from one resume as
        # certain; below this many resumes on either side the test is not run.
        return None
    m_g, m_h = float(y[in_g].mean()), float(y[in_h].mean())
    d = m_g - cut * m_h
    infl = np.bincount(codes[in_g], weights=(y[in_g] - m_g) / n_g, minlength=g).astype(float)
    infl = infl - cut * np.bincount(codes[in_h], weights=(y[in_h] - m_h) / n_h, minlength=g)
    var = (g / (g - 1)) * float(np.sum(infl**2))
    if var <= 0:
        # No spread between resumes: fall back on the answers' own variance.
        var = float(y[in_g].var()) / n_g + cut**2 * float(y[in_h].var()) / n_h
    if var <= 0:
        return None
    return float(sps.t.cdf(d / math.sqrt(var), g - 1))


def impact_p(
    y: np.ndarray, labels: np.ndarray, clusters: np.ndarray, group: str, cut: float
) -> float | None:
    """p of "group's impact ratio is at least `cut`": against every other level, Bonferroni.

    The ratio is under `cut` exactly when the group's rate is under `cut` times some
    other level's rate, so the null is the intersection over the other levels; the
    smallest p times their number keeps the error rate without picking the highest
    level from the same data.
    """
    others = [h for h in sorted(set(labels.tolist())) if h != group]
    ps = [ratio_below_p(y, labels == group, labels == h, clusters, cut) for h in others]
    present = [p for p in ps if p is not None]
    if not present:
        return None
    return min(1.0, min(present) * len(present))


def _ratio_moments(
    y: np.ndarray, in_g: np.ndarray, in_h: np.ndarray, codes: np.ndarray, g: int
) -> tuple[float, float, float, float, float]:
    """(mean g, mean h, var g, cov gh, var h) of the two means, clustered (CR1)."""
    n_g, n_h = int(in_g.sum()), int(in_h.sum())
    m_g, m_h = float(y[in_g].mean()), float(y[in_h].mean())
    a = np.bincount(codes[in_g], weights=(y[in_g] - m_g) / n_g, minlength=g).astype(float)
    b = np.bincount(codes[in_h], weights=(y[in_h] - m_h) / n_h, minlength=g).astype(float)
    f = g / (g - 1)
    return m_g, m_h, f * float(a @ a), f * float(a @ b), f * float(b @ b)


def impact_interval(
    y: np.ndarray,
    labels: np.ndarray,
    clusters: np.ndarray,
    group: str,
    level: float = 0.95,
) -> tuple[float | None, float | None]:
    """An interval for a group's impact ratio that agrees with its flag's test.

    The ratio is min over the other levels h of rate_g / rate_h (capped at 1), so
    each h gives a Fieller interval for rate_g / rate_h at Bonferroni's share of
    1 - level, and the ratio's interval is the smallest lower and the smallest
    upper bound, cut to [0, 1]. Inverting the same clustered test the flag uses
    means "the whole interval is under 0.80" and "the test rejects 0.80 before
    multiplicity" are the same statement. Needs MIN_RATIO_CLUSTERS resumes per
    side, as the test does; otherwise no interval.
    """
    y = np.asarray(y, dtype=float)
    codes, g = cluster_codes(np.asarray(clusters))
    if g < 2:
        return None, None
    others = [h for h in sorted(set(labels.tolist())) if h != group]
    in_g = labels == group
    if not others or np.unique(codes[in_g]).size < MIN_RATIO_CLUSTERS:
        return None, None
    alpha = (1 - level) / 2 / len(others)
    crit = float(sps.t.ppf(1 - alpha, g - 1))
    lows, highs = [], []
    for h in others:
        in_h = labels == h
        if np.unique(codes[in_h]).size < MIN_RATIO_CLUSTERS:
            return None, None
        m_g, m_h, v_gg, v_gh, v_hh = _ratio_moments(y, in_g, in_h, codes, g)
        lo, hi = _fieller(m_g, m_h, v_gg, v_gh, v_hh, crit)
        lows.append(lo)
        highs.append(hi)
    return max(0.0, min(lows)), min(1.0, max(0.0, min(highs)))


def _fieller(
    m_g: float, m_h: float, v_gg: float, v_gh: float, v_hh: float, crit: float
) -> tuple[float, float]:
    """Fieller's interval for m_g / m_h: the c with (m_g - c m_h)^2 <= crit^2 var(c)."""
    a = m_h * m_h - crit * crit * v_hh
    b = m_g * m_h - crit * crit * v_gh
    c = m_g * m_g - crit * crit * v_gg
    if a <= 0:  # the denominator is not clearly above zero: no upper bound
        return 0.0, math.inf
    disc = b * b - a * c
    if disc < 0:
        return 0.0, math.inf
    root = math.sqrt(disc)
    return (b - root) / a, (b + root) / a
