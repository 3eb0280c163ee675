"""Read a Word .docx resume or job description into text, with hidden-text findings.

python-docx gives paragraphs and tables in document order; we add what resume
templates rely on and python-docx leaves out: text boxes (sidebars), headers and
footers (contact details), list paragraphs (written as "- " bullets so the job
parser sees one qualification per bullet). Runs formatted hidden, white or tiny
become findings, exactly as in PDFs.

Password-protected .docx files are OLE containers, not zip files; we say so
rather than guess. Old binary .doc files are not read.
"""

from __future__ import annotations

import io
import logging
import math
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from resume_auditor.documents.cleanup import clean_with_origin
from resume_auditor.documents.errors import DocProblem, DocumentError
from resume_auditor.documents.findings import Finding, FindingKind, merge_adjacent
from resume_auditor.documents.pdfruns import MIN_VISIBLE_PT, WHITE_LEVEL, lightness

logger = logging.getLogger(__name__)

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_STREAM = "EncryptedPackage".encode("utf-16-le")
# Uncompressed size we are willing to parse (a zip bomb stays a zip bomb).
MAX_UNZIPPED = 200 * 1024 * 1024
CHARS_PER_PAGE = 3000  # to estimate pages when the file does not say
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"

_MESSAGES = {
    FindingKind.WHITE_TEXT: "White text: a reader cannot see it, a model reads it.",
    FindingKind.TINY_TEXT: f"Text too small to read (under {MIN_VISIBLE_PT:g} pt); "
    "a model reads it.",
    FindingKind.INVISIBLE_TEXT: "Text formatted as hidden in Word: a reader does not see it, "
    "a model reads it.",
}


@dataclass
class DocxText:
    text: str
    pages: int
    pages_estimated: bool
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def ole_problem(data: bytes, filename: str) -> DocumentError:
    """The error for an OLE file: a password-protected .docx or an old .doc."""
    if _ENCRYPTED_STREAM in data:
        return DocumentError(
            DocProblem.ENCRYPTED,
            f"{filename} is a Word file protected by a password, which we cannot open. "
            "In Word remove the password (File > Info > Protect Document) or save it as PDF.",
        )
    return DocumentError(
        DocProblem.UNSUPPORTED,
        f"{filename} is an old Word .doc file, which we cannot read. "
        "Open it in Word or LibreOffice and save it as .docx or PDF.",
    )


