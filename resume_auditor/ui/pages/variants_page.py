"""Test cases: the designs' settings, the qualification variants, and the built cases.

Three tabs. *Designs* sets D1-D4 and shows, before anything is paid for, the cases
and requests per cell with a warning where a cell is too small. *Qualification
variants* has a generator model write copies with more or fewer qualifications
(the paper's c+/c−) and reworded twins, and lets
the user read, accept or reject each. *Pairs* lists the built pairs; select one to
see exactly what differs.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.domain.generation import GenerationSpec
from resume_auditor.domain.groups import group_label
from resume_auditor.domain.study import StudyConfig
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui import heap
from resume_auditor.ui.models.pair_table import PairRow, PairTableModel, load_rows, pair_table
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.plain_words import DESIGN_NAMES, design_name, plain_words, readable_cell
from resume_auditor.ui.session import AuditData, Session
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.ui.widgets.design_settings import DesignSettings
from resume_auditor.ui.widgets.diff_view import DiffView
from resume_auditor.ui.widgets.power_plan import PowerPlan
from resume_auditor.ui.widgets.qual_review import KIND_LABELS, QualReview
from resume_auditor.variants.generate import GenerationReport
from resume_auditor.workflow.plan import RunPlan, plan_run
from resume_auditor.workflow.prepare import study_of

HIDDEN = (
    PairTableModel.COL_AB,
    PairTableModel.COL_BA,
    PairTableModel.COL_AGREE,
    PairTableModel.COL_WHY,
)
PLAN_HEADERS = ("Design", "Cell", "Cases", "Requests", "Warning")


def _plan(path: Path) -> RunPlan:
    with ResultFile(path) as result:
        return plan_run(result, study_of(result))


class VariantsPage(Page):
    title = "3. Test cases"
    next_label = "Next: run the audit →"

    def __init__(self, session: Session, undo: QUndoStack | None = None) -> None:
        super().__init__(
            "Test cases whose right answer is known by construction. Choose the designs, have "
            "a generator model write the qualification variants (or use the deterministic "
            "ones), read and judge them, then build. Every copy carries a fictional identity "
            "and fictional contact details."
        )
        self.session = session
        self._fit_columns = False  # the pairs' columns wait to be fitted (`entered`)
        self.undo = undo or QUndoStack(self)
        self._rows_key: tuple[object, ...] | None = None
        self._data: AuditData | None = None
        self.tabs = QTabWidget()
        self.body.addWidget(self.tabs, 1)

        # -- Designs tab
        designs = QWidget()
        dl = QVBoxLayout(designs)
        self.settings = DesignSettings()
        self.settings.changed.connect(self._settings_changed)
        dl.addWidget(self.settings)
        row = QHBoxLayout()
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        row.addWidget(self.summary, 1)
        self.build_button = QPushButton("Build test cases")
        self.build_button.clicked.connect(self._build)
        row.addWidget(self.build_button, 0, Qt.AlignmentFlag.AlignTop)
        dl.addLayout(row)
        # Each design's power and the offer to make the audit large enough (issue 25)
        self.power = PowerPlan()
        self.power.enlarged.connect(self.session.reload)
        self.power.hide()
        dl.addWidget(self.power)
        # What the study asks that no built case can answer: in plain sight, with the
        # fix, not in the scrolling notes (the step's mark is ⚠ while it is so)
        self.unbuilt = QLabel("")
        self.unbuilt.setWordWrap(True)
        self.unbuilt.setAccessibleName("Questions this audit cannot answer")
        self.unbuilt.setStyleSheet("color: #c62828;")
        self.unbuilt.hide()
        dl.addWidget(self.unbuilt)
        # What the builders could not make and why: a list of its own that scrolls, so
        # a long one never squeezes the plan table off a 800-pixel-high screen.
        self.notes = QTextBrowser()
        self.notes.setAccessibleName("Notes from building the test cases")
        self.notes.setMaximumHeight(5 * self.fontMetrics().lineSpacing() + 12)
        self.notes.hide()
        dl.addWidget(self.notes)
        self.plan_table = QTableWidget(0, len(PLAN_HEADERS))
        self.plan_table.setHorizontalHeaderLabels(PLAN_HEADERS)
        self.plan_table.verticalHeader().setVisible(False)
        self.plan_table.verticalHeader().setDefaultSectionSize(22)
        self.plan_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.plan_table.setAccessibleName("Cases and requests per cell")
        self.plan_table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        dl.addWidget(self.plan_table, 1)
        self.tabs.addTab(designs, "Designs")

        # -- Qualification variants tab
        self.review = QualReview(self.undo, self._edit_quals, self._save_generation)
        self.review.status_changed.connect(self._rebuild_if_built)
        self.review.generated.connect(self._generated)
        self.tabs.addTab(self.review, "Qualification variants")

        # -- Pairs tab
        split = QSplitter(Qt.Orientation.Vertical)
        self.model = PairTableModel()
        self.table = pair_table(self.model, "Test case pairs")
        self.table.horizontalHeader().setSectionResizeMode(
            PairTableModel.COL_DIFFERS, QHeaderView.ResizeMode.Stretch
        )
        for col in HIDDEN:
            self.table.setColumnHidden(col, True)
        self.table.selectionModel().currentRowChanged.connect(self._select)
        self.diff = DiffView()
        split.addWidget(self.table)
        split.addWidget(self.diff)
        split.setSizes([300, 300])
        self.tabs.addTab(split, "Pairs")

    # -- showing -------------------------------------------------------------------------------

    def show_audit(self, data: AuditData) -> None:
        self._data = data
        self.settings.show_config(data.study, data.editable)
        self.build_button.setEnabled(data.editable)
        self.build_button.setText("Build test cases" if not data.pairs else "Build again")
        names = {r.id: r.filename for r in data.resumes}
        self.review.show_texts(data.path, data.study, data.quals, names, data.editable)
        key = (data.path, data.generation)
        if key == self._rows_key:
            return  # same cases as on screen: nothing to recount
        self._rows_key = key
        path = data.path
        run_in_background(
            lambda: load_rows(path, None)[0],
            lambda rows: self._rows_loaded(rows, key),
            lambda _e: None,
            owner=self,
        )
        usable = sum(1 for r in data.resumes if r.status != "error")
        self.power.show_audit(data.path, data.editable)
        self.power.setVisible(bool(data.pairs or data.case_count))
        self._show_notes(data.notes)
        self._show_unbuilt(data)
        notes = ""
        if not data.pairs and not data.case_count:
            self.summary.setText(
                "No test cases yet. Choose the designs above, then press Build test cases." + notes
            )
            self.plan_table.setRowCount(0)
            self.diff.show_pair("Candidate A", "", "Candidate B", "")
            return
        self.summary.setText(f"Cases built from {usable} resume(s). Counting requests…{notes}")
        run_in_background(
            lambda: _plan(path),
            lambda plan: self._plan_loaded(plan, usable, notes),
            lambda exc: self.summary.setText(f"Could not count the requests: {exc}"),
            owner=self,
        )

    def _show_unbuilt(self, data: AuditData) -> None:
        built = bool(data.pairs or data.case_count)
        lines = [u.line() for u in data.unbuilt] if built else []
        self.unbuilt.setVisible(bool(lines))
        self.unbuilt.setText("\n".join(f"⚠ {plain_words(line)}" for line in lines))

    def _show_notes(self, notes: list[str]) -> None:
        self.notes.setVisible(bool(notes))
        items = "".join(f"<li>{html.escape(plain_words(n))}</li>" for n in notes)
        self.notes.setHtml(f"<b>Notes ({len(notes)})</b><ul style='margin: 0'>{items}</ul>")

    def _plan_loaded(self, plan: RunPlan, usable: int, notes: str) -> None:
        designs = plan.by_design()
        parts = [
            f"{design_name(d)}: {v['cases']} case(s), {v['requests']} request(s)"
            for d, v in sorted(designs.items())
        ]
        small = len(plan.warnings())
        text = (
            f"From {usable} resume(s) — {'; '.join(parts)}. "
            f"{plan.requests} requests per model in all."
        )
        if small:
            text += (
                f" {small} cell(s) have fewer than {plan.small_cell} answers: their intervals "
                "will be too wide to read much into (marked below). Add resumes, rounds or "
                "repeats to narrow them."
            )
        if plan.generation:
            text += " " + plan.generation
        self.summary.setText(text + notes)
        self.plan_table.setRowCount(len(plan.cells))
        for row, cell in enumerate(plan.cells):
            values = (
                design_name(cell.design),
                readable_cell(cell.cell),
                str(cell.cases),
                str(cell.requests),
                cell.warning,
            )
            tips = (
                DESIGN_NAMES.get(cell.design, ("", cell.design))[1],
                f"In the report's raw data: {cell.cell}",
                "",
                "",
                cell.warning,
            )
            for col, value in enumerate(values):
                item = QTableWidgetItem(value)
                if tips[col]:
                    item.setToolTip(tips[col])
                if col == 0:
                    item.setData(Qt.ItemDataRole.UserRole, cell.design)
                if col in (2, 3):
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if cell.warning:
                    item.setForeground(QColor("#b26a00"))
                self.plan_table.setItem(row, col, item)
        self.plan_table.resizeColumnsToContents()
        self.plan_table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)

    def _rows_loaded(self, rows: list[PairRow], key: tuple[object, ...]) -> None:
        if key != self._rows_key:
            return  # the cases were built again while these were read: newer rows follow
        self.model.set_rows(rows)
        heap.settle()
        # fitting the columns asks the model for every cell (200 ms at 176 pairs):
        # while another page is shown, when this one is (`entered`)
        self._fit_columns = len(rows) < 5000
        if not self.isHidden():
            self.entered()
        if self.model.rowCount():
            self.table.selectRow(0)

    def entered(self) -> None:
        if self._fit_columns:
            self._fit_columns = False
            self.table.resizeColumnsToContents()

    # -- editing -------------------------------------------------------------------------------

    def config_from_controls(self, base: StudyConfig) -> StudyConfig:
        return self.settings.apply(base)

    def _settings_changed(self) -> None:
        if self._data is None or not self._data.editable:
            return
        problem = self.settings.problem()
        if problem:
            self.summary.setText(problem)
            return
        self.session.save_settings(self.config_from_controls(self._data.study))

    def _save_generation(self, spec: GenerationSpec) -> None:
        if self._data is None:
            return
        # the generator does not change what is built from stored texts: keep the cases
        study = dataclasses.replace(self._data.study, generation=spec)
        self.session.save_settings(study, clears_cases=False)

    def _edit_quals(self, change: Callable[[ResultFile], Any]) -> Any:
        """A review edit: the cases built from the old statuses no longer hold."""
        return self.session.edit(change, clears_cases=True)

    def _rebuild_if_built(self) -> None:
        self._build(quiet=True)

    def _generated(self, report: GenerationReport) -> None:
        self.session.reload()
        if report.made:
            self._build(quiet=True)

    def _build(self, quiet: bool = False) -> None:
        if self._data is None or not self._data.editable:
            return
        problem = self.settings.problem()
        if problem:
            self.summary.setText(problem)
            return
        self.build_button.setEnabled(False)
        self.summary.setText(
            "Building test cases… Building cannot stop midway (it is all or nothing, so a "
            "half-built set never reaches a run); it takes seconds, and the window stays usable."
        )

        def done(notes: list[str]) -> None:
            self.build_button.setEnabled(True)
            if not quiet:
                self.tabs.setCurrentIndex(0)

        def failed(exc: Exception) -> None:
            self.build_button.setEnabled(True)
            self.summary.setText(f"Could not build the test cases: {exc}")

        self.session.build_cases_in_background(done, failed)

    def _select(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._data is None or not current.isValid():
            return
        row: PairRow = self.model.data(current, PairTableModel.ROW_ROLE)
        va = self._data.variants.get(row.variant_a)
        vb = self._data.variants.get(row.variant_b)
        if va is None or vb is None:
            return  # rows of cases just rebuilt; the new ones are on their way
        self.diff.show_pair(
            f"A: {row.name_a} ({group_label(row.group_a)}, {KIND_LABELS.get(va.kind, va.kind)})",
            va.text,
            f"B: {row.name_b} ({group_label(row.group_b)}, {KIND_LABELS.get(vb.kind, vb.kind)})",
            vb.text,
        )

    def status(self, data: AuditData | None) -> str:
        """todo before any case is built; ⚠ while a question the study asks has no
        case (workflow.cases.unbuilt_questions); done only when every one has some."""
        if not data or not (data.pairs or data.case_count):
            return "todo"
        return "problem" if data.unbuilt else "done"
