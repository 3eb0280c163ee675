"""Resumes: each file, its status, a preview, and the extracted text with identity marked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, Qt
from PySide6.QtGui import (
    QDragEnterEvent,
    QDropEvent,
    QShowEvent,
    QTextCursor,
    QUndoCommand,
    QUndoStack,
)
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.documents.errors import DocProblem, DocumentError
from resume_auditor.store.resultfile import ResultFile, ResumeRecord
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.session import AuditData, Session
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.ui.widgets.identity_view import IdentityView
from resume_auditor.workflow.ingest import ingest_resume, record_unreadable, template_from_json

RESUME_FILTER = "Resumes (*.pdf *.docx *.txt *.md);;All files (*)"
MAX_PASSWORD_TRIES = 3

STATUS_MARK = {"ok": "✓", "warning": "⚠", "error": "✗"}
FINDING_TITLES = {
    "prompt_injection": "Instruction to an AI",
    "white_text": "White text",
    "tiny_text": "Tiny text",
    "off_page_text": "Text outside the page",
    "invisible_text": "Invisible text",
    "demographic_mention": "Demographic mention",
    "unsure_text": "Text to check against the PDF",
}


class _SlotEdit(QUndoCommand):
    """Replace one resume's identity slots (undoable)."""

    def __init__(
        self,
        page: ResumesPage,
        resume_id: int,
        old: list[dict[str, Any]],
        new: list[dict[str, Any]],
        label: str,
    ) -> None:
        super().__init__(label)
        self.page, self.resume_id, self.old, self.new = page, resume_id, old, new

    def redo(self) -> None:
        self.page.write_slots(self.resume_id, self.new)

    def undo(self) -> None:
        self.page.write_slots(self.resume_id, self.old)


