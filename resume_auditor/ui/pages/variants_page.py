"""Variants: the test cases built from the resumes, and what differs in each pair."""

from __future__ import annotations

import dataclasses
from collections import Counter

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
)

from resume_auditor.domain.groups import ALL_GROUPS, group_label
from resume_auditor.domain.study import D1Spec, StudyConfig
from resume_auditor.ui import heap
from resume_auditor.ui.models.pair_table import PairRow, PairTableModel, load_rows
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.session import AuditData, Session
from resume_auditor.ui.tasks import run_in_background
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

    def __init__(self, session: Session) -> None:
        super().__init__(
            "Pairs whose right answer is known by construction. Equal pairs are the same "
            "resume under two names (a valid screener abstains); unequal pairs set the resume "
            "against a copy with a required qualification deleted (a valid screener picks the "
            "full one). Select a pair to see exactly what differs."
        )
        self.session = session
        self._showing = False
        self._rows_key: tuple[object, ...] | None = None
        box = QGroupBox("D1 — validity pairs (Castleman et al. 2025)")
        grid = QGridLayout(box)
        self.group_boxes: dict[str, QCheckBox] = {}
        for i, g in enumerate(ALL_GROUPS):
            cb = QCheckBox(g.label)
            cb.setToolTip("Candidates of this group appear in the pairs (names signal the group).")
            cb.toggled.connect(self._settings_changed)
            self.group_boxes[g.key] = cb
            grid.addWidget(cb, i // 4, i % 4)
        self.equal_box = QCheckBox("Equal pairs (names swapped)")
        self.unequal_box = QCheckBox("Unequal pairs (a required qualification deleted)")
        for cb in (self.equal_box, self.unequal_box):
            cb.toggled.connect(self._settings_changed)
        self.k_spin = QSpinBox()
        self.k_spin.setRange(1, 3)
        self.k_spin.setPrefix("k = ")
        self.k_spin.setToolTip("How many required qualifications the less-qualified copy lacks.")
        self.k_spin.valueChanged.connect(self._settings_changed)
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 2_000_000_000)
        self.seed_spin.setPrefix("seed ")
        self.seed_spin.setToolTip("The same seed builds the same names and cases.")
        self.seed_spin.valueChanged.connect(self._settings_changed)
        grid.addWidget(self.equal_box, 2, 0, 1, 2)
        grid.addWidget(self.unequal_box, 2, 2, 1, 2)
        row = QHBoxLayout()
        row.addWidget(self.k_spin)
        row.addWidget(self.seed_spin)
        self.build_button = QPushButton("Build test cases")
        self.build_button.clicked.connect(self._build)
        row.addStretch(1)
        row.addWidget(self.build_button)
        grid.addLayout(row, 3, 0, 1, 4)
        self.body.addWidget(box)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.body.addWidget(self.summary)
        split = QSplitter(Qt.Orientation.Vertical)
        self.model = PairTableModel()
        self.table = QTableView()
        self.table.setModel(self.model)
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
        self._showing = True
        try:
            d1 = data.study.d1 or D1Spec()
            keys = {g.key for g in d1.groups}
            for key, cb in self.group_boxes.items():
                cb.setChecked(key in keys)
                cb.setEnabled(data.editable)
            self.equal_box.setChecked(d1.equal_pairs)
            self.unequal_box.setChecked(d1.unequal_pairs)
            self.k_spin.setValue(max(d1.k) if d1.k else 1)
            self.seed_spin.setValue(data.study.seed)
            for w in (
                self.equal_box,
                self.unequal_box,
                self.k_spin,
                self.seed_spin,
                self.build_button,
            ):
                w.setEnabled(data.editable)
        finally:
            self._showing = False
        self.build_button.setText("Build test cases" if not data.pairs else "Build again")
        key = (data.path, data.generation)
        if key == self._rows_key:
            return  # same cases as on screen: nothing to recount
        self._rows_key = key
        path = data.path
        run_in_background(
            lambda: load_rows(path, None)[0], self._rows_loaded, lambda _e: None, owner=self
        )
        kinds = Counter(p.kind.value for p in data.pairs)
        groups = sorted({g for p in data.pairs for g in (p.group_a, p.group_b) if g})
        orders = 2 if data.study.run.orders == "both" else 1
        requests = len(data.pairs) * orders * data.study.run.repeats
        usable = sum(1 for r in data.resumes if r.status != "error")
        if not data.pairs:
            self.summary.setText(
                "No test cases yet. Choose the groups and kinds of pairs above, then press "
                "Build test cases." + (f"\nNotes: {' '.join(data.notes)}" if data.notes else "")
            )
            self.diff.show_pair("Candidate A", "", "Candidate B", "")
            return
        text = (
            f"{len(data.pairs)} pairs from {usable} resume(s): {kinds.get('equal', 0)} equal, "
            f"{kinds.get('unequal', 0)} unequal. Groups: "
            f"{', '.join(group_label(g) for g in groups)}. Shown in "
            f"{'both orders' if orders == 2 else 'one order'}: {requests} requests per model."
        )
        if data.notes:
            text += "\nNotes: " + " ".join(data.notes)
        self.summary.setText(text)

    def _rows_loaded(self, rows: list[PairRow]) -> None:
        self.model.set_rows(rows)
        heap.settle()
        if len(rows) < 5000:
            self.table.resizeColumnsToContents()
        if self.model.rowCount():
            self.table.selectRow(0)

    def config_from_controls(self, base: StudyConfig) -> StudyConfig:
        groups = tuple(g for g in ALL_GROUPS if self.group_boxes[g.key].isChecked())
        d1 = D1Spec(
            groups=groups,
            equal_pairs=self.equal_box.isChecked(),
            unequal_pairs=self.unequal_box.isChecked(),
            k=(self.k_spin.value(),),
        )
        return dataclasses.replace(base, seed=self.seed_spin.value(), d1=d1)

    def _settings_changed(self) -> None:
        if self._showing or self._data is None or not self._data.editable:
            return
        self.session.save_settings(self.config_from_controls(self._data.study))

    def _build(self) -> None:
        if self._data is None:
            return
        d1 = self._data.study.d1
        if d1 is None or len(d1.groups) < 2 and d1.equal_pairs:
            self.summary.setText("Choose at least two groups for equal pairs.")
            return
        self.build_button.setEnabled(False)
        self.summary.setText("Building test cases…")

        def done(notes: list[str]) -> None:
            self.build_button.setEnabled(True)

        def failed(exc: Exception) -> None:
            self.build_button.setEnabled(True)
            self.summary.setText(f"Could not build the test cases: {exc}")

        self.session.build_cases_in_background(done, failed)

    def _select(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._data is None or not current.isValid():
            return
        row: PairRow = self.model.data(current, PairTableModel.ROW_ROLE)
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
