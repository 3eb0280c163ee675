"""A planted-bias simulator of D1 judgments (no HTTP, no model): the metrics' test bench.

It writes the table a real audit produces (inputs.D1_JUDGMENTS) from a screener
whose behaviour is set by hand, so the truth every metric should recover is known:
criterion validity (per k), the share of errors that are abstentions, discriminant
validity, position bias and a selection bias per group. Source resumes differ
(each gets its own random shift of every rate, mean zero), so answers about the
same resume are correlated as in real audits, and an interval that ignored that
would be caught out by the coverage tests.

The screener on a decisive equal pair shown (first, second):
    P(pick first) = 0.5 + position_bias_c + (bias_c[first] - bias_c[second]) / 2
so averaged over both orders position cancels and the selection gap of group g
(picked minus opponent picked, over its cross-group comparisons) is
    (1 - discrim_validity) * mean over opponents h of (bias[g] - bias[h]).
The design mirrors designs/d1_castleman/cases.py: every unordered pair of groups (same group
included) as an equal pair, and a within-group unequal pair per k, each shown in
both orders.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

D1_GROUP_KEYS = ("black_woman", "black_man", "white_woman", "white_man")


@dataclass(frozen=True)
class PlantedD1:
    clusters: int = 12
    groups: tuple[str, ...] = D1_GROUP_KEYS
    ks: tuple[int, ...] = (1, 2, 3)
    reps: int = 1
    criterion_validity: Mapping[int, float] = field(
        default_factory=lambda: {1: 0.75, 2: 0.85, 3: 0.92}
    )
    cv_spread: float = 0.06
    abstain_share_of_errors: float = 0.6
    discrim_validity: float = 0.4
    dv_spread: float = 0.15
    position_bias: float = 0.1
    position_spread: float = 0.08
    group_bias: Mapping[str, float] = field(default_factory=dict)
    bias_spread: float = 0.1
    invalid_rate: float = 0.02
    extra_columns: bool = False  # add qual_type, change_location, generator

    def bias(self, g: str) -> float:
        return float(self.group_bias.get(g, 0.0))

    def truth(self) -> dict[str, object]:
        """What each metric estimates, exactly, under this screener."""
        decisive = 1 - self.discrim_validity
        gaps = {}
        rates = {}
        for g in self.groups:
            diffs = [self.bias(g) - self.bias(h) for h in self.groups if h != g]
            gaps[g] = decisive * float(np.mean(diffs))
            rates[g] = decisive * (0.5 + float(np.mean(diffs)) / 2)
        cv = {k: float(self.criterion_validity[k]) for k in self.ks}
        return {
            "criterion_validity": float(np.mean(list(cv.values()))),
            "criterion_validity_by_k": cv,
            "unjustified_abstention": self.abstain_share_of_errors,
            "unjustified_selection": 1 - self.abstain_share_of_errors,
            "discrim_validity": self.discrim_validity,
            "first_position_rate": 0.5 + self.position_bias,
            "selection_gap": gaps,
            "selection_rate": rates,
        }


def _uniform(rng: np.random.Generator, spread: float, size: tuple[int, ...] | int) -> np.ndarray:
    return rng.uniform(-spread, spread, size) if spread > 0 else np.zeros(size)


def simulate_d1(plan: PlantedD1, rng: np.random.Generator) -> pd.DataFrame:
    """One simulated audit's judgments; raises ValueError if a planted rate leaves [0, 1]."""
    groups = list(plan.groups)
    pairs: list[tuple[str, int, int, int]] = []  # kind, group_a idx, group_b idx, k
    for a, b in itertools.combinations_with_replacement(range(len(groups)), 2):
        pairs.append(("equal", a, b, 0))
    for k in plan.ks:
        for g in range(len(groups)):
            pairs.append(("unequal", g, g, k))
    n_pairs = len(pairs)
    c_n, reps = plan.clusters, plan.reps
    rows = c_n * n_pairs * reps * 2

    cluster = np.repeat(np.arange(c_n), n_pairs * reps * 2)
    pair = np.tile(np.repeat(np.arange(n_pairs), reps * 2), c_n)
    rep = np.tile(np.repeat(np.arange(reps), 2), c_n * n_pairs)
    first_is_a = np.tile(np.array([True, False]), c_n * n_pairs * reps)
    kind = np.array([p[0] for p in pairs])[pair]
    ga = np.array([p[1] for p in pairs])[pair]
    gb = np.array([p[2] for p in pairs])[pair]
    k_of = np.array([p[3] for p in pairs])[pair]
    is_equal = kind == "equal"

    # Per source resume: shifted rates (mean zero shifts keep the truth exact).
    cv_k = np.array([plan.criterion_validity.get(int(x), 0.0) for x in k_of])
    cv = cv_k + _uniform(rng, plan.cv_spread, c_n)[cluster]
    dv = plan.discrim_validity + _uniform(rng, plan.dv_spread, c_n)[cluster]
    pos = plan.position_bias + _uniform(rng, plan.position_spread, c_n)[cluster]
    base_bias = np.array([plan.bias(g) for g in groups])
    bias = base_bias[None, :] + _uniform(rng, plan.bias_spread, (c_n, len(groups)))
    g_first = np.where(first_is_a, ga, gb)
    g_second = np.where(first_is_a, gb, ga)
    p_first = 0.5 + pos + (bias[cluster, g_first] - bias[cluster, g_second]) / 2
    p_first = np.where(is_equal, p_first, 0.5)  # unused on unequal pairs
    checks = (("criterion validity", cv[~is_equal]), ("abstention", dv), ("pick-first", p_first))
    for name, p in checks:
        if np.any((p < 0) | (p > 1)):
            raise ValueError(f"planted {name} probability leaves [0, 1]; use smaller effects")

    # Per-cluster truth of each unequal pair: which variant is the more qualified one.
    truth_a = rng.random(c_n * n_pairs) < 0.5
    more_is_a = truth_a[cluster * n_pairs + pair]
    u1, u2 = rng.random(rows), rng.random(rows)

    choice = np.empty(rows, dtype=object)
    # equal pairs
    abstain = is_equal & (u1 < dv)
    picks_first = is_equal & ~abstain & (u2 < p_first)
    picks_second = is_equal & ~abstain & ~picks_first
    choice[abstain] = "abstain"
    choice[picks_first] = np.where(first_is_a[picks_first], "a", "b")
    choice[picks_second] = np.where(first_is_a[picks_second], "b", "a")
    # unequal pairs
    uneq = ~is_equal
    correct = uneq & (u1 < cv)
    wrong = uneq & ~correct
    wrong_abstain = wrong & (u2 < plan.abstain_share_of_errors)
    wrong_pick = wrong & ~wrong_abstain
    choice[correct] = np.where(more_is_a[correct], "a", "b")
    choice[wrong_abstain] = "abstain"
    choice[wrong_pick] = np.where(more_is_a[wrong_pick], "b", "a")

    label = np.where(
        choice == "abstain",
        "abstain",
        np.where((choice == "a") == first_is_a, "first", "second"),
    ).astype(object)
    label[rng.random(rows) < plan.invalid_rate] = "invalid"

    names = np.array(groups, dtype=object)
    frame = pd.DataFrame(
        {
            "request_id": np.arange(1, rows + 1),
            "run_id": 1,
            "pair_id": cluster * n_pairs + pair + 1,
            "design": "D1",
            "kind": kind,
            "truth": np.where(is_equal, "equal", np.where(more_is_a, "a", "b")),
            "cluster": cluster + 1,
            "k": k_of,
            "group_a": names[ga],
            "group_b": names[gb],
            "signal": "name",
            "ord": np.where(first_is_a, "ab", "ba"),
            "rep": rep,
            "label": label,
        }
    )
    if plan.extra_columns:
        qual = np.array(["soft_skill", "education", "hard_skill"], dtype=object)
        unequal = pd.Series(~is_equal)
        frame["qual_type"] = pd.Series(qual[pair % 3]).where(unequal, None)
        location = np.where(pair % 5 == 0, "summary", "body").astype(object)
        frame["change_location"] = pd.Series(location).where(unequal, None)
        generator = np.where(cluster % 2, "claude", "gemini").astype(object)
        frame["generator"] = pd.Series(generator).where(unequal, None)
    return frame


