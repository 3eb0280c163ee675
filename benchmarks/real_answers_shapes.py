"""The answer readers on answers of every kind in shapes nobody tuned them on.

Run: PYTHONPATH=$PWD .venv/bin/python benchmarks/real_answers_shapes.py [N] [--seeds 1,2,3]

Draws N answers of each kind (pairwise, yes/no, rating, five scores, manipulation
check, ranking) per seed from tests/devtools/answer_kinds.py (labels and names
re-spelt, JSON, markdown lists, bold, tables, prose, doubtful answers with the
truth a careful reader gives) and from tests/devtools/answer_shapes.py (rankings
of eight with list faults), reads each through benchmarks/real_answers.py's
reader path (prompts.read_answer) and prints, per kind and per shape: the share
of answers a careful reader reads that were read right, the misreads (target 0)
and every answer not read right, so a shape that fails shows with its text.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped

from devtools.answer_kinds import kind_samples, reading_matches  # noqa: E402
from devtools.answer_shapes import samples  # noqa: E402

from resume_auditor.prompts import read_answer  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, nargs="?", default=500, help="answers per kind and seed")
    parser.add_argument("--seeds", default="1,2,3", help="comma-separated seeds")
    parser.add_argument("--show", type=int, default=8, help="failures printed per kind")
    args = parser.parse_args()
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    shapes: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    shown: Counter[str] = Counter()
    for seed in (int(s) for s in args.seeds.split(",")):
        for s in kind_samples(args.n, seed=seed):
            reading = read_answer(s.kind, s.answer, context=s.context)
            verdict = reading_matches(s, reading.label, reading.parsed)
            readable = "readable" if s.label != "invalid" else "doubtful"
            totals[s.kind][verdict] += 1
            totals[s.kind][readable] += 1
            shapes[(s.kind, s.how.split("/")[0])][verdict] += 1
            if verdict != "right" and shown[s.kind] < args.show:
                shown[s.kind] += 1
                print(f"! {verdict} {s.kind} [{s.how}] truth {s.label} {s.value}")
                print(f"    answer {s.answer!r}")
                print(f"    read   {reading.label} {reading.parsed}")
        for r in samples(args.n, seed=seed):
            reading = read_answer("ranking", r.answer, context={"names": r.names})
            got = reading.parsed.get("order") if reading.valid else []
            if got == r.truth:
                verdict = "right"
            elif got != r.truth[: len(got)] or len(got) > len(r.truth):
                verdict = "misread"
            else:
                verdict = "unread"
            totals["ranking of 8 (list faults)"][verdict] += 1
            totals["ranking of 8 (list faults)"]["readable"] += 1
    print("\nper kind: read right among answers a careful reader reads, misreads, doubtful")
    print("answers (truth: not read, or read only as far as it goes) read as the truth")
    for kind, c in totals.items():
        n = c["right"] + c["unread"] + c["misread"]
        print(
            f"  {kind:28} answers {n:6}  right {c['right'] / max(1, n):.2%}  "
            f"misreads {c['misread']}  not read {c['unread']}  (doubtful drawn: {c['doubtful']})"
        )
    print("\nper shape:")
    for (kind, shape), c in sorted(shapes.items()):
        n = sum(c.values())
        print(f"  {kind:18} {shape:14} {n:5}  right {c['right'] / n:.2%}  misreads {c['misread']}")
    misreads = sum(c["misread"] for c in totals.values())
    return 1 if misreads else 0


if __name__ == "__main__":
    raise SystemExit(main())
