"""How much of a resume's text reaches the app intact, file by file.

Run: .venv/bin/python benchmarks/extract_text.py [FOLDER]   (default ../shared/data/resumes-dev)

For every PDF in FOLDER it prints one row and, last, the minimum over files:

* **intact**: the share of pypdf's words that reach the app's text intact. pypdf's
  plain ``page.extract_text()`` is the reference because it is independent of our
  layout code and, on the files where our layout failed, read them cleanly. Both
  texts are normalised the same way (ftfy, NFKC, soft hyphens and zero-width
  characters dropped) and cut at whitespace; punctuation at a token's edges is
  dropped (bullets, commas, the app's "- " list marks). The comparison is a
  multiset: a word the app lost, glued to its neighbour ("EngineerMay") or broke
  ("yea rs") is not found, wherever the app put it, so column order does not count
  here (it is checked below). Three things are not counted against the app:

  - pypdf's *icon junk*: text drawn in an icon font (FontAwesome & co., found by
    font name in the reference extraction itself), and tokens holding private-use,
    unassigned or pictograph characters ("♂phone", "/gl⌢be"). They are not words.
  - *faux bold*: text drawn twice a hair apart to look bold comes out of pypdf
    twice in a row ("Markdown Markdown"); a token repeated back to back counts once.
  - *words pypdf broke or glued that the app reads right*. pypdf tokens that are
    pieces of one word (all but one of them one or two characters long, or a word
    hyphenated at a line end and its rest) and, concatenated in order, make one app
    token count as intact ("JA R E D" -> "JARED", "sub-" "missions" ->
    "submissions"); whole words run together by the app ("Engineer" "with" ->
    "Engineerwith") are not. A pypdf token that is the
    concatenation of consecutive app tokens (letters and digits compared, so
    "Pohang,S.Korea" -> "Pohang, S.Korea") counts as intact only if no piece is a
    stray letter (other than "a", "I" or a digit) and at least three pieces in four
    are real words: a number, or two or more letters found among the words of the
    *other* files in the folder (as pypdf or the app reads them) or in the system's
    English word list (/usr/share/dict/words, Debian's wamerican, if installed), or a capitalised
    name ("Pohang"). So "DevOpsEngineer" -> "DevOps
    Engineer" is credited, and a wrong split such as "Y our" is not. These two
    cases are shown in their own columns (joined, split) so nothing is hidden.

* **mojibake**: sequences of UTF-8 read as cp1252 left in the app's text ("â€",
  "Ã©", "ï¼", "Â ") and U+FFFD replacement characters.
* **icons**: private-use characters and pictographs (Unicode category So, minus
  ordinary typographic signs) left in the app's text.
* **columns**: whether the app read a two-column page where the truth file says the
  layout has two columns (``columns`` in NAME.truth.json), and none where it says one.
* **name at**: the line (1-based) where the truth file's name first appears, in the
  app's text and in pypdf's ("3/31": line 3 in the app, line 31 in pypdf). A header
  read first puts it near the top; wkhtmltopdf draws headers last and sidebars first.
* **lines**: the app's non-empty lines over pypdf's. The word measure above is
  blind to line breaks; a reading that breaks lines apart (a word per line) shows
  here as a ratio far above 1. Below 1 is normal: pypdf breaks lines where a
  layout is drawn in pieces (wkhtmltopdf, Quartz).
* **fallback**: pages where the app kept pypdf's text because its own layout lost
  words; **flagged**: pages the user is asked to check against the PDF (fallback
  pages, and pages where the two readings cut words differently).

The figures depend only on the files; the machine's load affects nothing but time.
"""

from __future__ import annotations

import json
import os
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_INVISIBLE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")
MOJIBAKE = re.compile(
    "[\u00c2\u00c3\u00c5\u00e2\u00ef][\u0080-\u00bf\u2018-\u203a\u20ac\u0152\u0153"
    "\u0160\u0161\u017d\u017e\u0178\u02c6\u02dc\u2122\u00a0]|\ufffd"
)
_TYPOGRAPHIC = set("©®™°•●■□◆◇★☆✓✔➢►▶▪◦→←↑↓♦〒")


