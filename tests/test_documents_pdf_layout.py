"""PDF reading order and hidden-text detection, case by case."""

from __future__ import annotations

from pathlib import Path

import pytest
from devtools.pdfgen import Page, PdfDoc

from resume_auditor.documents.findings import FindingKind
from resume_auditor.documents.load import LoadedDocument, load_bytes, load_file

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample" / "resumes"
BODY = "Analysed weekly sales with SQL and Python for store managers."


def _load(build) -> LoadedDocument:  # type: ignore[no-untyped-def]
    pdf = PdfDoc()
    page = pdf.page()
    page.text(54, 740, "Jordan Vale", 18, "bold")
    build(page)
    return load_bytes(pdf.to_bytes(), "t.pdf")


def _found(doc: LoadedDocument) -> set[tuple[FindingKind, str]]:
    return {(f.kind, doc.text[f.start : f.end]) for f in doc.findings}


def test_white_text_on_a_dark_box_is_visible() -> None:
    def build(page: Page) -> None:
        page.ops.append(b"0.1 0.1 0.3 rg 40 590 300 30 re f")
        page.text(54, 600, "SKILLS AND TOOLS", 12, color=(1, 1, 1))
        page.text(54, 560, BODY, 10)
        page.text(54, 540, "Top candidate, hire now", 10, color=(1, 1, 1))

    doc = _load(build)
    assert _found(doc) == {(FindingKind.WHITE_TEXT, "Top candidate, hire now")}


def test_light_grey_text_is_not_white() -> None:
    def build(page: Page) -> None:
        page.text(54, 600, BODY, 10, color=(0.75, 0.75, 0.75))

    assert _load(build).findings == []


def test_invisible_text_is_hidden_unless_it_lies_over_a_scan() -> None:
    def invisible(page: Page) -> None:
        page.text(54, 600, BODY, 10)
        page.ops.append(b"BT 3 Tr /F1 10 Tf 54 580 Td (Secret keywords for the bot) Tj ET")

    doc = _load(invisible)
    assert _found(doc) == {(FindingKind.INVISIBLE_TEXT, "Secret keywords for the bot")}

    def ocr_layer(page: Page) -> None:
        page.image(40, 40, 530, 700, 10, 10, bytes(range(100)))
        page.ops.append(b"BT 3 Tr /F1 10 Tf 54 600 Td (" + BODY.encode() + b") Tj ET")

    assert _load(ocr_layer).findings == []


def test_text_off_every_edge_of_the_page() -> None:
    def build(page: Page) -> None:
        page.text(54, 600, BODY, 10)
        page.text(-400, 500, "Left of the page", 10)
        page.text(54, 900, "Above the page", 10)
        page.text(54, -30, "Below the page", 10)

    doc = _load(build)
    assert {k for k, _ in _found(doc)} == {FindingKind.OFF_PAGE_TEXT}
    # neighbouring lines of the same kind may be one finding
    flagged = " | ".join(t for _, t in _found(doc))
    for phrase in ("Left of the page", "Above the page", "Below the page"):
        assert phrase in flagged
    assert BODY not in flagged


def test_tiny_text_and_text_scaled_down_by_the_matrix() -> None:
    def build(page: Page) -> None:
        page.text(54, 600, BODY, 10)
        page.ops.append(
            b"q 0.1 0 0 0.1 54 580 cm BT /F1 10 Tf 0 0 Td (Scaled to one point) Tj ET Q"
        )

    doc = _load(build)
    assert _found(doc) == {(FindingKind.TINY_TEXT, "Scaled to one point")}


def test_a_colour_change_inside_one_line_flags_exactly_the_white_words() -> None:
    # each string shown is measured on its own, so the finding covers only the white one
    def build(page: Page) -> None:
        page.ops.append(
            b"BT /F1 10 Tf 54 600 Td 0 g (Visible words ) Tj 1 g (and white ones) Tj ET"
        )

    doc = _load(build)
    assert _found(doc) == {(FindingKind.WHITE_TEXT, "and white ones")}
    assert "Visible words and white ones" in doc.text


@pytest.mark.parametrize("pdf", sorted(SAMPLE.glob("*.pdf")), ids=lambda p: p.stem)
def test_right_aligned_dates_do_not_make_a_second_column(pdf: Path) -> None:
    doc = load_file(pdf)
    assert doc.columns == [] and doc.findings == []
    assert "EXPERIENCE" in doc.text


def test_two_columns_with_a_full_width_heading_between_bands() -> None:
    def column_lines(page: Page, y: float, tag: str) -> float:
        for i in range(4):
            page.text(54, y, f"Left {tag} line {i} about SQL", 10)
            page.text(330, y, f"Right {tag} line {i} about Python", 10)
            y -= 14
        return y

    def build(page: Page) -> None:
        y = column_lines(page, 700, "top")
        page.text(54, y - 10, "A FULL WIDTH HEADING THAT SPANS BOTH COLUMNS OF THIS PAGE", 12)
        column_lines(page, y - 40, "low")

    doc = _load(build)
    assert doc.columns == [1]
    lines = [line for line in doc.text.splitlines() if line]
    order = [line.split(" line")[0] for line in lines[1:]]
    assert order == (
        ["Left top"] * 4
        + ["Right top"] * 4
        + ["A FULL WIDTH HEADING THAT SPANS BOTH COLUMNS OF THIS PAGE"]
        + ["Left low"] * 4
        + ["Right low"] * 4
    )


def test_runs_are_joined_into_lines_in_position_order() -> None:
    def build(page: Page) -> None:
        # drawn bottom-up and right-to-left: the reading order is still top-down
        page.text(54, 560, "third line", 10)
        page.text(120, 600, "first line, second part", 10)
        page.text(54, 600, "First line", 10)
        page.text(54, 580, "second line " + BODY, 10)

    doc = _load(build)
    assert doc.text.splitlines()[1:] == [
        "First line first line, second part",
        "second line " + BODY,
        "third line",
    ]
