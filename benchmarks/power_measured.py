"""Does the plan's power keep its promise? Measured through the real path on resumes-dev.

Run: .venv/bin/python benchmarks/power_measured.py [--audits N] [--null N]
     [--designs d1,d2,d4,ir] [--resumes K] [--sizes default,recommended] [--loso N]
     [--groups G] [--seed S] [--blocks] [--json FILE]

Every audit goes study -> cases -> HTTP to a loopback model server (the provider
simulator) -> answer reading -> result file -> metrics -> the report's flags, as
`resume-auditor audit` does (benchmarks/null_calibration.py's machinery). The model
is the oracle of tests/devtools/simulator_policies.py: each source resume has a
quality (sd 0.7), each answer adds its own noise (sd 1), D1 pairs within 0.6 are
called equal when the prompt allows abstaining, ratings are floor(3.5 + latent).

- planted: one design per study (so its share of the false-alarm rate is the one
  the plan sized for), Black women's candidates lower by the latent shift that makes
  the literature's effect in the report's own units under the oracle's truth
  (stats/power_sim.latent_shift): a 10-point D1 gap, an LL144 impact ratio of 0.8
  (ir), 0.3 SD on D2 ratings, 0.3 SD on D4's overall score. Before the run the plan
  (workflow/plan.simulated_sizing, its default assumptions, nothing read from the
  oracle) claims a power at this size and recommends a size for 80%; the study is
  then run at the default size (K resumes) and at the recommended size (the
  corpus's resumes and byte-distinct copies of them), and the share of audits that
  flag Black women is the measured power. Target: within 10 points of the claim;
  at least 80% at the recommended size.
  Each audit is printed as it ends, and the measured share with its exact 95%
  interval; `--seed` moves the planted audits too (a second run is new audits:
  one run of 30-40 audits cannot settle a claim to +-10 points). `--blocks` (D1,
  ir): the real audits' D1 permutation blocks against the simulated blocks the
  claim rests on, both through the report's own test and draws, so a claim that
  models the data wrongly is told from one that is off by chance.
- null: every design, no effect, K resumes drawn afresh from the corpus every
  `--per-template` audits: the share of audits with any fairness flag (at most 5%),
  every flag kind separately, and 95% intervals covering the null value (93-97%).
- loso: the null and the planted D2 run again with each source repository of
  resumes-dev left out (N audits each): one line per source left out.

Figures depend on the machine only in time; the machine is small and shared, so
the counts run are stated with every figure and timings are not the point.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))  # this checkout's package, not an installed one

import null_calibration as nc  # noqa: E402

LITERATURE = {"d1": 0.10, "ir": 0.80, "d2": 0.30, "d4": 0.30}
STUDY_DESIGN = {"d1": "d1", "ir": "d1", "d2": "d2", "d4": "d4"}
ORACLE_BAND = 0.6  # simulator_policies.Oracle.abstain_band


def corpus() -> tuple[list[Path], dict[Path, str]]:
    """The readable resumes of resumes-dev and the source repository of each."""
    from shared_data import shared_dir

    folder = shared_dir() / "data" / "resumes-dev"
    if not folder.is_dir():
        raise SystemExit(f"the development corpus {folder} is not here")
    files = sorted(p for p in folder.iterdir() if p.suffix in (".pdf", ".docx"))
    sources: dict[Path, str] = {}
    table = (folder / "SOURCES.md").read_text(encoding="utf-8")
    for row in re.finditer(r"^\| `([^`]+)` \| ([^|]+?) \|", table, re.M):
        sources[folder / row.group(1)] = row.group(2).strip()
    return files, {f: sources.get(f, "unknown") for f in files}


def _truth(design: str) -> float:
    """The oracle's latent shift that gives the literature's effect in report units."""
    import resume_auditor.designs.registry  # noqa: F401  (registers the designs' power models)
    from resume_auditor.stats.power_sim import Assumptions, latent_shift

    oracle = Assumptions(spread=0.7, noise=1.0, abstain_band=ORACLE_BAND)
    kind = "IR" if design == "ir" else design.upper()
    return latent_shift(kind, LITERATURE[design], oracle, groups=GROUPS)


GROUPS = 4


def _designs_text(design: str | None) -> str:
    text = nc.LARGER_DESIGNS
    if GROUPS == 2:
        text = text.replace(
            '["black_woman", "black_man", "white_woman", "white_man"]',
            '["black_woman", "white_man"]',
        ).replace(
            '["black_woman", "white_man", "asian_woman", "hispanic_man"]',
            '["black_woman", "white_man"]',
        )
    if design is None:
        return text
    parts = text.split("[designs.")
    return "".join(f"[designs.{p}" for p in parts[1:] if p.split("]")[0] == design)


def _template(sim: Any, work: Path, files: list[Path], design: str | None) -> Path:
    work = Path(tempfile.mkdtemp(prefix="template-", dir=work))  # one audit file each
    saved = nc.LARGER_DESIGNS
    nc.LARGER_DESIGNS = _designs_text(design)
    nc.ONLY = ()
    try:
        return nc.template_audit(sim, work, "larger", "both", resumes=files)
    finally:
        nc.LARGER_DESIGNS = saved


def _claim(template: Path, design: str) -> dict[str, Any]:
    """The plan's pre-run sizing for this design (default assumptions, no answers)."""
    import resume_auditor.workflow.plan as plan_module
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.plan import plan_run
    from resume_auditor.workflow.prepare import study_of

    kind = "IR" if design == "ir" else design.upper()
    asked: dict[str, tuple[Any, float]] = {}
    sizing = plan_module.size_for_power

    def spy(size: Any, effect: float, share: float, **kw: Any) -> Any:
        asked[size.design] = (size, share)  # the simulated study the claim is about
        return sizing(size, effect, share, **kw)

    plan_module.size_for_power = spy  # type: ignore[assignment]
    try:
        with ResultFile(template, readonly=True) as result:
            plan = plan_run(
                result, study_of(result), simulate=True, effects={kind: LITERATURE[design]}
            )
    finally:
        plan_module.size_for_power = sizing  # type: ignore[assignment]
    for z in plan.sizing:
        if z.design == kind:
            return {
                "power": z.power_now,
                "units": z.units_now,
                "needed": z.units_needed,
                "requests": plan.by_design().get(STUDY_DESIGN[design].upper(), {}).get("requests"),
                "size": asked.get(kind),
            }
    raise SystemExit(f"the plan sized no {kind}")


