"""Load a resume or job description from PDF, DOCX, text or the clipboard into clean text.

The file's first bytes decide how it is read, not its name: a PDF saved as
".txt" is still a PDF, and an image renamed ".pdf" gets a message about images.
Every failure is a DocumentError with a plain message; nothing is half-loaded.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from resume_auditor.documents.cleanup import clean_text
from resume_auditor.documents.errors import DocProblem, DocumentError
from resume_auditor.documents.findings import Finding
from resume_auditor.documents.textfile import decode_text, looks_binary

logger = logging.getLogger(__name__)

__all__ = [
    "MAX_BYTES",
    "MAX_PAGES",
    "LoadedDocument",
    "clean_text",
    "load_bytes",
    "load_file",
    "load_pasted",
]

MAX_BYTES = 20 * 1024 * 1024
MAX_PAGES = 50
TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".text"}
SUPPORTED = "PDF, DOCX, TXT or MD"
_IMAGES = (
    (b"\x89PNG", "PNG"),
    (b"\xff\xd8\xff", "JPEG"),
    (b"GIF8", "GIF"),
    (b"II*\x00", "TIFF"),
    (b"MM\x00*", "TIFF"),
    (b"BM", "BMP"),
)


@dataclass
class LoadedDocument:
    filename: str
    text: str
    pages: int
    data: bytes
    kind: str  # "pdf" | "docx" | "text" | "pasted"
    warnings: list[str] = field(default_factory=list)
    # Where each page starts in `text` (PDF; one entry for other kinds).
    page_starts: list[int] = field(default_factory=lambda: [0])
    # Hidden text found while reading (white, tiny, off-page, invisible).
    findings: list[Finding] = field(default_factory=list)
    encoding: str | None = None  # text files: the encoding they were read with
    columns: list[int] = field(default_factory=list)  # PDF pages read as two columns

    @property
    def characters(self) -> int:
        return len(self.text)

    def page_of(self, offset: int) -> int:
        """The 1-based page a character offset of `text` falls on."""
        page = 1
        for number, start in enumerate(self.page_starts, start=1):
            if start <= offset:
                page = number
        return page


def _too_large(filename: str, size: int, max_bytes: int) -> DocumentError:
    return DocumentError(
        DocProblem.TOO_LARGE,
        f"{filename} is {size / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB. "
        "A resume is rarely over 2 MB: check that this is the right file, or raise the "
        "size limit (command line: --max-mb).",
    )


def load_pdf(
    data: bytes, filename: str, *, password: str | None = None, max_pages: int = MAX_PAGES
) -> LoadedDocument:
    from resume_auditor.documents.pdf import read_pdf

    pdf = read_pdf(data, filename, password=password, max_pages=max_pages)
    return LoadedDocument(
        filename=filename,
        text=pdf.text,
        pages=pdf.pages,
        data=data,
        kind="pdf",
        warnings=pdf.warnings,
        page_starts=pdf.page_starts,
        findings=pdf.findings,
        columns=pdf.columns,
    )


def _load_docx(data: bytes, filename: str, max_pages: int) -> LoadedDocument:
    from resume_auditor.documents.wordfile import read_docx

    word = read_docx(data, filename, max_pages=max_pages)
    if not word.text.strip():
        raise DocumentError(DocProblem.EMPTY, f"{filename} has no text.")
    return LoadedDocument(
        filename=filename,
        text=word.text,
        pages=word.pages,
        data=data,
        kind="docx",
        warnings=word.warnings,
        findings=word.findings,
    )


def _load_text(data: bytes, filename: str) -> LoadedDocument:
    if looks_binary(data):
        raise DocumentError(
            DocProblem.UNSUPPORTED,
            f"{filename} is not a text file (it holds binary data). Use {SUPPORTED}.",
        )
    decoded, encoding = decode_text(data)
    text = clean_text(decoded)
    if not text.strip():
        raise DocumentError(DocProblem.EMPTY, f"{filename} has no text.")
    warnings = []
    if encoding not in ("utf-8", "utf-8-sig", "ascii", "utf-16", "utf-32"):
        warnings.append(
            f"{filename} is not UTF-8; it was read as {encoding}. Check that accented "
            "letters and quotes look right."
        )
    if "\ufffd" in text:
        warnings.append(
            f"{filename} contains characters that could not be decoded (shown as \ufffd)."
        )
    return LoadedDocument(
        filename=filename,
        text=text,
        pages=1,
        data=data,
        kind="text",
        warnings=warnings,
        encoding=encoding,
    )


def _is_word(data: bytes) -> bool:
    import io
    import zipfile

    try:
        return "word/document.xml" in zipfile.ZipFile(io.BytesIO(data)).namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


def load_bytes(
    data: bytes,
    filename: str,
    *,
    password: str | None = None,
    max_bytes: int = MAX_BYTES,
    max_pages: int = MAX_PAGES,
) -> LoadedDocument:
    """Read a document from its bytes; `filename` is for messages and the suffix."""
    if len(data) > max_bytes:
        raise _too_large(filename, len(data), max_bytes)
    if not data.strip():
        raise DocumentError(DocProblem.EMPTY, f"{filename} is empty.")
    suffix = Path(filename).suffix.lower()
    head = data.lstrip()[:8]
    image = any(data.startswith(magic) for magic, _ in _IMAGES)
    if head.startswith(b"%PDF") or (suffix == ".pdf" and not data.startswith(b"PK") and not image):
        return load_pdf(data, filename, password=password, max_pages=max_pages)
    from resume_auditor.documents.wordfile import OLE_MAGIC, ole_problem

    if suffix == ".docx" or (data.startswith(b"PK\x03\x04") and _is_word(data)):
        return _load_docx(data, filename, max_pages)
    if data.startswith(OLE_MAGIC):
        raise ole_problem(data, filename)
    for magic, name in _IMAGES:
        if data.startswith(magic):
            raise DocumentError(
                DocProblem.NO_TEXT,
                f"{filename} is a {name} image, not a document with text. If it is a scanned "
                "resume, run it through OCR (for example ocrmypdf) or paste the text instead.",
            )
    if head.startswith(b"{\\rtf"):
        raise DocumentError(
            DocProblem.UNSUPPORTED,
            f"{filename} is an RTF file, which we do not read. Save it as {SUPPORTED}.",
        )
    if suffix in TEXT_SUFFIXES or suffix == "":
        return _load_text(data, filename)
    raise DocumentError(
        DocProblem.UNSUPPORTED,
        f"{filename}: files of type '{suffix}' are not supported. Use {SUPPORTED}.",
    )


def load_file(
    path: str | Path,
    *,
    password: str | None = None,
    max_bytes: int = MAX_BYTES,
    max_pages: int = MAX_PAGES,
) -> LoadedDocument:
    """Read a document from disk (see `load_bytes`)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError as exc:
        raise DocumentError(DocProblem.NOT_FOUND, f"There is no file at {path}.") from exc
    except OSError as exc:
        raise DocumentError(DocProblem.NOT_FOUND, f"{path} cannot be read ({exc}).") from exc
    if path.is_dir():
        raise DocumentError(DocProblem.UNSUPPORTED, f"{path} is a folder, not a file.")
    if size > max_bytes:
        raise _too_large(path.name, size, max_bytes)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentError(DocProblem.NOT_FOUND, f"{path} cannot be read ({exc}).") from exc
    return load_bytes(data, path.name, password=password, max_bytes=max_bytes, max_pages=max_pages)


def load_pasted(text: str, name: str = "pasted text") -> LoadedDocument:
    """Text pasted by the user, cleaned like any other document."""
    clean = clean_text(text)
    if not clean.strip():
        raise DocumentError(DocProblem.EMPTY, f"The {name} is empty.")
    return LoadedDocument(
        filename=name, text=clean, pages=1, data=text.encode("utf-8"), kind="pasted"
    )
