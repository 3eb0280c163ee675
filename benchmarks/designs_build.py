"""How long building every design's cases takes, and how many it makes.

    .venv/bin/python benchmarks/designs_build.py [COPIES]

Prepares (cases + queued requests, nothing sent) a study with D1-D4 on COPIES
copies of each of the four sample resumes (default 10: 40 resumes), with the
paper-scale settings: D1 all four groups, names and explicit signals, same- and
cross-group unequal pairs; D2, D3 and D4 on all eight groups.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from resume_auditor.resources import resource
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.plan import plan_run
from resume_auditor.workflow.prepare import prepare, study_of
from resume_auditor.workflow.studyfile import read_study

STUDY = """
format = 1
[study]
name = "Build benchmark"
seed = 1
[job]
file = "job.md"
[resumes]
files = ["resumes/*.pdf"]
[designs.d1]
signals = ["name", "explicit"]
unequal_groups = "both"
[designs.d2]
[designs.d3]
rounds = 50
[designs.d4]
"""


def main() -> int:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    sample = resource("sample")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "resumes").mkdir()
        shutil.copy(sample / "job.md", root / "job.md")
        for i in range(copies):
            for pdf in sorted((sample / "resumes").glob("*.pdf")):
                shutil.copy(pdf, root / "resumes" / f"{i:03d}-{pdf.name}")
        (root / "study.toml").write_text(STUDY)
        start = time.perf_counter()
        prepared = prepare(read_study(root / "study.toml"), root / "out.audit")
        elapsed = time.perf_counter() - start
        with ResultFile(prepared.path) as result:
            plan = plan_run(result, study_of(result))
            variants = len(result.variants())
        print(f"{copies * 4} resumes: {variants} variants, {plan.requests} requests queued")
        for design, d in plan.by_design().items():
            print(f"  {design}: {d['cases']} cases, {d['requests']} requests")
        print(f"prepare (read PDFs, build cases, queue requests): {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