def compare_blocks(real: list[Any], said: dict[str, Any], runs: int = 300) -> dict[str, Any]:
    """D1's permutation block (net wins per resume and group) of the real audits against
    the blocks the claim was simulated on (`--blocks`): the planted group's net wins per
    resume (mean, sd) and the share flagged by the report's own test and draws. Tells a
    claim that models the data wrongly from one that is off by the audits' chance."""
    import numpy as np

    import resume_auditor.designs.registry  # noqa: F401  (registers the designs' power models)
    from resume_auditor.stats.permutation import joint_test
    from resume_auditor.stats.power_sim import model

    size, share = said["size"]

    def summary(blocks: list[Any], column: Any) -> dict[str, float]:
        cols = [np.asarray(b.values, float)[:, column(b)] for b in blocks]
        hits = 0
        for b in blocks:
            joint = joint_test([b])
            key = b.keys[b.labels[column(b)]]
            hits += joint.step_down(list(joint.observed)).get(key, 1.0) <= share
        return {
            "mean": float(np.mean([c.mean() for c in cols])),
            "sd": float(np.mean([c.std() for c in cols])),
            "flagged": hits / max(len(blocks), 1),
            "blocks": len(blocks),
        }

    rng = np.random.default_rng(0)
    effect = LITERATURE["ir" if size.design == "IR" else "d1"]
    made = [model(size.design).simulate(rng, size, effect)[0] for _ in range(runs)]
    return {
        "real": summary(real, lambda b: b.labels.index("black_woman")),
        "simulated": summary(made, lambda b: 0),
        "share": share,
    }


