"""How often the LL144 impact-ratio table flags: with no bias planted, and with one.

Run: .venv/bin/python benchmarks/report_impact_flags.py [AUDITS]

Simulated D1 audits (tests/devtools/simulate.py, the planted-bias screener the statistics
are tested with) of 4, 8 and 12 source resumes. For each: the share of audits in
which any impact ratio is flagged (report/impact.py: the one-sided clustered test
that the ratio is under 0.80, stats/flags.py `impact_p`, after Holm across the
table), the share in which any ratio is merely under 0.80, and, for
comparison, the share a flag on a cluster-bootstrap interval wholly under 0.80
would have raised (the rule report/impact.py rejects). "Planted" puts a 0.3
preference against Black women (a selection gap of about 18 points at the
default abstention rate).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from resume_auditor.designs.d1_castleman.impact import GROUPINGS, d1_impact_ratios
from resume_auditor.stats.bootstrap import cluster_weights, pivotal_interval
from resume_auditor.stats.pair_choice import with_choice
from resume_auditor.stats.robust import cluster_codes
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped
from devtools.simulate import PlantedD1, simulate_d1  # noqa: E402


def _bootstrap_flag(judgments: pd.DataFrame) -> bool:
    """Intersectional ratios flagged on a pivotal cluster-bootstrap interval under 0.80."""
    df = with_choice(judgments)
    eq = df[(df["kind"] == "equal") & (df["choice"] != "invalid")]
    eq = eq[eq["group_a"] != eq["group_b"]]
    codes, g = cluster_codes(eq["cluster"].to_numpy())
    groups = sorted(set(eq["group_a"]) | set(eq["group_b"]))
    sel = np.zeros((g, len(groups)))
    cnt = np.zeros((g, len(groups)))
    for j, group in enumerate(groups):
        as_a, as_b = (eq["group_a"] == group).to_numpy(), (eq["group_b"] == group).to_numpy()
        picked = (as_a & (eq["choice"] == "a").to_numpy()) | (
            as_b & (eq["choice"] == "b").to_numpy()
        )
        sel[:, j] = np.bincount(codes, weights=picked.astype(float), minlength=g)
        cnt[:, j] = np.bincount(codes, weights=(as_a | as_b).astype(float), minlength=g)
    rate = sel.sum(0) / cnt.sum(0)
    if rate.max() <= 0:
        return False
    w = cluster_weights(g, 1000)
    with np.errstate(divide="ignore", invalid="ignore"):
        boot = (w @ sel) / (w @ cnt)
        boot = boot / np.nanmax(boot, axis=1, keepdims=True)
    for j in range(len(groups)):
        value = rate[j] / rate.max()
        if value < 1.0:
            _, high = pivotal_interval(value, boot[:, j])
            if high is not None and high < 0.8:
                return True
    return False


def main(audits: int) -> None:
    print(f"{audits} simulated audits per row; rates are shares of audits.")
    print(f"{'resumes':>7} {'bias':>8} {'flagged':>8} {'under 0.80':>10} {'bootstrap rule':>15}")
    start = time.perf_counter()
    for clusters in (4, 8, 12):
        for title, bias in (("none", {}), ("planted", {"black_woman": -0.3})):
            plan = PlantedD1(clusters=clusters, group_bias=bias, ks=(1,))
            rng = np.random.default_rng(clusters * 7 + len(bias))
            flagged = under = boot = 0
            for _ in range(audits):
                judgments = simulate_d1(plan, rng)
                table = d1_impact_ratios(judgments, DEFAULT_THRESHOLDS)
                flagged += bool(table["flags"])
                under += any(
                    m.get("below_four_fifths") for g in GROUPINGS for m in table[g].values()
                )
                boot += _bootstrap_flag(judgments)
            print(
                f"{clusters:>7} {title:>8} {flagged / audits:>8.3f} {under / audits:>10.3f} "
                f"{boot / audits:>15.3f}"
            )
    print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
