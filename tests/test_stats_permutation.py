"""The design permutation tests: right against enumeration, and every flag able to fire."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from resume_auditor.designs.d2_correspondence.stats import compute_d2
from resume_auditor.designs.d4_faire.stats import compute_d4
from resume_auditor.stats.flags import FlagTest, decide
from resume_auditor.stats.permutation import Block, _t_stats, joint_test
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS

VALUES = np.array([[3.0, 1.0, 2.0], [4.0, 2.0, 2.0], [5.0, 3.0, 5.0]])
LABELS = ["ref", "a", "b"]
KEYS = {"a": "x.a", "b": "x.b"}


def _enumerate() -> tuple[np.ndarray, np.ndarray]:
    """|t| of (a - ref, b - ref) under every within-row arrangement (6^3 = 216)."""
    rows = [list(itertools.permutations(r)) for r in VALUES]
    stats = []
    for combo in itertools.product(*rows):
        m = np.array(combo)
        stats.append(_t_stats((m[:, [1, 2]] - m[:, [0]])[None])[0])
    observed = _t_stats((VALUES[:, [1, 2]] - VALUES[:, [0]])[None])[0]
    return np.array(stats), observed


def test_marginal_and_step_down_p_match_enumeration() -> None:
    stats, observed = _enumerate()
    joint = joint_test([Block(VALUES, LABELS, KEYS, "ref")], draws=20000)
    for i, key in enumerate(("x.a", "x.b")):
        exact = float(np.mean(stats[:, i] >= observed[i] * (1 - 1e-9)))
        assert joint.marginal[key] == pytest.approx(exact, abs=0.01)
    top = int(np.argmax(observed))
    omnibus = float(np.mean(stats.max(axis=1) >= observed[top] * (1 - 1e-9)))
    step = joint.step_down(["x.a", "x.b"])
    # the first step is the omnibus test; the second never falls below it
    assert step[("x.a", "x.b")[top]] == pytest.approx(omnibus, abs=0.01)
    assert step[("x.a", "x.b")[1 - top]] >= step[("x.a", "x.b")[top]]
    # the most extreme arrangements (one difference the same in every row, |t| infinite)
    # set the floor: no p of the block's largest |t| can be smaller
    assert joint.floors["x.a"] == pytest.approx(np.mean(np.isinf(stats.max(axis=1))), abs=0.01)


def test_same_data_same_p() -> None:
    a = joint_test([Block(VALUES, LABELS, KEYS, "ref")])
    b = joint_test([Block(VALUES, LABELS, KEYS, "ref")])
    assert a.marginal == b.marginal


def test_no_spread_is_extreme_and_one_unit_is_no_test() -> None:
    t = _t_stats(np.array([[[1.0], [1.0], [1.0]]]))
    assert t[0, 0] == math.inf
    assert math.isnan(_t_stats(np.array([[[1.0], [np.nan]]]))[0, 0])


def _d2_ratings(
    rng: np.random.Generator, resumes: int, groups: list[str], shift: float
) -> pd.DataFrame:
    rows = []
    for c in range(resumes):
        base = rng.normal(3.2, 0.8)
        for g in groups:
            y = base + rng.normal(0, 0.6) + (shift if g == groups[0] else 0.0)
            rating = float(np.clip(np.rint(y), 1, 5))
            rows.append({"cluster": c, "group": g, "rating": rating, "condition": "named"})
    return pd.DataFrame(rows)


class _Other:
    """Another design's test, so the family is shared as in a four-design report."""

    def __init__(self, key: str) -> None:
        self.flag = ""
        self.test: FlagTest | None = FlagTest("fairness", key, 1.0, lambda q, n: key)


GROUPS = {
    2: ["black_woman", "white_man"],
    4: ["black_woman", "white_man", "asian_woman", "hispanic_man"],
    8: [
        "black_woman", "white_man", "asian_woman", "hispanic_man",
        "black_man", "white_woman", "asian_man", "hispanic_woman",
    ],
}  # fmt: skip


@pytest.mark.parametrize("groups", [2, 4, 8])
@pytest.mark.parametrize("designs", [1, 4])
def test_every_test_left_in_the_family_can_reach_its_share(groups: int, designs: int) -> None:
    # Every D2 size from 1 to 30 source resumes, strong and no effect: a test either can
    # reach its share of alpha or is left out with the reason; none sits in between.
    rng = np.random.default_rng(groups * 10 + designs)
    for resumes in (*range(1, 13), 15, 20, 30):
        for shift in (0.0, -2.0):
            r = compute_d2(_d2_ratings(rng, resumes, GROUPS[groups], shift), rng=0)
            others = [_Other(f"d{i}.x") for i in range(1, designs)]
            decide([*r.all_metrics(), *others], DEFAULT_THRESHOLDS)
            for m in r.all_metrics():
                t = m.test
                if t is None or t.p_adjusted is None:
                    continue
                assert t.share is not None and t.floor <= t.share, (resumes, m.key)
                assert not t.untestable
            for m in r.all_metrics():
                t = m.test
                if t is not None and t.untestable:
                    assert t.p_adjusted is None and not m.flag


