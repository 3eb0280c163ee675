"""Qualification variants: have a generator model write them, then read and judge each one.

The texts come from `variants.generate.generate_for_audit` (c+, c−, reworded copies,
completed or synthetic bases), each with the checks it passed or failed. The user
accepts or rejects each beside a diff of its source; a rejected text leaves every
case it was in the next time cases are built. Status changes go on the window's
undo stack. Generation runs off the UI thread and can be stopped; what was paid
for is kept in the audit file and a new start only asks for what is missing.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QUndoCommand, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.generation import GENERATOR_MAX_TOKENS, GenerationSpec
from resume_auditor.domain.qualtext import QualStatus, QualText
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui.plain_words import plain_words
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.ui.widgets.diff_view import DiffView
from resume_auditor.ui.widgets.model_picker import ModelPicker
from resume_auditor.variants.generate import GenerationReport, GenProgress, generate_for_audit
from resume_auditor.variants.review import TextDiff, diff, set_status

KIND_LABELS = {
    VariantKind.BASE: "just qualified",
    VariantKind.MORE: "extra preferred skills",
    VariantKind.LESS: "missing a requirement",
    VariantKind.REWORDED: "reworded, same skills",
}
# What each kind is, with the paper's name for it (Castleman et al.: c, c+, c−)
KIND_TIPS = {
    VariantKind.BASE: "Has exactly the required qualifications (the paper's base resume c).",
    VariantKind.MORE: "The required qualifications plus some preferred ones (the paper's c+).",
    VariantKind.LESS: "Lacks some required qualifications (the paper's c−).",
    VariantKind.REWORDED: "The same qualifications in other words, for equal pairs.",
}
STATUS_LABELS = {
    QualStatus.PENDING: "not reviewed",
    QualStatus.ACCEPTED: "accepted",
    QualStatus.REJECTED: "rejected",
}
HEADERS = (
    "Resume",
    "Kind of copy",
    "Skills changed",
    "Your review",
    "Used",
    "Checks",
    "Written by",
    "What changes",
)
HEADER_TIPS = {
    2: "How many qualifications this copy adds or removes (the paper's k).",
    4: "Whether the test cases use this text: it passed every check, or you accepted it.",
    5: "Automatic checks: the change is really there, not trivial, and the length stays "
    "within 10%.",
}
COL_CHECKS, COL_USED, COL_CHANGES = 5, 4, 7
COL_WRITER = 6
MAX_CHANGES_SHOWN = 3


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def checks_text(q: QualText) -> str:
    """'5/6 passed: length failed (…)' — what the table and the detail line show."""
    if not q.checks:
        return "no checks (not generated)" if q.generator == "" else "not checked"
    failed = [c for c in q.checks if not c.passed]
    head = f"{len(q.checks) - len(failed)}/{len(q.checks)} passed"
    if not failed:
        return head
    return head + ": " + "; ".join(f"{c.name} failed ({c.detail})" for c in failed)


class _Relay(QObject):
    """Carries generation progress from the worker thread to the UI thread."""

    progress = Signal(object)


class _StatusCommand(QUndoCommand):
    def __init__(self, widget: QualReview, qual_id: int, old: QualStatus, new: QualStatus) -> None:
        super().__init__(f"Mark variant text {qual_id} {STATUS_LABELS[new]}")
        self.widget, self.qual_id, self.old, self.new = widget, qual_id, old, new

    def redo(self) -> None:
        self.widget.apply_status(self.qual_id, self.new)

    def undo(self) -> None:
        self.widget.apply_status(self.qual_id, self.old)


class QualReview(QWidget):
    """Signals: `status_changed()` after a review edit; `generated(report)` after a run."""

    status_changed = Signal()
    generated = Signal(object)

    def __init__(
        self,
        undo: QUndoStack,
        edit: Callable[[Callable[[ResultFile], object]], object],
        save_generation: Callable[[GenerationSpec], None],
    ) -> None:
        super().__init__()
        self.undo = undo
        self._edit = edit
        self._save_generation = save_generation
        self._texts: list[QualText] = []
        self._path: Path | None = None
        self._study: StudyConfig | None = None
        self._editable = False
        self._cancel: threading.Event | None = None
        self._relay = _Relay(self)
        self._relay.progress.connect(self._progress)
        self._user_picked = False  # the user chose a generator in the dialog

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel("Generator model:"))
        self.generator_label = QLabel("")
        self.generator_label.setToolTip(
            "The model that writes the qualification variants. It may differ from the model "
            "under test; a study file may name several (texts are spread across them)."
        )
        row.addWidget(self.generator_label, 1)
        self.change_button = QPushButton("Change…")
        self.change_button.clicked.connect(self._choose_generator)
        self.generate_button = QPushButton("Write variants")
        self.generate_button.setToolTip(
            "Ask the generator model for copies with extra preferred skills, copies missing a "
            "requirement, reworded copies and a just-qualified version of every resume, then "
            "check each. Texts already written are kept."
        )
        self.generate_button.clicked.connect(self._generate)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self._stop)
        for b in (self.change_button, self.generate_button, self.stop_button):
            row.addWidget(b)
        layout.addLayout(row)
        self.picker = ModelPicker()
        self._dialog = QDialog(self)
        self._dialog.setWindowTitle("Generator model")
        dl = QVBoxLayout(self._dialog)
        dl.addWidget(self.picker)
        ok = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok.accepted.connect(self._dialog.accept)
        ok.rejected.connect(self._dialog.reject)
        dl.addWidget(ok)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)

        split = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(HEADERS)
        for col, tip in HEADER_TIPS.items():
            header_item = self.table.horizontalHeaderItem(col)
            if header_item is not None:
                header_item.setToolTip(tip)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.setAccessibleName("Qualification variant texts")
        self.table.currentCellChanged.connect(lambda *_: self._show_current())
        top_layout.addWidget(self.table)
        actions = QHBoxLayout()
        self.accept_button = QPushButton("Accept")
        self.accept_button.setToolTip("Use this text in the cases, even if a check failed.")
        self.reject_button = QPushButton("Reject")
        self.reject_button.setToolTip("Leave this text out of every case.")
        self.reset_button = QPushButton("Not reviewed")
        self.reset_button.setToolTip(
            "Back to the checks' verdict: used only if every check passed."
        )
        for button, status in (
            (self.accept_button, QualStatus.ACCEPTED),
            (self.reject_button, QualStatus.REJECTED),
            (self.reset_button, QualStatus.PENDING),
        ):
            button.clicked.connect(lambda _=False, s=status: self._review(s))
            actions.addWidget(button)
        actions.addStretch(1)
        self.detail = QLabel("")
        self.detail.setWordWrap(True)
        top_layout.addLayout(actions)
        top_layout.addWidget(self.detail)
        split.addWidget(top)
        self.diff = DiffView()
        split.addWidget(self.diff)
        split.setSizes([260, 320])
        layout.addWidget(split, 1)

    # -- showing -----------------------------------------------------------------------------

    def show_texts(
        self,
        path: Path,
        study: StudyConfig,
        texts: list[QualText],
        resume_names: dict[int, str],
        editable: bool,
    ) -> None:
        self._path, self._study, self._editable = path, study, editable
        self._names = resume_names
        gen = study.generation
        if gen is not None and gen.generators and self._cancel is None:
            g = gen.generators[0]
            self.picker.set_spec(g.provider, g.base_url, g.model)
        elif not self._user_picked and self._cancel is None:
            # no generator chosen yet: offer the model the audit tests, whose key (or
            # local server) the user already has; any other can be picked instead
            m = study.model
            self.picker.set_spec(m.provider, m.base_url, m.model)
        self._show_generator()
        keep = self._current_id()
        self._texts = sorted(texts, key=lambda q: (q.resume_id, q.kind.value, q.k, q.id or 0))
        self.table.setRowCount(len(self._texts))
        for row, q in enumerate(self._texts):
            used = q.usable()
            name = resume_names.get(q.resume_id, f"resume {q.resume_id}")
            cells = (
                # a file name keeps its end (the tooltip has all of it); other cells end in …
                self.table.fontMetrics().elidedText(name, Qt.TextElideMode.ElideMiddle, 180),
                KIND_LABELS.get(q.kind, q.kind.value),
                str(q.k) if q.k else "",
                STATUS_LABELS[q.status],
                "yes" if used else "no",
                checks_text(q) if q.checks else ("—" if not q.generator else "not checked"),
                q.generator or q.origin.value,
                "; ".join(q.changes)
                or ("same qualifications" if q.kind is VariantKind.REWORDED else ""),
            )
            for col, value in enumerate(cells):
                item = QTableWidgetItem(value)
                if col == 0:
                    item.setToolTip(name)
                elif col == COL_WRITER:
                    item.setToolTip(value)
                elif col == 1:
                    item.setToolTip(KIND_TIPS.get(q.kind, ""))
                if col == COL_CHECKS and q.checks and not q.verified:
                    item.setForeground(QColor("#c62828"))
                    item.setToolTip(checks_text(q))
                if col == COL_USED and not used:
                    item.setForeground(QColor("#c62828"))
                if col == COL_CHANGES:
                    item.setToolTip(value)
                self.table.setItem(row, col, item)
        for col in range(COL_CHANGES):
            self.table.resizeColumnToContents(col)
        # long file names and check lists are elided (full text in the tooltip), so the
        # "What changes" column keeps room at 1280 pixels wide
        self.table.setColumnWidth(0, min(self.table.columnWidth(0), 200))
        self.table.setColumnWidth(COL_CHECKS, min(self.table.columnWidth(COL_CHECKS), 200))
        self.table.setColumnWidth(COL_WRITER, min(self.table.columnWidth(COL_WRITER), 150))
        flagged = sum(1 for q in self._texts if q.checks and not q.verified)
        if not self._texts:
            self.status.setText(
                "No variant texts yet. Without a generator model the cases use name swaps, "
                "copies with a required line deleted, and copies whose qualifications block "
                "in the summary states more or fewer of the job's qualifications (the rest of "
                "the resume unchanged). Choose a generator model (the model under test is "
                "offered) and press Write variants for edits in the body itself, reworded "
                "copies and just-qualified versions."
            )
        elif self._cancel is None:
            used_count = sum(1 for q in self._texts if q.usable())
            self.status.setText(
                f"{len(self._texts)} text(s), {used_count} used in cases"
                + (
                    f"; {flagged} failed a check and are left out unless you accept them"
                    if flagged
                    else ""
                )
                + "."
            )
        self.generate_button.setEnabled(editable and self._cancel is None)
        self.change_button.setEnabled(editable and self._cancel is None)
        for b in (self.accept_button, self.reject_button, self.reset_button):
            b.setEnabled(editable and bool(self._texts))
        if self._texts:
            index = next((i for i, q in enumerate(self._texts) if q.id == keep), 0)
            self.table.selectRow(index)
            self._show_current()
        else:
            self.diff.show_pair("Source", "", "Variant", "")
            self.detail.setText("")

    def _current(self) -> QualText | None:
        row = self.table.currentRow()
        return self._texts[row] if 0 <= row < len(self._texts) else None

    def _current_id(self) -> int | None:
        q = self._current()
        return q.id if q else None

    def _show_current(self) -> None:
        q = self._current()
        if q is None or q.id is None or self._path is None:
            return
        path, qual_id = self._path, q.id

        def load() -> TextDiff:
            with ResultFile(path) as result:
                return diff(result, qual_id)

        def shown(d: TextDiff) -> None:
            current = self._current()
            if current is None or current.id != qual_id:
                return  # the user moved on meanwhile
            self.diff.show_pair(
                f"Source: {d.source_label}",
                d.source,
                f"Variant text {qual_id}: {KIND_LABELS.get(q.kind, q.kind.value)}",
                d.variant,
            )

        run_in_background(load, shown, lambda exc: self.detail.setText(str(exc)), owner=self)
        lines = [checks_text(q)] if q.checks else []
        if q.attempts:
            lines.append(f"{q.attempts} attempt(s)")
        full = list(lines)
        if q.changes:
            verb = {VariantKind.MORE: "Adds", VariantKind.LESS: "Removes"}.get(
                q.kind, "Adds, to meet the requirements"
            )
            # a completed base can add twenty qualifications: name a few, the tooltip has all
            first = "; ".join(_short(c) for c in q.changes[:MAX_CHANGES_SHOWN])
            more = len(q.changes) - MAX_CHANGES_SHOWN
            lines.append(f"{verb}: {first}" + (f"; and {more} more" if more > 0 else ""))
            full.append(f"{verb}: " + "; ".join(q.changes))
        self.detail.setText(" · ".join(lines))
        self.detail.setToolTip("\n".join(full))

    # -- reviewing ---------------------------------------------------------------------------

    def _review(self, status: QualStatus) -> None:
        q = self._current()
        if q is None or q.id is None or q.status is status or not self._editable:
            return
        self.undo.push(_StatusCommand(self, q.id, q.status, status))

    def apply_status(self, qual_id: int, status: QualStatus) -> None:
        """Set a text's status in the file (the undo stack calls this both ways)."""
        self._edit(lambda r: set_status(r, qual_id, status))
        self.status_changed.emit()

    # -- generating --------------------------------------------------------------------------

    def _show_generator(self) -> None:
        spec = self.picker.spec(ModelSpec())
        text = spec.describe()
        extra = (
            self._study.generation.generators[1:] if self._study and self._study.generation else ()
        )
        if extra:
            text += f" and {len(extra)} more from the study file"
        problem = self.picker.problem()
        self.generator_label.setText(text + (f" — {problem}" if problem else ""))

    def _choose_generator(self) -> None:
        before = self.picker.spec(ModelSpec())
        if self._dialog.exec() != QDialog.DialogCode.Accepted:
            self.picker.set_spec(before.provider, before.base_url, before.model)
        else:
            self._user_picked = True
        self._show_generator()

    def _generation_spec(self) -> GenerationSpec | None:
        """The study's generation settings with the picked model as the first generator.

        Further generators a study file names stay (texts are spread across them);
        the picked one keeps the sampling settings it had, or the generator defaults.
        """
        problem = self.picker.problem()
        if problem:
            self.status.setText(f"Cannot write variants yet: {problem}")
            return None
        assert self._study is not None
        base = self._study.generation or GenerationSpec()
        first = (
            base.generators[0] if base.generators else ModelSpec(max_tokens=GENERATOR_MAX_TOKENS)
        )
        model = self.picker.spec(first)
        rest = tuple(g for g in base.generators[1:] if g != model)
        return dataclasses.replace(base, generators=(model, *rest))

    def _generate(self) -> None:
        if self._path is None or self._study is None:
            return
        spec = self._generation_spec()
        if spec is None:
            return
        self._save_generation(spec)
        config = dataclasses.replace(self._study, generation=spec)
        path = self._path
        cancel = threading.Event()
        self._cancel = cancel
        relay = self._relay
        self.generate_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.status.setText("Writing variants… (the first answers can take a while)")

        def work() -> GenerationReport:
            return generate_for_audit(path, config, progress=relay.progress.emit, cancel=cancel)

        run_in_background(work, self._finished, self._failed, owner=self)

    def _progress(self, p: GenProgress) -> None:
        if self._cancel is None:
            return
        stage = "completing the bases" if p.stage == "base" else "writing variants"
        text = f"{stage.capitalize()}: {p.texts_done} of {p.texts_total} text(s) done"
        if p.round > 1:
            text += f", retry round {p.round}"
        if p.message:
            text += f" — {p.message}"
        self.status.setText(text)

    def _stop(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
            self.stop_button.setEnabled(False)
            self.status.setText("Stopping after the answers on their way… nothing paid is lost.")

    def _finished(self, report: GenerationReport) -> None:
        self._cancel = None
        self.stop_button.setEnabled(False)
        self.generate_button.setEnabled(self._editable)
        text = plain_words(" ".join(report.lines()))
        if not report.complete:
            text += " Stopped before the end: press Write variants to go on where it stopped."
        self.generated.emit(report)
        self.status.setText(text)

    def _failed(self, exc: Exception) -> None:
        self._cancel = None
        self.stop_button.setEnabled(False)
        self.generate_button.setEnabled(self._editable)
        self.status.setText(
            f"Writing variants stopped: {exc} Answers already received are kept; "
            "fix the problem and press Write variants again."
        )

    def busy(self) -> bool:
        return self._cancel is not None
