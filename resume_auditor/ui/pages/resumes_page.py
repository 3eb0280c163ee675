"""Resumes: each file, its status, a preview, and the extracted text with identity marked."""

from __future__ import annotations

import html

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTabWidget,
    QTextBrowser,
)

from resume_auditor.store.resultfile import ResultFile, ResumeRecord
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.session import AuditData

SLOT_STYLE = {
    "full_name": "background-color:#ffe082;color:#000;",
    "first_name": "background-color:#ffe082;color:#000;",
    "last_name": "background-color:#ffe082;color:#000;",
    "email": "background-color:#b3e5fc;color:#000;",
    "title": "background-color:#c8e6c9;color:#000;",
}
PRONOUN_STYLE = "background-color:#e1bee7;color:#000;"
STATUS_MARK = {"ok": "✓", "warning": "⚠", "error": "✗"}


def marked_text(text: str, slots: list[dict[str, object]]) -> str:
    out = []
    pos = 0
    for slot in sorted(slots, key=lambda s: int(s["start"])):
        start, end, kind = int(slot["start"]), int(slot["end"]), str(slot["kind"])
        out.append(html.escape(text[pos:start]))
        style = SLOT_STYLE.get(kind, PRONOUN_STYLE)
        shown = html.escape(text[start:end])
        out.append(f'<span style="{style}" title="{html.escape(kind)}">{shown}</span>')
        pos = end
    out.append(html.escape(text[pos:]))
    return "".join(out).replace("\n", "<br>")


class ResumesPage(Page):
    title = "2. Resumes"
    next_label = "Next: the test cases →"

    def __init__(self) -> None:
        super().__init__(
            "The resumes the test cases are built from. Highlighted: the identity the app "
            "swaps (yellow: name; blue: email; purple: pronouns). Everything else stays "
            "word for word the same in every copy."
        )
        split = QSplitter(Qt.Orientation.Horizontal)
        self.files = QListWidget()
        self.files.setAccessibleName("Resume files")
        self.files.currentRowChanged.connect(self._show)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.tabs = QTabWidget()
        self.text = QTextBrowser()
        self.text.setAccessibleName("Extracted text")
        self.pdf_doc = QPdfDocument(self)
        self.pdf_view = QPdfView()
        self.pdf_view.setDocument(self.pdf_doc)
        self.pdf_view.setPageMode(QPdfView.PageMode.MultiPage)
        self.pdf_view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self._buffer: QBuffer | None = None
        split.addWidget(self.files)
        split.addWidget(self.pdf_view)
        split.addWidget(self.text)
        split.setSizes([220, 420, 420])
        self.body.addWidget(self.message)
        self.body.addWidget(split, 1)
        self._data: AuditData | None = None

    def show_audit(self, data: AuditData) -> None:
        self._data = data
        self.files.clear()
        for r in data.resumes:
            item = QListWidgetItem(f"{STATUS_MARK.get(r.status, '?')}  {r.filename}")
            item.setToolTip(r.message or f"{r.pages} page(s), {len(r.text)} characters")
            self.files.addItem(item)
        if data.resumes:
            self.files.setCurrentRow(0)

    def _show(self, row: int) -> None:
        if self._data is None or not 0 <= row < len(self._data.resumes):
            return
        record: ResumeRecord = self._data.resumes[row]
        with ResultFile(self._data.path) as result:
            template = result.resume_template(record.id) or {"slots": []}
            data = result.resume_bytes(record.id)
        if record.status == "error":
            self.message.setText(f"✗ {record.message}")
        elif record.message:
            self.message.setText(f"⚠ {record.message}")
        else:
            self.message.setText(
                f"{record.filename}: {record.pages} page(s), {len(record.text)} characters, "
                f"{len(template['slots'])} identity mention(s) found."
            )
        self.text.setHtml(marked_text(record.text, template["slots"]))
        self.pdf_doc.close()
        if data and data[:4] == b"%PDF":
            self._buffer = QBuffer(self)
            self._buffer.setData(QByteArray(data))
            self._buffer.open(QIODevice.OpenModeFlag.ReadOnly)
            self.pdf_doc.load(self._buffer)

    def status(self, data: AuditData | None) -> str:
        if not data or not data.resumes:
            return "todo"
        return "problem" if any(r.status != "ok" for r in data.resumes) else "done"