def _shared() -> Path:
    env = os.environ.get("RESUME_AUDITOR_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


def normalise(text: str) -> str:
    import ftfy

    text = ftfy.fix_text(text)
    text = unicodedata.normalize("NFKC", text)
    return _INVISIBLE.sub("", text)


def is_junk(token: str) -> bool:
    """A token holding private-use, unassigned or pictograph characters is not a word."""
    for ch in token:
        cat = unicodedata.category(ch)
        if cat in ("Co", "Cn", "Cs", "So") or ch in "\ufffd¶":
            return True
    return False


def tokens(text: str) -> list[str]:
    out = []
    for raw in normalise(text).split():
        token = _EDGE.sub("", raw)
        if token and raw.endswith("-") and token[-1].isalpha():
            token += "-"  # hyphenated at a line end: the rest of the word follows
        if token:
            out.append(token)
    return out


def _broken(pieces: list[str]) -> bool:
    """Pieces of one word ("JA R E D", "sub-" "missions"), not whole words run together."""
    if len(pieces) == 2 and pieces[0].endswith("-"):
        return True
    return sum(1 for p in pieces if len(p) > 2) <= 1


def name_line(text: str, name: object) -> str:
    """1-based line of the first line holding `name` (any case, any spacing), or "-"."""
    if not isinstance(name, str) or not name.strip():
        return "-"
    want = "".join(name.split()).casefold()
    lines = [line for line in text.splitlines() if line.strip()]
    for number, line in enumerate(lines, start=1):
        if want in "".join(line.split()).casefold():
            return str(number)
    return "?"


def line_count(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def icon_count(text: str) -> int:
    return sum(
        1 for ch in text if unicodedata.category(ch) in ("Co", "So") and ch not in _TYPOGRAPHIC
    )


def reference_text(path: Path) -> str:
    """pypdf's plain text, with the text drawn in icon fonts blanked out."""
    from pypdf import PdfReader

    try:
        from resume_auditor.documents.pdfruns import is_icon_font
    except ImportError:  # an older app, measured for comparison: no icon fonts known

        def is_icon_font(name: str) -> bool:
            return False

    reader = PdfReader(str(path))
    pages = []
    for page in reader.pages:
        icons: list[str] = []

        def visit(
            text: str, cm: object, tm: object, font: object, size: object, icons: list[str] = icons
        ) -> None:
            name = str(font.get("/BaseFont", "")) if hasattr(font, "get") else ""
            if text.strip() and is_icon_font(name):
                icons.append(text.strip())

        text = page.extract_text(visitor_text=visit) or ""
        # blank each icon where it stands as a word of its own, in drawing order
        lines = [line.split() for line in text.splitlines()]
        where = [(i, k) for i, line in enumerate(lines) for k in range(len(line))]
        cursor = 0
        for icon in icons:
            for n in range(cursor, len(where)):
                i, k = where[n]
                word = lines[i][k]
                glued = len(icon) >= 3 and (word.startswith(icon) or word.endswith(icon))
                if word == icon or glued:
                    # an icon glued to its value ("/github yourname" read as one word)
                    lines[i][k] = word.replace(icon, " ", 1)
                    cursor = n + 1
                    break
        pages.append("\n".join(" ".join(line) for line in lines))
    return "\n\n".join(pages)


def _dedupe(words: list[str]) -> list[str]:
    return [w for i, w in enumerate(words) if i == 0 or w != words[i - 1]]


def compare(ref: list[str], app: list[str], vocabulary: set[str]) -> dict[str, object]:
    """Match pypdf's tokens against the app's; see the module docstring."""
    ref = _dedupe([t for t in ref if not is_junk(t)])
    pool = Counter(app)
    matched = [False] * len(ref)
    for i, token in enumerate(ref):
        if pool[token] > 0:
            pool[token] -= 1
            matched[i] = True
    # pypdf broke one word into pieces the app keeps whole
    joined = 0
    i = 0
    while i < len(ref):
        if matched[i]:
            i += 1
            continue
        for width in range(12, 1, -1):
            window = ref[i : i + width]
            if len(window) < width or any(matched[i : i + width]) or not _broken(window):
                continue
            whole = "".join(w[:-1] if w.endswith("-") else w for w in window)
            candidates = [whole, "".join(window)]
            hit = next((c for c in candidates if pool[c] > 0), None)
            if hit is not None:
                pool[hit] -= 1
                for k in range(i, i + width):
                    matched[k] = True
                joined += width
                break
        i += 1
    # pypdf glued words the app reads apart
    split = 0
    leftovers = [t for t, n in pool.items() for _ in range(n)]
    app_index: dict[str, list[int]] = {}
    for index, token in enumerate(app):
        app_index.setdefault(token, []).append(index)
    del leftovers
    for i, token in enumerate(ref):
        if matched[i] or len(token) < 4:
            continue
        if _split_into_words(token, app, app_index, vocabulary):
            matched[i] = True
            split += 1
    missing = [t for t, ok in zip(ref, matched, strict=True) if not ok]
    return {
        "words": len(ref),
        "intact": (len(ref) - len(missing)) / len(ref) if ref else 1.0,
        "joined": joined,
        "split": split,
        "missing": missing,
    }


def _alnum(text: str) -> str:
    return "".join(c for c in text if c.isalnum())


def _is_word(piece: str, vocabulary: set[str]) -> bool:
    """A number, a word the other files use, or a capitalised name ("Pohang")."""
    letters = _alnum(piece)
    if letters.isdigit():
        return True
    if len(letters) < 2:
        return False
    return piece.lower() in vocabulary or (letters[0].isupper() and letters[1:].islower())


def _plausible(pieces: list[str], vocabulary: set[str]) -> bool:
    """No stray letter among the pieces, and three in four of them real words.

    A lone capital before a capitalised word is an initial ("Claud D. Park"); a lone
    letter before a lower-case piece is a word broken in two ("Y our").
    """
    for k, piece in enumerate(pieces):
        letters = _alnum(piece)
        if len(letters) >= 2 or letters.isdigit() or letters in ("a", "A", "I"):
            continue
        following = _alnum(pieces[k + 1]) if k + 1 < len(pieces) else ""
        if not (letters.isupper() and following[:1].isupper()):
            return False
    known = sum(1 for p in pieces if _is_word(p, vocabulary) or len(_alnum(p)) < 2)
    return known >= 0.75 * len(pieces)


def _split_into_words(
    token: str, app: list[str], app_index: dict[str, list[int]], vocabulary: set[str]
) -> bool:
    target = _alnum(token)
    for start_token, positions in app_index.items():
        head = _alnum(start_token)
        if not head or not target.startswith(head) or head == target:
            continue
        for pos in positions:
            built = ""
            pieces = []
            k = pos
            while k < len(app) and len(built) < len(target):
                built += _alnum(app[k])
                pieces.append(app[k])
                k += 1
            if built == target and len(pieces) > 1 and _plausible(pieces, vocabulary):
                return True
    return False


def system_dictionary() -> set[str]:
    """An English word list independent of the corpus (Debian's wamerican), if installed.

    It only widens what counts as "a real word" when crediting a pypdf token that the
    app split into pieces; without it the measure is stricter, never looser.
    """
    for path in (Path("/usr/share/dict/words"), Path("/usr/dict/words")):
        if path.exists():
            words = path.read_text(encoding="utf-8", errors="replace").split()
            return {w.lower() for w in words if len(w) >= 2 and "'" not in w}
    return set()


def main(argv: list[str]) -> int:
    from resume_auditor.documents.errors import DocumentError
    from resume_auditor.documents.load import load_file

    folder = Path(argv[1]) if len(argv) > 1 else _shared() / "data" / "resumes-dev"
    files = sorted(folder.glob("*.pdf"))
    if not files:
        print(f"no PDFs in {folder}")
        return 1
    plain_texts = {f: reference_text(f) for f in files}
    references = {f: tokens(t) for f, t in plain_texts.items()}
    docs: dict[Path, object] = {}
    for path in files:
        try:
            docs[path] = load_file(path)
        except DocumentError as exc:
            docs[path] = exc
    app_tokens = {f: tokens(d.text) for f, d in docs.items() if not isinstance(d, DocumentError)}
    dictionary = system_dictionary()
    rows = []
    for path in files:
        # the words of the *other* files, as pypdf and the app read them
        vocabulary = {
            t.lower()
            for source in (references, app_tokens)
            for other, ts in source.items()
            if other != path
            for t in ts
        } | dictionary
        truth_path = path.with_suffix(".truth.json")
        truth = json.loads(truth_path.read_text()) if truth_path.exists() else {}
        doc = docs[path]
        if isinstance(doc, DocumentError):
            rows.append((path.stem, None, str(doc.problem)))
            continue
        result = compare(references[path], app_tokens[path], vocabulary)
        want_columns = truth.get("columns")
        got_columns = 2 if doc.columns else 1
        columns_ok = (
            "-" if want_columns is None else ("ok" if want_columns == got_columns else "WRONG")
        )
        fallback = [f for f in doc.findings if "kept as pypdf reads it" in f.message]
        rows.append(
            (
                path.stem,
                {
                    **result,
                    "mojibake": len(MOJIBAKE.findall(doc.text)),
                    "icons": icon_count(doc.text),
                    "columns": f"{want_columns}/{got_columns} {columns_ok}",
                    "lines": line_count(doc.text) / max(1, line_count(plain_texts[path])),
                    "name": f"{name_line(doc.text, truth.get('name'))}/"
                    f"{name_line(plain_texts[path], truth.get('name'))}",
                    "fallback": len(fallback),
                    "flagged": sum(1 for f in doc.findings if f.kind.value == "unsure_text"),
                },
                "",
            )
        )
    header = (
        f"{'file':44} {'words':>5} {'intact':>7} {'joined':>6} {'split':>5} "
        f"{'mojibake':>8} {'icons':>5} {'columns':>10} {'name at':>7} {'lines':>5} {'fallback':>8} "
        f"{'flagged':>7}  missing (first 6)"
    )
    print(header)
    print("-" * len(header))
    scores = []
    for name, row, note in rows:
        if row is None:
            print(f"{name:44} not read: {note}")
            continue
        scores.append((row["intact"], name))
        missing = " ".join(row["missing"][:6])  # type: ignore[index]
        print(
            f"{name:44} {row['words']:>5} {row['intact']:>7.2%} {row['joined']:>6} "
            f"{row['split']:>5} {row['mojibake']:>8} {row['icons']:>5} {row['columns']:>10} "
            f"{row['name']:>7} {row['lines']:>5.2f} "
            f"{row['fallback']:>8} {row['flagged']:>7}  {missing}"
        )
    worst = min(scores) if scores else (1.0, "-")
    print("-" * len(header))
    print(f"minimum intact share: {worst[0]:.2%} ({worst[1]}) over {len(scores)} files")
    by_producer(rows)
    return 0


def by_producer(rows: list[tuple[str, Any, str]]) -> None:
    """Words intact per producer alone and with it held out (the layout code's
    thresholds were set on all of them: a producer far below the rest is one they do
    not fit)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from devtools.sources import held_out, producer

    read = {name: row for name, row, _ in rows if row is not None}

    def share(names: list[str]) -> str:
        words = sum(int(read[n]["words"]) for n in names)
        intact = sum(float(read[n]["intact"]) * int(read[n]["words"]) for n in names)
        return f"{intact / words:.2%} of {words}" if words else "-"

    print("words intact by producer (pooled), alone and held out:")
    for source, mine, rest in held_out(read, {n: producer(n + ".pdf") for n in read}):
        print(f"  {source:<14}{len(mine):>3} file(s): {share(mine):>18}   the rest: {share(rest)}")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
