"""Planted validity through the real path: is a known CriterionValidity recovered?

Run: .venv/bin/python benchmarks/planted_validity.py [AUDITS] [--p 0.8] [--dev N]

Each audit goes study -> cases -> HTTP to the loopback model server (the provider
simulator of tests/devtools) -> answer reading -> result file -> metrics, as
`resume-auditor audit` does (the same steps as benchmarks/null_calibration.py).
The server answers through `ValidityOracle`: on an unequal pair it picks the
candidate whose text states more qualifications with probability P, whatever
construction made the pair. So every audit's CriterionValidity, overall and per
construction (summary_block / lexical) and pair type, has the known truth P.

The study: the sample job (its checklist has required and preferred
qualifications), the sample's four resumes plus the first N real resumes of
shared/data/resumes-dev (default 8), D1 only, `summary_block = "always"` so both
constructions are measured in every audit. The resumes are read once; each audit
rebuilds the cases from its own seed. Prints how often the 95% interval covers P
(target about 95%) and the mean estimate.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped
sys.path.insert(0, str(ROOT))
SAMPLE = ROOT / "resources" / "sample"
DEV = ROOT.parent / "shared" / "data" / "resumes-dev"

STUDY = """
format = 1
[study]
name = "Planted validity"
seed = 1
[job]
file = "{job}"
[resumes]
files = [{files}]
[run]
prompt = "d1-baseline"
orders = "both"
[designs.d1]
groups = ["black_woman", "white_man"]
equal_pairs = false
unequal_pairs = true
k = [1]
summary_block = "always"
"""


def template_audit(sim: Any, workdir: Path, dev: int) -> Path:
    from resume_auditor.domain.study import ModelSpec
    from resume_auditor.workflow.prepare import prepare
    from resume_auditor.workflow.studyfile import read_study

    resumes = sorted((SAMPLE / "resumes").glob("*.pdf"))
    if DEV.is_dir():
        resumes += sorted(p for p in DEV.glob("*.pdf") if "imageonly" not in p.name)[:dev]
    study = workdir / "study.toml"
    files = ", ".join(f'"{p}"' for p in resumes)
    study.write_text(STUDY.format(job=SAMPLE / "job.md", files=files), encoding="utf-8")
    out = workdir / "template.audit"
    model = ModelSpec("openai-compatible", sim.base_url, "sim-model", 0.0, 160, 1)
    prepare(read_study(study), out, model, generate=False)
    return out


def run_audit(sim: Any, template: Path, workdir: Path, seed: int, p: float) -> dict[str, Any]:
    from devtools.seeded_audit import seeded_copy
    from devtools.simulator_policies import ValidityOracle

    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.execute import make_runner
    from resume_auditor.workflow.metrics import metrics_report

    out, variants = seeded_copy(template, workdir, seed)
    sim.policy = ValidityOracle.from_variants(variants, p_correct=p, seed=seed)
    runner = make_runner(out, concurrency=8, use_cache=False, max_retries=1)
    runner.run()
    with ResultFile(out) as result:
        metrics = metrics_report(result)
    for f in workdir.glob(f"audit-{seed}.audit*"):
        f.unlink()
    return metrics


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("audits", type=int, nargs="?", default=20)
    parser.add_argument("--p", type=float, default=0.8)
    parser.add_argument("--dev", type=int, default=8)
    parser.add_argument("--seed", type=int, default=2000)
    args = parser.parse_args(argv[1:])
    shm = Path("/dev/shm")
    tmp = Path(tempfile.mkdtemp(prefix="planted-", dir=shm if shm.is_dir() else None))
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(tmp / "data")
    from devtools.simulator import Simulator

    covered: dict[str, list[bool]] = defaultdict(list)
    values: dict[str, list[float]] = defaultdict(list)
    answered = 0
    started = time.monotonic()
    try:
        with Simulator(keep_requests=False, logprobs=False) as sim:
            template = template_audit(sim, tmp, args.dev)
            for i in range(args.audits):
                metrics = run_audit(sim, template, tmp, args.seed + i, args.p)
                answered += metrics["counts"]["answered"]
                d1 = metrics["d1"]
                cells = {"overall": d1["metrics"]["criterion_validity"]}
                for key in (
                    "criterion_validity_by_construction",
                    "criterion_validity_by_pair_type",
                ):
                    for value, m in (d1["breakdowns"].get(key) or {}).items():
                        cells[f"{key.removeprefix('criterion_validity_by_')}={value}"] = m
                for name, m in cells.items():
                    low, high = m["ci"][:2]
                    if m["value"] is None or low is None:
                        continue
                    values[name].append(m["value"])
                    covered[name].append(low - 1e-9 <= args.p <= high + 1e-9)
                print(
                    f"  audit {i + 1}: CriterionValidity {cells['overall']['value']:.3f} "
                    f"[{cells['overall']['ci'][0]:.3f}, {cells['overall']['ci'][1]:.3f}] "
                    f"n={cells['overall']['n']}",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"{args.audits} audits, planted CriterionValidity {args.p}, {answered} answers, "
        f"{time.monotonic() - started:.0f} s (loaded shared machine)"
    )
    for name in sorted(covered):
        v = covered[name]
        mean = sum(values[name]) / len(values[name])
        print(f"  {name:<40} 95% interval covers {args.p}: {sum(v)}/{len(v)}; mean {mean:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
