"""Write an audit's report and exports: HTML, PDF, XLSX, CSV and the bundle.

Shared by `resume-auditor report` and the app's Report page. The numbers are
computed once, by `metrics_report`, and every output is made from them; each
file is written whole or not at all. An output that cannot be made (no PDF
engine, a folder that is a file) is reported with a plain reason and does not
stop the others.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from resume_auditor.designs.registry import DESIGNS
from resume_auditor.report.atomic import write_bytes_atomic
from resume_auditor.report.comparison import comparison_frames
from resume_auditor.report.document import ReportDocument, build_document
from resume_auditor.report.html import render_html
from resume_auditor.report.pdf import PdfUnavailable, html_to_pdf
from resume_auditor.report.spreadsheet import write_csv_dir, write_xlsx
from resume_auditor.report.tables import (
    about_rows,
    cases_frame,
    design_answers_frame,
    failures_frame,
    judgments_frame,
    metrics_frame,
)
from resume_auditor.stats.model import MetricsReport
from resume_auditor.stats.thresholds import Thresholds
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.bundle import BundleError, export_bundle
from resume_auditor.workflow.compare import compare_runs
from resume_auditor.workflow.metrics import metrics_report

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Written:
    kind: str  # "html" | "pdf" | "xlsx" | "csv" | "bundle"
    path: Path
    error: str = ""  # why it was not written ("" when it was)

    @property
    def ok(self) -> bool:
        return not self.error


def report_document(
    path: str | Path,
    run_id: int | None = None,
    *,
    thresholds: Thresholds | None = None,
    now: datetime | None = None,
) -> ReportDocument:
    """The report of one run (default: the latest) as data, e.g. for a preview."""
    with ResultFile(path, readonly=True) as result:
        metrics = report_metrics(result, run_id, thresholds)
        return build_document(result, metrics, now=now)


def report_metrics(
    result: ResultFile, run_id: int | None, thresholds: Thresholds | None
) -> MetricsReport:
    """The report's metrics: the run's, with power, and every model of the audit compared
    on the same cases when it holds several (`comparison`, as `metrics --json` gives it)."""
    metrics = metrics_report(result, run_id, thresholds=thresholds, power=True)
    comparison = compare_runs(result)
    if comparison is not None:
        metrics["comparison"] = comparison
    return metrics


def report_html(path: str | Path, run_id: int | None = None, **kwargs: Any) -> str:
    return render_html(report_document(path, run_id, **kwargs))


def write_report(
    path: str | Path,
    run_id: int | None = None,
    *,
    html: str | Path | None = None,
    pdf: str | Path | None = None,
    xlsx: str | Path | None = None,
    csv_dir: str | Path | None = None,
    bundle: str | Path | None = None,
    thresholds: Thresholds | None = None,
    now: datetime | None = None,
) -> list[Written]:
    """Write each output asked for; returns what was written and what could not be.

    Raises ValueError (no run to report) or ResultFileError (not a result file)
    before anything is written.
    """
    now = now or datetime.now(UTC)
    outputs: list[Written] = []
    with ResultFile(path, readonly=True) as result:
        metrics = report_metrics(result, run_id, thresholds)
        text = ""
        if html is not None or pdf is not None:
            text = render_html(build_document(result, metrics, now=now))
        jobs: list[tuple[str, str | Path | None, Callable[[Path], Any]]] = [
            ("html", html, lambda p: write_bytes_atomic(p, text.encode("utf-8"))),
            ("pdf", pdf, lambda p: write_bytes_atomic(p, html_to_pdf(text))),
            ("xlsx", xlsx, lambda p: _xlsx(result, metrics, p, now)),
            ("csv", csv_dir, lambda p: _csv(result, metrics, p)),
        ]
        for kind, target, make in jobs:
            if target is not None:
                outputs.append(_attempt(kind, Path(target), make))
    if bundle is not None:
        outputs.append(
            _attempt(
                "bundle", Path(bundle), lambda p: export_bundle(path, p, thresholds=thresholds)
            )
        )
    return outputs


def _attempt(kind: str, target: Path, make: Callable[[Path], Any]) -> Written:
    try:
        make(target)
    except PdfUnavailable as exc:
        return Written(kind, target, str(exc))
    except BundleError as exc:
        return Written(kind, target, str(exc))
    except IsADirectoryError:
        return Written(kind, target, f"{target} is a folder; give a file name.")
    except NotADirectoryError as exc:
        return Written(kind, target, f"{exc}")
    except PermissionError:
        return Written(kind, target, f"No permission to write {target}.")
    except OSError as exc:
        return Written(kind, target, f"Could not write {target}: {exc.strerror or exc}.")
    logger.info("wrote %s %s", kind, target)
    return Written(kind, target)


def _frames(result: ResultFile, metrics: MetricsReport) -> dict[str, pd.DataFrame]:
    # every model of the audit compared, when it holds several: a table each
    compared = comparison_frames(metrics.get("comparison"))
    return (
        {
            "cases": cases_frame(result),
            "judgments": judgments_frame(result),
            "design_answers": design_answers_frame(result),
            "metrics": metrics_frame(metrics),
            "failed_requests": failures_frame(result),
        }
        | _registry_frames(result, metrics["run"]["id"])
        | compared
    )


def _registry_frames(result: ResultFile, run_id: int) -> dict[str, pd.DataFrame]:
    """Each registry design's tidy tables of the run (a sheet / CSV file each)."""
    out: dict[str, pd.DataFrame] = {}
    answers = result.answers(run_id)
    for design in DESIGNS:
        mine = answers[answers["design"] == design.label] if not answers.empty else answers
        if mine.empty:
            continue
        cases = {c.id or 0: c for c in result.cases(design.label)}
        for name, frame in design.answer_frames(cases, mine).items():
            out[name] = frame
    return out


_FIXED = ("cases", "judgments", "design_answers", "metrics", "failed_requests")


def _xlsx(result: ResultFile, metrics: MetricsReport, target: Path, now: datetime) -> Path:
    frames = _frames(result, metrics)
    sheets = {
        "Cases": frames["cases"],
        "Judgments": frames["judgments"],
        "Design answers": frames["design_answers"],
        "Metrics": frames["metrics"],
        "Failed requests": frames["failed_requests"],
    } | {name: frame for name, frame in frames.items() if name not in _FIXED}
    return write_xlsx(target, about_rows(metrics, now.isoformat(timespec="seconds")), sheets)


def _csv(result: ResultFile, metrics: MetricsReport, target: Path) -> list[Path]:
    return write_csv_dir(_frames(result, metrics), target)
