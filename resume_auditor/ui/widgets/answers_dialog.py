"""The answers behind one number: what the model was shown, said, and how it was read.

A window of its own (not modal), so a user can keep it open beside the panels and
open another for a second number. The rows come from workflow/drilldown.py,
already masked the way the report masks them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.workflow.drilldown import AnswerRow, Drilldown

Index = QModelIndex | QPersistentModelIndex


class AnswerTableModel(QAbstractTableModel):
    HEADERS = ["Request", "Question", "Source", "Shown (in order)", "Read as", "Justification"]
    ROW_ROLE = Qt.ItemDataRole.UserRole + 4

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[AnswerRow] = []
        self._view: list[AnswerRow] = []
        self._haystack: list[str] = []
        self._text = ""

    def set_rows(self, rows: list[AnswerRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self._haystack = []
        self._view = self._filtered()
        self.endResetModel()

    def set_filter(self, text: str) -> None:
        self.beginResetModel()
        self._text = text.strip().lower()
        self._view = self._filtered()
        self.endResetModel()

    def _filtered(self) -> list[AnswerRow]:
        if not self._text:
            return list(self.rows)
        if len(self._haystack) != len(self.rows):  # once per set of rows, not per keystroke
            self._haystack = [r.searchable() for r in self.rows]
        text = self._text
        return [r for r, words in zip(self.rows, self._haystack, strict=True) if text in words]

    def row_at(self, position: int) -> AnswerRow:
        return self._view[position]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._view)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = 0
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._view):
            return None
        row = self._view[index.row()]
        col = index.column()
        texts = [
            str(row.request_id),
            row.what,
            row.source,
            " | ".join(row.shown),
            row.parsed,
            row.justification.replace("\n", " "),
        ]
        if role == Qt.ItemDataRole.DisplayRole:
            return texts[col]
        if role == Qt.ItemDataRole.ToolTipRole:
            return texts[col] if col in (3, 4, 5) else None
        if role == Qt.ItemDataRole.ForegroundRole and not row.readable:
            return QBrush(QColor(198, 40, 40))
        if role == self.ROW_ROLE:
            return row
        return None


class AnswersDialog(QDialog):
    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Answers behind: {title}")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.resize(1100, 640)
        layout = QVBoxLayout(self)
        self.heading = QLabel(title)
        self.heading.setWordWrap(True)
        self.heading.setStyleSheet("font-weight: 600;")
        self.summary = QLabel("Reading the answers…")
        self.summary.setWordWrap(True)
        layout.addWidget(self.heading)
        layout.addWidget(self.summary)
        find = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Find words in the answers, names, resumes…")
        self.search.setClearButtonEnabled(True)
        find.addWidget(self.search, 1)
        layout.addLayout(find)
        self.model = AnswerTableModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("Answers behind the number")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for col, width in enumerate((70, 170, 110, 330, 340)):
            self.table.setColumnWidth(col, width)
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setAccessibleName("The selected answer in full")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setSizes([420, 180])
        layout.addWidget(split, 1)
        self.search.textChanged.connect(self._find)
        self.table.selectionModel().currentRowChanged.connect(self._show)

    def show_answers(self, found: Drilldown) -> None:
        self.model.set_rows(found.rows)
        parts = [f"{found.title}: {len(found.rows)} answer(s)." if found.title else ""]
        if found.unreadable:
            parts.append(
                f"{found.unreadable} could not be read and are left out of every number "
                "(shown in red)."
            )
        if found.note:
            parts.append(found.note)
        parts.append(
            "Real names and contact details the model repeated are replaced, as in the report; "
            "source resumes are named Resume 1, Resume 2…"
        )
        self.summary.setText(" ".join(p for p in parts if p))
        if self.model.rowCount():
            self.table.selectRow(0)
        else:
            self.detail.setPlainText("")

    def show_error(self, message: str) -> None:
        self.summary.setText(f"Could not read the answers: {message}")

    def _find(self) -> None:
        self.model.set_filter(self.search.text())
        if self.model.rowCount():
            self.table.selectRow(0)

    def _show(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        row = self.model.row_at(current.row())
        lines = [
            f"Request {row.request_id} · {row.design} · {row.what}"
            + (f" · repeat {row.repeat + 1}" if row.repeat else ""),
            f"Source: {row.source}" if row.source else "",
            "Shown, in order:",
            *[f"  {i + 1}. {who}" for i, who in enumerate(row.shown)],
            f"Answer read as: {row.parsed}  (label: {row.answer})",
            "",
            "The model's words:",
            row.justification or "(none given)",
        ]
        self.detail.setPlainText("\n".join(line for line in lines if line is not None))
