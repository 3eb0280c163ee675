"""Are two models' differences honest? Calibrated through the real path (issue 28).

Run: .venv/bin/python benchmarks/compare_calibration.py [--audits N] [--resumes K]
     [--step-b S] [--seed S] [--json FILE] [--design d3]

Each audit: resumes-dev's resumes (K drawn afresh every audit) -> D1 pairs -> two runs of
the same cases, models "model-a" and "model-b", over HTTP to one loopback server
(the provider simulator) -> answer reading -> result file -> workflow/compare.py's
comparison, as `resume-auditor metrics --json` gives it. Both models are the oracle of
tests/devtools/simulator_policies.py with the same resume qualities (a resume hard for
one is hard for the other: the pairing the paired interval must use) and their own
per-answer noise.

- null (`--step-b 1.0`, B's policy the same as A's): the share of audits where any
  difference is declared (adjusted p under 0.05, stats/compare.adjust) must be at most
  5%, and each 95% interval should cover 0 in 93-97% of audits.
- planted (`--step-b 1.6`): B gains more quality per qualification, so it picks the
  more qualified candidate more often. The size of that difference is the mean of the
  audits' estimates (its standard error is 1/sqrt(N) of one audit's); the share of
  intervals covering it should be 93-97%, and the share of audits that find it is
  the power at this size. Neither model favours a group, so each gap's true
  difference is 0, and its intervals should cover 0.

`--design d3` runs D3's pools instead of D1's pairs (4 groups, 12 rounds, the yes/no
question): the comparison's measures are each group's RABBI, whose true difference is 0
in both modes, since neither model favours a group.

Figures depend on the machine only in time; the counts run are printed with them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))  # this checkout's package, not an installed one

import null_calibration as nc  # noqa: E402

D1_ONLY = """
[designs.d1]
groups = ["black_woman", "black_man", "white_woman", "white_man"]
equal_pairs = true
unequal_pairs = true
k = [1]
"""

D3_ONLY = """
[designs.d3]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
rounds = 12
prompt = "d3-yes-no"
"""
STUDIES = {"d1": D1_ONLY, "d3": D3_ONLY}
# measures whose true difference is 0 in every mode: neither model favours a group
NO_GROUP_EFFECT = ("selection_gap.", "pointwise.rabbi.", "pairwise.rabbi.")


def one_audit(sim: Any, template: Path, work: Path, seed: int, step_b: float) -> dict[str, Any]:
    from devtools.seeded_audit import seeded_copy
    from devtools.simulator_policies import ByModel, Oracle

    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.compare import compare_runs
    from resume_auditor.workflow.execute import make_runner
    from resume_auditor.workflow.prepare import _queue_run, study_of

    out, variants = seeded_copy(template, work, seed)
    with ResultFile(out) as result:
        config = study_of(result)
        _queue_run(result, config, dataclasses.replace(config.model, model="model-b"))
        runs = [r.id for r in result.runs()]
    sim.policy = ByModel(
        {
            "sim-model": Oracle.from_variants(variants, seed=seed, noise_seed=seed * 2 + 1),
            "model-b": Oracle.from_variants(
                variants, seed=seed, noise_seed=seed * 2 + 2, step=step_b
            ),
        }
    )
    for run_id in runs:
        make_runner(out, run_id, concurrency=8, use_cache=False, max_retries=1).run()
    with ResultFile(out, readonly=True) as result:
        comparison = compare_runs(result)
    for p in work.glob(f"audit-{seed}.audit*"):
        p.unlink()
    assert comparison is not None
    return dict(comparison)


def summarize(rows: list[dict[str, Any]], truth: dict[str, float] | None) -> dict[str, Any]:
    """Per measure: declared share, coverage of `truth` (None: of 0), mean estimate."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for comparison in rows:
        for d in comparison["differences"]:
            by[d["key"]].append(d["difference"])
    out: dict[str, Any] = {"audits": len(rows), "measures": {}}
    any_declared = sum(
        any((d["difference"]["p_holm"] or 1.0) < 0.05 for d in c["differences"]) for c in rows
    )
    out["any_declared"] = any_declared / max(len(rows), 1)
    for key, estimates in by.items():
        values = [e["value"] for e in estimates if e["value"] is not None]
        target = (truth or {}).get(key, 0.0)
        with_ci = [e for e in estimates if e["ci"][0] is not None]
        covered = sum(e["ci"][0] <= target <= e["ci"][1] for e in with_ci)
        declared = sum((e["p_holm"] or 1.0) < 0.05 for e in estimates)
        out["measures"][key] = {
            "audits": len(estimates),
            "mean": sum(values) / len(values) if values else None,
            "target": target,
            "coverage": covered / len(with_ci) if with_ci else None,
            "intervals": len(with_ci),
            "declared": declared / len(estimates) if estimates else None,
        }
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--audits", type=int, default=100)
    ap.add_argument("--resumes", type=int, default=8)
    ap.add_argument("--step-b", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json")
    ap.add_argument("--design", choices=sorted(STUDIES), default="d1")
    ap.add_argument(
        "--loso",
        type=int,
        default=0,
        help="then N audits with each source repository of resumes-dev held out",
    )
    args = ap.parse_args(argv)
    from devtools.simulator import Simulator
    from power_measured import corpus

    files, sources = corpus()
    rng = random.Random(args.seed)
    rows: list[dict[str, Any]] = []
    started = time.monotonic()
    shm = Path("/dev/shm")  # many small audit files: not a benchmark of fsync
    with (
        tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp,
        Simulator(models=("sim-model", "model-b"), keep_requests=False, logprobs=False) as sim,
    ):
        work = Path(tmp)
        os.environ["RESUME_AUDITOR_DATA_DIR"] = str(work / "data")  # no shared cache
        nc.LARGER_DESIGNS = STUDIES[args.design]
        nc.ONLY = ()
        for i in range(args.audits):
            if i % 10 == 0:
                chosen = sorted(rng.sample(files, min(args.resumes, len(files))))
                folder = Path(tempfile.mkdtemp(prefix="template-", dir=work))
                template = nc.template_audit(sim, folder, "larger", "both", resumes=chosen)
            rows.append(one_audit(sim, template, work, args.seed * 1000 + i, args.step_b))
            if (i + 1) % 10 == 0:
                print(f"  {i + 1} of {args.audits} audits", file=sys.stderr, flush=True)
    planted = args.step_b != 1.0
    folds: dict[str, list[dict[str, Any]]] = {}
    if args.loso:
        shm = Path("/dev/shm")
        with (
            tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp,
            Simulator(models=("sim-model", "model-b"), keep_requests=False, logprobs=False) as sim,
        ):
            work = Path(tmp)
            os.environ["RESUME_AUDITOR_DATA_DIR"] = str(work / "data")
            for k, source in enumerate(sorted(set(sources.values()))):
                rest = [f for f in files if sources[f] != source]
                chosen = sorted(rng.sample(rest, min(args.resumes, len(rest))))
                folder = Path(tempfile.mkdtemp(prefix="template-", dir=work))
                template = nc.template_audit(sim, folder, "larger", "both", resumes=chosen)
                folds[source] = [
                    one_audit(sim, template, work, args.seed * 1000 + 500 + 50 * k + i, args.step_b)
                    for i in range(args.loso)
                ]
                print(f"  without {source}: {args.loso} audits", file=sys.stderr, flush=True)
    # the planted size: the mean estimate over the audits (the folds' when only they ran)
    first = summarize(rows or [r for fold in folds.values() for r in fold], None)
    # The oracle plants no group effect in either model, so every gap's true difference
    # is 0; the validity difference's size is the mean of the audits' estimates.
    truth = (
        {
            k: (0.0 if k.startswith(NO_GROUP_EFFECT) else m["mean"])
            for k, m in first["measures"].items()
            if m["mean"] is not None
        }
        if planted
        else None
    )
    result = summarize(rows, truth)
    result |= {
        "step_b": args.step_b,
        "resumes": args.resumes,
        "seconds": round(time.monotonic() - started),
    }
    print(
        f"{args.design} {'planted' if planted else 'null'}: {result['audits']} audits of "
        f"{args.resumes} "
        f"resumes, any difference declared in {result['any_declared']:.1%}"
    )
    for key, m in result["measures"].items():
        cov = "-" if m["coverage"] is None else f"{m['coverage']:.1%}"
        print(
            f"  {key}: mean {m['mean']:+.4f} (target {m['target']:+.4f}), interval covers "
            f"it in {cov} of {m['intervals']}, declared in {m['declared']:.1%}"
        )
    if folds:
        print(f"leave-one-source-out ({args.loso} audits each, that source's resumes held out):")
        for source, fold in folds.items():
            f = summarize(fold, truth)
            covs = [m["coverage"] for m in f["measures"].values() if m["coverage"] is not None]
            low, high = min(covs, default=math.nan), max(covs, default=math.nan)
            print(
                f"  without {source}: any difference declared in {f['any_declared']:.0%}, "
                f"coverage {low:.0%}-{high:.0%}"
            )
        pooled = summarize([r for fold in folds.values() for r in fold], truth)
        print(
            f"  all folds ({pooled['audits']} audits): any difference declared in "
            f"{pooled['any_declared']:.1%}; coverage per measure "
            + ", ".join(
                f"{k} {m['coverage']:.0%}"
                for k, m in pooled["measures"].items()
                if m["coverage"] is not None
            )
        )
        result["loso"] = {k: summarize(v, truth) for k, v in folds.items()}
    if args.json:
        Path(args.json).write_text(json.dumps({**result, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
