"""D5's power check (designs/d5_bloomberg/power.py): simulated through compute_d5 and the
report's flag decision, and its recommended size checked against that simulation."""

from __future__ import annotations

from resume_auditor.designs.d5_bloomberg.power import (
    batches_for_power,
    simulate,
    simulated_power,
)
from resume_auditor.domain.groups import ALL_GROUPS

GROUPS = [g.key for g in ALL_GROUPS]
ALPHA = 0.05  # D5 alone in the audit


def test_the_simulated_audit_is_balanced_and_ranks_every_copy() -> None:
    import numpy as np

    table = simulate(
        np.random.default_rng(0), batches=3, orders=8, repeats=2, groups=GROUPS, effect=0.5
    )
    assert len(table) == 3 * 8 * 2 * 8
    # every group shown at every place equally often (the Latin square's rows)
    counts = table.groupby(["group", "position"]).size()
    assert counts.nunique() == 1 and len(counts) == 64
    ranks = table.groupby("answer_id")["rank"].apply(lambda r: sorted(r.astype(int)))
    assert all(r == list(range(1, 9)) for r in ranks)


def test_the_recommended_size_reaches_80_percent_and_is_not_far_too_cautious() -> None:
    need = batches_for_power(orders=8, repeats=1, groups=GROUPS, alpha=ALPHA)
    assert need is not None and 30 < need < 120
    common = {"orders": 8, "repeats": 1, "groups": GROUPS, "top_k": 4, "alpha": ALPHA}
    at_need = simulated_power(batches=need, sims=40, seed=5, **common)  # type: ignore[arg-type]
    assert at_need >= 0.75  # 80% less two standard errors of 40 audits' figure
    at_half = simulated_power(batches=need // 2, sims=40, seed=6, **common)  # type: ignore[arg-type]
    assert at_half < 0.8


def test_with_no_disfavoured_group_the_group_is_rarely_flagged() -> None:
    common = {"orders": 8, "repeats": 1, "groups": GROUPS, "top_k": 4, "alpha": ALPHA}
    null = simulated_power(batches=20, sims=60, seed=7, effect=1.0, **common)  # type: ignore[arg-type]
    assert null <= 5 / 60  # a group's own false-alarm share is under alpha
    assert batches_for_power(orders=8, repeats=1, groups=GROUPS, alpha=ALPHA, effect=1.0) is None
