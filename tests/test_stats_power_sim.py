"""Power by simulation: it is the report's own test, and the size it recommends holds."""

from __future__ import annotations

import numpy as np
import pandas as pd

import resume_auditor.designs.registry  # noqa: F401  (the designs register their power models)
from resume_auditor.designs.d1_castleman.power import simulate_gap, simulate_impact
from resume_auditor.designs.d2_correspondence.power import simulate as _d2
from resume_auditor.designs.d2_correspondence.stats import compute_d2
from resume_auditor.designs.d4_faire.power import simulate as _d4
from resume_auditor.stats.flags import FlagTest, decide
from resume_auditor.stats.power_sim import Size, simulated_power, size_for_power
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS

GROUPS = ["black_woman", "asian_woman", "hispanic_man", "white_man"]


class _Other:
    def __init__(self, key: str) -> None:
        self.flag = ""
        self.test: FlagTest | None = FlagTest("fairness", key, 1.0, lambda q, n: key)


def test_simulated_power_is_the_reports_own_decision() -> None:
    # The same simulated ratings through compute_d2 and decide, with three other designs
    # sharing alpha (D2's share 0.05 / 4 * 0.8 = 0.01), flag as often as power_sim says.
    size, effect = Size("D2", 10, 4), 1.0
    rng = np.random.default_rng(3)
    audits, flagged = 60, 0
    for _ in range(audits):
        block = _d2(rng, size, effect)[0]
        rows = [
            {"cluster": u, "group": GROUPS[j], "rating": float(block.values[u, j])}
            for u in range(size.units)
            for j in range(size.groups)
        ]
        r = compute_d2(pd.DataFrame(rows), rng=0)
        decide([*r.all_metrics(), *(_Other(f"d{i}.x") for i in (1, 3, 4))], DEFAULT_THRESHOLDS)
        assert r.smd["black_woman"].test is not None
        assert r.smd["black_woman"].test.share is not None
        assert abs(r.smd["black_woman"].test.share - 0.01) < 1e-12
        flagged += bool(r.smd["black_woman"].flag)
    simulated = simulated_power(size, effect, 0.01, sims=120, seed=7)
    assert abs(flagged / audits - simulated) <= 0.15


def test_no_effect_flags_at_most_its_share_and_power_grows_with_size() -> None:
    assert simulated_power(Size("D2", 12, 4), 0.0, 0.01, sims=150) <= 0.04
    small = simulated_power(Size("D1", 6, 4, 6), 0.3, 0.01, sims=80)
    large = simulated_power(Size("D1", 24, 4, 6), 0.3, 0.01, sims=80)
    assert large > small


def test_the_recommended_size_reaches_the_target() -> None:
    z = size_for_power(Size("D3", 8, 4), 0.8, 0.0125, sims=100)
    assert z.units_needed is not None and z.units_needed > 8
    reached = simulated_power(Size("D3", z.units_needed, 4), 0.8, 0.0125, sims=200, seed=11)
    assert reached >= 0.72  # 80% target, three standard errors of 200 audits


def test_power_from_the_audits_own_answers() -> None:
    from resume_auditor.stats.power_sim import power_from_data

    rng = np.random.default_rng(4)
    block = _d2(rng, Size("D2", 30, 4), 0.0)[0]
    none = power_from_data([block], "d2.g0", 0.0, 0.01, sims=80)
    big = power_from_data([block], "d2.g0", -1.5, 0.01, sims=80)
    assert none is not None and none <= 0.05
    assert big is not None and big >= 0.8
    assert power_from_data([block], "no.such.test", -1.0, 0.01) is None


def test_the_latent_shift_makes_the_effect_in_the_reports_units() -> None:
    # Issue 25: "0.3 SD" is 0.3 of the report's standard deviation of ratings, spread
    # between resumes included; each design's simulation must plant exactly that, under
    # any assumptions, or the plan sizes for an effect the report would not show.
    from resume_auditor.stats.power_sim import Assumptions, latent_shift, rating_shift

    rng = np.random.default_rng(0)
    for assume in (Assumptions(), Assumptions(spread=0.0), Assumptions(spread=1.5, noise=0.5)):
        big = Size("D2", 20_000, 2, assume=assume)
        ratings = _d2(rng, big, 0.3)[0].values
        sd = float(ratings.std())
        assert abs((ratings[:, 1].mean() - ratings[:, 0].mean()) / sd - 0.3) < 0.03
        d4 = _d4(rng, Size("D4", 20_000, 2, assume=assume), 0.3)[0].values
        assert abs((d4[:, 0].mean() - d4[:, 1].mean()) / d4[:, 0].std() - 0.3) < 0.04
    for band in (0.0, 0.6):
        assume = Assumptions(abstain_band=band)
        net = simulate_gap(rng, Size("D1", 40_000, 2, 1, assume=assume), 0.10)[0].values
        assert abs(net[:, 0].mean() + 0.10) < 0.015  # the shifted group's gap: -10 points
        # LL144: the group is picked 0.8 times as often as the others
        net = simulate_impact(rng, Size("IR", 40_000, 2, 1, assume=assume), 0.8)[0].values
        picked, lost = (net[:, 0] > 0).mean(), (net[:, 0] < 0).mean()
        assert abs(picked / lost - 0.8) < 0.03
    assert rating_shift(0.0) == 0.0 == latent_shift("D2", 0.0)
    assert latent_shift("D3", 0.3) == 0.3  # scores are N(0, 1): no calibration
    assert latent_shift("D4", 0.3) == rating_shift(0.3, Assumptions(), 5)


def test_repeats_at_temperature_raise_power_and_are_sized() -> None:
    from resume_auditor.stats.power_sim import repeats_for_power

    one = simulated_power(Size("D2", 20, 4, 1), 0.3, 0.01, sims=60)
    four = simulated_power(Size("D2", 20, 4, 4), 0.3, 0.01, sims=60)
    assert four > one
    found = repeats_for_power(Size("D2", 40, 4, 1), 0.5, 0.01, sims=80)
    assert found is not None
    r, power = found
    assert r > 1 and power >= 0.8
    assert repeats_for_power(Size("D3", 40, 4), 0.5, 0.01) is None  # pools: more rounds


class _Store:
    def __init__(self) -> None:
        self.kept: dict[str, float] = {}

    def get(self, key: str) -> float | None:
        return self.kept.get(key)

    def put(self, key: str, power: float) -> None:
        self.kept[key] = power


def test_a_power_cached_before_the_designs_kept_their_models_is_still_found() -> None:
    # The key stays the test's code and size, as the shared simulator always wrote it
    # (settings/power.py keeps these between plans); a changed key would silently
    # simulate again, a wrong one would read another test's power.
    store = _Store()
    simulated_power(Size("D3", 6, 3), 0.3, 0.01, sims=20, cache=store)
    assert list(store.kept) == [
        '[2, {"design": "D3", "units": 6, "groups": 3, "per_unit": 1, "batches": 0, '
        '"assume": {"spread": 0.7, "noise": 1.0, "abstain_band": 0.0}}, 0.3, 0.01, 20, 0, 999]'
    ]
    store.kept[next(iter(store.kept))] = 0.42
    assert simulated_power(Size("D3", 6, 3), 0.3, 0.01, sims=20, cache=store) == 0.42


def test_an_unregistered_test_is_named_in_the_error() -> None:
    import pytest

    from resume_auditor.stats.power_sim import model

    with pytest.raises(KeyError, match="no power model for 'D9'"):
        simulated_power(Size("D9", 6, 3), 0.3, 0.01, sims=5)
    with pytest.raises(KeyError):
        model("D9")
