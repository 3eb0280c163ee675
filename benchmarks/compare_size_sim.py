"""The size of the model comparison's tests, at the statistics level (issue 28).

Run: .venv/bin/python benchmarks/compare_size_sim.py [--audits N] [--sizes 1,1,...,4]
     [--step-b S] [--reference g-1|exact|satterthwaite] [--adjust swaps|holm]
     [--seed S] [--check K]

benchmarks/compare_calibration.py goes through the real path and manages 100 audits in
minutes: too few to tell a family-wise rate of 5.0% from 5.5%. This simulates the same
audits' answers directly, thousands a second, with the structure of that benchmark's D1
study: per source resume 24 unequal pairs (one qualification apart), 8 equal pairs of one
group and 12 equal pairs across the 4 groups (each group in 6); two models answering each
pair with their own noise, as the simulator's oracle does (latent difference plus two
N(0, 1) draws, "abstain" within 0.6, else the higher). A pair's two candidates share
their source resume, so the resume's quality cancels and the rows are independent:
clustering by resume is what the comparison does, not what the answers need.

`--sizes`: the rows of each resume as multiples of the above (8 resumes of equal size by
default; "1,1,1,1,1,1,2,4" has one resume with four times the rows). Every measure of
the comparison (CriterionValidity, DiscrimValidity, each group's selection gap) gets
the paired delete-one-resume jackknife of stats/compare.py, vectorised over the audits,
and a p-value from `--reference`: "g-1" Student's t on G-1 degrees of freedom (the
comparison before issue 28's calibration work), "exact" stats/jackknife_t (what it uses
now; for speed its p is read from a grid of 2,000 values of t, linearly interpolated),
"satterthwaite" the same weights' one-chi-square approximation (what it uses beyond
jackknife_t.EXACT_UP_TO clusters).
The six p-values of an audit are adjusted together, as compare_runs does for two models
and one design (`--adjust swaps`, stats/compare.adjust): the Westfall-Young step-down
max-|t| over every pattern of resumes whose answers are swapped between the two models
(randomization.swap_patterns: all 2^G up to 12 resumes, else 999 drawn; beyond
compare.SWAPS_UP_TO resumes, Holm as below), which does not read `--reference`; or
(`--adjust holm`, what it did before) Holm on the p-values from `--reference`.

Printed: each measure's coverage of its true difference and its unadjusted rejection
rate at 5% and at 5%/6 (the threshold Holm's first step uses), and the share of audits
where any difference is declared (Holm p < 0.05), against 1 - (1 - 0.05/6)^6, the rate
six independent exact tests would give. `--step-b 1.6` plants B's larger step per
qualification (as compare_calibration.py does): the validity difference's true value is
the mean of the audits' estimates, and the share of audits that declare it is the power.

`--check K`: the first K audits also go through stats/compare.paired_with_swaps and
adjust on pandas tables (rows, not sums); their p-values and adjusted p-values must
equal the ones above (the swaps are compare.swapped_t's and step_down_max_t's, audit by
audit).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats as sps

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's package, not an installed one

from resume_auditor.stats import jackknife_t  # noqa: E402
from resume_auditor.stats.multiplicity import holm  # noqa: E402

BAND = 0.6  # the oracle's abstain band
GROUPS = 4
CROSS = [(i, j) for i in range(GROUPS) for j in range(GROUPS) if i != j]  # 12 ordered


def answers(
    rng: np.random.Generator, diff: np.ndarray | float, shape: tuple[int, int]
) -> np.ndarray:
    """1: the first shown, -1: the second, 0: abstain."""
    d = diff + rng.normal(0, 1, shape) - rng.normal(0, 1, shape)
    return np.where(np.abs(d) < BAND, 0, np.where(d >= 0, 1, -1))


def model(
    rng: np.random.Generator, n: int, sizes: np.ndarray, step: float
) -> dict[str, np.ndarray]:
    """Per audit, resume and measure: (numerator, denominator) sums; and the rows."""
    g = sizes.size
    out = {k: np.zeros((n, g, 2)) for k in ("criterion_validity", "discrim_validity")}
    gaps = np.zeros((n, g, GROUPS, 2))
    for r in range(g):
        unequal, same, cross = (int(round(c * sizes[r])) for c in (24, 8, 12))
        sign = np.where(np.arange(unequal) % 2 == 0, 1.0, -1.0)  # the better shown first or not
        picked = answers(rng, step * sign[None, :], (n, unequal))
        out["criterion_validity"][:, r] = np.stack(
            [(picked == sign[None, :]).sum(1), np.full(n, unequal)], 1
        )
        equal = answers(rng, 0.0, (n, same + cross))
        out["discrim_validity"][:, r] = np.stack([(equal == 0).sum(1), np.full(n, same + cross)], 1)
        for k in range(cross):
            a, b = CROSS[k % len(CROSS)]
            gaps[:, r, a, 0] += equal[:, same + k]
            gaps[:, r, b, 0] -= equal[:, same + k]
            gaps[:, r, a, 1] += 1
            gaps[:, r, b, 1] += 1
    for j in range(GROUPS):
        out[f"selection_gap.{j}"] = gaps[:, :, j, :]
    return out


def jackknife(sa: np.ndarray, sb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The paired difference of ratios and its delete-one-cluster jackknife SE, per audit."""
    ta, tb = sa.sum(1), sb.sum(1)
    theta = ta[:, 0] / ta[:, 1] - tb[:, 0] / tb[:, 1]
    la, lb = ta[:, None] - sa, tb[:, None] - sb
    leave = la[..., 0] / la[..., 1] - lb[..., 0] / lb[..., 1]
    g = sa.shape[1]
    se = np.sqrt((g - 1) / g * ((leave - leave.mean(1, keepdims=True)) ** 2).sum(1))
    return theta, se


