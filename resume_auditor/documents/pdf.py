"""Read a PDF into clean text, with pages, a reading order and hidden-text findings.

Every problem a person can act on becomes a DocumentError with a plain message:
not a PDF, damaged or cut short, protected by a password (and a wrong one), too
many pages, no text layer. Nothing is half-read: a file that ends before its
end-of-file marker is refused rather than read as far as it goes.
"""

from __future__ import annotations

import bisect
import io
import logging
import warnings
from dataclasses import dataclass, field

from resume_auditor.documents.cleanup import clean_with_origin
from resume_auditor.documents.errors import DocProblem, DocumentError
from resume_auditor.documents.findings import Finding, FindingKind, merge_adjacent
from resume_auditor.documents.layout import Placed, compare_readings, page_text
from resume_auditor.documents.pdfruns import MIN_VISIBLE_PT, PageRuns, collect_page

logger = logging.getLogger(__name__)

# Fewer non-space characters than this on a page means it has no real text layer.
MIN_CHARS_PER_PAGE = 40
_TAIL = 2048  # where the %%EOF marker must be

_HIDDEN_MESSAGES = {
    FindingKind.WHITE_TEXT: "White text on page {page}: a reader cannot see it, a model reads it.",
    FindingKind.TINY_TEXT: (
        f"Text on page {{page}} is too small to read (under {MIN_VISIBLE_PT:g} pt); "
        "a model reads it."
    ),
    FindingKind.OFF_PAGE_TEXT: "Text placed outside page {page}: a reader cannot see it, "
    "a model reads it.",
    FindingKind.INVISIBLE_TEXT: "Invisible text on page {page} (not drawn, and no scanned image "
    "under it): a model reads it.",
}


@dataclass
class PdfText:
    text: str
    pages: int
    page_starts: list[int]
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    columns: list[int] = field(default_factory=list)  # pages read as two columns


def _corrupt(filename: str, detail: str) -> DocumentError:
    return DocumentError(
        DocProblem.CORRUPT,
        f"{filename} is damaged or incomplete and cannot be read ({detail}). "
        "Open it in a PDF viewer and save or print it to a new PDF, or download it again.",
    )


def _open(data: bytes, filename: str, password: str | None) -> object:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data), strict=False)
    if reader.is_encrypted:
        if not password:
            # Many PDFs are "encrypted" with an empty user password: try it.
            try:
                ok = reader.decrypt("")
            except NotImplementedError as exc:
                raise DocumentError(
                    DocProblem.ENCRYPTED,
                    f"{filename} is encrypted in a way we cannot open ({exc}). "
                    "Save an unprotected copy and load that.",
                ) from exc
            if not ok:
                raise DocumentError(
                    DocProblem.ENCRYPTED,
                    f"{filename} is protected by a password. Enter the password "
                    "(command line: --password), or save an unprotected copy and load that.",
                )
        elif not reader.decrypt(password):
            raise DocumentError(
                DocProblem.WRONG_PASSWORD,
                f"The password for {filename} is not right. Try again.",
            )
    return reader


def read_pdf(data: bytes, filename: str, *, password: str | None = None, max_pages: int) -> PdfText:
    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise DocumentError(
            DocProblem.CORRUPT,
            f"{filename} does not look like a PDF (it does not start with %PDF). "
            "Re-export it as PDF, or save it as plain text.",
        )
    if b"%%EOF" not in data[-_TAIL:]:
        raise _corrupt(filename, "the file stops before its end: it was cut short")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            reader = _open(data, filename, password)
            pages = len(reader.pages)  # type: ignore[attr-defined]
            if pages == 0:
                raise DocumentError(DocProblem.EMPTY, f"{filename} has no pages.")
            if pages > max_pages:
                raise DocumentError(
                    DocProblem.TOO_MANY_PAGES,
                    f"{filename} has {pages} pages; a resume should have far fewer "
                    f"(the limit is {max_pages}). Check that this is the right file, "
                    "or raise the page limit (command line: --max-pages).",
                )
            fonts: dict[object, object] = {}
            collected = [
                collect_page(page, number, fonts)  # type: ignore[arg-type]
                for number, page in enumerate(reader.pages, start=1)  # type: ignore[attr-defined]
            ]
        except DocumentError:
            raise
        except MemoryError:
            raise
        except Exception as exc:
            # pypdf's failures on malformed files are not a closed set of types
            # (PdfReadError, KeyError, struct.error, zlib.error, ...): all of them
            # mean the same thing to the person who chose the file.
            logger.debug("pypdf could not read %s", filename, exc_info=True)
            if type(exc).__name__ == "FileNotDecryptedError":
                raise DocumentError(
                    DocProblem.ENCRYPTED, f"{filename} is protected by a password ({exc})."
                ) from exc
            raise _corrupt(filename, type(exc).__name__) from exc
    for warning in caught:
        logger.debug("pypdf: %s", warning.message)

    raw_parts: list[str] = []
    page_raw_starts: list[int] = []
    placed_all: list[tuple[int, Placed]] = []
    columns: list[int] = []
    empty_pages: list[int] = []
    unsure: list[tuple[int, str, float]] = []  # (page, message, confidence)
    pos = 0
    for number, (plain, runs, decoded) in enumerate(collected, start=1):
        if number > 1:
            raw_parts.append("\n\n")
            pos += 2
        text, placed, two_columns, note = _page_reading(plain, runs, decoded)
        if note is not None:
            unsure.append((number, *note))
        if two_columns:
            columns.append(number)
        if len("".join(text.split())) < MIN_CHARS_PER_PAGE // 4:
            empty_pages.append(number)
        page_raw_starts.append(pos)
        placed_all.extend((number, Placed(p.start + pos, p.end + pos, p.run)) for p in placed)
        raw_parts.append(text)
        pos += len(text)
    raw = "".join(raw_parts)
    cleaned = clean_with_origin(raw, drawn_hyphens=True)
    text = cleaned.text
    if len("".join(text.split())) < MIN_CHARS_PER_PAGE * max(1, min(pages, 2)) // 2:
        raise DocumentError(
            DocProblem.NO_TEXT,
            f"{filename} has no text layer: it looks like a scanned image. "
            "Run it through OCR (for example ocrmypdf, or your scanner's 'searchable PDF' "
            "option) or paste the text instead.",
        )
    out = PdfText(
        text=text,
        pages=pages,
        page_starts=[bisect.bisect_left(cleaned.origin, s, 0, len(text)) for s in page_raw_starts],
        columns=columns,
    )
    if empty_pages:
        listed = ", ".join(str(n) for n in empty_pages[:10])
        more = "" if len(empty_pages) <= 10 else f" and {len(empty_pages) - 10} more"
        out.warnings.append(
            f"Page(s) {listed}{more} of {filename} have no text (scanned images?): what they "
            "show is missing from the text. Run the file through OCR if it matters."
        )
    findings = []
    for number, p in placed_all:
        kind = p.run.hidden
        if kind is None:
            continue
        span = cleaned.span(p.start, p.end)
        if span is None:
            continue
        findings.append(
            Finding(
                span[0],
                span[1],
                kind,
                _HIDDEN_MESSAGES[kind].format(page=number),
                p.run.hidden_confidence,
                number,
            )
        )
    for number, message, confidence in unsure:
        span = cleaned.span(page_raw_starts[number - 1], _raw_end(page_raw_starts, number, raw))
        if span is None:
            continue
        # the page's first line marks it: the message says which page to compare
        line_end = text.find("\n", span[0], span[1])
        end = span[1] if line_end < 0 else line_end
        findings.append(Finding(span[0], end, FindingKind.UNSURE_TEXT, message, confidence, number))
    out.findings = merge_adjacent(findings, text)
    return out


