"""The open audit: its result file and what the pages show of it.

Lives on the UI thread with its own read connection to the result file; the
runner writes through another. Preparing a study (reading PDFs, building cases)
happens in the background.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import StudyConfig
from resume_auditor.paths import default_result_path
from resume_auditor.store.resultfile import ResultFile, ResumeRecord, RunRecord
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.workflow.prepare import prepare, study_of
from resume_auditor.workflow.studyfile import read_study

logger = logging.getLogger(__name__)


@dataclass
class AuditData:
    path: Path
    study: StudyConfig
    job: Job
    resumes: list[ResumeRecord]
    variants: dict[int, Variant]
    pairs: list[Case]
    runs: list[RunRecord]
    notes: list[str] = field(default_factory=list)


def load_audit(path: Path, notes: list[str] | None = None) -> AuditData:
    with ResultFile(path) as result:
        return AuditData(
            path=path,
            study=study_of(result),
            job=result.job(),
            resumes=result.resumes(),
            variants={v.id or 0: v for v in result.variants()},
            pairs=result.pairs(),
            runs=result.runs(),
            notes=notes or [],
        )


def prepare_and_load(study_path: Path, out: Path | None = None) -> AuditData:
    study = read_study(study_path)
    target = out or default_result_path(study.path)
    if target.exists():
        try:
            with ResultFile(target) as existing:
                same = existing.has_study() and existing.study()["toml"] == study.text
        except Exception:  # an unreadable old file: keep it, write a new one beside it
            same = False
        if not same:
            n = 2
            while (candidate := target.with_name(f"{target.stem}-{n}.audit")).exists():
                n += 1
            target = candidate
    prepared = prepare(study, target)
    return load_audit(prepared.path, prepared.notes)


class Session(QObject):
    """Signals: loaded(AuditData), failed(str), busy(str)."""

    loaded = Signal(object)
    failed = Signal(str)
    busy = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.data: AuditData | None = None

    @property
    def path(self) -> Path | None:
        return None if self.data is None else self.data.path

    def open_file(self, path: str | Path) -> None:
        path = Path(path)
        if path.suffix.lower() == ".toml":
            self.busy.emit(f"Preparing {path.name}: reading documents and building test cases...")
            run_in_background(lambda: prepare_and_load(path), self._done, self._error)
        else:
            self.busy.emit(f"Opening {path.name}...")
            run_in_background(lambda: load_audit(path), self._done, self._error)

    def reload(self) -> None:
        if self.data is not None:
            self.data = load_audit(self.data.path, self.data.notes)
            self.loaded.emit(self.data)

    def _done(self, data: AuditData) -> None:
        self.data = data
        self.loaded.emit(data)

    def _error(self, exc: Exception) -> None:
        self.failed.emit(str(exc) or type(exc).__name__)
