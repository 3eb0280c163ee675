"""D5's statistics (designs/d5_bloomberg/stats.py): hand-computed cases, intervals against
an independent sandwich formula, exact permutation p-values, and simulated audits.

The simulator below ranks eight copies of a resume by Plackett-Luce: each shown copy's
weight is its place's weight times its group's weight, so "one group first twice as
often" is a group weight of 2, and a strong position effect is a heavy first place.
Orders are a Latin square over a shuffled assignment of groups (each group in each
place once per batch), as the design builds them; at temperature 0 the repeats of
one order repeat its answer.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from resume_auditor.designs.d5_bloomberg.model import D5Dict
from resume_auditor.designs.d5_bloomberg.stats import (
    D5Result,
    compute_d5,
    joint_top1,
    relabel,
    total_pmf,
    uniformity_test,
)
from resume_auditor.domain.groups import ALL_GROUPS
from resume_auditor.stats.flags import decide
from resume_auditor.stats.inputs import StatsInputError
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS

GROUPS = [g.key for g in ALL_GROUPS]
WW, WM, BW, BM = "white_woman", "white_man", "black_woman", "black_man"
STRONG_POSITION = [6.0, 1, 1, 1, 1, 1, 1, 3]  # first shown 6x, last shown 3x a middle place


def rows(answer: int, batch: int, presentation: str, order: list[str], ranks: dict[str, float],
         status: str = "ranked") -> list[dict[str, object]]:  # fmt: skip
    return [
        {
            "batch_id": batch,
            "answer_id": answer,
            "presentation": presentation,
            "position": pos,
            "group": g,
            "rank": ranks.get(g, math.nan),
            "status": status,
        }
        for pos, g in enumerate(order)
    ]


def hand_table() -> pd.DataFrame:
    """Seven answers over three batches of four groups (worked out in the tests below)."""
    out = []
    out += rows(1, 1, "p1", [WW, WM, BW, BM], {WW: 2, WM: 1, BW: 3, BM: 4})
    out += rows(2, 1, "p2", [BM, BW, WM, WW], {BM: 1, BW: 2, WM: 3, WW: 4})
    out += rows(3, 2, "p1", [WM, BM, WW, BW], {WM: 1, BM: 2, WW: 3, BW: 4})
    out += rows(4, 2, "p2", [BW, WW, BM, WM], {BW: 1}, "partial")
    out += rows(5, 3, "p1", [WW, BW, WM, BM], {BM: 1, WW: 2}, "partial")
    out += rows(6, 3, "p2", [WM, WW, BM, BW], {}, "unreadable")
    out += rows(7, 3, "p2", [WM, WW, BM, BW], {WW: 1, WM: 2, BW: 3, BM: 4})
    return pd.DataFrame(out)


def simulate(
    rng: np.random.Generator,
    *,
    batches: int = 10,
    orders: int = 8,
    repeats: int = 2,
    position: list[float] | None = None,
    group_weight: dict[str, float] | None = None,
    temperature0: bool = True,
    groups: list[str] = GROUPS,
    latin: bool = True,
) -> pd.DataFrame:
    """Answers to `batches` x `orders` x `repeats` requests; `latin=False` shuffles each
    order independently instead of the balanced square."""
    n = len(groups)
    place_w = np.ones(n) if position is None else np.asarray(position, dtype=float)
    weight = {g: 1.0 for g in groups} | (group_weight or {})
    out: list[dict[str, object]] = []
    answer = 0
    for b in range(batches):
        symbols = [str(g) for g in rng.permutation(groups)]
        for r in range(orders):
            if latin:
                order = [symbols[(i + r) % n] for i in range(n)]
            else:
                order = [str(g) for g in rng.permutation(groups)]
            w = np.array([place_w[i] * weight[order[i]] for i in range(n)])
            ranking: list[int] = []
            for _ in range(repeats):
                if not ranking or not temperature0:
                    left, ranking = list(range(n)), []
                    while left:
                        j = int(rng.choice(len(left), p=w[left] / w[left].sum()))
                        ranking.append(left.pop(j))
                rank_of = {pos: k + 1 for k, pos in enumerate(ranking)}
                ranks = {order[pos]: float(rank_of[pos]) for pos in range(n)}
                out += rows(answer, b, f"{b}:{r}", order, ranks)
                answer += 1
    return pd.DataFrame(out)


def decided(df: pd.DataFrame, **kwargs: object) -> D5Result:
    result = compute_d5(df, **kwargs)  # type: ignore[arg-type]
    decide(result.all_metrics(), DEFAULT_THRESHOLDS)
    return result


# -- hand-computed ----------------------------------------------------------------------


def test_counts_and_rates_by_hand() -> None:
    r = compute_d5(hand_table(), top_k=2)
    assert (r.answers, r.unreadable, r.partial, r.batches) == (7, 1, 2, 3)
    assert r.groups == sorted([WW, WM, BW, BM])
    # Read answers 1, 2, 3, 4, 5, 7 put first WM, BM, WM, BW, BM, WW.
    top1 = {g: (m.estimate.successes, m.estimate.n) for g, m in r.top1.items()}  # type: ignore[union-attr]
    assert top1 == {WM: (2, 6), BM: (2, 6), BW: (1, 6), WW: (1, 6)}
    assert r.top1[WM].estimate.clusters == 3
    # Top 2 over the answers read down to place 2 (answer 4 stops at place 1).
    topk = {g: (m.estimate.successes, m.estimate.n) for g, m in r.topk.items()}  # type: ignore[union-attr]
    assert topk == {WW: (3, 5), WM: (3, 5), BW: (1, 5), BM: (3, 5)}
    assert r.top1_by_race["white"].estimate.value == pytest.approx(3 / 6)
    assert r.top1_by_race["black"].estimate.value == pytest.approx(3 / 6)
    assert r.top1_by_sex["woman"].estimate.value == pytest.approx(2 / 6)
    assert r.top1_by_sex["man"].estimate.value == pytest.approx(4 / 6)
    assert "25%" not in r.top1_by_sex["man"].reading and "50% if" in r.top1_by_sex["man"].reading
    # Put first from the first place: answers 2, 3, 4; from the last: answer 5.
    assert r.position["first"].estimate.value == pytest.approx(3 / 6)
    assert r.position["last"].estimate.value == pytest.approx(1 / 6)
    # Unranked over all seven answers, the unreadable one included.
    unranked = {g: m.estimate.value for g, m in r.unranked.items()}
    assert unranked == pytest.approx({WW: 2 / 7, WM: 3 / 7, BW: 2 / 7, BM: 2 / 7})
    impact = {g: m.estimate.value for g, m in r.impact_ratio.items()}
    assert impact == pytest.approx({WM: 1.0, BM: 1.0, BW: 0.5, WW: 0.5})
    assert "12.5%" not in r.top1[WW].reading and "25% if the names did not matter" in (
        r.top1[WW].reading
    )


def test_top_k_covering_everyone_is_not_a_rate() -> None:
    r = compute_d5(hand_table(), top_k=4)
    assert all(m.estimate.value is None for m in r.topk.values())
    assert "all 4 candidates" in r.topk[WW].estimate.note


def test_metrics_block_matches_its_type_and_is_strict_json() -> None:
    r = decided(simulate(np.random.default_rng(3), batches=6, orders=8, repeats=1), top_k=3)
    block = r.as_dict()
    assert set(block) == set(D5Dict.__annotations__)
    json.dumps(block, allow_nan=False)
    assert block["top_k"] == 3 and len(block["top1"]) == 8 and block["uniformity"] is not None
    assert set(block["position"]) == {"first", "last"}
    keys = [m.test.key for m in r.all_metrics() if m.test is not None]
    assert keys and all(k.startswith("d5.") for k in keys)
    assert {m.test.family for m in r.all_metrics() if m.test} == {"fairness", "validity"}


def test_two_groups_share_one_test() -> None:
    df = simulate(np.random.default_rng(4), batches=6, orders=2, groups=[WW, WM])
    r = compute_d5(df, top_k=1)
    assert r.top1[WW].test is not None and r.top1[WM].test is not None
    assert r.top1[WW].test.key == r.top1[WM].test.key == "d5.top1"


# -- intervals against an independent computation -----------------------------------------


def cr1_wilson(y: np.ndarray, clusters: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """A proportion's CR1 sandwich variance, as an effective n under a Wilson interval on
    a t critical value with G - 1 degrees of freedom, written out cluster by cluster."""
    n, p = len(y), float(np.mean(y))
    ids = sorted(set(clusters.tolist()))
    g = len(ids)
    meat = sum(float(np.sum(y[clusters == c] - p)) ** 2 for c in ids)
    var = g / (g - 1) * meat / n**2
    n_eff = p * (1 - p) / var
    z = float(sps.t.ppf(0.5 + level / 2, g - 1))
    centre = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z * math.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff**2)) / (1 + z * z / n_eff)
    return centre - half, centre + half


def test_top1_intervals_match_a_sandwich_written_out() -> None:
    df = simulate(np.random.default_rng(8), batches=9, orders=8, repeats=1, temperature0=False,
                  position=STRONG_POSITION, group_weight={BW: 0.5})  # fmt: skip
    r = compute_d5(df, top_k=3)
    first = df[df["rank"] == 1]
    for g, m in r.top1.items():
        answers = df[df["group"] == g]
        y = (answers["rank"] == 1).to_numpy(float)
        low, high = cr1_wilson(y, answers["batch_id"].to_numpy())
        assert (m.estimate.low, m.estimate.high) == pytest.approx((low, high), abs=1e-9), g
        assert m.estimate.successes == int((first["group"] == g).sum())


def test_impact_interval_inverts_its_test_on_a_grid() -> None:
    """The impact ratio's interval: for each other group h, the ratios c with
    (rate_g - c rate_h)^2 <= crit^2 var(c) (Fieller, CR1 by batch, Bonferroni over the
    other groups); the group's interval is the lowest lower and the lowest upper bound."""
    df = simulate(np.random.default_rng(9), batches=12, orders=8, repeats=1, temperature0=False,
                  group_weight={BW: 0.4, WM: 1.6})  # fmt: skip
    r = compute_d5(df, top_k=3)
    y_all = (df["rank"] == 1).to_numpy(float)
    batch = df["batch_id"].to_numpy()
    ids = sorted(set(batch.tolist()))
    g_n = len(ids)
    grid = np.linspace(0, 3, 30001)
    crit = float(sps.t.ppf(1 - 0.05 / 2 / 7, g_n - 1))
    group = BW
    in_g = (df["group"] == group).to_numpy()
    lows, highs = [], []
    for h in sorted(set(GROUPS) - {group}):
        in_h = (df["group"] == h).to_numpy()
        m_g, m_h = y_all[in_g].mean(), y_all[in_h].mean()
        a = np.array([np.sum(y_all[in_g & (batch == c)] - m_g) / in_g.sum() for c in ids])
        b = np.array([np.sum(y_all[in_h & (batch == c)] - m_h) / in_h.sum() for c in ids])
        f = g_n / (g_n - 1)
        var = f * (np.sum(a * a) - 2 * grid * np.sum(a * b) + grid**2 * np.sum(b * b))
        inside = grid[(m_g - grid * m_h) ** 2 <= crit**2 * var]
        lows.append(inside.min())
        highs.append(inside.max())
    est = r.impact_ratio[group].estimate
    assert est.low == pytest.approx(max(0.0, min(lows)), abs=2e-4)
    assert est.high == pytest.approx(min(1.0, min(highs)), abs=2e-4)
    assert est.low is not None and est.high is not None and est.low <= (est.value or 0) <= est.high


