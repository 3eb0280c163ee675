"""One null audit answered deterministically, to compare two versions of the code.

Run: .venv/bin/python benchmarks/null_same_answers.py CODE_ROOT OUT.audit
     then `metrics_report` of OUT.audit with each tree, compared byte for byte

power_measured.py's null audits run at concurrency 8, and the oracle draws each answer's
noise in the order answers arrive, so the same seed gives different audits from one run
to the next. This builds one audit of every design from 8 resumes of resumes-dev
(drawn with Random(7)), answers it at concurrency 1 with the oracle seeded 7, copies it
to OUT, and prints a digest of every request's key, repeat and body: two code trees that
print the same digest sent the same requests, and their metrics on OUT can be compared
byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path


def main(argv: list[str]) -> int:
    root, out = Path(argv[1]).resolve(), Path(argv[2]).resolve()
    sys.path[:0] = [str(root), str(root / "tests"), str(root / "benchmarks")]
    os.environ.setdefault(
        "RESUME_AUDITOR_SHARED", str(Path(__file__).resolve().parents[2] / "shared")
    )
    import null_calibration as nc  # noqa: F401  (the template's study text)
    import power_measured as pm
    from devtools.seeded_audit import seeded_copy
    from devtools.simulator import Simulator
    from devtools.simulator_policies import Oracle

    import resume_auditor
    from resume_auditor.workflow.execute import make_runner

    print("code", resume_auditor.__file__, file=sys.stderr)
    files, _sources = pm.corpus()
    chosen = sorted(random.Random(7).sample(files, 8))
    shm = Path("/dev/shm")
    work = Path(tempfile.mkdtemp(dir=shm if shm.is_dir() else None))
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(work / "data")
    with Simulator(keep_requests=False, logprobs=False) as sim:
        template = pm._template(sim, work, chosen, None)
        audit, variants = seeded_copy(template, work, 7)
        sim.policy = Oracle.from_variants(variants, seed=7)
        make_runner(audit, concurrency=1, use_cache=False, max_retries=1).run()
        shutil.copyfile(audit, out)
    with sqlite3.connect(out) as db:
        rows = db.execute(
            "SELECT ukey, rep, body_sha256 FROM request ORDER BY ukey, rep"
        ).fetchall()
    print(hashlib.sha256(json.dumps(rows).encode()).hexdigest(), len(rows))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
