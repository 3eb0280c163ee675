"""The qualification checklist as an editable table, with undoable edits."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from resume_auditor.designs.registry import DESIGNS
from resume_auditor.domain.job import Qualification, QualKind, QualType

# The designs whose unequal pairs measure criterion validity (`Design.pair_tab`).
PAIRS = ", ".join(d.label for d in DESIGNS if d.pair_tab)

Index = QModelIndex | QPersistentModelIndex

KIND_LABELS = {QualKind.REQUIRED: "Required", QualKind.PREFERRED: "Preferred"}
TYPE_LABELS = {
    QualType.HARD_SKILL: "Hard skill",
    QualType.SOFT_SKILL: "Soft skill",
    QualType.EDUCATION: "Education",
    QualType.EXPERIENCE: "Years of experience",
    QualType.CERTIFICATION: "Certification",
    QualType.UNKNOWN: "Not sure",
}


class ChecklistModel(QAbstractTableModel):
    """Rows of qualifications; every change goes through the undo stack."""

    COL_KIND, COL_TYPE, COL_TEXT = range(3)
    HEADERS = ["Kind", "Type", "Qualification"]
    changed = Signal()  # after any edit, for saving

    def __init__(self, undo: QUndoStack) -> None:
        super().__init__()
        self.rows: list[Qualification] = []
        self.undo = undo
        self.editable = True
        # what the parser said when it read these rows from the text (jobparse notes)
        self._notes: list[str] = []
        self._read_rows: list[Qualification] = []

    # -- why the checklist may be empty or doubtful --------------------------------------

    def set_reading(self, rows: list[Qualification], notes: list[str]) -> None:
        """Remember what reading the text gave and what the parser said about it."""
        self._read_rows = list(rows)
        self._notes = list(notes)

    def advice(self) -> str:
        """Why the checklist is empty or doubtful and what to do; "" when it looks fine.

        The parser's notes hold while the rows are the ones it read; once the user has
        edited them, only what still holds is said (no required qualification)."""
        if self._notes and self.rows == self._read_rows:
            return " ".join(self._notes)
        if not any(q.kind is QualKind.REQUIRED for q in self.rows):
            return (
                "No required qualification: without one no unequal pairs can be built, so "
                f"criterion validity ({PAIRS}) cannot be measured. Add the job's requirements with "
                "'Add required', or paste a posting that lists them and read it again."
            )
        return ""

    # -- reading -----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 3

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        q = self.rows[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if col == self.COL_KIND:
                return KIND_LABELS[q.kind]
            if col == self.COL_TYPE:
                return TYPE_LABELS[q.qtype]
            return q.text
        if role == Qt.ItemDataRole.EditRole:
            if col == self.COL_KIND:
                return q.kind.value
            if col == self.COL_TYPE:
                return q.qtype.value
            return q.text
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return base | Qt.ItemFlag.ItemIsEditable if self.editable else base

    # -- writing (through undo commands) -------------------------------------------------

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or not self.editable:
            return False
        old = self.rows[index.row()]
        col = index.column()
        try:
            if col == self.COL_KIND:
                new = Qualification(old.text, QualKind(str(value)), old.qtype)
            elif col == self.COL_TYPE:
                new = Qualification(old.text, old.kind, QualType(str(value)))
            else:
                text = str(value).strip()
                if not text:
                    return False
                new = Qualification(text, old.kind, old.qtype)
        except ValueError:
            return False
        if new != old:
            self.undo.push(_SetRow(self, index.row(), old, new))
        return True

    def set_all(self, rows: list[Qualification], *, undoable: bool, label: str = "") -> None:
        if undoable:
            self.undo.push(_Replace(self, list(self.rows), list(rows), label or "Replace"))
        else:
            self._replace(rows, notify=False)

    def add(self, q: Qualification) -> None:
        self.undo.push(_Insert(self, len(self.rows), q))

    def remove(self, row: int) -> None:
        if 0 <= row < len(self.rows):
            self.undo.push(_Remove(self, row, self.rows[row]))

    # -- primitives used by the commands ---------------------------------------------------

    def _replace(self, rows: list[Qualification], notify: bool = True) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()
        if notify:
            self.changed.emit()

    def _set(self, row: int, q: Qualification) -> None:
        self.rows[row] = q
        self.dataChanged.emit(self.index(row, 0), self.index(row, 2))
        self.changed.emit()

    def _insert(self, row: int, q: Qualification) -> None:
        self.beginInsertRows(QModelIndex(), row, row)
        self.rows.insert(row, q)
        self.endInsertRows()
        self.changed.emit()

    def _remove(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        del self.rows[row]
        self.endRemoveRows()
        self.changed.emit()


class _SetRow(QUndoCommand):
    def __init__(self, model: ChecklistModel, row: int, old: Qualification, new: Qualification):
        super().__init__("Edit qualification")
        self.model, self.row, self.old, self.new = model, row, old, new

    def redo(self) -> None:
        self.model._set(self.row, self.new)

    def undo(self) -> None:
        self.model._set(self.row, self.old)


class _Insert(QUndoCommand):
    def __init__(self, model: ChecklistModel, row: int, q: Qualification):
        super().__init__("Add qualification")
        self.model, self.row, self.q = model, row, q

    def redo(self) -> None:
        self.model._insert(self.row, self.q)

    def undo(self) -> None:
        self.model._remove(self.row)


class _Remove(QUndoCommand):
    def __init__(self, model: ChecklistModel, row: int, q: Qualification):
        super().__init__("Remove qualification")
        self.model, self.row, self.q = model, row, q

    def redo(self) -> None:
        self.model._remove(self.row)

    def undo(self) -> None:
        self.model._insert(self.row, self.q)


class _Replace(QUndoCommand):
    def __init__(
        self, model: ChecklistModel, old: list[Qualification], new: list[Qualification], label: str
    ):
        super().__init__(label)
        self.model, self.old, self.new = model, old, new

    def redo(self) -> None:
        self.model._replace(self.new)

    def undo(self) -> None:
        self.model._replace(self.old)
