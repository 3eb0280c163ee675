"""How many resumes get D1's unequal copies offline, and do those copies pass their checks?

Run: .venv/bin/python benchmarks/d1_unequal_coverage.py [--k 1 2 3] [--json OUT]

Every readable resume of shared/data/resumes-dev is paired with every posting of
shared/data/jobs-dev whose hand-made checklist (`NAME.truth.json`) has at least one
required qualification (what the user would correct the parsed checklist to). For
each pair and k it counts which constructions give c- and c+ without any model:

- lexical deletion (variants/lexical.py): the body's lines that carry k required
  qualifications are deleted;
- the qualifications block (variants/summary_block.py): the resume with a short
  block stating what it lacks of the required qualifications; c- leaves k of them
  out, c+ adds k preferred ones.

and runs the checks every block text must pass (the truth by construction):
the body is unchanged (cutting the block's lines out gives the resume back, slots
included), c- no longer mentions what it left out and c+ mentions what it added
(verify.mentions / absent on distinctive words), the change sits in the summary
(build.change_location), and every identity slot still reads its original.

Shares are given on the whole corpus and leaving out one source (the repository a
resume came from, per SOURCES.md's file name prefix) at a time. Reworded copies
need a generator model: there are none offline, and this script says so.
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "data"

from resume_auditor.documents.extract import analyse_resume  # noqa: E402
from resume_auditor.documents.load import load_file  # noqa: E402
from resume_auditor.documents.resumecheck import resume_refusal  # noqa: E402
from resume_auditor.domain.identity import Template  # noqa: E402
from resume_auditor.domain.job import Job, Qualification, QualKind  # noqa: E402
from resume_auditor.variants.lexical import choose_removals  # noqa: E402
from resume_auditor.variants.summary_block import block_texts, mentioned  # noqa: E402

SUFFIXES = (".pdf", ".docx", ".txt")


def read_resumes(folder: Path) -> tuple[dict[str, Template], dict[str, str]]:
    """name -> template of every readable resume; name -> why the others are not usable."""
    usable: dict[str, Template] = {}
    not_usable: dict[str, str] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in SUFFIXES:
            continue
        try:
            doc = load_file(path)
        except Exception as exc:  # noqa: BLE001 - a benchmark reports every failure
            not_usable[path.name] = str(exc)
            continue
        problem = resume_refusal(doc.text, path.name)
        if problem:
            not_usable[path.name] = problem
            continue
        usable[path.name] = analyse_resume(doc).template
    return usable, not_usable


def read_jobs(folder: Path) -> dict[str, Job]:
    out = {}
    for path in sorted(folder.glob("*.truth.json")):
        truth = json.loads(path.read_text(encoding="utf-8"))
        quals = [Qualification(q, QualKind.REQUIRED) for q in truth["required"]]
        quals += [Qualification(q, QualKind.PREFERRED) for q in truth["preferred"]]
        out[path.name.removesuffix(".truth.json")] = Job(path.name, "", quals)
    return out


def body_unchanged(original: Template, variant: Template) -> bool:
    """Only whole lines were inserted, and the slots read as before."""
    a, b = original.text.split("\n"), variant.text.split("\n")
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    only_inserts = all(tag in ("equal", "insert") for tag, *_ in ops)
    slots_ok = [variant.text[s.start : s.end] for s in variant.slots] == [
        s.original for s in original.slots
    ]
    return only_inserts and slots_ok


def one_block(original: Template, variant: Template) -> bool:
    """What was inserted is one run of lines (the block), or nothing."""
    a, b = original.text.split("\n"), variant.text.split("\n")
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(1 for tag, *_ in ops if tag != "equal") <= 1


@dataclass
class Tally:
    cells: int = 0
    less_lexical: int = 0
    less_block: int = 0
    more_block: int = 0
    more_cells: int = 0  # cells whose posting lists at least k preferred qualifications
    less_any: int = 0
    unequal_any: int = 0  # at least one unequal pair type can be built
    failures: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    checks: int = 0


def source_of(name: str) -> str:
    return name.split("_", 1)[0]


def measure(
    resumes: dict[str, Template], jobs: dict[str, Job], k: int, leave_out: str = ""
) -> Tally:
    tally = Tally()
    for rname, template in resumes.items():
        if leave_out and source_of(rname) == leave_out:
            continue
        for jname, job in jobs.items():
            if not job.required:
                continue
            tally.cells += 1
            tally.more_cells += len(job.preferred) >= k
            rng = random.Random(f"{rname}:{jname}:{k}")
            lexical = choose_removals(template, job.required, k, rng) is not None
            block = block_texts(1, template, job, (k,), random.Random(f"b:{rname}:{jname}"))
            tally.less_lexical += lexical
            tally.less_block += k in block.less
            tally.more_block += k in block.more
            tally.less_any += lexical or k in block.less
            tally.unequal_any += lexical or k in block.less or k in block.more
            for text in [block.base, *block.less.values(), *block.more.values()]:
                tally.checks += 1
                failed = []
                if not body_unchanged(template, text.template):
                    failed.append("body changed")
                stated = [mentioned(text.template.text, q) for q in text.changes]
                if text.kind.value == "less" and any(stated):
                    failed.append("c- still mentions what it left out")
                if text.kind.value == "more" and not all(stated):
                    failed.append("c+ does not mention what it added")
                if not one_block(template, text.template):
                    failed.append("the inserted lines are not one block")
                for f in failed:
                    tally.failures[f] += 1
    return tally


def _share(n: int, d: int) -> str:
    return f"{n}/{d} ({n / d:.1%})" if d else "n/a"


def report(t: Tally, label: str) -> dict[str, Any]:
    print(f"{label}: {t.cells} resume x posting cells")
    print(f"  c- by lexical deletion:      {_share(t.less_lexical, t.cells)}")
    print(f"  c- by qualifications block:  {_share(t.less_block, t.cells)}")
    print(
        f"  c+ by qualifications block:  {_share(t.more_block, t.cells)}; "
        f"{_share(t.more_block, t.more_cells)} of those whose posting has >= k preferred"
    )
    print(f"  c- by either:                {_share(t.less_any, t.cells)}")
    print(f"  some unequal pair:           {_share(t.unequal_any, t.cells)}")
    bad = sum(t.failures.values())
    print(f"  block texts checked: {t.checks}, failed checks: {bad} {dict(t.failures)}")
    return {
        "cells": t.cells,
        "less_lexical": t.less_lexical,
        "less_block": t.less_block,
        "more_block": t.more_block,
        "more_cells": t.more_cells,
        "less_any": t.less_any,
        "unequal_any": t.unequal_any,
        "texts_checked": t.checks,
        "failures": dict(t.failures),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--k", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv[1:])
    resumes, not_usable = read_resumes(SHARED / "resumes-dev")
    jobs = read_jobs(SHARED / "jobs-dev")
    print(f"{len(resumes)} usable resumes, {len(not_usable)} not usable: {not_usable}")
    with_req = sum(1 for j in jobs.values() if j.required)
    with_pref = sum(1 for j in jobs.values() if j.preferred)
    print(f"{len(jobs)} postings, {with_req} with a required and {with_pref} with a preferred one")
    print("Reworded copies: 0 offline (rewording needs a generator model).")
    out: dict[str, Any] = {}
    for k in args.k:
        out[f"k={k}"] = {"all": report(measure(resumes, jobs, k), f"\nk={k}, whole corpus")}
        for source in sorted({source_of(r) for r in resumes}):
            t = measure(resumes, jobs, k, leave_out=source)
            out[f"k={k}"][f"without {source}"] = report(t, f"k={k}, leaving out {source}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
