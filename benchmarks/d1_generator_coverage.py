"""How many real resumes get c-, c+ and reworded copies from a generator, and which checks fail.

Run: .venv/bin/python benchmarks/d1_generator_coverage.py [--jobs N] [--resumes N]

Every readable resume of shared/data/resumes-dev (as `d1_unequal_coverage.py` reads
them) goes with each of the first N postings of jobs-dev that list both required and
preferred qualifications (their hand-made checklists). For each pair an audit file
is made and `generate_for_audit` writes k=1 c+, k=1 c- and one reworded copy with
the completed base first, judged, up to 3 attempts, through the runner and HTTP.

The generator here is the provider simulator's scripted generator
(tests/devtools/simulator_gen.py), not a language model: it adds, deletes and
rewords lines mechanically. So the figures say how the app's own path (the
prompts, the identity tokens, the checks, the store) fares on real resume text;
a real model's texts will pass or fail the checks differently. No paid model was
asked. Figures are shares of resume x posting pairs, and the checks that failed on
the texts left flagged.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from d1_unequal_coverage import SHARED, read_jobs, read_resumes  # noqa: E402


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--resumes", type=int, default=0, help="0: all")
    args = parser.parse_args(argv[1:])
    tmp = Path(tempfile.mkdtemp(prefix="gen-cov-"))
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(tmp / "data")
    from devtools.simulator import Simulator
    from devtools.simulator_gen import generator_policy
    from generator_fixtures import config, sim_factory

    from resume_auditor.domain.case import VariantKind
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.variants.generate import generate_for_audit
    from resume_auditor.workflow.ingest import template_to_json

    resumes, _ = read_resumes(SHARED / "resumes-dev")
    names = sorted(resumes)[: args.resumes or None]
    jobs = [j for j in read_jobs(SHARED / "jobs-dev").values() if j.required and j.preferred]
    jobs = jobs[: args.jobs]
    got: Counter[str] = Counter()
    failed_checks: Counter[str] = Counter()
    cells = 0
    with Simulator(policy=generator_policy(), keep_requests=False) as sim:
        for job in jobs:
            for name in names:
                template = resumes[name]
                path = tmp / f"{cells}.audit"
                with ResultFile(path, create=True) as rf, rf.transaction():
                    rf.save_study("gen coverage", "format = 1", {}, None)
                    rf.save_job(job, None, None)
                    rf.add_resume(
                        name, None, template.text, 1, "ok", template=template_to_json(template)
                    )
                cfg = config(sim.base_url, k=[1], reworded=1)
                report = generate_for_audit(path, cfg, runner_factory=sim_factory(sim.base_url))
                cells += 1
                with ResultFile(path) as rf:
                    texts = rf.qual_texts()
                kinds = {q.kind for q in texts if q.usable()}
                for kind, label in (
                    (VariantKind.LESS, "c-"),
                    (VariantKind.MORE, "c+"),
                    (VariantKind.REWORDED, "reworded"),
                    (VariantKind.BASE, "completed base"),
                ):
                    got[label] += kind in kinds
                for q in texts:
                    if not q.verified:
                        for check in q.checks:
                            if not check.passed:
                                failed_checks[f"{q.kind.value}: {check.name}"] += 1
                if not report.complete:
                    got["stopped"] += 1
                path.unlink()
                print(
                    f"  {cells}: {name} x {job.title}: {sorted(k.value for k in kinds)}",
                    file=sys.stderr,
                    flush=True,
                )
    print(
        f"{cells} resume x posting pairs ({len(names)} resumes, {len(jobs)} postings); "
        "scripted simulator generator, not a language model"
    )
    for label in ("c-", "c+", "reworded", "completed base", "stopped"):
        print(f"  {label:<15} {got[label]}/{cells} ({got[label] / cells:.1%})")
    print("  checks failed on texts left flagged after 3 attempts:")
    for check, n in failed_checks.most_common():
        print(f"    {check:<30} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
