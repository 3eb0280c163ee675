"""`resume-auditor report`: PDF, XLSX and CSV, and plain errors."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader
from report_fixtures import copy_audit, original_identities

from resume_auditor.cli import main
from resume_auditor.report import pdf as pdf_module
from resume_auditor.report.pdf import PdfUnavailable
from resume_auditor.report.verdict import build_verdict
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.design_tables import pair_table


@pytest.fixture(scope="module")
def audit(sample_audit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file of the sample study (two runs) for the commands; the tests read what it
    holds in memory (`sample_memory`)."""
    return copy_audit(sample_audit, tmp_path_factory.mktemp("audit") / "sample.audit")


@pytest.fixture(scope="module")
def outputs(audit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("out")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESUME_AUDITOR_DATA_DIR", str(folder / "data"))
        code = main(
            [
                "report",
                str(audit),
                "--html",
                str(folder / "report.html"),
                "--pdf",
                str(folder / "report.pdf"),
                "--xlsx",
                str(folder / "data.xlsx"),
                "--csv",
                str(folder / "csv"),
            ]
        )
    assert code == 0
    return folder


def _d1_answers(result: ResultFile) -> int:
    """D1 answers of every run: the judgments export has one row for each."""
    return sum(len(pair_table(result, result.answers(r.id, design="D1"))) for r in result.runs())


def _metrics(audit: Path, capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    capsys.readouterr()
    assert main(["metrics", str(audit), "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_pdf_is_the_report(
    outputs: Path, audit: Path, sample_memory: ResultFile, capsys: pytest.CaptureFixture[str]
) -> None:
    reader = PdfReader(outputs / "report.pdf")
    assert len(reader.pages) >= 5
    first = " ".join((reader.pages[0].extract_text() or "").split())
    metrics = _metrics(audit, capsys)
    verdict = build_verdict(metrics)
    assert " ".join(verdict.headline.split()[:6]) in first
    cv = metrics["d1"]["metrics"]["criterion_validity"]
    assert f"{100 * cv['value']:.0f}%" in first
    assert "page 1 of" in first
    text = " ".join(" ".join((p.extract_text() or "").split()) for p in reader.pages)
    # the sample audit holds two models: they are compared in section 4
    for heading in (
        "1. Method",
        "2. Validity",
        "3. Fairness",
        "4. Models compared",
        "5. Examples",
        "6. Limitations",
    ):
        assert heading in text
    for identity in original_identities(sample_memory):
        assert identity not in text


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs poppler-utils (pdftoppm)")
def test_pdf_pages_render_as_images(outputs: Path, tmp_path: Path) -> None:
    subprocess.run(
        [
            "pdftoppm",
            "-r",
            "30",
            "-png",
            "-f",
            "1",
            "-l",
            "2",
            str(outputs / "report.pdf"),
            str(tmp_path / "p"),
        ],
        check=True,
        capture_output=True,
    )
    pages = sorted(tmp_path.glob("p-*.png"))
    assert len(pages) == 2 and all(p.stat().st_size > 2000 for p in pages)


def test_xlsx_cases_judgments_metrics(
    outputs: Path, audit: Path, sample_memory: ResultFile, capsys: pytest.CaptureFixture[str]
) -> None:
    wb = load_workbook(outputs / "data.xlsx")
    assert wb.sheetnames == [
        "About",
        "Cases",
        "Judgments",
        "Design answers",
        "Metrics",
        "Failed requests",
        # D2's, D3's and D4's tidy tables, the statistics' own inputs
        # (docs/stats-inputs.md), as every design kept as a unit gives them
        # (Design.answer_frames)
        "d2_ratings",
        "d3_pointwise",
        "d3_pairwise",
        "d4_scores",
        "d4_rankings",
        # the sample audit's two models compared (docs/comparison.md)
        "models",
        "models_values",
        "models_differences",
        "models_alike",
    ]
    result = sample_memory
    pairs = result.case_count("D1")
    answered = _d1_answers(result)
    assert wb["Cases"].max_row == pairs + 1
    assert wb["Judgments"].max_row == answered + 1
    header = [c.value for c in wb["Judgments"][1]]
    column = header.index("justification") + 1
    texts = [wb["Judgments"].cell(row=r, column=column) for r in range(2, answered + 2)]
    injected = [c for c in texts if str(c.value).startswith("=HYPERLINK")]
    assert injected, "the fixture model answers with a formula-like justification"
    assert all(c.data_type == "s" for c in injected)  # text, never a formula
    metrics = _metrics(audit, capsys)
    rows = {r[0].value: r for r in wb["Metrics"].iter_rows(min_row=2)}
    cv = rows["d1.metrics.criterion_validity"]
    mheader = [c.value for c in wb["Metrics"][1]]
    assert (
        cv[mheader.index("value")].value == metrics["d1"]["metrics"]["criterion_validity"]["value"]
    )
    with zipfile.ZipFile(outputs / "data.xlsx") as zf:
        sheets = "".join(zf.read(n).decode("utf-8") for n in zf.namelist() if n.endswith(".xml"))
    assert "<f>" not in sheets
    for identity in original_identities(sample_memory):
        assert identity not in sheets


def test_csv_files(outputs: Path, sample_memory: ResultFile) -> None:
    folder = outputs / "csv"
    assert sorted(p.name for p in folder.iterdir()) == [
        "cases.csv",
        "d2_ratings.csv",
        "d3_pairwise.csv",
        "d3_pointwise.csv",
        "d4_rankings.csv",
        "d4_scores.csv",
        "design_answers.csv",
        "failed_requests.csv",
        "judgments.csv",
        "metrics.csv",
        "models.csv",
        "models_alike.csv",
        "models_differences.csv",
        "models_values.csv",
    ]
    rows = list(csv.DictReader(io.StringIO((folder / "judgments.csv").read_text(encoding="utf-8"))))
    assert len(rows) == _d1_answers(sample_memory)
    guarded = [r["justification"] for r in rows if "HYPERLINK" in r["justification"]]
    assert guarded and all(t.startswith("'=") for t in guarded)
    assert {r["picked"] for r in rows} <= {"A", "B", "abstain", "unreadable"}
    assert {r["shown_first"] for r in rows} == {"A", "B"}
    # D2-D4 answers are in the exports too, not only in the SQLite file and the bundle
    design = list(
        csv.DictReader(io.StringIO((folder / "design_answers.csv").read_text(encoding="utf-8")))
    )
    assert {r["design"] for r in design} == {"D2", "D3", "D4"}
    assert all(r["parsed"].startswith("{") for r in design)
    for identity in original_identities(sample_memory):
        for path in folder.iterdir():
            assert identity not in path.read_text(encoding="utf-8")


def test_nothing_asked_or_nothing_to_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], audit: Path
) -> None:
    assert main(["report", str(audit)]) == 2
    assert "say what to write" in capsys.readouterr().err
    assert (
        main(["report", str(tmp_path / "missing.audit"), "--html", str(tmp_path / "r.html")]) == 2
    )
    assert "There is no result file" in capsys.readouterr().err
    not_audit = tmp_path / "notes.txt"
    not_audit.write_text("hello")
    assert main(["report", str(not_audit), "--html", str(tmp_path / "r.html")]) == 2
    assert "resume-auditor:" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


def test_an_output_that_fails_does_not_stop_the_others(
    audit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_engine(html: str) -> bytes:
        raise PdfUnavailable("The PDF report needs WeasyPrint and the Pango text library.")

    monkeypatch.setattr("resume_auditor.workflow.reporting.html_to_pdf", no_engine)
    blocker = tmp_path / "csv-is-a-file"
    blocker.write_text("")
    code = main(
        [
            "report",
            str(audit),
            "--pdf",
            str(tmp_path / "r.pdf"),
            "--html",
            str(tmp_path / "r.html"),
            "--csv",
            str(blocker),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "PDF not written: The PDF report needs WeasyPrint" in err
    assert "CSV not written" in err and "Traceback" not in err
    assert (tmp_path / "r.html").exists() and not (tmp_path / "r.pdf").exists()
    assert not list(tmp_path.glob(".*partial"))


def test_missing_pango_is_a_plain_message(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "weasyprint":
            # What WeasyPrint does without Pango: a banner on stdout, then the error.
            print("WeasyPrint could not import some external libraries.")
            raise OSError("cannot load library 'libpango-1.0-0'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(PdfUnavailable) as caught:
        pdf_module.html_to_pdf("<p>x</p>")
    # One line the user can paste, on a line of its own.
    lines = [line.strip() for line in str(caught.value).splitlines()]
    assert "sudo apt-get install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0" in lines
    assert "WeasyPrint could not import" not in capsys.readouterr().out
