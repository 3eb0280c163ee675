"""How far the plan's pre-run power can be from the truth when the model differs from
its assumptions, per design, at the size it recommends.

Run: .venv/bin/python benchmarks/stats_power.py [SIMS] [--designs D1,IR,D2,D4] [--groups 4]

Why: before any answer the plan simulates power from stated assumptions
(stats/power_sim.Assumptions: resumes' spread 0.7, an answer's own noise 1, D1
forced choice). A real model may vary more or less within a resume, and abstain
or not. For each design this sizes the audit for the literature's effect (a
10-point gap, an LL144 impact ratio of 0.8, 0.3 SD) under the default
assumptions, then simulates the report's own test at that size with the truth set
to each of several shapes (spread 0, 0.35, 0.7, 1.5; noise 0.5, 1; abstention
band 0 or 0.6 for D1), the effect always the same in the report's units. It
prints the power each shape really has at the recommended size, beside the claim
(80%), and the cautious power the plan also states (spread 0). The real-path
check of the claim is benchmarks/power_measured.py; the equivalence of this
simulation with the report's decision is tests/test_stats_power_sim.py. The old
normal approximation (stats/power.py) is printed for comparison where it applies
(D1).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's package

import resume_auditor.designs.registry  # noqa: E402, F401  (registers the power models)
from resume_auditor.stats.power import gap_power  # noqa: E402
from resume_auditor.stats.power_sim import (  # noqa: E402
    CAUTIOUS,
    Assumptions,
    Size,
    default_effects,
    simulated_power,
    size_for_power,
)

SHARE = 0.05 / 4 * 0.8  # a primary test's share with four designs (flags.decide)
SHAPES = [
    Assumptions(0.0, 1.0),
    Assumptions(0.35, 1.0),
    Assumptions(0.7, 1.0),
    Assumptions(1.5, 1.0),
    Assumptions(0.7, 0.5),
    Assumptions(0.7, 1.0, 0.6),
]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sims", type=int, nargs="?", default=200)
    parser.add_argument("--designs", default="D1,IR,D2,D4")
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--start", type=int, default=12, help="resumes the search starts from")
    args = parser.parse_args(argv[1:])
    print(f"share of alpha {SHARE:.4f}; {args.sims} simulated audits per figure")
    for design in args.designs.split(","):
        effect = default_effects()[design]
        per = 2 * (args.groups - 1) if design in ("D1", "IR") else 1
        batches = 8 if design == "D4" else 0
        start = Size(design, args.start, args.groups, per, batches)
        z = size_for_power(start, effect, SHARE, sims=args.sims)
        if z.units_needed is None:
            print(f"{design}: not reached within the largest size searched")
            continue
        n = z.units_needed
        print(f"\n{design}, effect {effect:g}: recommended {n} resumes/pools (claimed >= 80%)")
        if design == "D1":
            old = gap_power(n * per, effect, groups=args.groups)
            print(f"  old normal approximation at that size: {old:.0%}")
        for shape in [*SHAPES, CAUTIOUS]:
            if design not in ("D1", "IR") and shape.abstain_band:
                continue
            sized = Size(design, n, args.groups, per, round(batches * n / args.start), shape)
            power = simulated_power(sized, effect, SHARE, sims=args.sims, seed=99)
            mark = "" if abs(power - 0.8) <= 0.1 else "  <- outside 80% +/- 10"
            print(
                f"  truth spread {shape.spread:<4g} noise {shape.noise:<4g} "
                f"band {shape.abstain_band:<4g}: {power:6.1%}{mark}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