def _raw_end(starts: list[int], number: int, raw: str) -> int:
    return starts[number] - 2 if number < len(starts) else len(raw)


def _page_reading(
    plain: str, runs: PageRuns, decoded: bool
) -> tuple[str, list[Placed], bool, tuple[str, float] | None]:
    """The text of one page, where its runs went, whether it has two columns, and a
    note (message, confidence) when the user should check the text against the PDF.

    The layout's reading is kept when pypdf's plain reading confirms its words;
    otherwise the better of the two is kept and the page is flagged.
    """
    text, placed, two_columns = page_text(runs)
    if not decoded or not text.strip():
        # Rotated text, or strings this reader could not decode: pypdf's content
        # order is all there is. Say so only if something was lost on the way.
        note = None
        if not decoded and plain.strip():
            note = (
                f"Page {runs.number} is kept as pypdf reads it (in drawing order): part "
                "of it could not be laid out. Check its reading order against the PDF.",
                0.5,
            )
        plain = _without_icons(plain, runs.icons)
        return plain, _place_in(plain, runs), False, note
    verdict = compare_readings(text, plain, runs.icons)
    if verdict.sure:
        return text, placed, two_columns, None
    confidence = round(1.0 - verdict.agreement, 3) or 0.5
    if verdict.keep_layout:
        logger.info(
            "page %d: layout kept; %.0f%% of pypdf's words agree",
            runs.number,
            100 * verdict.agreement,
        )
        message = (
            f"Words on page {runs.number} are cut differently by two readings of the PDF "
            f"(only {verdict.agreement:.0%} agree); the one that looks right was kept. "
            "Check the text against the PDF before any run."
        )
        return text, placed, two_columns, (message, max(confidence, 0.05))
    logger.info(
        "page %d: kept as pypdf reads it; layout lost %.1f%% of letters, %.0f%% words agree",
        runs.number,
        100 * verdict.lost_chars,
        100 * verdict.agreement,
    )
    message = (
        f"The layout of page {runs.number} could not be read with certainty, so its text is "
        "kept as pypdf reads it (in drawing order: columns may be mixed). Check it "
        "against the PDF before any run."
    )
    plain = _without_icons(plain, runs.icons)
    return plain, _place_in(plain, runs), False, (message, max(confidence, 0.05))


def _without_icons(plain: str, icons: list[str]) -> str:
    """pypdf's text less what it decoded from icon fonts ("phone-alt", a stray letter)."""
    cursor = 0
    for icon in icons:
        needle = icon.strip()
        if not needle:
            continue
        at = plain.find(needle, cursor)
        if at < 0:
            continue
        end = at + len(needle)
        alone = (at == 0 or not plain[at - 1].isalnum()) and (
            end == len(plain) or not plain[end].isalnum()
        )
        if len(needle) > 1 or not needle.isalnum() or alone:
            plain = plain[:at] + " " + plain[end:]
            cursor = at + 1
    return plain


def _place_in(plain: str, runs: PageRuns) -> list[Placed]:
    """Where the hidden runs stand in pypdf's own text, found in drawing order."""
    placed: list[Placed] = []
    cursor = 0
    for run in runs.runs:
        if run.hidden is None:
            continue
        needle = run.text.strip()
        at = plain.find(needle, cursor) if needle else -1
        if at < 0:
            continue
        placed.append(Placed(at, at + len(needle), run))
        cursor = at + len(needle)
    return placed
