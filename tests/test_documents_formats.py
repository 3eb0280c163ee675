"""Word, text, pasted and unsupported files; limits the caller can raise."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx
import pytest
from devtools.pdfgen import PdfDoc
from docx.shared import Pt, RGBColor

from resume_auditor.documents.errors import DocProblem, DocumentError
from resume_auditor.documents.findings import FindingKind
from resume_auditor.documents.load import load_bytes, load_file, load_pasted
from resume_auditor.documents.wordfile import OLE_MAGIC


def _docx(build) -> bytes:  # type: ignore[no-untyped-def]
    document = docx.Document()
    build(document)
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def test_docx_reads_header_body_tables_and_lists_in_order() -> None:
    def build(d):  # type: ignore[no-untyped-def]
        d.sections[0].header.paragraphs[0].text = "Jamie Rivera | jamie@example.com"
        d.add_heading("Experience", level=2)
        d.add_paragraph("Built reports in SQL", style="List Bullet")
        table = d.add_table(rows=1, cols=2)
        table.rows[0].cells[0].text = "Python"
        table.rows[0].cells[1].text = "Tableau"
        merged = d.add_table(rows=1, cols=2)
        merged.rows[0].cells[0].merge(merged.rows[0].cells[1]).text = "Merged once"
        d.sections[0].footer.paragraphs[0].text = "Page footer"

    doc = load_bytes(_docx(build), "r.docx")
    assert doc.kind == "docx"
    assert doc.text == (
        "Jamie Rivera | jamie@example.com\nExperience\n- Built reports in SQL\nPython\n"
        "Tableau\nMerged once\nPage footer\n"
    )
    assert doc.pages == 1


def test_docx_text_boxes_are_read_once() -> None:
    def build(d):  # type: ignore[no-untyped-def]
        d.add_paragraph("Body text")

    data = _docx(build)
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    box = (
        '<w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-'
        'compatibility/2006"><mc:Choice Requires="wps"><w:drawing><w:txbxContent>'
        "<w:p><w:r><w:t>Sidebar skills</w:t></w:r></w:p></w:txbxContent></w:drawing>"
        "</mc:Choice><mc:Fallback><w:pict><w:txbxContent><w:p><w:r><w:t>Sidebar skills</w:t>"
        "</w:r></w:p></w:txbxContent></w:pict></mc:Fallback></mc:AlternateContent></w:r>"
    )
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            content = src.read(item)
            if item.filename == "word/document.xml":
                xml = content.decode()
                xml = xml.replace("<w:t>Body text</w:t></w:r>", "<w:t>Body text</w:t></w:r>" + box)
                assert f'xmlns:w="{w}"' in xml
                content = xml.encode()
            dst.writestr(item, content)
    doc = load_bytes(out.getvalue(), "box.docx")
    assert doc.text == "Body text\nSidebar skills\n"


def test_docx_hidden_white_and_tiny_runs_are_findings() -> None:
    def build(d):  # type: ignore[no-untyped-def]
        p = d.add_paragraph("Visible start. ")
        run = p.add_run("Hidden words.")
        run.font.hidden = True
        p = d.add_paragraph("Next ")
        p.add_run("white words").font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)
        p = d.add_paragraph("And ")
        p.add_run("tiny words").font.size = Pt(1)
        p = d.add_paragraph("Grey is fine: ")
        p.add_run("grey words").font.color.rgb = RGBColor(0x80, 0x80, 0x80)

    doc = load_bytes(_docx(build), "h.docx")
    found = {(f.kind, doc.text[f.start : f.end]) for f in doc.findings}
    assert found == {
        (FindingKind.INVISIBLE_TEXT, "Hidden words."),
        (FindingKind.WHITE_TEXT, "white words"),
        (FindingKind.TINY_TEXT, "tiny words"),
    }
    assert "Hidden words." in doc.text  # shown to the user, never dropped


def test_white_text_on_a_dark_cell_is_not_hidden() -> None:
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    def build(d):  # type: ignore[no-untyped-def]
        cell = d.add_table(rows=1, cols=1).rows[0].cells[0]
        cell._tc.get_or_add_tcPr().append(parse_xml(f'<w:shd {nsdecls("w")} w:fill="1F3864"/>'))
        cell.paragraphs[0].add_run("SKILLS").font.color.rgb = RGBColor(0xFF, 0xFF, 0xFF)

    doc = load_bytes(_docx(build), "dark.docx")
    assert doc.text == "SKILLS\n" and doc.findings == []


@pytest.mark.parametrize(
    ("data", "name", "problem", "words"),
    [
        (
            OLE_MAGIC + b"\0" * 64 + "EncryptedPackage".encode("utf-16-le"),
            "cv.docx",
            DocProblem.ENCRYPTED,
            "password",
        ),
        (OLE_MAGIC + b"\0" * 512, "cv.doc", DocProblem.UNSUPPORTED, ".docx"),
        (b"PK\x03\x04broken zip", "cv.docx", DocProblem.CORRUPT, "damaged"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 100, "scan.png", DocProblem.NO_TEXT, "OCR"),
        (b"\xff\xd8\xff\xe0" + b"\0" * 100, "scan.pdf", DocProblem.NO_TEXT, "OCR"),
        (b"{\\rtf1\\ansi Jane}", "cv.rtf", DocProblem.UNSUPPORTED, "RTF"),
        (bytes(range(256)) * 4, "cv.txt", DocProblem.UNSUPPORTED, "binary"),
        (b"hello", "cv.xlsx", DocProblem.UNSUPPORTED, ".xlsx"),
    ],  # fmt: skip
    ids=[
        "encrypted-docx",
        "legacy-doc",
        "broken-docx",
        "png",
        "jpeg-named-pdf",
        "rtf",
        "binary",
        "xlsx",
    ],
)
def test_unreadable_files_say_what_to_do(
    data: bytes, name: str, problem: DocProblem, words: str
) -> None:
    with pytest.raises(DocumentError) as err:
        load_bytes(data, name)
    assert err.value.problem is problem
    assert words in err.value.message and name in err.value.message


def test_a_spreadsheet_is_not_taken_for_a_word_file() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("xl/workbook.xml", "<workbook/>")
    with pytest.raises(DocumentError) as err:
        load_bytes(out.getvalue(), "cv.docx")
    assert err.value.problem is DocProblem.UNSUPPORTED


def test_text_files_in_other_encodings() -> None:
    russian = "Иван Петров\nОпыт работы: аналитик данных, 2019–2023\n"
    doc = load_bytes(russian.encode("cp1251"), "cv.txt")
    assert doc.text == russian and doc.encoding == "cp1251"
    assert any("cp1251" in w for w in doc.warnings)
    western = "José Peña – Café Olé\n"
    doc = load_bytes(western.encode("cp1252"), "cv.txt")
    assert doc.text == western and doc.encoding == "cp1252"
    doc = load_bytes(western.encode("utf-8"), "cv.md")
    assert doc.encoding == "utf-8" and not doc.warnings


def test_pasted_text_is_cleaned_and_empty_paste_refused() -> None:
    doc = load_pasted("  Jane Doe\r\n\u2022 SQL   and Python\n")
    assert doc.text == "Jane Doe\n- SQL and Python\n" and doc.kind == "pasted"
    with pytest.raises(DocumentError) as err:
        load_pasted(" \n\uf0e0 \n")
    assert err.value.problem is DocProblem.EMPTY


def test_limits_are_configurable(tmp_path: Path) -> None:
    pdf = PdfDoc()
    for n in range(3):
        pdf.page().text(54, 700, f"Jane Doe analysed data with SQL on page {n + 1} of 3.", 10)
    path = tmp_path / "three.pdf"
    path.write_bytes(pdf.to_bytes())
    with pytest.raises(DocumentError) as err:
        load_file(path, max_pages=2)
    assert err.value.problem is DocProblem.TOO_MANY_PAGES and "limit is 2" in err.value.message
    assert load_file(path, max_pages=3).pages == 3
    with pytest.raises(DocumentError) as err:
        load_file(path, max_bytes=100)
    assert err.value.problem is DocProblem.TOO_LARGE


def test_pages_and_page_starts_are_recorded() -> None:
    pdf = PdfDoc()
    for n in range(3):
        pdf.page().text(54, 700, f"Page {n + 1}: Jane Doe analysed sales data with SQL.", 10)
    doc = load_bytes(pdf.to_bytes(), "three.pdf")
    assert doc.pages == 3
    assert [doc.text[s:].split("\n")[0] for s in doc.page_starts] == [
        f"Page {n}: Jane Doe analysed sales data with SQL." for n in (1, 2, 3)
    ]
    assert doc.page_of(doc.page_starts[2] + 3) == 3
    assert doc.characters == len(doc.text)


def test_a_page_without_text_is_warned_about() -> None:
    pdf = PdfDoc()
    pdf.page().text(54, 700, "Jane Doe, data analyst, writes SQL and Python every day.", 10)
    pdf.page().image(50, 50, 500, 700, 20, 20, bytes(range(200)) * 2)
    doc = load_bytes(pdf.to_bytes(), "half-scanned.pdf")
    assert any("Page(s) 2" in w and "OCR" in w for w in doc.warnings)
