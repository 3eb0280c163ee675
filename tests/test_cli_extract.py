"""`resume-auditor extract`: clean text and findings, exit 0; a plain message and exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from devtools.corpus import PASSWORD, build_corpus, job_doc

from resume_auditor.cli import main


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    for doc in build_corpus(include_long=False):
        (folder / doc.name).write_bytes(doc.data)
    (folder / "job.pdf").write_bytes(job_doc()[0])
    return folder


def test_extract_prints_text_identity_and_findings(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extract", str(corpus / "ethan-hidden-text.pdf")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ETHAN J. KOWALCZYK\n")
    assert "Candidate: ETHAN J. KOWALCZYK" in out
    assert "white text, page 1" in out and "instruction to an AI" in out
    assert "removed from every test copy unless the study keeps them" in out


def test_extract_json_is_the_documented_shape(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["extract", str(corpus / "priya-two-column.pdf"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {
        "file", "kind", "pages", "characters", "page_starts", "warnings", "identity", "findings",
        "text", "two_column_pages",
    }  # fmt: skip
    assert data["identity"]["name"] == "Priya Raman"
    for slot in data["identity"]["slots"]:
        assert data["text"][slot["start"] : slot["end"]] == slot["text"]
    assert {f["category"] for f in data["findings"]} == {"gender", "race"}
    assert data["two_column_pages"] == [1]


def test_extract_job(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", "--job", str(corpus / "job.pdf"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["title"] == "Payroll Specialist"
    assert [q["kind"] for q in data["qualifications"]] == ["required"] * 4 + ["preferred"] * 2


@pytest.mark.parametrize(
    ("name", "extra", "words"),
    [
        ("scanned.pdf", [], "OCR"),
        ("marisol-encrypted.pdf", [], "--password"),
        ("marisol-encrypted.pdf", ["--password", "nope"], "not right"),
        ("marisol-truncated.pdf", [], "cut short"),
        ("marisol-one-column.pdf", ["--max-mb", "0.001"], "--max-mb"),
        ("missing.pdf", [], "no file"),
        ("marisol-one-column.pdf", ["--max-pages", "0"], "positive"),
    ],
)
def test_extract_bad_input_exits_2_with_a_message(
    corpus: Path, capsys: pytest.CaptureFixture[str], name: str, extra: list[str], words: str
) -> None:
    assert main(["extract", str(corpus / name), *extra]) == 2
    captured = capsys.readouterr()
    assert words in captured.err and captured.out == ""
    assert "Traceback" not in captured.err


def test_extract_with_the_password(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["extract", str(corpus / "marisol-encrypted.pdf"), "--password", PASSWORD]) == 0
    assert capsys.readouterr().out.startswith("Marisol Quintero\n")


def test_the_installed_command_fails_without_a_traceback(corpus: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "resume_auditor.cli", "extract", str(corpus / "scanned.pdf")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "no text layer" in proc.stderr and "Traceback" not in proc.stderr
