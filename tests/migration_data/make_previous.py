"""Write NAME.audit.gz and its metrics with the app on sys.path (an old commit's tree).

An audit with every design, two runs against the provider simulator, a
re-asked answer (a response_history row) and a collected batch row; see README.md.
Usage:
    PYTHONPATH=OLD_TREE:OLD_TREE/tests python make_previous.py NAME OUT_DIR \
        OLD_TREE/resources/sample
(make_schema5.py runs it under the name "schema5", as that file was made.)
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import sqlite3
import sys
from pathlib import Path

from resume_auditor.cli import main

try:  # the test-support code's place since issue 19 (tests/devtools)
    from devtools.simulator import Simulator
    from devtools.simulator_kinds import every_kind_policy
except ImportError:  # an old tree, where it shipped inside the package
    from resume_auditor.devtools.simulator import Simulator  # type: ignore[no-redef]
    from resume_auditor.devtools.simulator_kinds import every_kind_policy  # type: ignore[no-redef]
from resume_auditor.store.packing import pack
from resume_auditor.store.resultfile import ResultFile

STUDY = """
format = 1
[study]
name = "Every design"
seed = 9
[job]
file = "{job}"
[resumes]
files = ["{resumes}/01-jordan-ellery.pdf", "{resumes}/02-morgan-tate.pdf"]
[run]
prompt = "d1-baseline"
[designs.d1]
groups = ["black_woman", "white_man"]
signals = ["name", "explicit"]
[designs.d2]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
[designs.d3]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
rounds = 3
pairwise_prompt = "d3-pairwise"
[designs.d4]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
race_batches = 2
gender_batches = 2
"""


def build(out_dir: Path, sample: Path, name: str, study_text: str = STUDY) -> None:
    out_dir.mkdir(exist_ok=True)
    study = out_dir / "study.toml"
    study.write_text(study_text.format(job=sample / "job.md", resumes=sample / "resumes"))
    out = out_dir / f"{name}.audit"
    with Simulator(policy=every_kind_policy()) as sim, contextlib.redirect_stdout(io.StringIO()):
        for model in ("sim", "sim2"):
            args = ["--provider", "openai-compatible", "--base-url", sim.base_url]
            args += ["--model", model, "--no-cache", "--concurrency", "4"]
            assert main(["audit", str(study), "--out", str(out), *args]) == 0
    with ResultFile(out) as rf:
        rec = rf.response_record(5)
        assert rec is not None
        rf.record_response(
            5,
            {"again": True},
            rec["text"],
            rec["label"],
            rec["justification"],
            (1, 1, 0, 0),
            rec["model_version"],
            0.1,
            parsed=rec["parsed"],
        )
        batch = rf.add_batch(1, "openai", [])
        rf.set_batch(batch, state="collected", remote_id="batch_x", message="kept")
    # Bodies are most of the file and no number reads them: each keeps a short
    # stand-in of its own, so a lost or swapped body still shows.
    db = sqlite3.connect(out)
    ids = [i for (i,) in db.execute("SELECT id FROM request")]
    stand_in = [(pack({"model": "sim", "user": f"request {i} (shortened)"}), i) for i in ids]
    db.executemany("UPDATE request SET body = ? WHERE id = ?", stand_in)
    db.commit()
    db.execute("PRAGMA journal_mode=DELETE")
    db.execute("VACUUM")
    db.close()
    for run in (1, 2):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["metrics", str(out), "--json", "--run", str(run)]) == 0
        report = json.loads(buf.getvalue())
        for key in ("result_file", "app_version"):
            report.pop(key)
        text = json.dumps(report, sort_keys=True, indent=1).encode()
        (out_dir / f"{name}.metrics-run{run}.json.gz").write_bytes(gzip.compress(text, mtime=0))
    (out_dir / f"{name}.audit.gz").write_bytes(gzip.compress(out.read_bytes(), mtime=0))


if __name__ == "__main__":
    build(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[1])
