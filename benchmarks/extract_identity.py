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
from typing import Any

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
        leave_one_source_out(real)
    else:
        print(f"\n(no real corpus at {real}: skipped)")
    generated()
    return 0


def _figures(files: list[Any]) -> str:
    from devtools.identity_truth import CorpusScore

    score = CorpusScore(files=files)
    return (
        f"name P {score.name_precision:.3f} R {score.name_recall:.3f}, "
        f"details R {score.identity_recall:.3f}"
    )


def leave_one_source_out(folder: Path) -> None:
    """Each source alone and held out, by repository and by PDF producer: the finder's
    rules were written against all of them, so a source well below the rest is one
    they were not fitted to."""
    from devtools.identity_truth import score_corpus
    from devtools.sources import held_out, producer, sources

    files = {f.file: f for f in score_corpus(folder).files}
    repo_of = sources(folder)
    for label, source_of in (
        ("repository", repo_of),
        ("producer", {name: producer(name) for name in files}),
    ):
        print(f"\nleave-one-source-out by {label}:")
        for source, mine, rest in held_out(files, source_of):
            print(
                f"  {source[:34]:<34}{len(mine):>3} on it: {_figures([files[n] for n in mine])}"
                f"  | the rest: {_figures([files[n] for n in rest])}"
            )


_FIELD_KINDS = {
    "name": {"full_name", "first_name", "last_name"},
    "email": {"email"},
    "phone": {"phone"},
    "address": {"address", "location"},
    "links": {"link"},
    "personal": {"personal"},
}


def generated() -> None:
    """Per-field recall and precision on the generated resume shapes (tests/devtools/
    shapes.py), per producer: material no rule was written against, truth known.
    Recall: truth values whose every place is inside slots. Precision: slots of the
    field's kinds that lie on one of the truth's values."""
    from devtools.shapes import RESUME_PRODUCERS, render_resume, resume_shapes

    from resume_auditor.documents.extract import analyse_resume
    from resume_auditor.documents.load import load_bytes

    print("\ngenerated resume shapes: per-field recall / precision")
    for prod in RESUME_PRODUCERS:
        hit: dict[str, list[int]] = {k: [0, 0, 0, 0] for k in _FIELD_KINDS}  # tp, n, ok, slots
        shapes = resume_shapes((prod,))
        for shape in shapes:
            name, data, truth = render_resume(shape)
            doc = load_bytes(data, name)
            slots = analyse_resume(doc).template.slots
            values = {
                "name": [truth.name],
                "email": [truth.email],
                "phone": [truth.phone],
                "address": [truth.address],
                "links": truth.links,
                "personal": truth.personal,
            }
            cover = [False] * len(doc.text)
            for s in slots:
                for i in range(s.start, s.end):
                    cover[i] = True
            for key, vals in values.items():
                places = _places(doc.text, vals)
                for value in vals:
                    spots = [p for p in places if p[2] == value]
                    if not spots:
                        continue
                    hit[key][1] += 1
                    hit[key][0] += all(
                        cover[i]
                        for a, b, _ in spots
                        for i in range(a, b)
                        if not doc.text[i].isspace()
                    )
                mine = [s for s in slots if s.kind.value in _FIELD_KINDS[key]]
                hit[key][3] += len(mine)
                flat = ["".join(v.split()) for v in vals]
                hit[key][2] += sum(
                    any(s.start < b and s.end > a for a, b, _ in places)
                    # a part of the value the reading order split (a band of three cells)
                    or any("".join(s.original.split()).strip(",") in v for v in flat)
                    for s in mine
                )
        parts = []
        for key, (tp, n, ok, made) in hit.items():
            parts.append(f"{key} {tp / n if n else 1:.3f}/{ok / made if made else 1:.3f}")
        print(f"  {prod:<5} ({len(shapes)} shapes): " + ", ".join(parts))


def _places(text: str, values: list[str]) -> list[tuple[int, int, str]]:
    """Where each value stands, spacing free (a value broken over lines still counts)."""
    import re

    out = []
    for value in values:
        pattern = r"\s*".join(re.escape(c) for c in value if not c.isspace())
        out += [(m.start(), m.end(), value) for m in re.finditer(pattern, text)]
    return out


if __name__ == "__main__":
    raise SystemExit(main())