# -- permutation tests --------------------------------------------------------------------


@pytest.mark.parametrize(
    "rows",
    [
        [[3.0, 1, 0], [2, 2, 0], [4, 0, 1]],
        # batches whose answers all put one group first are drawn as a multinomial
        [[2.0, 0, 0], [0, 0, 1], [0, 3, 0], [1, 1, 0], [0, 0, 2]],
    ],
)
def test_uniformity_p_matches_full_enumeration(rows: list[list[float]]) -> None:
    counts = np.array(rows)
    expected = counts.sum() / 3

    def chi2(table: np.ndarray) -> float:
        return float(((table.sum(axis=0) - expected) ** 2).sum() / expected)

    observed = chi2(counts)
    perms = list(itertools.permutations(range(3)))
    stats = [
        chi2(np.array([row[list(p)] for row, p in zip(counts, ps, strict=True)]))
        for ps in itertools.product(perms, repeat=len(counts))
    ]
    exact = float(np.mean(np.array(stats) >= observed - 1e-9))
    test = uniformity_test(counts, draws=20000, seed=1)
    assert test is not None
    assert test.chi2 == pytest.approx(observed)
    assert test.p == pytest.approx(exact, abs=0.01)
    assert test.floor == pytest.approx(
        float(np.mean(np.array(stats) >= max(stats) - 1e-9)), abs=0.01
    )


