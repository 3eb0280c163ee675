"""Load a resume or job description from PDF or text into clean text.

Every failure is a DocumentError with a plain message; nothing is half-loaded.
"""

from __future__ import annotations

import io
import logging
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from resume_auditor.documents.errors import DocProblem, DocumentError

logger = logging.getLogger(__name__)

MAX_BYTES = 20 * 1024 * 1024
MAX_PAGES = 50
TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".text"}
# Fewer non-space characters than this per page means there is no real text layer.
MIN_CHARS_PER_PAGE = 40


@dataclass
class LoadedDocument:
    filename: str
    text: str
    pages: int
    data: bytes
    kind: str  # "pdf" | "text"
    warnings: list[str] = field(default_factory=list)

    @property
    def characters(self) -> int:
        return len(self.text)


_LIGATURES = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
}
_BULLETS = "\u2022\u25cf\u25aa\u25a0\u25e6\u2023\u2043\u2219\u00b7\uf0b7\uf0a7\u27a2\u2013"


def clean_text(text: str) -> str:
    """Normalise extracted text: ligatures, bullets, stray spaces, blank runs."""
    for lig, plain in _LIGATURES.items():
        text = text.replace(lig, plain)
    text = unicodedata.normalize("NFC", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ")
    lines = []
    for raw in text.split("\n"):
        line = raw.rstrip()
        stripped = line.lstrip()
        if stripped[:1] and stripped[0] in _BULLETS and stripped[1:2] in (" ", "\t"):
            line = "- " + stripped[1:].lstrip()
        line = re.sub(r"[ \t]{2,}", " ", line)
        lines.append(line.strip() if not line.startswith("- ") else line)
    out = "\n".join(lines)
    out = re.sub(r"\n{3,}", "\n\n", out)
    return out.strip() + "\n" if out.strip() else ""


def _decode_text(data: bytes) -> str:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    # Legacy files: cp1252 covers Windows "smart quotes"; latin-1 never fails.
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def load_pdf(
    data: bytes, filename: str, *, password: str | None = None, max_pages: int = MAX_PAGES
) -> LoadedDocument:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError, PdfStreamError

    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise DocumentError(
            DocProblem.CORRUPT,
            f"{filename} does not look like a PDF (it does not start with %PDF). "
            "Re-export it as PDF, or save it as plain text.",
        )
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            if not password:
                # Many PDFs are "encrypted" with an empty user password: try it.
                try:
                    ok = reader.decrypt("")
                except (NotImplementedError, PdfReadError) as exc:
                    raise DocumentError(
                        DocProblem.ENCRYPTED,
                        f"{filename} is encrypted in a way we cannot open ({exc}).",
                    ) from exc
                if not ok:
                    raise DocumentError(
                        DocProblem.ENCRYPTED,
                        f"{filename} is protected by a password. Enter the password, "
                        "or save an unprotected copy and load that.",
                    )
            elif not reader.decrypt(password):
                raise DocumentError(
                    DocProblem.WRONG_PASSWORD,
                    f"The password for {filename} is not right. Try again.",
                )
        pages = len(reader.pages)
        if pages == 0:
            raise DocumentError(DocProblem.EMPTY, f"{filename} has no pages.")
        if pages > max_pages:
            raise DocumentError(
                DocProblem.TOO_MANY_PAGES,
                f"{filename} has {pages} pages; a resume should have far fewer "
                f"(the limit is {max_pages}). Check that this is the right file.",
            )
        texts = [page.extract_text() or "" for page in reader.pages]
    except DocumentError:
        raise
    except FileNotDecryptedError as exc:
        raise DocumentError(
            DocProblem.ENCRYPTED, f"{filename} is protected by a password ({exc})."
        ) from exc
    except (PdfReadError, PdfStreamError, ValueError, KeyError, TypeError, OSError) as exc:
        raise DocumentError(
            DocProblem.CORRUPT,
            f"{filename} is damaged or incomplete and cannot be read ({type(exc).__name__}). "
            "Open it in a PDF viewer and save or print it to a new PDF.",
        ) from exc
    raw = "\n\n".join(texts)
    text = clean_text(raw)
    if len("".join(text.split())) < MIN_CHARS_PER_PAGE * max(1, min(pages, 2)) // 2:
        raise DocumentError(
            DocProblem.NO_TEXT,
            f"{filename} has no text layer: it looks like a scanned image. "
            "Run it through OCR (for example ocrmypdf, or your scanner's 'searchable PDF' "
            "option) or paste the text instead.",
        )
    return LoadedDocument(filename=filename, text=text, pages=pages, data=data, kind="pdf")


def load_bytes(
    data: bytes,
    filename: str,
    *,
    password: str | None = None,
    max_bytes: int = MAX_BYTES,
    max_pages: int = MAX_PAGES,
) -> LoadedDocument:
    if len(data) > max_bytes:
        raise DocumentError(
            DocProblem.TOO_LARGE,
            f"{filename} is {len(data) / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB. "
            "A resume is rarely over 2 MB: check that this is the right file.",
        )
    if not data.strip():
        raise DocumentError(DocProblem.EMPTY, f"{filename} is empty.")
    suffix = Path(filename).suffix.lower()
    if suffix == ".pdf" or data.lstrip()[:5].startswith(b"%PDF"):
        return load_pdf(data, filename, password=password, max_pages=max_pages)
    if suffix in TEXT_SUFFIXES or suffix == "":
        text = clean_text(_decode_text(data))
        if not text.strip():
            raise DocumentError(DocProblem.EMPTY, f"{filename} has no text.")
        return LoadedDocument(filename=filename, text=text, pages=1, data=data, kind="text")
    raise DocumentError(
        DocProblem.UNSUPPORTED,
        f"{filename}: files of type '{suffix}' are not supported yet. Use PDF, TXT or MD.",
    )


def load_file(path: str | Path, *, password: str | None = None) -> LoadedDocument:
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError as exc:
        raise DocumentError(DocProblem.NOT_FOUND, f"There is no file at {path}.") from exc
    if size > MAX_BYTES:
        raise DocumentError(
            DocProblem.TOO_LARGE,
            f"{path.name} is {size / 1e6:.1f} MB; the limit is {MAX_BYTES / 1e6:.0f} MB.",
        )
    return load_bytes(path.read_bytes(), path.name, password=password)