def interval(hits: int, n: int) -> tuple[float, float]:
    """The exact (Clopper-Pearson) 95% interval of a share measured in n audits."""
    from scipy.stats import binomtest

    if n <= 0:
        return float("nan"), float("nan")
    ci = binomtest(hits, n).proportion_ci(0.95, method="exact")
    return float(ci.low), float(ci.high)


def planted(sim: Any, tmp: Path, files: list[Path], args: argparse.Namespace) -> dict[str, Any]:
    from resume_auditor.stats.permutation import joint_test

    out: dict[str, Any] = {}
    for design in args.designs:
        shift = _truth(design)
        work = tmp / f"planted-{design}"
        work.mkdir()
        base = nc._larger_resumes(work, files, args.resumes)
        template = _template(sim, work, base, STUDY_DESIGN[design])
        claim = _claim(template, design)
        sizes = {"default": (template, claim)}
        needed = claim["needed"]
        if "recommended" in args.sizes and needed and needed > claim["units"]:
            if needed > args.most_resumes:
                print(f"  {design}: recommended {needed} resumes is over --most-resumes")
            else:
                grown = nc._larger_resumes(work, files, needed)
                big = _template(sim, work, grown, STUDY_DESIGN[design])
                sizes["recommended"] = (big, _claim(big, design))
        for label, (tpl, said) in sizes.items():
            if label not in args.sizes:
                continue
            started = time.monotonic()
            hits = 0
            blocks: list[Any] = []
            latest: list[Any] = []
            watch = args.blocks and design in ("d1", "ir") and said.get("size") is not None
            if watch:
                import resume_auditor.designs.d1_castleman.groups as d1_groups

                def seen(found: list[Any], *a: Any, _into: list[Any] = latest, **kw: Any) -> Any:
                    _into[:] = found  # the audit's D1 block (the last gap test run)
                    return joint_test(found, *a, **kw)

                d1_groups.joint_test = seen  # type: ignore[assignment]
            for i in range(args.audits):
                began = time.monotonic()
                metrics = nc.run_audit(
                    sim, tpl, work, args.seed + 4000 + i, "planted", shift, claim=False
                )
                row = nc.summarize(metrics)
                groups = row["flagged_groups"].get(STUDY_DESIGN[design], [])
                blocks += latest[:1]
                hits += "black_woman" in groups
                print(
                    f"    {design} {label} audit {i + 1}: {row['requests']} requests, "
                    f"flagged {'black_woman' in groups}, {hits} of {i + 1} so far, "
                    f"{time.monotonic() - began:.0f} s, load {os.getloadavg()[0]:.1f}",
                    file=sys.stderr,
                    flush=True,
                )
            measured = hits / max(args.audits, 1)
            low, high = interval(hits, args.audits)
            if watch:
                d1_groups.joint_test = joint_test  # type: ignore[assignment]
                compared = compare_blocks(blocks, said)
                out[f"{design} {label} blocks"] = compared
                print(f"  {design} {label} D1 blocks (planted group's net wins per resume):")
                for who in ("real", "simulated"):
                    c = compared[who]
                    print(
                        f"    {who}: mean {c['mean']:.3f}, sd {c['sd']:.3f}; flagged by the "
                        f"report's test at {compared['share']:.3g}: {c['flagged']:.0%} of "
                        f"{c['blocks']}",
                        flush=True,
                    )
            out[f"{design} {label}"] = {
                "claimed": said["power"],
                "measured": measured,
                "audits": args.audits,
                "resumes": said["units"],
                "recommended": said["needed"],
                "requests": said["requests"],
                "interval": [low, high],
                "latent_shift": shift,
                "seconds": time.monotonic() - started,
            }
            print(
                f"  {design} {label}: {said['units']} resumes, {said['requests']} requests: "
                f"claimed {said['power']:.0%}, measured {measured:.0%} of {args.audits} audits "
                f"(95% interval {low:.0%}-{high:.0%}; plan recommends {said['needed']})",
                flush=True,
            )
    return out


