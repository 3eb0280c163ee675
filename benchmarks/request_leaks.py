"""Real details of a candidate in the request bodies a study would send (target: none).

Run (from the project root):
    PYTHONPATH=$PWD .venv/bin/python benchmarks/request_leaks.py [RESUMES_DIR]

RESUMES_DIR defaults to ``../shared/data/resumes-dev``: real resume files, each with
``NAME.truth.json`` (name, email, phone, address, links). Each resume goes the way a
user's does (ingest, a D1 + D2 study, every request body the run would queue; see
tests/devtools/leaks.py) and each body is searched for the resume's truth values.
Prints per file the bodies and those carrying a real detail, per field, then the
totals, and the same figures with each source (the producer named in the file name's
last part: typst, pdftex, word...) held out, to show whether one source carries the
figure. Nothing is sent anywhere; nothing is timed.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped


def source_of(filename: str) -> str:
    """The producer in a corpus file name ("rendercv_classic_typst.pdf" -> "typst")."""
    stem = Path(filename).stem
    parts = [p for p in stem.split("_") if not p.isdigit()]
    return parts[-1] if Path(filename).suffix == ".pdf" else Path(filename).suffix.lstrip(".")


def main(argv: list[str]) -> int:
    from devtools.identity_truth import load_truth, resume_files
    from devtools.leaks import scan_file

    folder = Path(argv[0]) if argv else ROOT.parent / "shared" / "data" / "resumes-dev"
    if not folder.is_dir():
        print(f"no corpus at {folder}")
        return 2
    rows = []
    for doc, truth in resume_files(folder):
        r = scan_file(doc, load_truth(truth))
        rows.append(r)
        note = f"  ({r.error[:70]})" if r.error else ""
        print(f"{r.file:<46} bodies {r.bodies:>5}  with a real detail {r.leaking_bodies:>4}{note}")
        for example in r.examples[:3]:
            print(f"      {example[:140]}")
    total = sum(r.bodies for r in rows)
    leaking = sum(r.leaking_bodies for r in rows)
    fields: Counter[str] = Counter()
    for r in rows:
        fields.update(r.by_field)
    print(
        f"\nall: {leaking} of {total} request bodies carry a real detail; by field {dict(fields)}"
    )
    print("leave-one-source-out (the rest, with this source held out):")
    for source in sorted({source_of(r.file) for r in rows}):
        kept = [r for r in rows if source_of(r.file) != source]
        b = sum(r.bodies for r in kept)
        k = sum(r.leaking_bodies for r in kept)
        alone = [r for r in rows if source_of(r.file) == source]
        print(
            f"  without {source:<12} {k:>4} of {b:>5} bodies; "
            f"on it alone {sum(r.leaking_bodies for r in alone)} of {sum(r.bodies for r in alone)}"
        )
    return 0 if leaking == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
