"""Precision and recall of identity detection: generated corpus, then real resumes.

Run: .venv/bin/python benchmarks/extract_identity.py [REAL_DIR]

REAL_DIR defaults to ../shared/data/resumes-dev beside the project (skipped when
absent). On it: name precision and recall against each file's .truth.json, and
identity recall over every truth field (name, email, phone, address, links,
colleges); see tests/devtools/identity_truth.py for what counts.

Builds the corpus (tests/devtools/corpus.py: fictional resumes as one-
and two-column PDF, web-printed PDF with mojibake, hidden-text PDF, DOCX, TXT in
three encodings, Markdown), reads each one back through the app's loader and
identity finder, and compares the slots with the spans the corpus says are the
candidate's identity. A slot counts only with the exact span. Prints precision
and recall overall and per kind, and every miss and extra, so a reader can see
what the heuristics get wrong (the corpus holds traps on purpose).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped


def real_corpus(folder: Path) -> None:
    from devtools.identity_truth import FIELDS, score_corpus

    score = score_corpus(folder)
    print(f"\nreal resumes in {folder}: {len(score.files)} files")
    for f in score.files:
        mark = "ok " if f.name_right else ("-- " if f.found_name is None else "BAD")
        print(f"  {mark} {f.file:<46} truth {f.truth_name!r:<24} found {f.found_name!r}")
        for miss in f.misses:
            print(f"        missed {miss}")
    print(
        f"name: precision {score.name_precision:.3f} ({score.names_right}/{score.names_found} "
        f"found are right), recall {score.name_recall:.3f} "
        f"({score.names_right}/{score.names_true})"
    )
    print(f"{'field':<10}{'found':>6}{'missed':>7}{'not in text':>12}{'recall':>8}")
    by = score.by_field()
    for key in FIELDS:
        s = by[key]
        rec = s.found / (s.found + s.missed) if s.found + s.missed else 1.0
        print(f"{key:<10}{s.found:>6}{s.missed:>7}{s.absent:>12}{rec:>8.3f}")
    print(
        f"identity recall over all fields (values present in the text): {score.identity_recall:.3f}"
    )


def main() -> int:
    from devtools.corpus import Score, build_corpus, score_identity

    from resume_auditor.documents.extract import analyse_resume
    from resume_auditor.documents.load import load_bytes

    total = Score()
    documents = 0
    for doc in build_corpus(include_long=False):
        if doc.expected is None:
            continue
        documents += 1
        loaded = load_bytes(doc.data, doc.name, password=doc.password)
        if loaded.text != doc.expected.text:
            print(f"! {doc.name}: the text differs from what was drawn; spans not comparable")
            continue
        found = analyse_resume(loaded).template.slots
        total.add(score_identity(doc.name, loaded.text, doc.expected.slots, found))
    print(f"documents: {documents}")
    print(
        f"overall: precision {total.precision:.3f}, recall {total.recall:.3f} "
        f"({total.true_pos} right, {total.false_pos} extra, {total.false_neg} missed, "
        f"{total.kind_errors} right span with the wrong kind)"
    )
    per: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    for key, count in total.by_kind.items():
        kind, what = key.rsplit(":", 1)
        per[kind][what] += count
    print(f"{'kind':<22}{'right':>6}{'extra':>6}{'missed':>7}{'precision':>10}{'recall':>8}")
    for kind in sorted(per):
        c = per[kind]
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
        recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
        print(f"{kind:<22}{c['tp']:>6}{c['fp']:>6}{c['fn']:>7}{precision:>10.3f}{recall:>8.3f}")
    for line in total.misses + total.extras:
        print(f"  {line}")
    real = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/data/resumes-dev"
    if real.is_dir():
        real_corpus(real)
    else:
        print(f"\n(no real corpus at {real}: skipped)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
