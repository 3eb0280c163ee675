"""Job: paste or load the job description; check and edit its qualifications."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStyledItemDelegate,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.documents.errors import DocumentError
from resume_auditor.documents.jobparse import read_checklist
from resume_auditor.documents.load import load_file
from resume_auditor.domain.job import Job, Qualification, QualKind, QualType
from resume_auditor.ui.models.checklist import KIND_LABELS, TYPE_LABELS, ChecklistModel
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.session import AuditData, Session
from resume_auditor.ui.tasks import run_in_background

SAVE_DELAY_MS = 600


class _ChoiceDelegate(QStyledItemDelegate):
    """A combo box for the Kind and Type columns."""

    def __init__(self, choices: dict[str, str]) -> None:
        super().__init__()
        self.choices = choices

    def createEditor(self, parent, option, index):  # type: ignore[no-untyped-def]  # noqa: N802
        box = QComboBox(parent)
        for value, label in self.choices.items():
            box.addItem(label, value)
        return box

    def setEditorData(self, editor, index):  # type: ignore[no-untyped-def]  # noqa: N802
        editor.setCurrentIndex(max(0, editor.findData(index.data(Qt.ItemDataRole.EditRole))))

    def setModelData(self, editor, model, index):  # type: ignore[no-untyped-def]  # noqa: N802
        model.setData(index, editor.currentData(), Qt.ItemDataRole.EditRole)


class JobPage(Page):
    title = "1. Job"
    next_label = "Next: the resumes →"

    def __init__(self, session: Session, undo: QUndoStack) -> None:
        super().__init__(
            "Paste or load the job you are hiring for, then check the qualifications read from "
            "it. Required ones decide who is qualified; preferred ones make a candidate "
            "stronger. Less-qualified test copies remove a required qualification. Every change "
            "is saved as you type."
        )
        self.session = session
        self.undo = undo
        self._loading = False
        self._path: Path | None = None
        self._source: tuple[str | None, bytes | None] = (None, None)

        self.banner = QLabel("")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("color: #8d6e00;")
        self.body.addWidget(self.banner)

        top = QHBoxLayout()
        top.addWidget(QLabel("Job title"))
        self.job_title = QLineEdit()
        self.job_title.setAccessibleName("Job title")
        self.job_title.textEdited.connect(self._schedule_save)
        top.addWidget(self.job_title, 1)
        self.load_button = QPushButton("Load from file…")
        self.load_button.setToolTip("A job description as text, Markdown or PDF.")
        self.load_button.clicked.connect(self._load_file)
        top.addWidget(self.load_button)
        self.body.addLayout(top)

        split = QSplitter(Qt.Orientation.Horizontal)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self.text = QPlainTextEdit()
        self.text.setAccessibleName("Job description text")
        self.text.setPlaceholderText("Paste the job description here…")
        self.text.textChanged.connect(self._text_changed)
        self.reparse_button = QPushButton("Read the checklist from this text")
        self.reparse_button.setToolTip(
            "Replace the checklist with the items under headings such as Requirements and "
            "Nice to have (or, without such headings, the lines worded as requirements). "
            "You can undo this."
        )
        self.reparse_button.clicked.connect(self._reparse)
        left_layout.addWidget(self.text, 1)
        left_layout.addWidget(self.reparse_button)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        self.model = ChecklistModel(undo)
        self.model.changed.connect(self._schedule_save)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("Qualifications checklist")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(
            ChecklistModel.COL_TEXT, QHeaderView.ResizeMode.Stretch
        )
        self._kind_delegate = _ChoiceDelegate({k.value: v for k, v in KIND_LABELS.items()})
        self._type_delegate = _ChoiceDelegate({k.value: v for k, v in TYPE_LABELS.items()})
        self.table.setItemDelegateForColumn(ChecklistModel.COL_KIND, self._kind_delegate)
        self.table.setItemDelegateForColumn(ChecklistModel.COL_TYPE, self._type_delegate)
        buttons = QHBoxLayout()
        self.add_required = QPushButton("Add required")
        self.add_preferred = QPushButton("Add preferred")
        self.remove_button = QPushButton("Remove")
        self.add_required.clicked.connect(lambda: self._add(QualKind.REQUIRED))
        self.add_preferred.clicked.connect(lambda: self._add(QualKind.PREFERRED))
        self.remove_button.clicked.connect(self._remove)
        for b in (self.add_required, self.add_preferred, self.remove_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.counts = QLabel("")
        # why the checklist is empty or doubtful, and what to do (jobparse's notes)
        self.advice = QLabel("")
        self.advice.setWordWrap(True)
        self.advice.setStyleSheet("color: #8d6e00;")
        self.advice.setAccessibleName("About the checklist")
        right_layout.addWidget(self.table, 1)
        right_layout.addLayout(buttons)
        right_layout.addWidget(self.counts)
        right_layout.addWidget(self.advice)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([450, 600])
        self.body.addWidget(split, 1)

        self._save_timer = QTimer(self)
        self._save_timer.setSingleShot(True)
        self._save_timer.setInterval(SAVE_DELAY_MS)
        self._save_timer.timeout.connect(self.save_now)

    # -- showing -----------------------------------------------------------------------

    def show_audit(self, data: AuditData) -> None:
        same_audit = self._path == data.path
        self._path = data.path
        editable = data.editable
        for w in (
            self.job_title,
            self.load_button,
            self.reparse_button,
            self.add_required,
            self.add_preferred,
            self.remove_button,
        ):
            w.setEnabled(editable)
        self.text.setReadOnly(not editable)
        self.model.editable = editable
        self.banner.setText(
            ""
            if editable
            else "A model has answered this audit, so its job is fixed. To change "
            "it, use File → New audit from this one."
        )
        if same_audit and self._save_timer.isActive():
            return  # the user is typing: keep what is on screen
        job = data.job
        self._loading = True
        try:
            self.job_title.setText(job.title if job else data.study.name)
            if not same_audit or self.text.toPlainText() != (job.text if job else ""):
                self.text.setPlainText(job.text if job else "")
            rows = job.qualifications if job else []
            if rows != self.model.rows:
                self.model.set_all(list(rows), undoable=False)
            if job is not None and job.text.strip():
                reading = read_checklist(job.text, job.title)
                self.model.set_reading(reading.job.qualifications, reading.notes)
            else:
                self.model.set_reading([], [])
        finally:
            self._loading = False
        if not same_audit:
            self.undo.clear()
        self._update_counts()

    def _update_counts(self) -> None:
        req = sum(1 for q in self.model.rows if q.kind is QualKind.REQUIRED)
        pref = len(self.model.rows) - req
        self.counts.setText(f"{req} required, {pref} preferred.")
        advice = self.model.advice() if self.text.toPlainText().strip() else ""
        self.advice.setText(f"\u26a0 {advice}" if advice else "")

    # -- editing -----------------------------------------------------------------------

    def _text_changed(self) -> None:
        if not self._loading:
            self._schedule_save()

    def _schedule_save(self) -> None:
        if self._loading:
            return
        self._update_counts()
        self._save_timer.start()

    def current_job(self) -> Job:
        return Job(
            title=self.job_title.text().strip() or "Untitled job",
            text=self.text.toPlainText(),
            qualifications=list(self.model.rows),
        )

    def save_now(self) -> None:
        """Write the job to the audit file (called after a short pause in typing)."""
        self._save_timer.stop()
        data = self.session.data
        if data is None or not data.editable:
            return
        job = self.current_job()
        if data.job == job:
            return
        name, raw = self._source
        self.session.edit(lambda r: r.replace_job(job, name, raw))

    def _reparse(self) -> None:
        text = self.text.toPlainText()
        if not text.strip():
            self.banner.setText("Paste or load the job description first.")
            return
        reading = read_checklist(text, self.job_title.text())
        job = reading.job
        self.model.set_reading(job.qualifications, reading.notes)
        self.model.set_all(job.qualifications, undoable=True, label="Read checklist from text")
        self._update_counts()
        if not self.job_title.text().strip():
            self.job_title.setText(job.title)

    def _add(self, kind: QualKind) -> None:
        self.model.add(
            Qualification("New qualification — double-click to edit", kind, QualType.HARD_SKILL)
        )
        self.table.scrollToBottom()
        self.table.edit(self.model.index(len(self.model.rows) - 1, ChecklistModel.COL_TEXT))

    def _remove(self) -> None:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()}, reverse=True)
        if not rows and self.table.currentIndex().isValid():
            rows = [self.table.currentIndex().row()]
        self.undo.beginMacro("Remove qualifications")
        for row in rows:
            self.model.remove(row)
        self.undo.endMacro()

    def _load_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Load a job description", "", "Job descriptions (*.txt *.md *.pdf);;All files (*)"
        )
        if path:
            self.load_path(Path(path))

    def load_path(self, path: Path) -> None:
        """Read the file in the background (a long PDF takes seconds), then show it."""
        self.banner.setText(f"Reading {path.name}…")
        self.load_button.setEnabled(False)

        def done(doc: Any) -> None:
            self.load_button.setEnabled(True)
            self._source = (path.name, doc.data)
            self.text.setPlainText(doc.text)
            self._reparse()
            self.banner.setText(f"Loaded {path.name}. Check the checklist on the right.")

        def failed(exc: Exception) -> None:
            self.load_button.setEnabled(True)
            message = exc.message if isinstance(exc, DocumentError) else str(exc)
            self.banner.setText(f"Could not load {path.name}: {message}")

        run_in_background(lambda: load_file(path), done, failed, owner=self)

    def status(self, data: AuditData | None) -> str:
        if not data or data.job is None:
            return "todo"
        if not data.job.required:
            return "problem"
        # a checklist the parser doubts (a heading read as the only requirement, far
        # fewer items than the posting's qualification-like lines) until the user edits it
        doubted = self.model.rows == data.job.qualifications and bool(self.model.advice())
        return "problem" if doubted else "done"