def test_d2_flags_a_strong_shift_with_a_tied_resume_at_ten_resumes() -> None:
    # Issue 25: ten resumes, integer ratings, one tie, four designs sharing alpha: the
    # old sign-flip test could not reach its 0.0033; the permutation test does.
    rng = np.random.default_rng(5)
    flagged = 0
    for _ in range(10):
        ratings = _d2_ratings(rng, 10, GROUPS[4], -1.5)
        r = compute_d2(ratings, rng=0)
        decide([*r.all_metrics(), *(_Other(f"d{i}.x") for i in (1, 3, 4))], DEFAULT_THRESHOLDS)
        flagged += bool(r.smd["black_woman"].flag)
        assert r.smd["black_woman"].test is not None
        assert not r.smd["black_woman"].test.untestable
    assert flagged >= 6


def test_d4_differences_are_not_stuck_at_their_floor() -> None:
    # Issue 25: D4 differences of ten resumes sat at the sign-flip floor 2 / 1024.
    rng = np.random.default_rng(9)
    rows = []
    for c in range(10):
        base = rng.normal(3.5, 0.5, size=5)
        rows.append({"cluster": c, "variant": "original", "group": None, **_dims(base, rng)})
        for g in ("black", "white", "asian", "hispanic"):
            shift = -1.4 if g == "black" else 0.0
            rows.append({"cluster": c, "variant": "name", "group": g, **_dims(base + shift, rng)})
    r = compute_d4(pd.DataFrame(rows))
    decide([*r.all_metrics(), *(_Other(f"d{i}.x") for i in (1, 2, 3))], DEFAULT_THRESHOLDS)
    black = r.differences["name"]["overall"]["black"]
    assert black.test is not None and black.test.p is not None
    assert black.test.p < 2 / 1024
    assert black.flag


def _dims(base: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    from resume_auditor.designs.d4_faire.inputs import D4_DIMENSIONS

    noisy = np.clip(np.rint(base + rng.normal(0, 0.4, size=5)), 1, 5)
    return {d: float(v) for d, v in zip(D4_DIMENSIONS, noisy, strict=True)}


@pytest.mark.parametrize("designs", [1, 4])
def test_d1_and_d4_tests_left_in_the_family_can_reach_their_share(designs: int) -> None:
    from devtools.simulate import PlantedD1, simulate_d1

    from resume_auditor.designs.d1_castleman.impact import impact_cells
    from resume_auditor.designs.d1_castleman.stats import compute_d1

    rng = np.random.default_rng(designs)
    for resumes in (2, 3, 4, 6, 8, 12, 20):
        for bias in (0.0, 0.4):
            plan = PlantedD1(clusters=resumes, group_bias={"black_woman": bias}, ks=(1,))
            judgments = simulate_d1(plan, rng)
            d1 = compute_d1(judgments, designs=designs)
            rows = []
            for c in range(resumes):
                base = rng.normal(3.5, 0.5, size=5)
                rows.append(
                    {"cluster": c, "variant": "original", "group": None, **_dims(base, rng)}
                )
                for g in ("black", "white"):
                    shift = -1.0 if g == "black" and bias else 0.0
                    rows.append(
                        {"cluster": c, "variant": "name", "group": g, **_dims(base + shift, rng)}
                    )
            d4 = compute_d4(pd.DataFrame(rows))
            metrics = [*d1.all_metrics(), *d4.all_metrics()]
            cells_by = impact_cells(judgments, DEFAULT_THRESHOLDS)
            metrics += [m for cells in cells_by.values() for m in cells.values()]
            decide([*metrics, *(_Other(f"d{i}.x") for i in range(2, designs))], DEFAULT_THRESHOLDS)
            for m in metrics:
                t = m.test
                if t is None or t.p_adjusted is None:
                    continue
                assert t.share is not None and t.floor <= t.share, (resumes, m.key)
                assert not t.untestable
            if resumes >= 8:  # a realistic audit: every D1 group test can fire
                gaps = [m.test for m in d1.selection_gap.values() if m.test is not None]
                assert gaps and not any(t.untestable for t in gaps), resumes
