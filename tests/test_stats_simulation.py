"""Proof by simulation: planted-bias audits (tests/devtools/simulate.py), no HTTP, no model.

Each audit has 12 source resumes whose rates differ (answers about one resume are
correlated), 4 groups, k = 1..3, both orders: 528 judgments. Figures at the time
of writing (seeded, so they repeat exactly; also printed by
benchmarks/stats_coverage.py): with no planted gap, 95% intervals covered the
truth 94.4-95.8% of the time per metric family over 1,000 audits and a group gap
was flagged in 2.5% of audits; with an 18-point gap planted for one group, that
group was flagged in 20% of audits (12 resumes give little power: the report's
power sentence says so before a run).
"""

from __future__ import annotations

import numpy as np
import pytest
from devtools.simulate import PlantedD1, coverage_study, simulate_d1

from resume_auditor.designs.d1_castleman.stats import compute_d1

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def null_study():  # type: ignore[no-untyped-def]
    return coverage_study(PlantedD1(clusters=12), audits=1000, seed=2025)


@pytest.fixture(scope="module")
def planted_study():  # type: ignore[no-untyped-def]
    plan = PlantedD1(clusters=12, group_bias={"black_woman": 0.3})
    return coverage_study(plan, audits=500, seed=7)


@pytest.mark.parametrize(
    "family",
    [
        "criterion_validity",
        "criterion_validity_by_k",
        "unjustified_abstention",
        "discrim_validity",
        "first_position_rate",
        "selection_rate",
        "selection_gap",
    ],
)
def test_95_intervals_cover_the_truth(family: str, null_study, planted_study) -> None:  # type: ignore[no-untyped-def]
    for study in (null_study, planted_study):
        assert 0.93 <= study.coverage(family) <= 0.97, (family, study.coverage(family))


def test_no_planted_gap_is_flagged_at_most_5_percent(null_study) -> None:  # type: ignore[no-untyped-def]
    assert null_study.audits >= 500
    assert null_study.flag_rate() <= 0.05


def test_a_planted_gap_is_found_for_the_right_group(planted_study) -> None:  # type: ignore[no-untyped-def]
    truth = PlantedD1(clusters=12, group_bias={"black_woman": 0.3}).truth()
    assert truth["selection_gap"]["black_woman"] == pytest.approx(0.18)  # type: ignore[index]
    favoured = planted_study.flag_rate("black_woman")
    assert favoured > 0.10  # several times the null rate of any flag at all
    others = [planted_study.flag_rate(g) for g in ("black_man", "white_woman", "white_man")]
    assert favoured > 3 * max(others)


def test_simulator_rates_are_what_it_plants() -> None:
    plan = PlantedD1(clusters=600, group_bias={"white_man": 0.2}, extra_columns=True)
    truth = plan.truth()
    r = compute_d1(simulate_d1(plan, np.random.default_rng(1)))
    m = {k: v.estimate.value for k, v in r.metrics.items()}
    assert m["criterion_validity"] == pytest.approx(truth["criterion_validity"], abs=0.01)
    assert m["discrim_validity"] == pytest.approx(truth["discrim_validity"], abs=0.015)
    assert m["first_position_rate"] == pytest.approx(truth["first_position_rate"], abs=0.015)
    gaps = {g: x.estimate.value for g, x in r.selection_gap.items()}
    for g, expected in truth["selection_gap"].items():  # type: ignore[attr-defined]
        assert gaps[g] == pytest.approx(expected, abs=0.02)
    assert set(r.breakdowns) >= {
        "criterion_validity_by_qual_type",
        "criterion_validity_by_generator",
    }


def test_impossible_plans_are_refused() -> None:
    with pytest.raises(ValueError, match="leaves"):
        simulate_d1(PlantedD1(position_bias=0.45), np.random.default_rng(0))