class ResumesPage(Page):
    title = "2. Resumes"
    next_label = "Next: the test cases →"

    def __init__(self, session: Session, undo: QUndoStack) -> None:
        super().__init__(
            "The resumes the test cases are built from: add PDF, Word or text files (or drop "
            "them here). Highlighted: the identity the app swaps (yellow: name; blue: contact "
            "details; purple: pronouns; peach: college). Everything else stays word for word "
            "the same in every copy. Right-click to mark or unmark identity. Underlined in red: "
            "hidden text or instructions to an AI, shown so you can decide to keep them."
        )
        self.session = session
        self.undo = undo
        self.setAcceptDrops(True)
        self._queue: list[tuple[Path, str | None, int]] = []
        self._busy = False
        self._batch = 0  # files asked for since the queue was last empty
        self._read = 0  # of which read (or skipped)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.split = split
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self.files = QListWidget()
        self.files.setAccessibleName("Resume files")
        # long file names lose their middle, not their end; the tooltip has the full name
        self.files.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.files.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.files.currentRowChanged.connect(self._show)
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add resumes…")
        self.add_button.setToolTip("PDF, TXT or MD files. You can also drop files on this page.")
        self.add_button.clicked.connect(self._choose_files)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self._remove)
        self.stop_button = QPushButton("Stop adding")
        self.stop_button.setToolTip(
            "Adds no more of the files you chose. The file being read now is finished first "
            "(reading one file cannot be interrupted; it takes a few seconds at most)."
        )
        self.stop_button.clicked.connect(self.stop_adding)
        self.stop_button.hide()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.stop_button)
        left_layout.addWidget(self.files, 1)
        left_layout.addLayout(buttons)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.text = IdentityView()
        self.text.setAccessibleName("Extracted text")
        self.text.mark_requested.connect(self._mark)
        self.text.unmark_requested.connect(self._unmark)
        self.findings = QListWidget()
        self.findings.setAccessibleName("Findings to look at before a run")
        self.findings.setMaximumHeight(120)
        self.findings.currentRowChanged.connect(self._show_finding)
        self._findings: list[dict[str, Any]] = []
        self._slots: list[dict[str, Any]] = []
        self._unshown: int | None = None  # the resume to show once the page is (`entered`)
        self.pdf_doc = QPdfDocument(self)
        self.pdf_view = QPdfView()
        self.pdf_view.setDocument(self.pdf_doc)
        self.pdf_view.setPageMode(QPdfView.PageMode.MultiPage)
        self.pdf_view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self._buffer: QBuffer | None = None
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.text, 1)
        right_layout.addWidget(self.findings)
        split.addWidget(left)
        split.addWidget(self.pdf_view)
        split.addWidget(right)
        split.setSizes([230, 420, 420])
        self.body.addWidget(self.message)
        self.body.addWidget(split, 1)
        self._data: AuditData | None = None

    # -- adding and removing -------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls() and self._data is not None and self._data.editable:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        self.add_paths([p for p in paths if p.is_file()])
        event.acceptProposedAction()

    def _choose_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, "Add resumes", "", RESUME_FILTER)
        self.add_paths([Path(n) for n in names])

    def add_paths(self, paths: list[Path]) -> None:
        """Read each file in the background; ask for a password when one is needed."""
        if not self._queue and not self._busy:
            self._batch = self._read = 0
        self._queue.extend((p, None, 0) for p in paths)
        self._batch += len(paths)
        self._next_in_queue()

    def stop_adding(self) -> None:
        """Drop the files not read yet; the one being read is finished (it cannot stop midway)."""
        dropped = len(self._queue)
        self._queue.clear()
        if self._busy:
            self.stop_button.setEnabled(False)
            self.message.setText(
                f"Stopping: {dropped} file(s) will not be added. The file being read now is "
                "finished first."
            )

    def _next_in_queue(self) -> None:
        if self._busy or not self._queue or self._data is None:
            if not self._queue and not self._busy and self._data is not None:
                self.stop_button.hide()
                if self._batch:
                    self._batch = self._read = 0
                    self.session.reload()
            return
        path, password, tries = self._queue.pop(0)
        self._busy = True
        self.stop_button.setVisible(self._batch > 1)
        self.stop_button.setEnabled(True)
        count = f" ({self._read + 1} of {self._batch})" if self._batch > 1 else ""
        self.message.setText(f"Reading {path.name}{count}…")
        target = self._data.path

        def work() -> str:
            data = path.read_bytes()
            with ResultFile(target) as result, result.transaction():
                try:
                    _, note = ingest_resume(result, path.name, data, password=password)
                except DocumentError as exc:
                    if exc.problem in (DocProblem.ENCRYPTED, DocProblem.WRONG_PASSWORD):
                        raise
                    record_unreadable(result, path.name, data, exc.message)
                    note = f"✗ {exc.message}"
                if result.case_count():
                    result.clear_cases()
            return note or f"Added {path.name}."

        def done(note: str) -> None:
            self._busy = False
            self._read += 1
            self.message.setText(note)
            self._next_in_queue()

        def failed(exc: Exception) -> None:
            self._busy = False
            self._read += 1
            if isinstance(exc, DocumentError) and tries < MAX_PASSWORD_TRIES:
                prompt = (
                    f"{path.name} is protected by a password."
                    if exc.problem is DocProblem.ENCRYPTED
                    else f"That password did not open {path.name}. Try again."
                )
                pw, ok = QInputDialog.getText(
                    self, "Password needed", prompt, QLineEdit.EchoMode.Password
                )
                if ok and pw:
                    self._queue.insert(0, (path, pw, tries + 1))
                    self._read -= 1  # the same file again: not one more done
                else:
                    self.message.setText(f"Skipped {path.name}: no password given.")
            else:
                self.message.setText(f"Could not add {path.name}: {exc}")
            self._next_in_queue()

        run_in_background(work, done, failed, owner=self)

    def _remove(self) -> None:
        if self._data is None or not self._data.editable:
            return
        row = self.files.currentRow()
        if not 0 <= row < len(self._data.resumes):
            return
        record = self._data.resumes[row]

        def change(result: ResultFile) -> None:
            if result.case_count():
                result.clear_cases()
            result.delete_resume(record.id)

        self.session.edit(change)
        self.message.setText(f"Removed {record.filename}.")

    def show_audit(self, data: AuditData) -> None:
        if self._data is not None and self._data.generation == data.generation:
            self._data = data  # only runs changed: the files on screen are the same
            self.add_button.setEnabled(data.editable)
            self.remove_button.setEnabled(data.editable)
            return
        self._data = data
        self.add_button.setEnabled(data.editable)
        self.remove_button.setEnabled(data.editable)
        current = self.files.currentRow()
        self.files.clear()
        for r in data.resumes:
            item = QListWidgetItem(f"{STATUS_MARK.get(r.status, '?')}  {r.filename}")
            item.setToolTip(
                f"{r.filename}\n{r.message or f'{r.pages} page(s), {len(r.text)} characters'}"
            )
            self.files.addItem(item)
        if data.resumes:
            self.files.setCurrentRow(min(max(0, current), len(data.resumes) - 1))
            self._fit_file_list()
        else:
            self.text.clear()
            self.pdf_doc.close()
            self.message.setText("No resumes yet: add PDF or text files, or drop them here.")

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self._fit_file_list()  # the splitter has its real width only once shown

    def _fit_file_list(self) -> None:
        """Give the file list the width of its longest name, up to a third of the page.

        Names are elided in the middle only when they really do not fit (a 41-character
        file name was cut to "software_en…Y_12763627.pdf" beside half-empty panes).
        """
        metrics = self.files.fontMetrics()
        widest = max(
            (
                metrics.horizontalAdvance(self.files.item(i).text())
                for i in range(self.files.count())
            ),
            default=0,
        )
        wanted = widest + 2 * self.files.frameWidth() + 32  # scroll bar and item padding
        sizes = self.split.sizes()
        total = sum(sizes)
        if total <= 0 or sizes[0] >= wanted:
            return
        left = min(wanted, total // 3)
        rest = total - left
        self.split.setSizes([left, rest // 2, rest - rest // 2])

    def entered(self) -> None:
        if self._unshown is not None:
            row, self._unshown = self._unshown, None
            self._show(row)

    def _show(self, row: int) -> None:
        if self._data is None or not 0 <= row < len(self._data.resumes):
            return
        if self.isHidden():
            # read and laid out when this page is shown (`entered`): at an audit's
            # opening it is not, and its resume, text and PDF took the window 6 ms
            self._unshown = row
            return
        self._unshown = None
        record: ResumeRecord = self._data.resumes[row]
        result = self.session.db()
        template = result.resume_template(record.id) or {"slots": []}
        self._slots = list(template["slots"])
        self._findings = result.resume_findings(record.id)
        data = result.resume_bytes(record.id)
        if record.status == "error":
            self.message.setText(f"✗ {record.message}")
        elif record.message:  # a note is not a warning (a nameless resume gets a name line)
            mark = "⚠" if record.status == "warning" else "\u2139"
            self.message.setText(f"{mark} {record.message}")
        else:
            self.message.setText(
                f"{record.filename}: {record.pages} page(s), {len(record.text)} characters, "
                f"{len(self._slots)} identity mention(s) found."
            )
        self.text.editable_slots = self._data.editable and record.status != "error"
        self.text.show_resume(record.text, self._slots, self._findings)
        self.findings.clear()
        for f in self._findings:
            where = f" (page {f['page']})" if f.get("page") else ""
            title = FINDING_TITLES.get(str(f["kind"]), str(f["kind"]))
            self.findings.addItem(f"{title}{where}: {f['message']}")
        self.findings.setVisible(bool(self._findings))
        self.pdf_doc.close()
        if data and data[:4] == b"%PDF":
            self._buffer = QBuffer(self)
            self._buffer.setData(QByteArray(data))
            self._buffer.open(QIODevice.OpenModeFlag.ReadOnly)
            self.pdf_doc.load(self._buffer)

    def _show_finding(self, row: int) -> None:
        if not 0 <= row < len(self._findings):
            return
        finding = self._findings[row]
        cursor = self.text.textCursor()
        cursor.setPosition(int(finding["start"]))
        cursor.setPosition(int(finding["end"]), QTextCursor.MoveMode.KeepAnchor)
        self.text.setTextCursor(cursor)
        self.text.ensureCursorVisible()
        if finding.get("page"):
            self.pdf_view.pageNavigator().jump(int(finding["page"]) - 1, QPointF(0, 0))

    # -- identity slot edits (undoable) ----------------------------------------------------

    def _current_record(self) -> ResumeRecord | None:
        if self._data is None:
            return None
        row = self.files.currentRow()
        return self._data.resumes[row] if 0 <= row < len(self._data.resumes) else None

    def _mark(self, start: int, end: int, kind: str) -> None:
        record = self._current_record()
        if record is None:
            return
        text = record.text
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start >= end:
            return
        kept = [s for s in self._slots if s["end"] <= start or s["start"] >= end]
        new = sorted(
            [*kept, {"start": start, "end": end, "kind": kind, "confidence": 1.0}],
            key=lambda s: int(s["start"]),
        )
        self.undo.push(
            _SlotEdit(
                self, record.id, list(self._slots), new, f"Mark “{text[start:end]}” as identity"
            )
        )

    def _unmark(self, start: int, end: int) -> None:
        record = self._current_record()
        if record is None:
            return
        new = [s for s in self._slots if s["end"] <= start or s["start"] >= end]
        self.undo.push(
            _SlotEdit(self, record.id, list(self._slots), new, f"Unmark “{record.text[start:end]}”")
        )

    def write_slots(self, resume_id: int, slots: list[dict[str, Any]]) -> None:
        """Store a resume's slots (checked against its text); test cases must be rebuilt."""
        if self._data is None:
            return
        record = next((r for r in self._data.resumes if r.id == resume_id), None)
        if record is None:
            return
        template_from_json(record.text, {"slots": slots})  # raises if spans are wrong
        self.session.edit(lambda r: r.set_template(resume_id, {"slots": slots}))

    def status(self, data: AuditData | None) -> str:
        if not data or not data.resumes:
            return "todo"
        return "problem" if any(r.status != "ok" for r in data.resumes) else "done"
