"""Time and size of every report output for a large audit, and of re-opening its bundle.

Run: .venv/bin/python benchmarks/report_speed.py [RESUMES] [REPEATS]

Builds a D1 audit of RESUMES source resumes (default 20: copies of the four
sample resumes under new names) with every pair asked REPEATS times in both
orders (default 20; 20 x 20 gives 560 pairs and 22,400 answers), answered by a
deterministic imperfect screener written straight into the result file (no
HTTP, so only the report is timed). Then times metrics_report, the HTML, the PDF,
the XLSX, the CSV files, the bundle and its import, one after the other as
`resume-auditor report` does, and prints each file's size.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

from resume_auditor.domain.study import ModelSpec
from resume_auditor.report.document import build_document
from resume_auditor.report.html import render_html
from resume_auditor.report.pdf import html_to_pdf
from resume_auditor.resources import resource
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.bundle import export_bundle, import_bundle
from resume_auditor.workflow.metrics import metrics_report
from resume_auditor.workflow.prepare import prepare
from resume_auditor.workflow.reporting import write_report
from resume_auditor.workflow.studyfile import read_study

STUDY = """
format = 1
[study]
name = "Report benchmark"
seed = 5
[job]
file = "job.md"
[resumes]
files = ["resumes/*.pdf"]
[model]
provider = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
model = "bench-model"
[run]
repeats = {repeats}
[designs.d1]
groups = ["black_woman", "black_man", "white_woman", "white_man"]
k = [1]
"""


def build(folder: Path, resumes: int, repeats: int) -> Path:
    sample = resource("sample")
    (folder / "resumes").mkdir()
    shutil.copy(sample / "job.md", folder / "job.md")
    sources = sorted((sample / "resumes").glob("*.pdf"))
    for i in range(resumes):
        shutil.copy(sources[i % len(sources)], folder / "resumes" / f"cv-{i:03d}.pdf")
    (folder / "study.toml").write_text(STUDY.format(repeats=repeats))
    study = read_study(folder / "study.toml")
    out = folder / "bench.audit"
    spec = ModelSpec("openai-compatible", "http://127.0.0.1:9/v1", "bench-model")
    prepared = prepare(study, out, spec)
    with ResultFile(out) as result:
        for request in result.open_requests(prepared.run_id):
            u = int.from_bytes(hashlib.sha256(str(request.id).encode()).digest()[:4], "big")
            label = ("first", "second", "abstain", "abstain", "first")[u % 5]
            text = f"Resume {1 if label == 'first' else 2} fits better. <answer>{label}</answer>"
            raw = {"model": "bench-model-2025", "choices": [{"message": {"content": text}}]}
            result.record_response(
                request.id, raw, text, label, text.split(" <")[0], (900, 20, 0, 0), "bench", 0.1
            )
    return out


def timed(label: str, fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    value = fn()
    print(f"{label:<26} {time.perf_counter() - t0:7.2f} s")
    return value


def size(path: Path) -> str:
    total = sum(p.stat().st_size for p in path.rglob("*")) if path.is_dir() else path.stat().st_size
    return f"{total / 1e6:.2f} MB"


def main(argv: list[str]) -> int:
    resumes = int(argv[1]) if len(argv) > 1 else 20
    repeats = int(argv[2]) if len(argv) > 2 else 20
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = timed("build the audit", lambda: build(folder, resumes, repeats))
        with ResultFile(path) as result:
            answers = len(result.answers(result.runs()[-1].id, design="D1"))
            print(f"{resumes} resumes, {result.case_count('D1')} pairs, {answers:,} answers")
            metrics = timed("metrics_report", lambda: metrics_report(result))
            doc = timed("report document", lambda: build_document(result, metrics))
        html = timed("HTML", lambda: render_html(doc))
        timed("PDF", lambda: html_to_pdf(html))
        for kind, target in (("xlsx", folder / "r.xlsx"), ("csv_dir", folder / "csv")):
            timed(
                kind.upper().removesuffix("_DIR"),
                lambda k=kind, t=target: write_report(path, **{k: t}),
            )
        timed("bundle", lambda: export_bundle(path, folder / "b.zip"))
        imported = timed(
            "import + recompute", lambda: import_bundle(folder / "b.zip", folder / "copy.audit")
        )
        assert imported.identical, imported.differences[:5]
        (folder / "r.html").write_text(html, encoding="utf-8")
        timed(
            "all, as the CLI does",
            lambda: write_report(
                path,
                html=folder / "a.html",
                pdf=folder / "a.pdf",
                xlsx=folder / "a.xlsx",
                csv_dir=folder / "acsv",
                bundle=folder / "a.zip",
            ),
        )
        for name in ("a.html", "a.pdf", "a.xlsx", "acsv", "a.zip", "bench.audit"):
            print(f"  {name:<12} {size(folder / name)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