def reference(kind: str, sizes_a: np.ndarray, sizes_b: np.ndarray):  # type: ignore[no-untyped-def]
    """t -> two-sided p, vectorised."""
    g = sizes_a.size
    if kind == "g-1":
        return lambda t: 2 * sps.t.sf(np.abs(t), g - 1)
    ref = jackknife_t.reference([sizes_a, sizes_b]) or jackknife_t.Reference(float(g - 1))
    if kind == "satterthwaite":  # the one-chi-square approximation of the same weights
        ref = jackknife_t.Reference(ref.df, ref.scale)
    grid = np.linspace(0.0, 40.0, 2001)
    p = np.array([ref.p(float(x)) for x in grid])
    return lambda t: np.interp(np.abs(t), grid, p)


def check(
    a: dict[str, np.ndarray],
    b: dict[str, np.ndarray],
    p: np.ndarray,
    k: int,
    adjusted: np.ndarray | None,
) -> tuple[float, float]:
    """Largest gaps between the vectorised p-values (and adjusted p-values) and those of
    compare.paired_with_swaps and compare.adjust on the same answers as tables."""
    import pandas as pd

    from resume_auditor.stats.compare import Difference, Measure, adjust, paired_with_swaps, ratio

    worst = worst_adjusted = 0.0
    keys = list(a)
    for i in range(k):
        differences = []
        for j, key in enumerate(keys):
            rows = []
            for run, data in (("a", a), ("b", b)):
                for r in range(data[key].shape[1]):
                    num, den = data[key][i, r]
                    # rows of the cluster: the numerator spread over `den` rows
                    values = np.zeros(int(den))
                    whole = int(abs(num))
                    values[:whole] = np.sign(num)
                    rows += [(run, f"r{r}", v) for v in values]
            t = pd.DataFrame(rows, columns=["run", "cluster", "y"]).assign(one=1.0)
            m = Measure(key, key, ("y", "one"), ratio(0, 1), "more")
            [(est, swaps)] = paired_with_swaps([t[t.run == "a"], t[t.run == "b"]], m, [(0, 1)])
            if est.p is not None and math.isfinite(p[i, j]):
                worst = max(worst, abs(est.p - p[i, j]))
            differences.append(Difference("D1", m, 1, 2, est, swaps))
        if adjusted is not None:
            adjust(differences)
            for j, d in enumerate(differences):
                if d.estimate.p_holm is not None:
                    worst_adjusted = max(worst_adjusted, abs(d.estimate.p_holm - adjusted[i, j]))
    return worst, worst_adjusted


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--audits", type=int, default=20000)
    ap.add_argument("--sizes", default="1,1,1,1,1,1,1,1")
    ap.add_argument("--step-b", type=float, default=1.0)
    ap.add_argument("--reference", choices=("g-1", "exact", "satterthwaite"), default="exact")
    ap.add_argument("--adjust", choices=("swaps", "holm"), default="swaps")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", type=int, default=0)
    args = ap.parse_args(argv)
    sizes = np.array([float(x) for x in args.sizes.split(",")])
    rng = np.random.default_rng(args.seed)
    n = args.audits
    a = model(rng, n, sizes, 1.0)
    b = model(rng, n, sizes, args.step_b)
    keys = list(a)
    est = {k: jackknife(a[k], b[k]) for k in keys}
    refs = {k: reference(args.reference, a[k][0, :, 1], b[k][0, :, 1]) for k in keys}
    planted = args.step_b != 1.0
    truth = {
        k: float(est[k][0].mean()) if planted and k == "criterion_validity" else 0.0 for k in keys
    }
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.stack([refs[k](est[k][0] / est[k][1]) for k in keys], 1)
    p = np.where(np.isfinite(p), p, 1.0)
    m = len(keys)
    print(
        f"{n} audits, resumes of sizes {args.sizes}, reference {args.reference}, "
        f"{'planted (step B ' + str(args.step_b) + ')' if planted else 'null'}, "
        f"adjusted by {args.adjust}"
    )
    for j, k in enumerate(keys):
        theta, se = est[k]
        with np.errstate(divide="ignore", invalid="ignore"):
            covered = refs[k]((theta - truth[k]) / se) >= 0.05
        print(
            f"  {k:20s} true {truth[k]:+.4f}: covered {covered.mean():.2%}, "
            f"p < 0.05 in {np.mean(p[:, j] < 0.05):.2%}, "
            f"p < 0.05/{m} in {np.mean(p[:, j] < 0.05 / m):.3%} (nominal {0.05 / m:.3%})"
        )
    from resume_auditor.stats.compare import SWAP_DRAWS, SWAPS_UP_TO

    if args.adjust == "swaps" and sizes.size > SWAPS_UP_TO:
        print(f"  (more than {SWAPS_UP_TO} resumes: compare_runs uses Holm, as --adjust holm)")
        args.adjust = "holm"
    if args.adjust == "swaps":
        # the product's own swaps and step-down, audit by audit
        from resume_auditor.stats.compare import ratio, step_down_max_t, swapped_t
        from resume_auditor.stats.randomization import swap_patterns

        patterns = swap_patterns(sizes.size, SWAP_DRAWS)
        rate_of = ratio(0, 1)
        adjusted = np.empty_like(p)
        for i in range(n):
            t = [swapped_t(a[k][i], b[k][i], rate_of, patterns) for k in keys]
            adjusted[i] = step_down_max_t(t)[0]
    else:
        adjusted = np.array([holm(list(row)) for row in p], dtype=float)
    declared = adjusted < 0.05
    rate = declared.any(1).mean()
    se_rate = math.sqrt(rate * (1 - rate) / n)
    print(
        f"  any difference declared: {rate:.2%} (+-{1.96 * se_rate:.2%}); six independent "
        f"exact tests under Holm: {1 - (1 - 0.05 / m) ** m:.2%}; the swap test: at most 5%"
    )
    if planted:
        print(f"  validity difference declared (power): {declared[:, 0].mean():.1%}")
    if args.check:
        worst, worst_adjusted = check(
            a, b, p, args.check, adjusted if args.adjust == "swaps" else None
        )
        print(f"  largest |p - paired_difference's p| over {args.check} audits: {worst:.2e}")
        if args.adjust == "swaps":
            print(f"  largest |adjusted p - compare.adjust's| over them: {worst_adjusted:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
