"""Precision and recall of the offline job checklist against hand-made truth files.

Run (from the project root):
    PYTHONPATH=$PWD .venv/bin/python benchmarks/job_checklist.py [CORPUS_DIR] [-v]

CORPUS_DIR defaults to ``../shared/data/jobs-dev``: real postings (``.txt``/``.md``)
each with ``NAME.truth.json`` = ``{"required": [...], "preferred": [...], "notes": ...}``.
Every posting goes through the app's own path (``load_file`` then ``analyse_job``), so
what is measured is what a user would see in ``resume-auditor extract --job``.

**What counts as a match.** A found item and a truth item match when the Dice overlap
of their content-word multisets is at least ``MATCH_DICE`` (0.6), and each truth item
and each found item is used at most once (best pairs first). Why not exact text: the
truth items are the posting's own words, but a fair reader may cut the same item
slightly differently: with or without a label ("Specialized Experience: For the
CN-53 ..."), with or without the final punctuation, with an HTML entity decoded, a
hard-wrapped line joined or not. Dice at 0.6 accepts a label or a lost half-line on
an item of a dozen words, and rejects two different requirements that share a few
words ("Experience with SQL" vs "Experience with Spark" scores 0.5). The one-to-one
pairing stops a single merged blob from matching several truth items: one blob
that swallows a paragraph of five requirements scores at most one right and four
missed. Words are lower-cased, HTML entities decoded, and a short list of
function words dropped so that "of the" does not make two items look alike.

A match counts as **right** only with the right kind (required vs preferred); a
match with the wrong kind is reported separately ("kind errors") and counts as both
a miss and an extra in the strict figures. The loose figures ignore the kind.

Per file: found, truth, right, precision, recall. A posting whose truth is empty
(duties only) has no recall; its precision is 1 if nothing was found, else 0 (any
item is an extra). Overall figures are micro-averaged over all items.

The machine this runs on may be loaded; nothing here is timed.
"""

from __future__ import annotations

import html
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

MATCH_DICE = 0.6
_STOP_WORDS = (
    "a an and or the of in on for to with as at by from is are be been your you we our "
    "this that it its such etc e g i y de la el en los las del un una para con o"
)
_STOP = frozenset(_STOP_WORDS.split())
SUFFIXES = (".txt", ".md")


def words(text: str) -> Counter[str]:
    text = html.unescape(html.unescape(text)).lower()
    return Counter(w for w in re.findall(r"[^\W_]+(?:[+#]+)?", text) if w not in _STOP)


def dice(a: Counter[str], b: Counter[str]) -> float:
    total = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / total if total else 0.0


@dataclass
class FileScore:
    name: str
    found: list[tuple[str, str]]  # (kind, text)
    truth: list[tuple[str, str]]
    right: int = 0  # matched with the right kind
    kind_errors: int = 0  # matched with the wrong kind
    missed: list[tuple[str, str]] = field(default_factory=list)
    extra: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def matched(self) -> int:
        return self.right + self.kind_errors

    @property
    def precision(self) -> float:
        return self.right / len(self.found) if self.found else 1.0

    @property
    def recall(self) -> float | None:
        return self.right / len(self.truth) if self.truth else None


def score(name: str, found: list[tuple[str, str]], truth: list[tuple[str, str]]) -> FileScore:
    """One-to-one matching of found items to truth items, best Dice first."""
    fw = [words(t) for _, t in found]
    tw = [words(t) for _, t in truth]
    pairs = sorted(
        ((dice(f, t), i, j) for i, f in enumerate(fw) for j, t in enumerate(tw)),
        reverse=True,
    )
    used_f: set[int] = set()
    used_t: set[int] = set()
    out = FileScore(name, found, truth)
    for d, i, j in pairs:
        if d < MATCH_DICE:
            break
        if i in used_f or j in used_t:
            continue
        used_f.add(i)
        used_t.add(j)
        if found[i][0] == truth[j][0]:
            out.right += 1
        else:
            out.kind_errors += 1
            out.missed.append(truth[j])
            out.extra.append(found[i])
    out.missed += [truth[j] for j in range(len(truth)) if j not in used_t]
    out.extra += [found[i] for i in range(len(found)) if i not in used_f]
    return out


