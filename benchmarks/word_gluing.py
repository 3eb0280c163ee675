"""Glued words per file: the app's PDF text layer against pdfminer.six's layout analysis.

Run (from the project root):
    PYTHONPATH=$PWD .venv/bin/python benchmarks/word_gluing.py [FOLDER]

FOLDER defaults to ``../shared/data/resumes-dev``. For every PDF, three readings of the
text layer: the app's (documents/pdf.py), pdfminer.six's ``extract_text`` with its
default layout analysis (LAParams), and pypdf's plain ``extract_text`` as a third
opinion. A token counts as **glued** when it is not a word and splits into words:
letters only, six or more, not found in the vocabulary, and cut into two or three
pieces that all are (each of three letters or more, or "a"/"I"/"an"/"of"/"to"/"in"/
"at"/"on"/"by"/"as"/"or"). The vocabulary is every token of the *other* files, in all
three readings, seen at least twice, so a file's own glued tokens never vouch for
themselves, plus the system's English word list (/usr/share/dict/words, Debian's
wamerican) when installed; without it the counts take real but rare words for glued
ones. Words per file are the app's tokens. Prints per file
and in all; the lower count wins. Nothing is timed.
"""

from __future__ import annotations

import io
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_SHORT = frozenset(["a", "i", "an", "of", "to", "in", "at", "on", "by", "as", "or"])


def readings(path: Path) -> dict[str, str]:
    import logging

    from pdfminer.high_level import extract_text
    from pypdf import PdfReader

    from resume_auditor.documents.load import load_file

    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    out = {"app": load_file(path).text}
    out["pdfminer"] = extract_text(io.BytesIO(path.read_bytes()))
    out["pypdf"] = "\n".join(p.extract_text() or "" for p in PdfReader(path).pages)
    return out


def tokens(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text)


def _split(word: str, vocab: set[str], parts: int) -> bool:
    if word in vocab or (len(word) < 3 and word not in _SHORT):
        return word in vocab or word in _SHORT
    if parts == 1:
        return False
    return any(
        (word[:i] in vocab or word[:i] in _SHORT) and _split(word[i:], vocab, parts - 1)
        for i in range(1, len(word))
        if i >= 3 or word[:i] in _SHORT
    )


def glued(text: str, vocab: set[str]) -> list[str]:
    out = []
    for token in tokens(text):
        word = token.lower()
        if len(word) < 6 or word in vocab:
            continue
        if _split(word, vocab, 3):
            out.append(token)
    return out


def system_dictionary() -> set[str]:
    """The system's English word list (Debian's wamerican), lower-cased; empty if absent."""
    path = Path("/usr/share/dict/words")
    if not path.is_file():
        return set()
    return {w.strip().lower() for w in path.read_text(errors="replace").split() if "'" not in w}


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else ROOT.parent / "shared" / "data" / "resumes-dev"
    files = sorted(folder.glob("*.pdf"))
    texts: dict[str, dict[str, str]] = {}
    for path in files:
        try:
            texts[path.name] = readings(path)
        except Exception as exc:  # noqa: BLE001  one unreadable file is reported, not fatal
            print(f"{path.name}: not read ({type(exc).__name__})")
    per_file: dict[str, Counter[str]] = {
        name: Counter(t.lower() for r in rs.values() for t in tokens(r))
        for name, rs in texts.items()
    }
    dictionary = system_dictionary()
    if not dictionary:
        print("no /usr/share/dict/words (Debian: apt-get install wamerican): the counts are rough")
    totals: Counter[str] = Counter()
    print(f"{'file':<44}{'words':>7}{'app':>6}{'pdfminer':>9}{'pypdf':>7}  app's glued (first 4)")
    for name, rs in texts.items():
        vocab_count: Counter[str] = Counter()
        for other, counts in per_file.items():
            if other != name:
                vocab_count.update(counts)
        vocab = {w for w, n in vocab_count.items() if n >= 2} | dictionary
        found = {reader: glued(text, vocab) for reader, text in rs.items()}
        for reader, words in found.items():
            totals[reader] += len(words)
        totals["words"] += len(tokens(rs["app"]))
        print(
            f"{name[:43]:<44}{len(tokens(rs['app'])):>7}{len(found['app']):>6}"
            f"{len(found['pdfminer']):>9}{len(found['pypdf']):>7}  {found['app'][:4]}"
        )
    print(
        f"\nall {len(texts)} files, {totals['words']} words: glued app {totals['app']}, "
        f"pdfminer.six {totals['pdfminer']}, pypdf {totals['pypdf']}"
    )
    generated()
    return 0


def glued_pairs(text: str, copies: int) -> tuple[int, int]:
    """(pairs of GLUE_TEXT found apart, pairs found glued) in one reading."""
    from devtools.shapes import glue_pairs

    flat = " ".join(text.split())
    apart = glued_n = 0
    for pair in glue_pairs():
        first, second = pair.split(" ")
        apart += min(copies, len(re.findall(rf"\b{first}[\s,.:]+{second}\b", flat)))
        glued_n += len(re.findall(rf"\b{first}{second}\b", flat))
    return apart, glued_n


def generated() -> None:
    """Word pairs kept apart on the generated text-layer shapes (tests/devtools/shapes.py:
    WeasyPrint, Chromium, LibreOffice and pdfLaTeX where installed, many fonts,
    justified, letter- and word-spaced), truth known by construction."""
    sys.path.insert(0, str(ROOT / "tests"))
    from devtools.shapes import glue_pairs, glue_producer_available, glue_shapes, render_glue

    from resume_auditor.documents.load import load_bytes

    print("\ngenerated text-layer shapes: word pairs apart / glued, app and pdfminer.six")
    from pdfminer.high_level import extract_text

    for producer in ("weasyprint", "chromium", "libreoffice", "pdflatex"):
        if not glue_producer_available(producer):
            print(f"  {producer:<12} not installed: not measured")
            continue
        want = apart = glued_n = miner_glued = 0
        worst: list[str] = []
        shapes = glue_shapes((producer,))
        for shape in shapes:
            name, data, copies = render_glue(shape)
            a, g = glued_pairs(load_bytes(data, name).text, copies)
            _, mg = glued_pairs(extract_text(io.BytesIO(data)), copies)
            want += copies * len(glue_pairs())
            apart, glued_n, miner_glued = apart + a, glued_n + g, miner_glued + mg
            if g:
                worst.append(f"{shape.font} {g}")
        print(
            f"  {producer:<12}{len(shapes):>3} fonts: apart {apart}/{want}, glued {glued_n}"
            f" (pdfminer.six glued {miner_glued}) {worst[:4]}"
        )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
