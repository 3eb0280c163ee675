"""What reading a resume into an audit file tells the user before any run."""

from __future__ import annotations

from pathlib import Path

from devtools.corpus import build_corpus

from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.ingest import ingest_resume

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample" / "resumes"


def test_findings_are_noted_when_a_resume_is_added(tmp_path: Path) -> None:
    docs = {d.name: d for d in build_corpus(include_long=False)}
    with ResultFile(tmp_path / "a.audit", create=True) as result:
        _, note = ingest_resume(result, "ethan.pdf", docs["ethan-hidden-text.pdf"].data)
        assert note.startswith("Look before any run: instruction to an AI (2), white text")
        _, note = ingest_resume(result, "priya.pdf", docs["priya-two-column.pdf"].data)
        assert "demographic mention (2)" in note
        for pdf in sorted(SAMPLE.glob("*.pdf")):
            assert ingest_resume(result, pdf.name, pdf.read_bytes())[1] == ""
