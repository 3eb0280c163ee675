"""Do the intervals cover the truth, and do flags keep their false-alarm rate?

Run: .venv/bin/python benchmarks/stats_coverage.py [AUDITS]

D1: AUDITS (default 1,000) planted-bias audits of 12 source resumes each
(tests/devtools/simulate.py, the same seeds as tests/test_stats_simulation.py): the share
of 95% intervals that hold the planted truth, per metric family, and the share of
audits with a group gap flagged — with no gap planted, and with an 18-point gap
planted for one group. D2-D4: the share of synthetic audits with no planted
effect in which any group flag is raised, every kind of flag the design can raise
(D2: standardized differences and impact ratios at every threshold and grouping)
(tests/devtools/synthetic.py; 200 audits each, bootstrap replicates kept small because
flags do not use them). The same question through the real HTTP path:
benchmarks/null_calibration.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from resume_auditor.designs.d2_correspondence.stats import compute_d2
from resume_auditor.designs.d3_rabbi.stats import compute_d3
from resume_auditor.designs.d4_faire.stats import compute_d4

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped
from devtools import synthetic  # noqa: E402
from devtools.simulate import PlantedD1, coverage_study  # noqa: E402


def d1(audits: int) -> None:
    for title, plan, n, seed in (
        ("no gap planted", PlantedD1(clusters=12), audits, 2025),
        (
            "18-point gap planted for Black women",
            PlantedD1(clusters=12, group_bias={"black_woman": 0.3}),
            max(500, audits // 2),
            7,
        ),
    ):
        study = coverage_study(plan, n, seed)
        print(f"\nD1, {title}: {n} audits")
        for family, made in study.intervals.items():
            print(f"  {family:<26} {study.coverage(family):6.1%} of {made:>5} intervals cover")
        print(f"  any group gap flagged      {study.flag_rate():6.1%} of audits")
        for g in sorted(study.flagged_groups):
            print(f"    {g:<24} {study.flag_rate(g):6.1%}")


def null_flags(name: str, make: Callable[[np.random.Generator], list[str]], audits: int) -> None:
    rng = np.random.default_rng(5)
    flagged = sum(bool(make(rng)) for _ in range(audits))
    print(f"  {name:<40} {flagged / audits:6.1%} of {audits} audits flagged")


def main(argv: list[str]) -> int:
    audits = int(argv[1]) if len(argv) > 1 else 1000
    d1(audits)
    print("\nD2-D4 with no planted effect: any group flag raised")
    null_flags(
        "D2 every flag: differences and impact ratios (15 resumes)",
        lambda rng: compute_d2(synthetic.d2_ratings(rng, clusters=15), replicates=20).flags(),
        200,
    )
    null_flags(
        "D3 RABBI, pointwise (30 pools)",
        lambda rng: compute_d3(synthetic.d3_pointwise(rng, pools=30), replicates=20).flags(),
        200,
    )
    null_flags(
        "D4 direct scores (15 resumes)",
        lambda rng: compute_d4(synthetic.d4_scores(rng, resumes=15)).flags(),
        200,
    )
    null_flags(
        "D4 average ranks (20 batches)",
        lambda rng: compute_d4(rankings=synthetic.d4_rankings(rng, batches=20)).flags(),
        200,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
