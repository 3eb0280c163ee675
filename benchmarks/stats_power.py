"""Power to detect a D1 group selection gap, by formula and by simulated audits.

Run: .venv/bin/python benchmarks/stats_power.py [AUDITS] [GAP]

For 50, 100 and 200 equal-pair answers per group (each presentation order is one
answer) it prints the chance that a true gap of GAP (default 0.10 = 10 points)
for one group is flagged after Holm across the 4 D1 groups:
- "formula": stats/power.py, the normal approximation the app shows before a run;
- "simulated": the share of AUDITS (default 500) planted-bias audits
  (tests/devtools/simulate.py) in which the app's own test (sign-flip over source resumes,
  Holm) flags that group. Six answers per group come from each source resume
  (3 opponents x 2 orders), so the answer counts are the nearest multiples of 6.
It also prints the smallest gap found with 80% power at each size. Forced choice
(no abstention) and 40% abstention are shown: abstentions make the same gap in
points easier to see, because fewer answers vary.
"""

from __future__ import annotations

import sys
from pathlib import Path

from resume_auditor.stats.power import gap_power, min_detectable_gap

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped
from devtools.simulate import PlantedD1, coverage_study  # noqa: E402

SIZES = (50, 100, 200)


def simulated_power(
    n: int, gap: float, abstain: float, audits: int, seed: int
) -> tuple[int, float]:
    clusters = max(2, round(n / 6))
    plan = PlantedD1(
        clusters=clusters,
        discrim_validity=abstain,
        dv_spread=0.0 if abstain == 0 else 0.1,
        group_bias={"black_woman": gap / (1 - abstain)},
        bias_spread=0.05,
    )
    study = coverage_study(plan, audits, seed)
    return clusters * 6, study.flag_rate("black_woman")


def main(argv: list[str]) -> int:
    audits = int(argv[1]) if len(argv) > 1 else 500
    gap = float(argv[2]) if len(argv) > 2 else 0.10
    print(f"Chance a {100 * gap:.0f}-point selection gap for one of 4 groups is flagged")
    print("(5% false-alarm rate across the groups, Holm); simulated over", audits, "audits")
    header = f"{'answers/group':>13} {'abstain':>8} {'formula':>8} {'simulated':>10} {'(n sim)':>8}"
    print(header + f" {'80%-power gap':>14}")
    for abstain in (0.0, 0.4):
        for i, n in enumerate(SIZES):
            formula = gap_power(n, gap, groups=4, abstain_rate=abstain)
            n_sim, sim = simulated_power(n, gap, abstain, audits, seed=100 + i)
            mdg = min_detectable_gap(n, groups=4, abstain_rate=abstain)
            mdg_text = "n/a" if mdg is None else f"{100 * mdg:.0f} points"
            print(f"{n:>13} {abstain:>8.0%} {formula:>8.1%} {sim:>10.1%} {n_sim:>8} {mdg_text:>14}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