def _hex_lightness(value: str | None) -> float | None:
    if not value or value.lower() == "auto" or len(value) != 6:
        return None
    try:
        rgb = [int(value[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    except ValueError:
        return None
    return lightness(rgb)


def _run_props(r: Any) -> Any:
    return r.find(f"{_W}rPr")


def _style_chain(style: Any) -> Iterator[Any]:
    seen = 0
    while style is not None and seen < 10:
        yield style
        style = style.base_style
        seen += 1


def _effective(run: Any, paragraph: Any, attr: str) -> Any:
    """A font attribute from the run, its character style, then the paragraph style."""
    value = getattr(run.font, attr)
    if value is not None:
        return value
    styles: list[Any] = []
    try:
        if run.style is not None:
            styles.extend(_style_chain(run.style))
        if paragraph.style is not None:
            styles.extend(_style_chain(paragraph.style))
    except (AttributeError, KeyError, ValueError):
        return None
    for style in styles:
        font = getattr(style, "font", None)
        value = getattr(font, attr, None) if font is not None else None
        if value is not None:
            return value
    return None


def _dark_shading(element: Any) -> bool:
    """True if a paragraph or any enclosing table cell has a dark fill behind it."""
    node = element
    while node is not None:
        for props in ("pPr", "tcPr"):
            pr = node.find(f"{_W}{props}")
            shd = pr.find(f"{_W}shd") if pr is not None else None
            if shd is not None:
                fill = _hex_lightness(shd.get(f"{_W}fill"))
                if fill is not None and fill < 0.75:
                    return True
        node = node.getparent()
    return False


def _hidden(run: Any, paragraph: Any) -> FindingKind | None:
    if _effective(run, paragraph, "hidden"):
        return FindingKind.INVISIBLE_TEXT
    size = _effective(run, paragraph, "size")
    if size is not None and 0 < size.pt < MIN_VISIBLE_PT:
        return FindingKind.TINY_TEXT
    color = None
    try:
        font_color = run.font.color
        if font_color is not None and font_color.type is not None and font_color.rgb is not None:
            color = str(font_color.rgb)
    except (AttributeError, ValueError):
        color = None
    fill = _hex_lightness(color)
    if fill is not None and fill >= WHITE_LEVEL and not _dark_shading(paragraph._p):
        return FindingKind.WHITE_TEXT
    return None


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pos = 0
        self.hidden: list[tuple[int, int, FindingKind]] = []

    def add(self, text: str, hidden: FindingKind | None = None) -> None:
        if hidden is not None and text.strip():
            self.hidden.append((self.pos, self.pos + len(text), hidden))
        self.parts.append(text)
        self.pos += len(text)

    def paragraph(self, paragraph: Any) -> None:
        from docx.text.hyperlink import Hyperlink

        p = paragraph._p
        pr = p.find(f"{_W}pPr")
        listed = pr is not None and pr.find(f"{_W}numPr") is not None
        try:
            style_name = (paragraph.style.name or "") if paragraph.style is not None else ""
        except (AttributeError, KeyError, ValueError):
            style_name = ""
        if listed or style_name.startswith("List"):
            self.add("- ")
        for item in paragraph.iter_inner_content():
            runs = item.runs if isinstance(item, Hyperlink) else [item]
            for run in runs:
                self.add(run.text, _hidden(run, paragraph))
        self.add("\n")
        # text boxes anchored in this paragraph (the fallback copy would double them)
        for box in p.iterfind(".//" + f"{_W}txbxContent"):
            if any(a.tag.endswith("}Fallback") for a in box.iterancestors()):
                continue
            from docx.text.paragraph import Paragraph

            for inner in box.iterfind(f"{_W}p"):
                self.paragraph(Paragraph(inner, paragraph._parent))

    def blocks(self, container: Any) -> None:
        from docx.table import Table

        for block in container.iter_inner_content():
            if isinstance(block, Table):
                self.table(block)
            else:
                self.paragraph(block)

    def table(self, table: Any) -> None:
        for row in table.rows:
            seen: set[int] = set()
            for cell in row.cells:
                if id(cell._tc) in seen:
                    continue  # a merged cell is listed once per grid column
                seen.add(id(cell._tc))
                self.blocks(cell)


def _page_count(archive: zipfile.ZipFile) -> int | None:
    try:
        data = archive.read("docProps/app.xml")
    except KeyError:
        return None
    from lxml import etree

    try:
        root = etree.fromstring(data)
    except etree.XMLSyntaxError:
        return None
    for node in root.iter():
        if isinstance(node.tag, str) and node.tag.endswith("}Pages") and node.text:
            try:
                return int(node.text.strip())
            except ValueError:
                return None
    return None


def read_docx(data: bytes, filename: str, *, max_pages: int) -> DocxText:
    if data.startswith(OLE_MAGIC):
        raise ole_problem(data, filename)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = set(archive.namelist())
        total = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise DocumentError(
            DocProblem.CORRUPT,
            f"{filename} is damaged or incomplete and cannot be read as a Word file "
            f"({type(exc).__name__}). Open it in Word and save it again, or save it as PDF.",
        ) from exc
    if "word/document.xml" not in names:
        raise DocumentError(
            DocProblem.UNSUPPORTED,
            f"{filename} is not a Word document (it may be a spreadsheet or a presentation). "
            "Save the resume as .docx, PDF or plain text.",
        )
    if total > MAX_UNZIPPED:
        raise DocumentError(
            DocProblem.TOO_LARGE,
            f"{filename} unpacks to {total / 1e6:.0f} MB, far more than a resume. "
            "Check that this is the right file.",
        )
    declared = _page_count(archive)
    if declared is not None and declared > max_pages:
        raise DocumentError(
            DocProblem.TOO_MANY_PAGES,
            f"{filename} has {declared} pages; a resume should have far fewer "
            f"(the limit is {max_pages}). Check that this is the right file, "
            "or raise the page limit (command line: --max-pages).",
        )
    import docx
    from lxml import etree

    try:
        document = docx.Document(io.BytesIO(data))
        builder = _Builder()
        headers: list[Any] = []
        footers: list[Any] = []
        for section in document.sections:
            headers.extend(
                h
                for h in (section.first_page_header, section.header)
                if not h.is_linked_to_previous
            )
            footers.extend(
                f
                for f in (section.footer, section.first_page_footer)
                if not f.is_linked_to_previous
            )
        for part in headers:
            builder.blocks(part)
        builder.blocks(document)
        for part in footers:
            builder.blocks(part)
    except (KeyError, ValueError, AttributeError, TypeError, etree.XMLSyntaxError) as exc:
        logger.debug("python-docx could not read %s", filename, exc_info=True)
        raise DocumentError(
            DocProblem.CORRUPT,
            f"{filename} is damaged and cannot be read as a Word file ({type(exc).__name__}). "
            "Open it in Word and save it again, or save it as PDF.",
        ) from exc
    raw = "".join(builder.parts)
    cleaned = clean_with_origin(raw)
    text = cleaned.text
    estimated = declared is None
    pages = declared if declared is not None else max(1, math.ceil(len(text) / CHARS_PER_PAGE))
    if estimated and pages > max_pages:
        raise DocumentError(
            DocProblem.TOO_MANY_PAGES,
            f"{filename} holds about {pages} pages of text; a resume should have far fewer "
            f"(the limit is {max_pages}). Check that this is the right file.",
        )
    findings = []
    for start, end, kind in builder.hidden:
        span = cleaned.span(start, end)
        if span is not None:
            findings.append(Finding(span[0], span[1], kind, _MESSAGES[kind], 0.9))
    return DocxText(text, pages, estimated, merge_adjacent(findings, text))