def truth_of(path: Path) -> list[tuple[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [("required", t) for t in data["required"]] + [
        ("preferred", t) for t in data["preferred"]
    ]


def postings(corpus: Path) -> list[tuple[Path, Path]]:
    out = []
    for path in sorted(corpus.iterdir()):
        truth = path.with_name(path.stem + ".truth.json")
        if path.suffix in SUFFIXES and truth.is_file():
            out.append((path, truth))
    return out


def score_posting(path: Path, truth: Path) -> FileScore:
    from resume_auditor.documents.extract import extract_job

    result = extract_job(path)
    found = [(q.kind.value, q.text) for q in result.job.qualifications]
    out = score(path.name, found, truth_of(truth))
    out.notes = list(result.warnings)
    return out


@dataclass
class Total:
    found: int = 0
    truth: int = 0
    right: int = 0
    matched: int = 0
    empty_files: int = 0
    empty_right: int = 0  # duties-only postings given an empty checklist

    def add(self, s: FileScore) -> None:
        self.found += len(s.found)
        self.truth += len(s.truth)
        self.right += s.right
        self.matched += s.matched
        if not s.truth:
            self.empty_files += 1
            self.empty_right += not s.found

    @property
    def precision(self) -> float:
        return self.right / self.found if self.found else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.truth if self.truth else 1.0

    @property
    def loose_precision(self) -> float:
        return self.matched / self.found if self.found else 1.0

    @property
    def loose_recall(self) -> float:
        return self.matched / self.truth if self.truth else 1.0


def run(corpus: Path) -> tuple[Total, list[FileScore]]:
    total = Total()
    scores = []
    for path, truth in postings(corpus):
        s = score_posting(path, truth)
        total.add(s)
        scores.append(s)
    return total, scores


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    args = [a for a in argv if a != "-v"]
    root = Path(__file__).resolve().parent.parent
    corpus = Path(args[0]) if args else root.parent / "shared" / "data" / "jobs-dev"
    if not corpus.is_dir():
        print(f"no corpus at {corpus}")
        return 2
    total, scores = run(corpus)
    print(f"{'file':<66} found truth right  prec  recall")
    for s in scores:
        recall = f"{s.recall:.2f}" if s.recall is not None else "  - "
        print(
            f"{s.name[:66]:<66} {len(s.found):>5} {len(s.truth):>5} {s.right:>5} "
            f"{s.precision:5.2f}  {recall}"
        )
        if verbose:
            for kind, text in s.missed:
                print(f"    missed {kind:<9} {text[:110]}")
            for kind, text in s.extra:
                print(f"    extra  {kind:<9} {text[:110]}")
            for note in s.notes:
                print(f"    note   {note[:140]}")
    print(
        f"overall ({len(scores)} postings): precision {total.precision:.3f}, recall "
        f"{total.recall:.3f} (kind must match; {total.right} right of {total.found} found, "
        f"{total.truth} in the truth)"
    )
    print(
        f"ignoring required/preferred: precision {total.loose_precision:.3f}, "
        f"recall {total.loose_recall:.3f}"
    )
    print(
        f"duties-only postings given an empty checklist: {total.empty_right} of {total.empty_files}"
    )
    leave_one_source_out(corpus, scores)
    generated()
    return 0


def _total(scores: list[FileScore]) -> Total:
    total = Total()
    for s in scores:
        total.add(s)
    return total


def leave_one_source_out(corpus: Path, scores: list[FileScore]) -> None:
    """Each source (the repository or feed a posting came from, SOURCES.md) alone and
    held out: the parser's rules were written against all of them, so a source that
    scores well below the rest is one the rules were not fitted to."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from devtools.sources import held_out, sources

    source_of = sources(corpus)
    by_name = {s.name: s for s in scores}
    print("leave-one-source-out (precision / recall, kind must match):")
    print(f"  {'source':<40}{'files':>6}{'on it':>16}{'on the rest':>16}")
    for source, mine, rest in held_out(by_name, source_of):
        on = _total([by_name[n] for n in mine])
        off = _total([by_name[n] for n in rest])
        print(
            f"  {source[:40]:<40}{len(mine):>6}   {on.precision:.3f} / {on.recall:.3f}"
            f"   {off.precision:.3f} / {off.recall:.3f}"
        )


def generated() -> None:
    """The same posting in every generated shape (tests/devtools/shapes.py), per producer:
    material no rule was written against."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from devtools.shapes import POSTING_PRODUCERS, normalise, posting_shapes, render_posting

    from resume_auditor.documents.extract import analyse_job
    from resume_auditor.documents.load import load_bytes

    print("generated posting shapes (tests/devtools/shapes.py):")
    for producer in POSTING_PRODUCERS:
        shapes = posting_shapes((producer,))
        right = found = truth = passed = 0
        for shape in shapes:
            name, data, want = render_posting(shape)
            job = analyse_job(load_bytes(data, name)).job
            got = {(q.kind.value, normalise(q.text)) for q in job.qualifications}
            expected = {("required", normalise(t)) for t in want["required"]}
            expected |= {("preferred", normalise(t)) for t in want["preferred"]}
            right += len(got & expected)
            found += len(got)
            truth += len(expected)
            passed += got == expected
        print(
            f"  {producer:<6} {passed} of {len(shapes)} shapes exact; precision "
            f"{right / found if found else 1:.3f}, recall {right / truth if truth else 1:.3f}"
        )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
