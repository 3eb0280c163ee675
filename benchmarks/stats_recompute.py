"""Time to recompute every statistics panel at scale.

Run: .venv/bin/python benchmarks/stats_recompute.py [ROWS] [REPLICATES]

Builds synthetic tables of ROWS answers each (default 20,000) for every design —
D1 judgments from the planted-bias simulator, D2 ratings, D3 pointwise scores and
pairwise answers, D4 direct scores and ranked batches — and times compute_d1..d4
with REPLICATES cluster-bootstrap replicates (default 1,000). This is the work the
app does off the UI thread when a result file is opened or a run finishes. Prints
one line per panel and the total; the tables themselves are built before timing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from resume_auditor.designs.d1_castleman.stats import compute_d1
from resume_auditor.designs.d2_correspondence.stats import compute_d2
from resume_auditor.designs.d3_rabbi.stats import compute_d3
from resume_auditor.designs.d4_faire.stats import compute_d4

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped
from devtools import synthetic  # noqa: E402
from devtools.simulate import PlantedD1, simulate_d1  # noqa: E402


def timed(label: str, rows: int, fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    seconds = time.perf_counter() - t0
    print(f"{label:<34} {rows:>7,} rows  {seconds:6.2f} s")
    return seconds


def main(argv: list[str]) -> int:
    rows = int(argv[1]) if len(argv) > 1 else 20_000
    replicates = int(argv[2]) if len(argv) > 2 else 1000
    rng = np.random.default_rng(1)

    per_cluster = 44  # 10 equal + 12 unequal pairs, both orders
    d1 = simulate_d1(PlantedD1(clusters=max(2, rows // per_cluster)), rng)
    d2 = synthetic.d2_ratings(rng, clusters=max(2, rows // 9))  # 8 groups + blinded
    d3_point = synthetic.d3_pointwise(rng, pools=max(2, rows // 8))
    d3_pair = synthetic.d3_pairwise(rng, pools=max(2, rows // 56))  # 28 pairs x 2 orders
    d4_scores = synthetic.d4_scores(rng, resumes=max(2, rows // 9))  # original + 2 x 4 groups
    d4_ranks = synthetic.d4_rankings(rng, batches=max(2, rows // 4))

    print(f"Recomputing all panels, {replicates:,} bootstrap replicates")
    total = 0.0
    total += timed("D1 validity and fairness", len(d1), lambda: compute_d1(d1))
    total += timed("D2 correspondence", len(d2), lambda: compute_d2(d2, replicates=replicates))
    total += timed(
        "D3 pointwise (RABBI, top-k)",
        len(d3_point),
        lambda: compute_d3(d3_point, replicates=replicates),
    )
    total += timed(
        "D3 pairwise (+ output statistics)",
        len(d3_pair),
        lambda: compute_d3(pairwise=d3_pair, replicates=replicates),
    )
    total += timed("D4 direct scores", len(d4_scores), lambda: compute_d4(d4_scores))
    total += timed("D4 rankings", len(d4_ranks), lambda: compute_d4(rankings=d4_ranks))
    print(f"{'total':<34} {'':>12}  {total:6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
