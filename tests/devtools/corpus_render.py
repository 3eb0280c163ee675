"""Render a marked-up fictional resume to TXT, Markdown, PDF or DOCX, and say what
clean text and which identity slots reading it back must give.

Markup, one line each:
    # name line            @ contact line          ## Section heading
    ### Role | dates        - bullet                plain paragraph
    !white / !tiny / !offpage / !hidden  text a reader cannot see
    |left / |right          two-column PDF: what follows goes in that column
An indented line continues the one before it (joined with a space).
Inline: `{kind:text}` is an identity slot of that SlotKind ("{full_name:Jane Doe}");
`{!category:text}` an explicit demographic mention the reader must flag; `~` in a
bullet is where a PDF line break hyphenates a word ("develop~ment").

The expected text is built by hand from what is drawn, never by the code under
test, so the tests compare two independent accounts of the same document.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field

from devtools.pdfgen import PdfDoc, text_width
from resume_auditor.documents.findings import FindingKind
from resume_auditor.domain.identity import SlotKind

_INLINE = re.compile(r"\{(!?)([a-z_]+):([^{}]*)\}")
_HIDDEN_LINES = {
    "!white": FindingKind.WHITE_TEXT,
    "!tiny": FindingKind.TINY_TEXT,
    "!offpage": FindingKind.OFF_PAGE_TEXT,
    "!hidden": FindingKind.INVISIBLE_TEXT,
}


@dataclass(frozen=True)
class Seg:
    text: str
    slot: SlotKind | None = None
    mention: str | None = None  # demographic category


@dataclass
class Line:
    style: str  # name contact heading role bullet para hidden
    segs: list[Seg]
    dates: str = ""  # role lines
    hidden: FindingKind | None = None
    column: str = ""  # "", "left", "right"


@dataclass
class Expected:
    """What reading a rendered document back must give."""

    text: str = ""
    slots: list[tuple[int, int, SlotKind]] = field(default_factory=list)
    mentions: list[tuple[int, int, str]] = field(default_factory=list)
    hidden: list[tuple[int, int, FindingKind]] = field(default_factory=list)


class _Builder:
    def __init__(self) -> None:
        self.out = Expected()
        self.parts: list[str] = []
        self.pos = 0

    def plain(self, text: str) -> None:
        self.parts.append(text)
        self.pos += len(text)

    def seg(self, seg: Seg) -> None:
        start = self.pos
        self.plain(seg.text)
        if seg.slot is not None:
            self.out.slots.append((start, self.pos, seg.slot))
        if seg.mention is not None:
            self.out.mentions.append((start, self.pos, seg.mention))

    def segs(self, segs: list[Seg], hidden: FindingKind | None = None) -> None:
        start = self.pos
        for seg in segs:
            self.seg(seg)
        if hidden is not None:
            self.out.hidden.append((start, self.pos, hidden))

    def newline(self, blank: bool = False) -> None:
        self.plain("\n\n" if blank else "\n")

    def done(self) -> Expected:
        self.out.text = "".join(self.parts)
        return self.out


def parse_inline(text: str) -> list[Seg]:
    segs: list[Seg] = []
    pos = 0
    for m in _INLINE.finditer(text):
        if m.start() > pos:
            segs.append(Seg(text[pos : m.start()]))
        if m.group(1):
            segs.append(Seg(m.group(3), mention=m.group(2)))
        else:
            segs.append(Seg(m.group(3), slot=SlotKind(m.group(2))))
        pos = m.end()
    if pos < len(text):
        segs.append(Seg(text[pos:]))
    return segs


def parse(markup: str) -> list[Line]:
    lines: list[Line] = []
    column = ""
    joined: list[str] = []
    for raw in markup.strip("\n").splitlines():
        if raw[:1].isspace() and joined and raw.strip():
            joined[-1] = f"{joined[-1]} {raw.strip()}"  # an indented line continues
        else:
            joined.append(raw)
    for raw in joined:
        line = raw.rstrip()
        if not line:
            continue
        if line in ("|left", "|right"):
            column = line[1:]
            continue
        word, _, rest = line.partition(" ")
        if word in _HIDDEN_LINES:
            lines.append(Line("hidden", parse_inline(rest), hidden=_HIDDEN_LINES[word]))
        elif word == "#":
            lines.append(Line("name", parse_inline(rest)))
        elif word == "@":
            lines.append(Line("contact", parse_inline(rest)))
        elif word == "##":
            lines.append(Line("heading", parse_inline(rest), column=column))
        elif word == "###":
            title, _, dates = rest.partition("|")
            lines.append(Line("role", parse_inline(title.strip()), dates.strip(), column=column))
        elif word == "-":
            lines.append(Line("bullet", parse_inline(rest), column=column))
        else:
            lines.append(Line("para", parse_inline(line), column=column))
    return lines


def _plain_segs(segs: list[Seg]) -> list[Seg]:
    """The segments with the PDF-only hyphenation marks dropped."""
    return [Seg(s.text.replace("~", ""), s.slot, s.mention) for s in segs]


# -- text and Markdown ---------------------------------------------------------------
def render_text(markup: str, markdown: bool = False) -> tuple[str, Expected]:
    b = _Builder()
    for index, line in enumerate(parse(markup)):
        if index:
            b.newline()
        segs = _plain_segs(line.segs)
        if line.style == "name" and markdown:
            b.plain("# ")
        if line.style == "heading" and markdown:
            b.plain("## ")
        if line.style == "bullet":
            b.plain("- ")
        b.segs(segs)
        if line.style == "role" and line.dates:
            b.plain(f" | {line.dates}")
    b.newline()
    expected = b.done()
    return expected.text, expected


# -- PDF -----------------------------------------------------------------------------
MARGIN = 54.0
_SIZES = {"name": 20.0, "contact": 9.5, "heading": 11.0, "role": 10.5, "bullet": 10.0}
_WEIGHTS = {"name": "bold", "heading": "bold", "role": "bold"}
_LEADING = {"name": 30.0, "contact": 13.0, "heading": 18.0, "role": 14.0}


def _tokens(segs: list[Seg]) -> list[list[Seg]]:
    """Words as lists of segments: slots and mentions are never broken across lines,
    and punctuation written against a slot ("{college:X}, 2016") stays with it."""
    tokens: list[list[Seg]] = []
    glue = False  # the next piece continues the last token (no space between)
    for seg in segs:
        if seg.slot is not None or seg.mention is not None:
            if glue and tokens:
                tokens[-1].append(seg)
            else:
                tokens.append([seg])
            glue = True
            continue
        for piece in re.split(r"(\s+)", seg.text):
            if not piece:
                continue
            if piece.isspace():
                glue = False
            elif glue and tokens:
                tokens[-1].append(Seg(piece))
            else:
                tokens.append([Seg(piece)])
                glue = True
    return tokens


def _text(token: list[Seg]) -> str:
    return "".join(s.text for s in token)


def wrap_segs(segs: list[Seg], width: float, size: float, weight: str) -> list[list[list[Seg]]]:
    lines: list[list[list[Seg]]] = []
    current: list[list[Seg]] = []
    for token in _tokens(segs):
        candidate = " ".join(_text(t) for t in [*current, token])
        if current and text_width(candidate, size, weight) > width:
            lines.append(current)
            current = [token]
        else:
            current.append(token)
    if current:
        lines.append(current)
    return lines


def _join(tokens: list[list[Seg]]) -> list[Seg]:
    out: list[Seg] = []
    for i, token in enumerate(tokens):
        if i:
            out.append(Seg(" "))
        out.extend(token)
    return out


class _PdfWriter:
    def __init__(self, builder: _Builder, garble: bool = False) -> None:
        self.doc = PdfDoc(title="Corpus resume")
        self.page = self.doc.page()
        self.b = builder
        self.garble = garble
        self.first = True

    def draw(
        self,
        x: float,
        y: float,
        text: str,
        size: float,
        weight: str = "regular",
        color: tuple[float, float, float] = (0, 0, 0),
    ) -> None:
        self.page.text(x, y, garble(text) if self.garble else text, size, weight, color)

    def line_break(self, blank: bool = False) -> None:
        if not self.first:
            self.b.newline(blank)
        self.first = False

    def block(
        self,
        line: Line,
        x: float,
        y: float,
        width: float,
        hidden_at: float | None = None,
    ) -> float:
        """Draw one markup line from the top at y; record the expected text; return new y."""
        style = line.style if line.style != "para" else "bullet"
        size = _SIZES.get(line.style, 10.0)
        weight = _WEIGHTS.get(line.style, "regular")
        if line.style == "hidden":
            return self._hidden(line, x, y, width)
        if line.style == "role":
            title = "".join(s.text for s in line.segs)
            self.line_break()
            self.b.segs(line.segs)
            self.draw(x, y, title, size, "bold")
            if line.dates:
                w = text_width(line.dates, 9.5)
                self.draw(x + width - w, y, line.dates, 9.5)
                self.b.plain(" " + line.dates)
            return y - _LEADING["role"]
        indent = "\u2022 " if line.style == "bullet" else ""
        indent_w = text_width(indent, size, weight)
        chunks = "".join(s.text for s in line.segs).split("~") if line.style == "bullet" else []
        if len(chunks) == 2:
            return self._hyphenated(line, x, y, width, size, indent, indent_w)
        leading = _LEADING.get(style, 13.0)
        for i, tokens in enumerate(wrap_segs(line.segs, width - indent_w, size, weight)):
            text = " ".join(_text(t) for t in tokens)
            self.line_break()
            if i == 0 and indent:
                self.b.plain("- ")
                self.draw(x, y, indent + text, size, weight)
            else:
                self.draw(x + (indent_w if indent else 0), y, text, size, weight)
            self.b.segs(_join(tokens))
            y -= leading
        return y - (2 if line.style == "bullet" else 0)

    def _hyphenated(
        self, line: Line, x: float, y: float, width: float, size: float, indent: str, iw: float
    ) -> float:
        """A bullet of plain text broken inside a word: "develop-" / "ment ...".

        Reading it back joins the word and pulls the next line up behind it.
        """
        head, tail = "".join(s.text for s in line.segs).split("~")
        head_word_break = head + "-"
        self.line_break()
        self.b.plain("- " + head + tail)
        self.draw(x, y, indent + head_word_break, size)
        y -= 13
        self.draw(x + iw, y, tail, size)
        return y - 15

    def _hidden(self, line: Line, x: float, y: float, width: float) -> float:
        text = "".join(s.text for s in line.segs)
        self.line_break()
        self.b.segs(line.segs, line.hidden)
        if line.hidden is FindingKind.WHITE_TEXT:
            self.draw(x, y, text, 10, color=(1, 1, 1))
        elif line.hidden is FindingKind.TINY_TEXT:
            self.draw(x, y, text, 1.2)
        elif line.hidden is FindingKind.OFF_PAGE_TEXT:
            self.draw(self.page.width + 80, y, text, 10)
        else:
            raise ValueError(f"no PDF rendering for {line.hidden}")
        return y - 13


def garble(text: str) -> str:
    """What a web page saved in UTF-8 and read as Windows-1252 shows ("Ã©", "â€¢").

    Before the double encoding, a colon after a label becomes a full-width colon
    and the space after it a no-break space, as copy-paste from web pages does.
    """
    text = re.sub(r"(?<=[A-Za-z]): ", "\uff1a\u00a0", text)
    return text.encode("utf-8").decode("cp1252")


def render_pdf(
    markup: str, mojibake: bool = False, left_width: float = 170.0
) -> tuple[bytes, Expected]:
    """A one-page, one- or two-column PDF of the markup, and what reading it must give."""
    b = _Builder()
    w = _PdfWriter(b, garble=mojibake)
    lines = parse(markup)
    page_w = w.page.width
    y = w.page.height - MARGIN - 14
    two_column = any(line.column for line in lines)
    full = page_w - 2 * MARGIN
    for line in [ln for ln in lines if not ln.column]:
        y = w.block(line, MARGIN, y, full)
        if line.style == "heading":
            w.page.line(MARGIN, y + 14, MARGIN + full, y + 14)
    if two_column:
        top = y - 8
        left_w, gap = left_width, 26.0
        right_x = MARGIN + left_w + gap
        for side, x, width in (
            ("left", MARGIN, left_w),
            ("right", right_x, page_w - MARGIN - right_x),
        ):
            b.newline(blank=True)  # reading order puts a blank line between column blocks
            w.first = True
            y = top
            for line in [ln for ln in lines if ln.column == side]:
                y = w.block(line, x, y, width)
            if y < 60:
                raise ValueError(f"the {side} column does not fit on the page")
    elif y < 40:
        raise ValueError("the resume does not fit on one page")
    b.newline()
    return w.doc.to_bytes(), b.done()


# -- DOCX ----------------------------------------------------------------------------
def render_docx(markup: str) -> tuple[bytes, Expected]:
    """A Word file: name and contact in the page header, bullets as list paragraphs."""
    import docx
    from docx.shared import Pt, RGBColor

    document = docx.Document()
    b = _Builder()
    lines = parse(markup)
    header = document.sections[0].header
    header_lines = [ln for ln in lines if ln.style in ("name", "contact")]
    body_lines = [ln for ln in lines if ln.style not in ("name", "contact")]
    first = True

    def add_runs(paragraph: object, segs: list[Seg], hidden: FindingKind | None = None) -> None:
        for seg in segs:
            run = paragraph.add_run(seg.text)  # type: ignore[attr-defined]
            if hidden is FindingKind.WHITE_TEXT:
                run.font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
            elif hidden is FindingKind.TINY_TEXT:
                run.font.size = Pt(1.5)
            elif hidden is FindingKind.INVISIBLE_TEXT:
                run.font.hidden = True

    for index, line in enumerate(header_lines):
        paragraph = header.paragraphs[0] if index == 0 else header.add_paragraph()
        add_runs(paragraph, _plain_segs(line.segs))
        if not first:
            b.newline()
        first = False
        b.segs(_plain_segs(line.segs))
    for line in body_lines:
        segs = _plain_segs(line.segs)
        if not first:
            b.newline()
        first = False
        if line.style == "heading":
            paragraph = document.add_heading(level=2)
            add_runs(paragraph, segs)
            b.segs(segs)
        elif line.style == "bullet":
            paragraph = document.add_paragraph(style="List Bullet")
            add_runs(paragraph, segs)
            b.plain("- ")
            b.segs(segs)
        elif line.style == "role":
            paragraph = document.add_paragraph()
            add_runs(paragraph, segs)
            paragraph.add_run("\t" + line.dates)
            b.segs(segs)
            b.plain(" " + line.dates)
        elif line.style == "hidden":
            if line.hidden is FindingKind.OFF_PAGE_TEXT:
                raise ValueError("a Word file has no outside of the page")
            paragraph = document.add_paragraph()
            add_runs(paragraph, segs, line.hidden)
            b.segs(segs, line.hidden)
        else:
            paragraph = document.add_paragraph()
            add_runs(paragraph, segs)
            b.segs(segs)
    b.newline()
    buf = io.BytesIO()
    document.core_properties.author = "Resume Auditor corpus"
    document.save(buf)
    return buf.getvalue(), b.done()
