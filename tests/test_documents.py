from __future__ import annotations

import io
from pathlib import Path

import pytest
from devtools.pdfgen import PdfDoc
from pypdf import PdfReader, PdfWriter

from resume_auditor.documents.errors import DocProblem, DocumentError
from resume_auditor.documents.load import load_bytes, load_file

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"


def _text_pdf(lines: list[str], pages: int = 1) -> bytes:
    doc = PdfDoc()
    for _ in range(pages):
        page = doc.page()
        y = 740.0
        for line in lines:
            page.text(54, y, line, 10)
            y -= 14
    return doc.to_bytes()


def test_sample_resumes_load_with_text() -> None:
    for pdf in sorted((SAMPLE / "resumes").glob("*.pdf")):
        doc = load_file(pdf)
        assert doc.pages == 1
        assert "EXPERIENCE" in doc.text
        assert "SQL" in doc.text


def test_scanned_pdf_without_text_layer_is_explained() -> None:
    doc = PdfDoc()
    doc.page().image(50, 50, 500, 700, 40, 60, bytes((x * 7) % 256 for x in range(40 * 60)))
    with pytest.raises(DocumentError) as err:
        load_bytes(doc.to_bytes(), "scan.pdf")
    assert err.value.problem is DocProblem.NO_TEXT
    assert "OCR" in err.value.message


def test_encrypted_pdf_needs_password() -> None:
    reader = PdfReader(io.BytesIO(_text_pdf(["Jane Doe", "Data analyst with SQL and Python"] * 3)))
    writer = PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    writer.encrypt("s3cret", algorithm="AES-128")
    buf = io.BytesIO()
    writer.write(buf)
    data = buf.getvalue()
    with pytest.raises(DocumentError) as err:
        load_bytes(data, "locked.pdf")
    assert err.value.problem is DocProblem.ENCRYPTED
    with pytest.raises(DocumentError) as err:
        load_bytes(data, "locked.pdf", password="wrong")
    assert err.value.problem is DocProblem.WRONG_PASSWORD
    assert "Jane Doe" in load_bytes(data, "locked.pdf", password="s3cret").text


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.4\n" + bytes(range(256)) * 20,
        _text_pdf(["Jane Doe", "SQL and Python"] * 5)[:300],
    ],
    ids=["garbage", "truncated"],
)
def test_corrupt_pdf_is_explained(data: bytes) -> None:
    with pytest.raises(DocumentError) as err:
        load_bytes(data, "broken.pdf")
    assert err.value.problem in (DocProblem.CORRUPT, DocProblem.NO_TEXT)
    assert "broken.pdf" in err.value.message


def test_limits_and_empty_and_unsupported(tmp_path: Path) -> None:
    with pytest.raises(DocumentError) as err:
        load_bytes(_text_pdf(["Jane Doe works with SQL daily"] * 3, pages=60), "long.pdf")
    assert err.value.problem is DocProblem.TOO_MANY_PAGES
    with pytest.raises(DocumentError) as err:
        load_bytes(b"x" * 2000, "big.txt", max_bytes=1000)
    assert err.value.problem is DocProblem.TOO_LARGE
    with pytest.raises(DocumentError) as err:
        load_bytes(b"   \n", "empty.txt")
    assert err.value.problem is DocProblem.EMPTY
    with pytest.raises(DocumentError) as err:
        load_bytes(b"PK\x03\x04zipdata", "resume.xlsx")
    assert err.value.problem is DocProblem.UNSUPPORTED
    with pytest.raises(DocumentError) as err:
        load_file(tmp_path / "nope.pdf")
    assert err.value.problem is DocProblem.NOT_FOUND


def test_text_files_in_legacy_encodings() -> None:
    text = "Ren\u00e9e O\u2019Neil \u2013 r\u00e9sum\u00e9\n"
    assert load_bytes(text.encode("cp1252"), "r.txt").text.startswith("Ren\u00e9e O\u2019Neil")
    assert load_bytes(text.encode("utf-8"), "r.md").text.startswith("Ren\u00e9e")
    assert load_bytes(text.encode("utf-16"), "r.txt").text.startswith("Ren\u00e9e")
