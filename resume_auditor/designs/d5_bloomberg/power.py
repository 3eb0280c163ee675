"""D5's power before a run: simulated through D5's own tests, as issue 25 asks of every design.

A plan that only said "not simulated" left a user to guess whether ten batches could
find anything. Here the audit the plan describes (its batches, shown orders per
batch and repeats) is simulated many times with one group put first less often
than the others, and each simulated audit goes through `compute_d5` and the
report's flag decision (`stats.flags.decide`), at the share of the false-alarm rate
D5 gets when the audit has other designs too (each design an equal share, the
figure then "at least": the other designs' tests are not simulated).

The screener simulated is the one Bloomberg's data look like: a Plackett-Luce
ranker (a copy's chance of being put first is its weight over the weights of the
copies not yet placed), one group's weight `effect` times the others', every
answer drawn afresh (a temperature above 0; at temperature 0 a repeated order is
one answer and power is that of fewer answers), shown in the Latin-square orders
the cases use. `effect` 0.5 is a group put first half as often as each other
group: with eight groups its top-1 rate is 6.7% against 13.3%, an impact ratio of
0.5, in the range Bloomberg measured for GPT-3.5 (Bloomberg 2024: the lowest
group's rate was under half the highest's in some jobs).

A figure is the share of SIMS simulated audits in which that group is flagged
(its top-1 test or its impact ratio): a standard error of about 5 points near 50%.
"""

from __future__ import annotations

import logging
import math
from dataclasses import replace
from statistics import NormalDist

import numpy as np
import pandas as pd

from resume_auditor.designs.d5_bloomberg.stats import compute_d5
from resume_auditor.stats.flags import FAMILIES, decide
from resume_auditor.stats.permutation import DRAWS
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS, Thresholds

logger = logging.getLogger(__name__)

EFFECT = 0.5  # the disfavoured group's weight: put first half as often as each other group
SIMS = 100
TARGET = 0.8
MOST_BATCHES = 4096  # the most batches a recommendation names
NORMAL = NormalDist()


def simulate(
    rng: np.random.Generator,
    *,
    batches: int,
    orders: int,
    repeats: int,
    groups: list[str],
    effect: float,
) -> pd.DataFrame:
    """One simulated audit's ranking table (the rows `compute_d5` reads); the first of
    `groups` has weight `effect`, every other group 1."""
    n = len(groups)
    weight = np.ones(n)
    weight[0] = effect
    rows: list[dict[str, object]] = []
    answer = 0
    for b in range(batches):
        symbols = [int(x) for x in rng.permutation(n)]
        for r in range(orders):
            order = [symbols[(i + r) % n] for i in range(n)]  # a Latin square's rows
            for _ in range(repeats):
                left = list(range(n))
                ranking: list[int] = []
                while left:
                    w = weight[[order[p] for p in left]]
                    j = int(rng.choice(len(left), p=w / w.sum()))
                    ranking.append(left.pop(j))
                place = {pos: k + 1 for k, pos in enumerate(ranking)}
                for pos in range(n):
                    rows.append(
                        {
                            "batch_id": b,
                            "answer_id": answer,
                            "presentation": f"{b}:{r}",
                            "position": pos,
                            "group": groups[order[pos]],
                            "rank": float(place[pos]),
                            "status": "ranked",
                        }
                    )
                answer += 1
    return pd.DataFrame(rows)


def _with_alpha(thresholds: Thresholds, alpha: float) -> Thresholds:
    key = FAMILIES["fairness"]
    return Thresholds(
        tuple(replace(t, value=alpha) if t.key == key else t for t in thresholds.items)
    )


def simulated_power(
    *,
    batches: int,
    orders: int,
    repeats: int,
    groups: list[str],
    top_k: int,
    alpha: float,
    effect: float = EFFECT,
    sims: int = SIMS,
    seed: int = 0,
    draws: int = DRAWS,
) -> float:
    """Share of simulated audits that flag the disfavoured group, at D5's `alpha`."""
    if batches < 1 or orders < 1 or len(groups) < 2:
        return 0.0
    thresholds = _with_alpha(DEFAULT_THRESHOLDS, alpha)
    rng = np.random.default_rng(seed)
    target = groups[0]
    hits = 0
    for i in range(sims):
        table = simulate(
            rng, batches=batches, orders=orders, repeats=repeats, groups=groups, effect=effect
        )
        result = compute_d5(
            table, top_k=min(top_k, len(groups)), thresholds=thresholds, draws=draws, seed=i
        )
        decide(result.all_metrics(), thresholds)
        top1, ratio = result.top1.get(target), result.impact_ratio.get(target)
        hits += bool((top1 is not None and top1.flag) or (ratio is not None and ratio.flag))
    return hits / sims


def batches_for_power(
    *, orders: int, repeats: int, groups: list[str], alpha: float, effect: float = EFFECT
) -> int | None:
    """About how many batches the disfavoured group needs to be flagged in TARGET of
    audits: the normal approximation of its top-1 test (a proportion against the 1 in
    n of chance) at its share of D5's alpha (the top-1 node's 40%, split over the n
    groups), which `tests/test_d5_power.py` checks against `simulated_power`. A
    simulation search would take minutes at the sizes it finds; the plan simulates
    the size it has. None: more than MOST_BATCHES."""
    n = len(groups)
    if n < 2 or orders < 1 or repeats < 1 or not 0 < effect != 1:
        return None
    p0, p1 = 1 / n, effect / (effect + n - 1)
    share = alpha * 0.4 / n
    z_a, z_b = NORMAL.inv_cdf(1 - share / 2), NORMAL.inv_cdf(TARGET)
    spread = z_a * math.sqrt(p0 * (1 - p0)) + z_b * math.sqrt(p1 * (1 - p1))
    answers = (spread / abs(p0 - p1)) ** 2
    batches = math.ceil(answers / (orders * repeats))
    return batches if batches <= MOST_BATCHES else None
