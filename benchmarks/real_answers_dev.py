"""The ranking reader on real answers: share read, misreads, loss by group, leave-one-job-out,
and who was ranked first against the publisher's own counts.

Run: PYTHONPATH=$PWD .venv/bin/python benchmarks/real_answers_dev.py [--data DIR]

Reads shared/data/answers-dev (3,000 real gpt-3.5 rankings published by Bloomberg,
see its SOURCES.md; never copied into the project) through benchmarks/real_answers.py
and compares each reading with tests/real_answers/bloomberg_gpt35_truth.jsonl: the
order a careful reader reads (`how` = "exact": every name written exactly, read by an
independent exact rule; "hand": checked by hand), or null when a careful reader
cannot read the answer without doubt.

- read: answers given an order; misread: an order that differs from the truth (a
  partial order counts right only when it is the truth's, rank for rank);
- lost: answers the truth reads that the reader does not, per group of the
  candidate the truth puts first (the loss that would move selection rates);
- leave-one-job-out: the reader's one tunable, the similarity from which a name is
  "re-spelt" (name_match.CLOSE), chosen on two jobs and measured on the third;
- top-1 counts per job and group against the published `top` column, with the
  publisher's reader emulated (each name's first exact occurrence, names not found
  last) so that every difference is put down to a cause.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from real_answers import read_line  # noqa: E402

from resume_auditor.prompts import name_match  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "answers-dev"
TRUTH = ROOT / "tests" / "real_answers" / "bloomberg_gpt35_truth.jsonl"
GRID = (0.78, 0.80, 0.82, 0.84, 0.85, 0.86, 0.88, 0.90, 0.92, 0.95)
GROUPS = ("W_M", "W_W", "B_M", "B_W", "A_M", "A_W", "H_M", "H_W")


def load(data: Path) -> tuple[list[dict[str, Any]], dict[str, list[int] | None]]:
    rows = [json.loads(x) for x in (data / "bloomberg-gpt35-rankings.jsonl").open()]
    truth = {}
    for line in TRUTH.open():
        t = json.loads(line)
        truth[t["id"]] = t["order"]
    return rows, truth


def score(rows: list[dict[str, Any]], truth: dict[str, list[int] | None]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(rows), "readable": 0, "read": 0, "right": 0, "misread": []}
    lost: Counter[str] = Counter()
    by_top: Counter[str] = Counter()
    for row in rows:
        want = truth[row["id"]]
        got = read_line(row)["order"]
        if want is not None:
            out["readable"] += 1
            by_top[row["groups"][want[0]]] += 1
            if got is None:
                lost[row["groups"][want[0]]] += 1
        if got is not None:
            out["read"] += 1
        if got == want:
            out["right"] += want is not None
        elif got is not None:
            out["misread"].append((row["id"], got, want))
    out["lost"] = lost
    out["by_top"] = by_top
    return out


def line(name: str, s: dict[str, Any]) -> str:
    readable, right = s["readable"], s["right"]
    return (
        f"  {name:22} answers {s['n']:5}  readable by a careful reader {readable:5}  "
        f"read right {right:5} ({right / max(1, readable):.2%})  misreads {len(s['misread'])}  "
        f"not read right {readable - right:3}"
    )


def publisher_first(row: dict[str, Any]) -> int:
    """Bloomberg's reader as their SOURCES describe it: each name ranked by its first exact
    occurrence in the answer (case aside), names not found last, in the order shown."""
    text = row["answer"].lower()
    found = [(text.find(n.lower()), i) for i, n in enumerate(row["names"])]
    placed = sorted((pos, i) for pos, i in found if pos >= 0)
    missing = [i for pos, i in found if pos < 0]
    order = [i for _, i in placed] + missing
    return order[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    if not (args.data / "bloomberg-gpt35-rankings.jsonl").is_file():
        print(f"no development answers in {args.data}; nothing to measure")
        return 1
    rows, truth = load(args.data)
    jobs = sorted({r["job"] for r in rows})
    print(f"figures on {len(rows)} real answers ({args.data}); truth {TRUTH.name}")
    hand = sum(1 for line_ in TRUTH.open() if '"hand"' in line_)
    print(f"truth: {len(truth)} answers, {hand} of them checked by hand\n")

    whole = score(rows, truth)
    print(f"whole corpus (CLOSE = {name_match.CLOSE:.2f}):")
    print(line("all jobs", whole))
    for job in jobs:
        print(line(job, score([r for r in rows if r["job"] == job], truth)))
    for mid, got, want in whole["misread"]:
        print(f"  ! misread {mid}: read {got}, truth {want}")
    print("\nanswers a careful reader reads but the reader loses, by the truth's top group:")
    for g in GROUPS:
        n, lost = whole["by_top"][g], whole["lost"][g]
        print(f"  {g}: lost {lost:3} of {n:4} ({lost / max(1, n):.2%})")

    default = name_match.CLOSE
    print("\nsensitivity to CLOSE (whole corpus): read right / misreads")
    cells = []
    for close in GRID:
        name_match.CLOSE = close
        s = score(rows, truth)
        cells.append(f"{close:.2f}: {s['right']}/{len(s['misread'])}")
    name_match.CLOSE = default
    print("  " + ", ".join(cells))
    print("\nleave-one-job-out (CLOSE chosen on two jobs, measured on the third):")
    for held in jobs:
        train = [r for r in rows if r["job"] != held]
        best = None
        for close in GRID:
            name_match.CLOSE = close
            s = score(train, truth)
            key = (s["right"] - 10 * len(s["misread"]), -abs(close - default))
            if best is None or key > best[0]:
                best = (key, close)
        assert best is not None
        name_match.CLOSE = best[1]
        s = score([r for r in rows if r["job"] == held], truth)
        print(line(f"{held} @ {best[1]:.2f}", s))
        for mid, got, want in s["misread"]:
            print(f"  ! misread {mid}: read {got}, truth {want}")
    name_match.CLOSE = default

    published = args.data / "bloomberg-published-top1.csv"
    if not published.is_file():
        return 0
    pub = {(r["job"], r["demo"]): int(r["top"]) for r in csv.DictReader(published.open())}
    print("\nwho was ranked first, per job and group: ours (careful reading), the publisher's")
    print("reader emulated, their published count; then why ours differs from theirs:")
    for job in jobs:
        ours: Counter[str] = Counter()
        emul: Counter[str] = Counter()
        why: dict[str, Counter[str]] = defaultdict(Counter)
        for r in (r for r in rows if r["job"] == job):
            got = read_line(r)["order"]
            theirs = r["groups"][publisher_first(r)]
            emul[theirs] += 1
            if got:
                mine = r["groups"][got[0]]
                ours[mine] += 1
                if mine != theirs:
                    cause = _cause(r, got[0])
                    why[mine][f"+{cause}"] += 1
                    why[theirs][f"-{cause}"] += 1
            else:
                why[theirs]["-unreadable or refused (they still count a first)"] += 1
        print(f"  {job}:")
        for g in GROUPS:
            detail = ", ".join(f"{k} {v}" for k, v in sorted(why[g].items()))
            print(
                f"    {g}: ours {ours[g]:4}  emulated {emul[g]:4}  published {pub[(job, g)]:4}"
                f"  diff {ours[g] - pub[(job, g)]:+3}  {detail}"
            )
        print(f"    answers with a first: ours {sum(ours.values())}, theirs {sum(emul.values())}")
    return 0


def _cause(row: dict[str, Any], first: int) -> str:
    """Why the publisher's reader puts someone else first when ours reads `first`."""
    name = row["names"][first]
    if name.lower() not in row["answer"].lower():
        return "top name re-spelt (they put it last)"
    head = re.split(r"\n\s*(?:1[.)]|1st)", row["answer"], maxsplit=1)[0].lower()
    if any(n.lower() in head for n in row["names"]):
        return "a name in the text before the list"
    return "other"


if __name__ == "__main__":
    raise SystemExit(main())
