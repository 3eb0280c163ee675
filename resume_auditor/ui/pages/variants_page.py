"""Variants: the test cases built from the resumes, and what differs in each pair."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QSplitter, QTableView

from resume_auditor.domain.groups import group_label
from resume_auditor.ui.models.pair_table import PairRow, PairTableModel, load_rows
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.session import AuditData
from resume_auditor.ui.widgets.diff_view import DiffView

HIDDEN = (
    PairTableModel.COL_AB,
    PairTableModel.COL_BA,
    PairTableModel.COL_AGREE,
    PairTableModel.COL_WHY,
)


class VariantsPage(Page):
    title = "3. Test cases"
    next_label = "Next: run the audit →"

    def __init__(self) -> None:
        super().__init__(
            "Pairs whose right answer is known by construction. Equal pairs are the same "
            "resume under two names (a valid screener abstains); unequal pairs set the resume "
            "against a copy with a required qualification deleted (a valid screener picks the "
            "full one). Select a pair to see exactly what differs."
        )
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.body.addWidget(self.summary)
        split = QSplitter(Qt.Orientation.Vertical)
        self.model = PairTableModel()
        self.proxy = QSortFilterProxyModel()
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(PairTableModel.SORT_ROLE)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(
            PairTableModel.COL_DIFFERS, QHeaderView.ResizeMode.Stretch
        )
        self.table.setAccessibleName("Test case pairs")
        for col in HIDDEN:
            self.table.setColumnHidden(col, True)
        self.table.selectionModel().currentRowChanged.connect(self._select)
        self.diff = DiffView()
        split.addWidget(self.table)
        split.addWidget(self.diff)
        split.setSizes([300, 300])
        self.body.addWidget(split, 1)
        self._data: AuditData | None = None

    def show_audit(self, data: AuditData) -> None:
        self._data = data
        self.model.set_rows(load_rows(data.path, None))
        self.table.resizeColumnsToContents()
        kinds = Counter(p.kind.value for p in data.pairs)
        groups = sorted({g for p in data.pairs for g in (p.group_a, p.group_b) if g})
        orders = 2 if data.study.run.orders == "both" else 1
        requests = len(data.pairs) * orders * data.study.run.repeats
        usable = sum(1 for r in data.resumes if r.status != "error")
        text = (
            f"{len(data.pairs)} pairs from {usable} resume(s): {kinds.get('equal', 0)} equal, "
            f"{kinds.get('unequal', 0)} unequal. Groups: "
            f"{', '.join(group_label(g) for g in groups)}. Shown in "
            f"{'both orders' if orders == 2 else 'one order'}: {requests} requests per model."
        )
        if data.notes:
            text += "\nNotes: " + " ".join(data.notes)
        self.summary.setText(text)
        if self.proxy.rowCount():
            self.table.selectRow(0)

    def _select(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._data is None or not current.isValid():
            return
        row: PairRow = self.proxy.data(current, PairTableModel.ROW_ROLE)
        va = self._data.variants[row.variant_a]
        vb = self._data.variants[row.variant_b]
        self.diff.show_pair(
            f"A: {row.name_a} ({group_label(row.group_a)}, {va.kind.value})",
            va.text,
            f"B: {row.name_b} ({group_label(row.group_b)}, {vb.kind.value})",
            vb.text,
        )

    def status(self, data: AuditData | None) -> str:
        return "done" if data and data.pairs else "todo"
