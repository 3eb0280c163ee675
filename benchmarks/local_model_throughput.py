"""Requests per second of the bundled local model on this machine.

Run: .venv/bin/python benchmarks/local_model_throughput.py [N_REQUESTS] [CONCURRENCY]

Prepares the sample study, starts the bundled SmolLM2-135M server, sends the first
N requests of the sample audit (default 24) through the real runner and HTTP path,
and prints requests/s, mean latency and prompt tokens per request. Model start-up is
timed separately and not counted in the rate.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from resume_auditor.prompts import parse_pairwise
from resume_auditor.providers.local import LocalModelServer, local_provider
from resume_auditor.resources import sample_study
from resume_auditor.runner import Runner
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.prepare import prepare
from resume_auditor.workflow.studyfile import read_study


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else 24
    concurrency = int(argv[2]) if len(argv) > 2 else 2
    tmp = Path(tempfile.mkdtemp(prefix="ra-bench-"))
    study = read_study(sample_study())
    out = tmp / "bench.audit"
    prepared = prepare(study, out)
    with ResultFile(out) as rf:  # keep only the first n requests open
        ids = [r.id for r in rf.open_requests(prepared.run_id)]
        with rf.transaction() as db:
            db.executemany("DELETE FROM request WHERE id = ?", [(i,) for i in ids[n:]])
    server = LocalModelServer.shared()
    t0 = time.monotonic()
    server.ensure_started()
    startup = time.monotonic() - t0
    runner = Runner(
        out,
        prepared.run_id,
        lambda: local_provider(server),
        parse_pairwise,
        concurrency=concurrency,
        timeout_s=600,
    )
    t1 = time.monotonic()
    status = runner.run()
    wall = time.monotonic() - t1
    with ResultFile(out) as rf:
        rows = rf._db.execute(  # noqa: SLF001
            "SELECT latency_s, input_tokens, output_tokens FROM response"
        ).fetchall()
    server.stop()
    print(f"machine: {sys.platform}, requests: {status.done}/{n}, concurrency: {concurrency}")
    print(f"model start-up: {startup:.1f} s")
    print(
        f"wall time: {wall:.1f} s -> {status.done / wall:.3f} requests/s "
        f"({wall / max(1, status.done):.2f} s per request)"
    )
    print(
        f"mean server latency: {statistics.mean(r[0] for r in rows):.2f} s; "
        f"mean prompt tokens: {statistics.mean(r[1] for r in rows):.0f}; "
        f"mean output tokens: {statistics.mean(r[2] for r in rows):.0f}"
    )
    return 0 if status.done == n else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