def test_group_totals_and_their_p_match_full_enumeration() -> None:
    """A group's total under the relabellings takes one entry of each batch's row: its
    exact distribution, and the per-group p (twice the smaller tail, then the chance of
    a total at least as unlikely), against all 3^3 ways of dealing it."""
    counts = np.array([[3.0, 1, 0], [2, 2, 0], [4, 0, 1]])
    dealt = [sum(t) for t in itertools.product(*[list(r) for r in counts])]
    pmf = total_pmf(counts)
    for total in range(len(pmf)):
        assert pmf[total] == pytest.approx(dealt.count(total) / len(dealt))
    rel = relabel(counts, draws=999, seed=1)
    joint = joint_top1(rel, ["a", "b", "c"])

    def tails(t: float) -> float:
        return min(1.0, 2 * min(np.mean(np.array(dealt) <= t), np.mean(np.array(dealt) >= t)))

    for j, g in enumerate("abc"):
        mine = tails(float(counts[:, j].sum()))
        exact = float(np.mean([tails(t) <= mine + 1e-12 for t in dealt]))
        assert joint.marginal[f"d5.top1.{g}"] == pytest.approx(exact)


def test_identical_repeats_add_no_evidence() -> None:
    """At temperature 0 a repeat says nothing new: tripling every answer leaves the
    per-group and uniformity p-values where they were."""
    once = simulate(np.random.default_rng(12), batches=8, repeats=1, group_weight={WM: 1.5})
    thrice = simulate(np.random.default_rng(12), batches=8, repeats=3, group_weight={WM: 1.5})
    a, b = compute_d5(once, top_k=3, draws=999), compute_d5(thrice, top_k=3, draws=999)
    for g in GROUPS:
        assert a.top1[g].test is not None and b.top1[g].test is not None
        assert a.top1[g].test.p == b.top1[g].test.p
    assert a.uniformity is not None and b.uniformity is not None
    assert a.uniformity.estimate.p == b.uniformity.estimate.p  # type: ignore[union-attr]


