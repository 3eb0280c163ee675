"""The one-writer rule under load, several rounds with bigger counts.

Run: .venv/bin/python benchmarks/store_stress.py [ROUNDS] [REPEATS] [READS] [KILLS] [--processes]

Each round (tests/devtools/store_stress.py): a writer process standing in
for the app answers 10 x REPEATS requests against the provider simulator while 4
reader processes run READS CLI commands (metrics --json, cases, report --csv,
variants list) between them, and the writer or a reader is killed with SIGKILL
KILLS times at random and started again. Checks after each round: PRAGMA
integrity_check is ok, every answer a writer reported committed is in the file,
every request has its answer, no reader or writer failed, and a second writer was
refused every time one was tried. Defaults: 5 rounds, 30 repeats (300 requests),
300 reads, 8 kills. With --processes each read is a `python -m resume_auditor`
process of its own (as typed in a terminal; slower). Exits 1 if any round fails.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped

from devtools.store_stress import run_round  # noqa: E402


def main() -> int:
    processes = "--processes" in sys.argv[1:]
    args = [int(a) for a in sys.argv[1:] if a != "--processes"]
    rounds, repeats, reads, kills = (args + [5, 30, 300, 8][len(args) :])[:4]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="store-stress-") as tmp:
        os.environ.setdefault("RESUME_AUDITOR_DATA_DIR", str(Path(tmp) / "data"))
        for n in range(rounds):
            result = run_round(
                Path(tmp) / f"round-{n}",
                repeats=repeats,
                reads=reads,
                readers=4,
                kills=kills,
                seed=n,
                deadline_s=900,
                root=ROOT,
                processes=processes,
            )
            print(f"round {n + 1}/{rounds}: {result.line()}", flush=True)
            for line in (result.read_failures + result.writer_failures)[:5]:
                print(f"    {line}")
            if result.lost:
                print(f"    lost: {result.lost[:20]}")
            failed += not result.ok
    print(f"{rounds - failed}/{rounds} rounds ok")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