def comparisons_per_group(plan: PlantedD1) -> int:
    """Valid-or-not answers per group on cross-group equal pairs in one simulated audit."""
    return plan.clusters * plan.reps * 2 * (len(plan.groups) - 1)


@dataclass
class CoverageStudy:
    """How often 95% intervals held the planted truth, and how often a gap was flagged."""

    audits: int
    covered: dict[str, int] = field(default_factory=dict)  # metric family -> intervals covering
    intervals: dict[str, int] = field(default_factory=dict)  # metric family -> intervals made
    flagged: int = 0  # audits with at least one group gap flagged
    flagged_groups: dict[str, int] = field(default_factory=dict)

    def coverage(self, family: str) -> float:
        return self.covered[family] / self.intervals[family]

    def flag_rate(self, group: str | None = None) -> float:
        hits = self.flagged if group is None else self.flagged_groups.get(group, 0)
        return hits / self.audits


# metric family -> (where in D1Result, key in PlantedD1.truth())
FAMILIES = (
    "criterion_validity",
    "criterion_validity_by_k",
    "unjustified_abstention",
    "discrim_validity",
    "first_position_rate",
    "selection_rate",
    "selection_gap",
)


def coverage_study(plan: PlantedD1, audits: int, seed: int) -> CoverageStudy:
    """Simulate `audits` audits of the planted screener and score every interval."""
    from resume_auditor.designs.d1_castleman.stats import compute_d1  # the metrics under test

    rng = np.random.default_rng(seed)
    truth = plan.truth()
    out = CoverageStudy(audits, {f: 0 for f in FAMILIES}, {f: 0 for f in FAMILIES})

    def score(family: str, low: float | None, high: float | None, value: object) -> None:
        out.intervals[family] += 1
        if low is not None and high is not None and low <= float(value) <= high:  # type: ignore[arg-type]
            out.covered[family] += 1

    for _ in range(audits):
        r = compute_d1(simulate_d1(plan, rng))
        for family in ("criterion_validity", "unjustified_abstention", "discrim_validity",
                       "first_position_rate"):  # fmt: skip
            est = r.metrics[family].estimate
            score(family, est.low, est.high, truth[family])
        by_k = truth["criterion_validity_by_k"]
        assert isinstance(by_k, dict)
        for k, m in r.breakdowns["criterion_validity_by_k"].items():
            score("criterion_validity_by_k", m.estimate.low, m.estimate.high, by_k[int(k)])
        for family in ("selection_rate", "selection_gap"):
            cells = getattr(r, family)
            truths = truth[family]
            assert isinstance(truths, dict)
            for g, m in cells.items():
                score(family, m.estimate.low, m.estimate.high, truths[g])
        flagged = [g for g, m in r.selection_gap.items() if m.flag]
        out.flagged += bool(flagged)
        for g in flagged:
            out.flagged_groups[g] = out.flagged_groups.get(g, 0) + 1
    return out