def test_a_balanced_design_cancels_a_pure_position_effect() -> None:
    """A model that always puts the first-shown copy first, in a Latin square: every
    group is first once per batch, so nothing about the names can be claimed, and the
    position flag fires."""
    df = simulate(np.random.default_rng(13), position=[1e9, 1, 1, 1, 1, 1, 1, 1])
    r = decided(df, top_k=3)
    assert all(m.estimate.value == pytest.approx(1 / 8) for m in r.top1.values())
    assert not [
        m.flag for m in r.all_metrics() if m.test and m.test.family == "fairness" and m.flag
    ]
    assert r.position["first"].flag.startswith("Position bias: the copy shown first")


# -- flags can fire at a realistic size (10 batches x 8 orders) ----------------------------


def test_every_fairness_flag_can_fire_at_ten_batches() -> None:
    """One group rarely first, one often: its top-1 tests, the uniformity test and the
    impact ratio all reach their share of alpha with 80 answers, and the permutation
    tests' floors are under a fifth of their share (D5 among five designs)."""
    df = simulate(np.random.default_rng(14), repeats=1, temperature0=False,
                  group_weight={BM: 4.0, BW: 0.02})  # fmt: skip
    r = decided(df, top_k=3)
    tests = [m.test for m in r.all_metrics() if m.test is not None]
    assert not [t.key for t in tests if t.untestable]
    for t in tests:
        if t.family == "fairness" and t.floor > 0:
            assert t.share is not None and t.floor < t.share / 5, t.key
    assert r.top1[BM].flag.startswith("Black man candidates were put first more often")
    assert r.top1[BW].flag.startswith("Black woman candidates were put first less often")
    assert r.uniformity is not None and r.uniformity.flag.startswith("Who was put first")
    assert r.impact_ratio[BW].flag.startswith("Impact ratio of Black woman candidates")
    assert r.impact_ratio[BM].flag == ""
    never = r.impact_ratio[BW].estimate  # 0 in every batch: no interval, not a point
    assert never.value == 0 and never.low is None and "no spread" in never.note


