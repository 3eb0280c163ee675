"""Word boundaries, reading order and icon glyphs on PDFs drawn the way real producers draw.

Each PDF is written here with the project's PDF writer, with content streams in the
styles of real producers: Chrome/Skia places every glyph on its own and draws no
space glyph, TeX sets a line as one TJ array with kerning and word gaps as numbers,
HTML-to-PDF tools draw both columns of a line in one text object, faux bold draws
everything twice, icon fonts draw a phone or an envelope as a letter. The expected
text is written by hand from what is drawn.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from devtools import pdfgen
from devtools.pdfgen import Page, PdfDoc, text_width

from resume_auditor.documents import layout
from resume_auditor.documents.extract import analyse_resume, notice
from resume_auditor.documents.findings import FindingKind
from resume_auditor.documents.load import LoadedDocument, load_bytes

SENTENCE = "Senior Software Engineer with 5+ years of proven expertise designing systems"


def _load(build: Callable[[Page], None]) -> LoadedDocument:
    pdf = PdfDoc()
    page = pdf.page()
    build(page)
    return load_bytes(pdf.to_bytes(), "t.pdf")


def _glyph_by_glyph(page: Page, x: float, y: float, text: str, size: float = 10) -> None:
    """Every glyph placed on its own, no space glyph drawn: how Skia prints a line."""
    ops = [b"BT /F1 %.2f Tf" % size]
    for ch in text:
        if ch != " ":
            ops.append(b"1 0 0 1 %.3f %.3f Tm (%s) Tj" % (x, y, ch.encode("cp1252")))
        x += text_width(ch, size)
    ops.append(b"ET")
    page.ops.append(b" ".join(ops))


def _tex_line(page: Page, x: float, y: float, words: list[str], size: float = 10) -> None:
    """One TJ array: words as strings, word gaps as numbers, a kern inside 'Software'."""
    items = []
    for word in words:
        if word == "Software":
            items.append(b"(Softw) 30 (are)")  # a kern pulls 'are' closer: still one word
        else:
            items.append(b"(" + word.encode() + b")")
    array = b" -333 ".join(items)
    page.ops.append(b"BT /F1 %.2f Tf %.2f %.2f Td [%s] TJ ET" % (size, x, y, array))


def _lines_of(doc: LoadedDocument) -> list[str]:
    return [line for line in doc.text.splitlines() if line]


def test_glyphs_placed_apart_without_space_glyphs_make_words() -> None:
    doc = _load(lambda page: _glyph_by_glyph(page, 54, 700, SENTENCE))
    assert _lines_of(doc) == [SENTENCE]
    assert doc.findings == []


@pytest.mark.parametrize("tracking", [0.04, 0.12, 0.2])
def test_letter_spaced_headings_keep_their_words(tracking: float) -> None:
    def build(page: Page) -> None:
        # CSS letter-spacing: every glyph placed `tracking` ems further than its width,
        # the space between the words not drawn at all
        x = 54.0
        ops = [b"BT /F2 16 Tf"]
        for ch in "WORK EXPERIENCE":
            if ch != " ":
                ops.append(b"1 0 0 1 %.3f 700 Tm (%s) Tj" % (x, ch.encode()))
            x += text_width(ch, 16, "bold") + tracking * 16
        ops.append(b"ET")
        page.ops.append(b" ".join(ops))
        page.text(54, 670, "Built reporting pipelines for regional stores.", 10)

    assert _lines_of(_load(build))[0] == "WORK EXPERIENCE"


def test_tex_word_gaps_are_spaces_and_kerns_are_not() -> None:
    words = ["Senior", "Software", "Engineer", "at", "Northwind", "Traders"]
    doc = _load(lambda page: _tex_line(page, 54, 700, words))
    assert _lines_of(doc) == ["Senior Software Engineer at Northwind Traders"]


def test_a_date_set_apart_on_the_same_line_is_a_separate_word() -> None:
    def build(page: Page) -> None:
        for i, (role, date) in enumerate(
            [("Sous Chef", "Jul 2010"), ("Company Name", "City, State"), ("Line Cook", "2008")]
        ):
            y = 700 - 40 * i
            # one text object, moved with Td, no space glyph between role and date
            page.ops.append(
                b"BT /F1 10 Tf 54 %d Td (%s) Tj 400 0 Td (%s) Tj ET"
                % (y, role.encode(), date.encode())
            )
            page.text(54, y - 14, "Prepared daily menus and trained new kitchen staff.", 10)

    lines = _lines_of(_load(build))
    assert "Sous Chef Jul 2010" in lines
    assert "Company Name City, State" in lines
    assert "Line Cook 2008" in lines


def _two_columns_one_text_object(page: Page, left: list[str], right: list[str]) -> None:
    """Both columns of each line drawn in one BT..ET, left then right: pypdf's own
    extraction runs them together into one line."""
    ops = [b"BT /F1 10 Tf 1 0 0 1 54 700 Tm"]
    for i in range(max(len(left), len(right))):
        y = 700 - 14 * i
        if i < len(left):
            ops.append(b"1 0 0 1 54 %d Tm (%s) Tj" % (y, left[i].encode()))
        if i < len(right):
            ops.append(b"1 0 0 1 320 %d Tm (%s) Tj" % (y, right[i].encode()))
    ops.append(b"ET")
    page.ops.append(b" ".join(ops))


LEFT = [
    "Led a team of five analysts who",
    "rebuilt the weekly sales report",
    "and cut its run time by half.",
    "Trained store managers on SQL.",
]
RIGHT = [
    "Volunteered at the food bank on",
    "weekends, sorting donations and",
    "planning the holiday drive with",
    "local schools and churches.",
]


def test_two_columns_drawn_line_by_line_are_read_column_by_column() -> None:
    doc = _load(lambda page: _two_columns_one_text_object(page, LEFT, RIGHT))
    assert doc.columns == [1]
    assert _lines_of(doc) == LEFT + RIGHT


def test_a_narrow_sidebar_is_read_apart_from_the_main_column() -> None:
    sidebar = ["CONTACT", "jo@example.org", "(555) 010-0199", "SKILLS", "Python", "SQL", "Excel"]
    main = [
        "WORK EXPERIENCE",
        "Data Analyst, Northwind Traders, 2019 - present",
        "Built the weekly sales dashboard used by forty store managers",
        "Automated the month-end inventory reconciliation with Python",
        "Cut the time to answer ad hoc questions from days to hours",
        "Analyst Intern, Contoso Retail, 2018",
        "Cleaned and joined point-of-sale data from three regions",
    ]

    def build(page: Page) -> None:
        page.text(54, 740, "JORDAN VALE", 20, "bold")
        for i, line in enumerate(sidebar):
            page.text(40, 690 - 19 * i, line, 8.5)  # its own leading
        for i, line in enumerate(main):
            page.text(200, 692 - 15 * i, line, 10)

    doc = _load(build)
    assert doc.columns == [1]
    lines = _lines_of(doc)
    assert lines[0] == "JORDAN VALE"
    assert lines[1:] == sidebar + main


def test_labels_in_a_left_margin_stay_with_their_entry() -> None:
    rows = [
        ("2019 - 2023", "Princeton University, BS in Computer Science"),
        ("2017 - 2019", "Mercer County Community College, Associate degree"),
        ("2016", "Summer research assistant, Princeton Plasma Physics Lab"),
        ("2015", "Volunteer tutor for algebra and geometry, Trenton"),
    ]

    def build(page: Page) -> None:
        for i, (label, entry) in enumerate(rows):
            page.text(54, 700 - 16 * i, label, 9)
            page.text(150, 700 - 16 * i, entry, 10)

    doc = _load(build)
    assert doc.columns == []
    assert _lines_of(doc) == [f"{label} {entry}" for label, entry in rows]


def test_faux_bold_drawn_twice_is_read_once() -> None:
    def build(page: Page) -> None:
        page.text(54, 700, "Markdown", 12, "bold")
        page.text(54.3, 700, "Markdown", 12, "bold")
        page.text(54, 680, "Written in plain text and converted to HTML.", 10)

    assert _lines_of(_load(build))[0] == "Markdown"


@pytest.fixture
def icon_font(monkeypatch: pytest.MonkeyPatch) -> None:
    fonts = dict(pdfgen.FONTS)
    fonts["icon"] = ("F3", "FontAwesome5Free-Solid", "phvr8a.afm")
    monkeypatch.setattr(pdfgen, "FONTS", fonts)


@pytest.mark.usefixtures("icon_font")
def test_icon_font_glyphs_are_left_out_and_keep_words_apart() -> None:
    def build(page: Page) -> None:
        # an envelope and a phone drawn as letters of an icon font, glued to the values
        page.ops.append(
            b"BT /F3 10 Tf 54 700 Td (E) Tj /F1 10 Tf 12 0 Td (jo@example.org) Tj "
            b"/F3 10 Tf 90 0 Td (P) Tj /F1 10 Tf 12 0 Td (555 010 0199) Tj ET"
        )
        page.text(54, 680, "Data analyst with five years in retail.", 10)

    doc = _load(build)
    assert _lines_of(doc)[0] == "jo@example.org 555 010 0199"


def test_private_use_and_mojibake_do_not_reach_the_text() -> None:
    def build(page: Page) -> None:
        page.text(54, 700, "Caf\u00c3\u00a9 manager \u00e2\u20ac\u201c six years", 10)
        page.text(54, 680, "Bullet \u00ef\u00bc\u0161 done", 10)

    text = _load(build).text
    assert "Café manager – six years" in text
    for junk in ("Ã", "â€", "ï¼"):
        assert junk not in text


# -- when the two readings disagree ------------------------------------------------------


def test_readings_that_agree_keep_the_layout() -> None:
    verdict = layout.compare_readings("Senior Software Engineer", "Senior Software\nEngineer", [])
    assert verdict.keep_layout and verdict.sure


def test_a_layout_that_lost_words_gives_way_to_pypdf() -> None:
    plain = "Senior Software Engineer with five years of proven expertise"
    verdict = layout.compare_readings("Senior Software Engineer", plain, [])
    assert not verdict.keep_layout and not verdict.sure


def test_glued_words_lose_to_the_reading_that_keeps_them_apart() -> None:
    apart = "Be the change that you want to see in the world. Led the DevOps team."
    glued = "Bethechangethatyouwanttoseeintheworld. Ledthe DevOpsteam."
    kept_layout = layout.compare_readings(apart, glued, [])
    assert kept_layout.keep_layout and kept_layout.sure
    kept_plain = layout.compare_readings(glued, apart, [])
    assert not kept_plain.keep_layout


def test_icon_text_in_pypdfs_reading_is_not_counted_as_lost() -> None:
    verdict = layout.compare_readings(
        "jo@example.org 555 0199", "phone-alt jo@example.org 555 0199", ["phone-alt"]
    )
    assert verdict.sure


def test_a_page_read_the_plain_way_is_flagged_for_the_user(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from resume_auditor.documents import pdf as pdf_module

    real = pdf_module.page_text

    def losing(runs):  # type: ignore[no-untyped-def]
        text, placed, columns = real(runs)
        return text.split("\n")[0], [], columns  # the layout "loses" all but one line

    monkeypatch.setattr(pdf_module, "page_text", losing)

    def build(page: Page) -> None:
        page.text(54, 740, "Jordan Vale", 18, "bold")
        page.text(54, 700, "Data analyst with five years in retail and logistics.", 10)
        page.text(54, 680, "Built the weekly sales dashboard for forty stores.", 10)

    doc = _load(build)
    assert "Built the weekly sales dashboard for forty stores." in doc.text
    flagged = [f for f in doc.findings if f.kind is FindingKind.UNSURE_TEXT]
    assert len(flagged) == 1 and flagged[0].page == 1
    assert "kept as pypdf reads it" in flagged[0].message
    extraction = analyse_resume(doc)
    assert "Check the text of page 1 against the PDF" in notice(
        extraction.findings, extraction.warnings
    )


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        # a closing quote whose last byte was lost: nothing, or NUL, after "â€"
        ("He said \u00e2\u20ac\u0153hello\u00e2\u20ac ok", "He said \u201chello\u201d ok"),
        ("He said \u00e2\u20ac\u0153hello\u00e2\u20ac\x00", "He said \u201chello\u201d"),
        # a full-width dash between the years of a range, its last byte lost
        ("Sous Chef 2010\u00ef\u00bc2012", "Sous Chef 2010-2012"),
        ("Skills\u00ef\u00bc Python", "Skills Python"),
        # a non-breaking space read as "Â" before punctuation
        ("Tel\u00c2: 555 0100", "Tel: 555 0100"),
        ("Caf\u00c3\u00a9 \u00c2\u00a9 2020", "Caf\u00e9 \u00a9 2020"),
    ],
)
def test_mojibake_with_a_lost_byte_is_repaired(raw: str, clean: str) -> None:
    from resume_auditor.documents.cleanup import clean_line

    assert clean_line(raw) == clean


@pytest.mark.usefixtures("icon_font")
def test_icon_text_is_left_out_of_a_page_kept_as_pypdf_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from resume_auditor.documents import pdf as pdf_module

    monkeypatch.setattr(pdf_module, "page_text", lambda runs: ("", [], False))
    monkeypatch.setattr(
        pdf_module,
        "collect_page",
        _undecoded(pdf_module.collect_page),
    )

    def build(page: Page) -> None:
        page.ops.append(b"BT /F3 10 Tf 54 700 Td (phone) Tj /F1 10 Tf 40 0 Td (555 010 0199) Tj ET")
        page.text(54, 680, "Data analyst with five years in retail and logistics.", 10)

    doc = _load(build)
    assert "phone" not in doc.text
    assert "555 010 0199" in doc.text
    assert [f.kind for f in doc.findings] == [FindingKind.UNSURE_TEXT]


def _undecoded(collect):  # type: ignore[no-untyped-def]
    """collect_page as if some string on the page could not be decoded by the layout."""

    def wrapped(page, number, fonts=None):  # type: ignore[no-untyped-def]
        plain, runs, _ = collect(page, number, fonts)
        return plain, runs, False

    return wrapped


def _pdf_with_a_form(page_ops: bytes, form_ops: bytes) -> bytes:
    """A one-page PDF whose page draws a form XObject (and a grey image inside it)."""
    import zlib

    image = zlib.compress(bytes(range(16)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
        b"<< /F1 5 0 R >> /XObject << /Fm1 6 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(page_ops), page_ops),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Matrix [1 0 0 1 0 0] "
        b"/Resources << /Font << /F1 5 0 R >> /XObject << /Im1 7 0 R >> >> /Length %d >>"
        b"\nstream\n%s\nendstream" % (len(form_ops), form_ops),
        b"<< /Type /XObject /Subtype /Image /Width 4 /Height 4 /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
        % (len(image), image),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def test_text_inside_a_form_is_placed_where_the_form_is_drawn() -> None:
    left = b" ".join(
        b"BT /F1 10 Tf 54 %d Td (%s) Tj ET" % (700 - 14 * i, line.encode())
        for i, line in enumerate(LEFT)
    )
    # the right column sits in a form drawn 266 points to the right; an image is
    # drawn inside the form before its text
    right = b"q 1 0 0 1 -10 -10 cm 20 0 0 20 0 0 cm /Im1 Do Q " + b" ".join(
        b"BT /F1 10 Tf 54 %d Td (%s) Tj ET" % (700 - 14 * i, line.encode())
        for i, line in enumerate(RIGHT)
    )
    page = b"q 1 0 0 1 266 0 cm /Fm1 Do Q " + left
    doc = load_bytes(_pdf_with_a_form(page, right), "form.pdf")
    assert _lines_of(doc) == LEFT + RIGHT
    assert doc.columns == [1]
    assert doc.findings == []


def test_a_rotated_label_beside_upright_text_is_kept() -> None:
    def build(page: Page) -> None:
        page.text(54, 740, "Jordan Vale", 18, "bold")
        for i in range(12):
            page.text(54, 700 - 14 * i, f"Line {i} of the summary about retail analytics.", 10)
        page.ops.append(b"BT /F1 9 Tf 0 1 -1 0 30 400 Tm (Portfolio available) Tj ET")

    doc = _load(build)
    assert "Portfolio available" in doc.text
    assert _lines_of(doc)[0] == "Jordan Vale"


def test_tabs_and_carriage_returns_between_words_are_spaces() -> None:
    # macOS Quartz writes each word followed by a tab, a carriage return and a space
    def build(page: Page) -> None:
        page.ops.append(b"BT /F1 10 Tf 54 700 Td (Leo\\t\\r\\240Leopard) Tj ET")
        page.ops.append(b"BT /F1 10 Tf 54 686 Td (555\\t\\r\\240La\\t\\r\\240Verne Way) Tj ET")

    assert _lines_of(_load(build)) == ["Leo Leopard", "555 La Verne Way"]


def test_a_superscript_joins_its_line_and_a_subtitle_stays_below_the_name() -> None:
    def build(page: Page) -> None:
        page.text(54, 740, "JORDAN VALE", 30, "bold")
        page.text(60, 727, "SENIOR DATA ANALYST, RETAIL", 11)  # tight under the name
        page.text(54, 690, "Placed 1", 10)
        x = 54 + text_width("Placed 1", 10)
        page.text(x, 694, "st", 6.5)  # raised and smaller
        page.text(x + text_width("st", 6.5), 690, " of 50 teams, regional hackathon", 10)

    assert _lines_of(_load(build)) == [
        "JORDAN VALE",
        "SENIOR DATA ANALYST, RETAIL",
        "Placed 1st of 50 teams, regional hackathon",
    ]


@pytest.mark.xfail(
    strict=True,
    reason="known limit: two table cells of equal weight and leading look like two "
    "columns of running text, and are read column by column",
)
def test_a_two_cell_table_is_read_row_by_row() -> None:
    rows = [
        ("Python and pandas for data cleaning", "Advanced, eight years of daily use"),
        ("SQL on Postgres and BigQuery", "Advanced, wrote the team's style guide"),
        ("Tableau and Power BI dashboards", "Intermediate, forty dashboards shipped"),
        ("Spanish, spoken and written", "Fluent, worked two years in Madrid"),
        ("Statistics and A/B testing", "Intermediate, ran the pricing tests"),
    ]

    def build(page: Page) -> None:
        for i, (skill, level) in enumerate(rows):
            page.text(54, 700 - 16 * i, skill, 10)
            page.text(320, 700 - 16 * i, level, 10)

    doc = _load(build)
    assert doc.columns == []
    assert _lines_of(doc) == [f"{skill} {level}" for skill, level in rows]
