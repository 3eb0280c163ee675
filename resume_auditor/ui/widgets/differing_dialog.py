"""The answers behind "how often they gave the same answer": where two models differ.

A recruiter told that two models agree on 23% of the requests wants to see the other
77%: each request both answered readably but differently, one row each, with both
models' answers side by side and, below, both in their own words. Read off the UI
thread by the Results page (workflow/compare.differing_answers); identity details of
a real resume are masked, as in every other drill-down.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.workflow.compare import DifferingAnswer

logger = logging.getLogger(__name__)


class DifferingDialog(QDialog):
    def __init__(self, title: str, names: tuple[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.resize(1100, 640)
        self.names = names
        self.rows: list[DifferingAnswer] = []
        layout = QVBoxLayout(self)
        self.heading = QLabel(title)
        self.heading.setWordWrap(True)
        self.heading.setStyleSheet("font-weight: 600;")
        self.summary = QLabel("Reading the answers…")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setAccessibleName("Requests the two models answered differently")
        self.table.setHorizontalHeaderLabels(["Test case", "Request", names[0], names[1]])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.currentCellChanged.connect(lambda row, *_: self._show(row))
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setAccessibleName("Both answers in full")
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout.addWidget(self.heading)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)

    def show_rows(self, rows: list[DifferingAnswer], limit: int) -> None:
        self.rows = rows
        more = " (the first shown)" if len(rows) >= limit else ""
        self.summary.setText(
            f"{len(rows)} request(s){more} that both models answered readably but "
            "differently. Select one to read both answers in the models' own words."
            if rows
            else "The two models gave the same answer to every request both answered."
        )
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            texts = (str(r.case_id), r.ukey + (f" (repeat {r.rep})" if r.rep else ""))
            for col, text in enumerate((*texts, r.answer_a, r.answer_b)):
                self.table.setItem(i, col, QTableWidgetItem(text))
        self.table.resizeColumnToContents(0)
        self.table.resizeColumnToContents(1)
        if rows:
            self.table.selectRow(0)

    def show_failure(self, message: str) -> None:
        self.summary.setText(f"The answers could not be read: {message}")

    def _show(self, row: int) -> None:
        if not 0 <= row < len(self.rows):
            return
        r = self.rows[row]
        a, b = self.names
        self.detail.setPlainText(
            f"{a}: {r.answer_a}\n{r.detail_a}\n\n{b}: {r.answer_b}\n{r.detail_b}"
        )


__all__ = ["DifferingDialog"]