def test_one_name_always_first_is_flagged_and_its_ratios_say_why_untested() -> None:
    """At temperature 0 a model may put the same name first every time: that group and
    the uniformity test are flagged; the others' impact ratios (0) have no spread
    between batches for the clustered test, and say so rather than show a point."""
    df = simulate(np.random.default_rng(14), repeats=1, group_weight={BM: 1e9})
    r = decided(df, top_k=3)
    assert r.top1[BM].flag.startswith("Black man candidates were put first more often")
    assert r.uniformity is not None and r.uniformity.flag
    cell = r.impact_ratio[WW]
    assert cell.estimate.value == 0 and cell.estimate.low is None
    assert "no spread" in cell.estimate.note and not cell.flag


def test_position_flags_can_fire_at_ten_batches() -> None:
    last = simulate(np.random.default_rng(15), repeats=1, position=[1, 1, 1, 1, 1, 1, 1, 1e9])
    r = decided(last, top_k=3)
    assert r.position["last"].flag.startswith("Position bias: the copy shown last was put first")
    assert r.position["first"].test is not None and r.position["first"].test.p is not None


# -- simulated audits --------------------------------------------------------------------


@pytest.mark.slow
def test_null_audits_raise_a_fairness_flag_at_most_five_percent_of_the_time() -> None:
    """No group effect, a strong position effect, repeats identical (temperature 0)."""
    rng = np.random.default_rng(2025)
    sims, false_alarms, position_flags = 200, 0, 0
    for _ in range(sims):
        df = simulate(rng, position=STRONG_POSITION)
        r = decided(df, top_k=3, draws=999)
        false_alarms += any(
            m.flag for m in r.all_metrics() if m.test is not None and m.test.family == "fairness"
        )
        position_flags += bool(r.position["first"].flag)
    assert false_alarms / sims <= 0.05
    assert position_flags / sims >= 0.8