def null(
    sim: Any, tmp: Path, files: list[Path], audits: int, args: argparse.Namespace, tag: str
) -> list[dict[str, Any]]:
    rows = []
    rng = random.Random(args.seed)
    work = tmp / f"null-{tag}"
    work.mkdir()
    template = None
    for i in range(audits):
        if i % args.per_template == 0:
            chosen = sorted(rng.sample(files, min(args.resumes, len(files))))
            template = _template(sim, work, chosen, None)
        assert template is not None
        metrics = nc.run_audit(sim, template, work, args.seed + i, "null", claim=False)
        rows.append(nc.summarize(metrics))
        if (i + 1) % 10 == 0:
            print(f"  null {tag}: {i + 1} of {audits}", file=sys.stderr, flush=True)
    shutil.rmtree(work, ignore_errors=True)
    return rows


def main(argv: list[str]) -> int:
    global GROUPS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--audits", type=int, default=100, help="planted audits per design and size"
    )
    parser.add_argument("--null", type=int, default=200, help="unbiased audits")
    parser.add_argument("--designs", default="d1,ir,d2,d4")
    parser.add_argument("--sizes", default="default,recommended")
    parser.add_argument("--resumes", type=int, default=0, help="K: 0 = every corpus resume")
    parser.add_argument("--most-resumes", type=int, default=1024)
    parser.add_argument("--groups", type=int, default=4, choices=(2, 4))
    parser.add_argument("--per-template", type=int, default=10)
    parser.add_argument("--loso", type=int, default=0, help="audits per source left out")
    parser.add_argument(
        "--seed", type=int, default=1000, help="null audits from SEED, planted from SEED + 4000"
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--blocks",
        action="store_true",
        help="D1/IR: compare the real audits' permutation blocks with the simulated ones",
    )
    args = parser.parse_args(argv[1:])
    args.designs = [d for d in args.designs.split(",") if d]
    args.sizes = [s for s in args.sizes.split(",") if s]
    GROUPS = args.groups
    files, sources = corpus()
    args.resumes = args.resumes or len(files)
    shm = Path("/dev/shm")
    tmp = Path(tempfile.mkdtemp(prefix="power-measured-", dir=shm if shm.is_dir() else None))
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(tmp / "data")
    from devtools.simulator import Simulator

    count = len(set(sources.values()))
    print(f"resumes-dev: {len(files)} files from {count} sources; K = {args.resumes}")
    results: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    try:
        with Simulator(keep_requests=False, logprobs=False) as sim:
            if args.audits and args.designs:
                print("planted effects (one design per study):")
                results["planted"] = planted(sim, tmp, files, args)
            if args.null:
                started = time.monotonic()
                rows = null(sim, tmp, files, args.null, args, "all")
                nc.report("null / resumes-dev / every design", rows, time.monotonic() - started)
                results["null"] = _null_summary(rows)
            if args.loso:
                results["loso"] = {}
                for source in sorted(set(sources.values())):
                    kept = [f for f in files if sources[f] != source]
                    rows = null(sim, tmp, kept, args.loso, args, re.sub(r"\W", "_", source))
                    s = _null_summary(rows)
                    results["loso"][source] = s
                    print(
                        f"  without {source} ({len(files) - len(kept)} files): any fairness "
                        f"flag {s['any']:.1%} of {s['audits']}, coverage "
                        f"{s['coverage_min']:.1%}-{s['coverage_max']:.1%}",
                        flush=True,
                    )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


def _null_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = max(len(rows), 1)
    kinds: Counter[str] = Counter(k for r in rows for k in r["kinds"])
    covered: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        for k, v in r["covered"].items():
            covered[k] += v
    rates = {k: sum(v) / len(v) for k, v in covered.items() if v}
    return {
        "audits": len(rows),
        "any": sum(r["fairness"] for r in rows) / n,
        "kinds": {k: c / n for k, c in kinds.items()},
        "coverage": rates,
        "coverage_min": min(rates.values(), default=float("nan")),
        "coverage_max": max(rates.values(), default=float("nan")),
    }


if __name__ == "__main__":
    sys.exit(main(sys.argv))
