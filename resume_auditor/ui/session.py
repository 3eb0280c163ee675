"""The open audit: its file, what the pages show of it, and the edits made to it.

Every edit is written to the audit file at once (that is the autosave). Edits to
the job, resumes or settings clear the test cases, which must then be built again;
once a model has answered, the audit's inputs are fixed and the pages say so.
Slow work (reading PDFs, building cases) runs in the background.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from resume_auditor.designs.registry import DESIGNS
from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.job import Job
from resume_auditor.domain.qualtext import QualText
from resume_auditor.domain.study import StudyConfig, study_to_dict
from resume_auditor.paths import audits_dir, default_result_path
from resume_auditor.store import writelock
from resume_auditor.store.backup import make_backup
from resume_auditor.store.errors import AuditDamaged
from resume_auditor.store.resultfile import ResultFile, ResumeRecord, RunRecord
from resume_auditor.store.source import AuditSource, FileSource, MemorySource
from resume_auditor.ui.tasks import TaskControl, run_cancellable, run_in_background
from resume_auditor.workflow.bundle import import_bundle
from resume_auditor.workflow.cases import Unbuilt, build_cases, unbuilt_questions
from resume_auditor.workflow.prepare import prepare, study_of
from resume_auditor.workflow.studyfile import read_study

logger = logging.getLogger(__name__)
_generations = itertools.count(1)


@dataclass
class AuditData:
    path: Path
    study: StudyConfig
    job: Job | None
    resumes: list[ResumeRecord]
    variants: dict[int, Variant]
    pairs: list[Case]
    runs: list[RunRecord]
    answered: int
    notes: list[str] = field(default_factory=list)
    quals: list[QualText] = field(default_factory=list)  # qualification texts (any origin)
    case_count: int = 0  # every other case (the pairs with a right answer are `pairs`)
    # what the study asks that no built case can answer (the Test cases step's ⚠)
    unbuilt: list[Unbuilt] = field(default_factory=list)
    answered_by_run: dict[int, int] = field(default_factory=dict)  # answers per run id
    # the prompt presets of each run's requests, most used first (a run is named by them);
    # read with the rest, off the UI thread: it reads every request (75 ms at 50,000)
    presets_by_run: dict[int, list[str]] = field(default_factory=dict)
    # the newest run has every request answered or given up (the Run step's ✓)
    latest_finished: bool = False
    # A new number each time the audit is read from disk; the same object (and
    # number) after a run, when only runs and answers changed.
    generation: int = field(default_factory=lambda: next(_generations))

    @property
    def editable(self) -> bool:
        """Inputs can change only until a model has answered."""
        return self.answered == 0


def load_audit(
    path: Path, notes: list[str] | None = None, control: TaskControl | None = None
) -> AuditData:
    """Read what the pages show; with a `control`, say each step and stop between steps
    when the user cancels (a big audit's resumes and cases take seconds to read)."""

    def step(text: str) -> None:
        if control is not None:
            control.check()
            control.progress(text)

    with ResultFile(path) as result:
        return read_audit(result, notes, step)


def read_audit(
    result: ResultFile,
    notes: list[str] | None = None,
    step: Callable[[str], None] = lambda _text: None,
) -> AuditData:
    """`load_audit` on an audit already open (its file, or a copy held in memory)."""
    path = result.path
    step(f"Opening {path.name}: the job and settings…")
    study = study_of(result)
    job = result.job() if result.has_job() else None
    step(f"Opening {path.name}: the resumes…")
    resumes = result.resumes()
    step(f"Opening {path.name}: the test cases…")
    variants = {v.id or 0: v for v in result.variants()}
    pairs = [c for d in DESIGNS if d.pair_tab for c in result.cases(d.label)]
    step(f"Opening {path.name}: the runs and answers…")
    runs = result.runs()
    answered = result.answered_count()
    by_run = result.answered_by_run()
    presets = result.presets_by_run()
    latest_finished = _latest_finished(result)
    quals = result.qual_texts()
    case_count = result.case_count() - len(pairs)  # all but the pairs
    unbuilt = unbuilt_questions(result, study) if result.case_count() else []
    step(f"Opening {path.name}: showing it…")
    return AuditData(
        path=path,
        study=study,
        job=job,
        resumes=resumes,
        variants=variants,
        pairs=pairs,
        runs=runs,
        answered=answered,
        notes=notes or [],
        quals=quals,
        case_count=case_count,
        unbuilt=unbuilt,
        answered_by_run=by_run,
        presets_by_run=presets,
        latest_finished=latest_finished,
    )


def _latest_finished(result: ResultFile) -> bool:
    """Whether the newest run has nothing left to send (read with the audit, off the
    UI thread: a run's progress reads every request of it, 50 ms at 10,000)."""
    run = result.latest_run()
    return bool(run and result.progress(run.id).finished)


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
    prepared = prepare(study, target, generate=False)  # the Test cases page has a button
    # the study file's own notes first (e.g. a key taken out of an address)
    return load_audit(prepared.path, [*study.notes, *prepared.notes])


def import_and_load(bundle: Path) -> AuditData:
    """A bundle becomes a new audit file in the audits folder, its numbers recomputed."""
    target = audits_dir() / f"{bundle.stem}.audit"
    n = 2
    while target.exists():
        target = audits_dir() / f"{bundle.stem}-{n}.audit"
        n += 1
    imported = import_bundle(bundle, target)
    notes = list(imported.notes)
    if imported.identical:
        notes.insert(0, "Every number recomputed from the bundle matches the bundle's own.")
    else:
        notes.insert(
            0,
            "Some recomputed numbers differ from the bundle's: " + "; ".join(imported.differences),
        )
    return load_audit(imported.path, notes)


def _checked(load: Callable[[], AuditData], control: TaskControl) -> AuditData:
    """A step that cannot stop midway: checked for Cancel before and after it."""
    control.check()
    data = load()
    control.check()
    return data


def _held(load: Callable[[], AuditData]) -> tuple[AuditData, writelock.WriterLock]:
    """Load an audit and claim it: while it is open here, no other program writes it."""
    data = load()
    lock = writelock.hold(data.path)  # AuditInUse names the other program
    return data, lock


class Session(QObject):
    """Signals: loaded(AuditData), failed(str), damaged(AuditDamaged), busy(str),
    cancelled(str) when the user stopped an opening, closed() when a closing audit's
    backup is done and its lock let go.

    The session holds the open audit's writer lock (store/writelock.py) until it
    opens another or closes, and backs the audit up as it lets go of it.
    """

    loaded = Signal(object)
    failed = Signal(str)
    damaged = Signal(object)  # AuditDamaged: the window offers the backup
    busy = Signal(str)
    cancelled = Signal(str)
    closed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.data: AuditData | None = None
        self._db: ResultFile | None = None
        self._memory: ResultFile | None = None  # an audit held in memory, not a file
        self._writer: writelock.WriterLock | None = None
        self._opening: TaskControl | None = None
        self._closing = 0  # backups still being written in the background

    def db(self) -> ResultFile:
        """The UI thread's own connection to the open audit, kept open.

        Opening and closing a connection for every small query costs time, and the
        last connection to close checkpoints SQLite's write-ahead log, which can take
        tens of milliseconds on a big audit: keeping this one open keeps that off the
        UI thread. Background workers open their own connections (`source`).
        """
        assert self.data is not None, "no audit is open"
        if self._memory is not None:
            return self._memory
        if self._db is None or self._db.path != self.data.path:
            self.close_db()
            self._db = ResultFile(self.data.path)
        return self._db

    def source(self) -> AuditSource:
        """Where a worker reads the open audit: its file, or a copy of the audit held
        in memory (`show_in_memory`)."""
        assert self.data is not None, "no audit is open"
        if self._memory is not None:
            return MemorySource(self._memory)
        return FileSource(self.data.path)

    def show_in_memory(self, result: ResultFile) -> None:
        """Show an audit held in memory (`ResultFile.in_memory`), read on this thread:
        for tests and previews of the pages that only read it. No file, no lock; the
        caller keeps and closes `result`, and workers read copies of it (`source`).
        What works on a path (`reload`, `edit`, building cases) still needs a file."""
        self.close_db()
        self._memory = result
        self._done(read_audit(result))

    def close_db(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def close_audit(self) -> None:
        """Let go of the open audit now, backing it up first (blocks: for tests and exit)."""
        self.close_db()
        writer, self._writer = self._writer, None
        if writer is not None:
            make_backup(writer.path)
            writer.release()

    @property
    def holds_audit(self) -> bool:
        """Whether an audit is claimed here (closing it means a backup first)."""
        return self._writer is not None

    @property
    def closing(self) -> bool:
        return self._closing > 0

    def close_audit_in_background(self) -> None:
        """Let go of the open audit without blocking the window: the backup of a big
        audit takes seconds (2.5 s for 200 MB), so it runs in a worker; the lock is
        let go on the UI thread once the copy is made, then `closed` is emitted.

        A backup cannot stop midway, and need not: if the app quits meanwhile, the
        half-made copy is a separate file and the previous backup stays in place.
        """
        self.close_db()
        writer, self._writer = self._writer, None
        if writer is None:
            self.closed.emit()
            return
        self._closing += 1
        path = writer.path

        def finished(_result: object = None) -> None:
            writer.release()
            self._closing -= 1
            self.closed.emit()

        def failed(exc: Exception) -> None:
            logger.warning("could not back up %s: %s", path, exc)
            finished()

        run_in_background(lambda: make_backup(path), finished, failed, owner=self)

    @property
    def path(self) -> Path | None:
        return None if self.data is None else self.data.path

    # -- opening -----------------------------------------------------------------------

    def open_file(self, path: str | Path) -> None:
        path = Path(path)
        self.cancel_open()  # a second Open replaces the first
        if path.suffix.lower() == ".zip":
            self.busy.emit(
                f"Opening the bundle {path.name}: recomputing every number… This step "
                "cannot stop midway: Cancel brings you back at once and the step finishes "
                "unseen."
            )
            self._open(lambda c: _checked(lambda: import_and_load(path), c))
        elif path.suffix.lower() == ".toml":
            self.busy.emit(
                f"Preparing {path.name}: reading documents and building test cases… This "
                "step cannot stop midway: Cancel brings you back at once and the step "
                "finishes unseen."
            )
            self._open(lambda c: _checked(lambda: prepare_and_load(path), c))
        else:
            self.busy.emit(f"Opening {path.name}…")
            self._open(lambda c: load_audit(path, control=c))

    def _open(self, load: Callable[[TaskControl], AuditData]) -> None:
        self._opening = run_cancellable(
            lambda c: _held(lambda: load(c)),
            self._opened,
            self._error,
            on_progress=self.busy.emit,
            on_cancelled=self._late,
            owner=self,
        )

    @property
    def opening(self) -> bool:
        return self._opening is not None

    def cancel_open(self) -> None:
        """Stop opening: the window goes back at once; the worker stops at its next step."""
        if self._opening is None:
            return
        self._opening.cancel()
        self._opening = None
        self.cancelled.emit(
            "Opening cancelled."
            + (" The audit that was open is still open." if self.data is not None else "")
        )

    @staticmethod
    def _late(result: tuple[AuditData, writelock.WriterLock] | None) -> None:
        """An opening cancelled after it had claimed its audit: let go of the claim."""
        if result is not None:
            result[1].release()

    def _opened(self, result: tuple[AuditData, writelock.WriterLock]) -> None:
        self._opening = None
        data, lock = result
        if self._writer is not None and self._writer.path != data.path:
            self.close_audit_in_background()
        elif self._writer is not None:
            lock.release()  # the same audit again: one claim is enough
            lock = self._writer
        self._writer = lock
        self._memory = None
        self._done(data)

    def reload(self) -> None:
        if self.data is not None:
            self.data = load_audit(self.data.path, self.data.notes)
            self.loaded.emit(self.data)

    def refresh_runs(self) -> None:
        """After a run: only the runs and the answer count changed, so read only those."""
        if self.data is None:
            return
        result = self.db()
        self.data.runs = result.runs()
        self.data.answered = result.answered_count()
        self.data.answered_by_run = result.answered_by_run()
        self.data.presets_by_run = result.presets_by_run()
        self.data.latest_finished = _latest_finished(result)
        self.loaded.emit(self.data)

    def reload_in_background(self) -> None:
        """Re-read the audit without blocking the window (a big audit takes a while)."""
        if self.data is not None:
            path, notes = self.data.path, self.data.notes
            run_in_background(lambda: load_audit(path, notes), self._done, self._error, owner=self)

    def _done(self, data: AuditData) -> None:
        self.data = data
        self.loaded.emit(data)

    def _error(self, exc: Exception) -> None:
        self._opening = None
        if isinstance(exc, AuditDamaged):
            self.damaged.emit(exc)
            return
        self.failed.emit(str(exc) or type(exc).__name__)

    # -- editing -----------------------------------------------------------------------

    def edit(self, change: Callable[[ResultFile], Any], *, clears_cases: bool = True) -> Any:
        """Apply a small edit now (UI thread), clearing the cases it invalidates."""
        assert self.data is not None
        result = self.db()
        with result.transaction():
            out = change(result)
            if clears_cases and result.case_count():
                result.clear_cases()
        self.reload()
        return out

    def save_settings(self, config: StudyConfig, *, clears_cases: bool = True) -> None:
        self.edit(
            lambda r: r.save_config(study_to_dict(config), config.name), clears_cases=clears_cases
        )

    def build_cases_in_background(
        self, on_done: Callable[[list[str]], None], on_error: Callable[[Exception], None]
    ) -> None:
        assert self.data is not None
        path = self.data.path

        def work() -> list[str]:
            with ResultFile(path) as result:
                return build_cases(result, study_of(result))

        def done(notes: list[str]) -> None:
            assert self.data is not None
            self.data.notes = notes
            self.reload()
            on_done(notes)

        run_in_background(work, done, on_error, owner=self)