@pytest.mark.slow
def test_a_group_put_first_twice_as_often_is_flagged() -> None:
    rng = np.random.default_rng(77)
    flagged = 0
    for _ in range(10):
        df = simulate(rng, batches=20, repeats=3, temperature0=False, position=STRONG_POSITION,
                      group_weight={BM: 2.0})  # fmt: skip
        r = decided(df, top_k=3, draws=999)
        flagged += r.top1[BM].flag.startswith("Black man candidates were put first more often")
        assert not [g for g, m in r.top1.items() if g != BM and "more often" in m.flag]
    assert flagged >= 8


# -- bad input -----------------------------------------------------------------------------


def test_empty_table_gives_an_empty_result() -> None:
    r = compute_d5(hand_table().iloc[0:0], top_k=3)
    assert (r.answers, r.unreadable, r.all_metrics(), r.flags()) == (0, 0, [], [])
    json.dumps(r.as_dict(), allow_nan=False)


def test_only_unreadable_answers_are_counted_not_rated() -> None:
    df = hand_table()
    df = df[df["answer_id"] == 6]
    r = compute_d5(df, top_k=2)
    assert (r.answers, r.unreadable) == (1, 1)
    assert all(m.estimate.value is None for m in r.top1.values())
    assert r.all_metrics() == [] and r.uniformity is None
    assert r.unranked[WW].estimate.value == 1.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.drop(columns=["presentation"]), "lacks the column"),
        (lambda d: d.assign(status=d["status"].replace("ranked", "done")), "not one of"),
        (lambda d: d.assign(rank=d["rank"].replace(4.0, 1.0)), "same rank"),
        (lambda d: d.assign(rank=d["rank"].replace(4.0, 9.0)), "whole numbers from 1"),
        (lambda d: d.assign(group=d["group"].replace(BM, WM)), "same group"),
        (
            lambda d: d.assign(
                group=d["group"].mask((d["answer_id"] == 1) & (d["group"] == BM), "asian_man")
            ),
            "different sets of groups",
        ),
        (
            lambda d: d.assign(rank=d["rank"].where(d["answer_id"] != 6, d["position"] + 1.0)),
            "unreadable",
        ),
        (lambda d: d.assign(batch_id=d["batch_id"].where(d["position"] != 2, 99)), "batch_id"),
    ],
)
def test_bad_tables_say_what_is_wrong(change, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(StatsInputError, match=message):
        compute_d5(change(hand_table()), top_k=2)


def test_top_k_must_be_positive() -> None:
    with pytest.raises(StatsInputError, match="top_k"):
        compute_d5(hand_table(), top_k=0)


def test_impact_ratios_by_race_and_by_sex_as_local_law_144_asks() -> None:
    """Each copy counted by its race or sex alone: by hand, the read answers put first
    WM, BM, WM, BW, BM, WW of 12 copies of each race and of each sex."""
    r = compute_d5(hand_table(), top_k=2)
    assert r.impact_ratio_by_race["white"].estimate.value == pytest.approx(1.0)  # 3 of 12
    assert r.impact_ratio_by_race["black"].estimate.value == pytest.approx(1.0)  # 3 of 12
    assert r.impact_ratio_by_sex["woman"].estimate.value == pytest.approx((2 / 12) / (4 / 12))
    assert r.impact_ratio_by_sex["man"].estimate.value == pytest.approx(1.0)
    block = r.as_dict()
    assert set(block["impact_ratio_by_sex"]) == {"woman", "man"}
    # shown with an interval, never a flag of their own
    df = simulate(np.random.default_rng(3), batches=30, repeats=1, temperature0=False,
                  group_weight={g: 0.4 for g in GROUPS if g.endswith("_woman")})  # fmt: skip
    d = decided(df, top_k=2)
    woman = d.impact_ratio_by_sex["woman"]
    assert woman.estimate.value is not None and 0.25 < woman.estimate.value < 0.6
    assert woman.estimate.high is not None and woman.estimate.high < 0.8
    assert woman.test is None and not woman.flag
    assert all(m.test is None for m in d.impact_ratio_by_race.values())
    assert any(m.flag for m in d.impact_ratio.values())  # the groups' own ratios flag it
