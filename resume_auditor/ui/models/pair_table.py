"""The per-pair table: one row per case, with the verdict in each presentation order.

Built for 100,000 rows with answers arriving live. The model filters and sorts
itself with plain list operations (a proxy model would call back into Python for
every row on every change), and new answers update only the rows they touch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QTableView

from resume_auditor.domain.groups import group_label
from resume_auditor.store.resultfile import ResultFile

Index = QModelIndex | QPersistentModelIndex


@dataclass
class Verdict:
    choice: str  # a | b | abstain | invalid
    justification: str
    request_id: int


@dataclass
class PairRow:
    pair_id: int
    kind: str
    truth: str
    k: int
    cluster: int
    name_a: str
    name_b: str
    group_a: str
    group_b: str
    differs: str
    variant_a: int
    variant_b: int
    ab: Verdict | None = None
    ba: Verdict | None = None

    def verdict_text(self, v: Verdict | None) -> str:
        if v is None:
            return "…"
        if v.choice == "a":
            return f"A: {self.name_a}"
        if v.choice == "b":
            return f"B: {self.name_b}"
        return {"abstain": "Abstained", "invalid": "Unreadable"}.get(v.choice, v.choice)

    def correct(self, v: Verdict | None) -> bool | None:
        if v is None or v.choice == "invalid":
            return None
        expected = "abstain" if self.truth == "equal" else self.truth
        return v.choice == expected

    @property
    def agree(self) -> bool | None:
        if self.ab is None or self.ba is None:
            return None
        return self.ab.choice == self.ba.choice

    @property
    def truth_text(self) -> str:
        if self.truth == "equal":
            return "Equal: should abstain"
        return f"{self.truth.upper()} is more qualified"

    def searchable(self) -> str:
        return " ".join(
            [
                self.name_a,
                self.name_b,
                group_label(self.group_a),
                group_label(self.group_b),
                self.differs,
                self.ab.justification if self.ab else "",
                self.ba.justification if self.ba else "",
            ]
        ).lower()


def choice_of(label: str, order: str) -> str:
    if label == "first":
        return "a" if order == "ab" else "b"
    if label == "second":
        return "b" if order == "ab" else "a"
    return label


VerdictUpdate = tuple[int, str, Verdict]  # pair_id, order, verdict


def load_rows(path: Path, run_id: int | None) -> tuple[list[PairRow], str]:
    """The table's rows, and the time of the newest answer in them (for live updates).

    Call off the UI thread: for a big audit this reads every pair.
    """
    with ResultFile(path) as result:
        labels = result.variant_labels()
        rows: dict[int, PairRow] = {}
        for p in result.cases("D1"):
            name_a = labels.get(p.variant_a, ("", "", ""))[0]
            name_b = labels.get(p.variant_b, ("", "", ""))[0]
            rows[p.id or 0] = PairRow(
                pair_id=p.id or 0,
                kind=str(p.kind),
                truth=p.truth.value if p.truth is not None else "",
                k=p.k,
                cluster=p.cluster or 0,
                name_a=name_a,
                name_b=name_b,
                group_a=p.group_a or "",
                group_b=p.group_b or "",
                differs=p.differs,
                variant_a=p.variant_a,
                variant_b=p.variant_b,
            )
        newest = ""
        if run_id is not None:
            for update, received in _verdicts(result, run_id, ""):
                _apply(rows, update)
                newest = max(newest, received)
    return list(rows.values()), newest


def load_updates(path: Path, run_id: int, since: str) -> tuple[list[VerdictUpdate], str]:
    """Answers that arrived at or after `since`; the caller ignores ones it has seen."""
    with ResultFile(path) as result:
        out = []
        newest = since
        for update, received in _verdicts(result, run_id, since):
            out.append(update)
            newest = max(newest, received)
    return out, newest


def _verdicts(result: ResultFile, run_id: int, since: str) -> Iterable[tuple[VerdictUpdate, str]]:
    for request_id, pair_id, order, rep, label, why, received in result.verdicts_since(
        run_id, since
    ):
        if rep != 0:
            continue
        yield (pair_id, order, Verdict(choice_of(label, order), why, request_id)), received


def _apply(rows: dict[int, PairRow], update: VerdictUpdate) -> bool:
    pair_id, order, verdict = update
    row = rows.get(pair_id)
    if row is None:
        return False
    if order == "ab":
        changed = row.ab != verdict
        row.ab = verdict
    else:
        changed = row.ba != verdict
        row.ba = verdict
    return changed


GOOD = QColor(46, 125, 50)
BAD = QColor(198, 40, 40)

Predicate = Callable[[PairRow], bool]


def make_filter(kind: str, text: str) -> Predicate | None:
    """The rows a user asked to see: a kind of pair or verdict, and words to find."""
    text = text.strip().lower()
    checks: list[Predicate] = []
    if kind in ("equal", "unequal"):
        checks.append(lambda r: r.kind == kind)
    elif kind == "wrong":
        checks.append(lambda r: r.correct(r.ab) is False or r.correct(r.ba) is False)
    elif kind == "inconsistent":
        checks.append(lambda r: r.agree is False)
    if text:
        checks.append(lambda r: text in r.searchable())
    if not checks:
        return None
    return lambda r: all(check(r) for check in checks)


class PairTableModel(QAbstractTableModel):
    COL_PAIR, COL_KIND, COL_A, COL_B, COL_DIFFERS, COL_TRUTH, COL_AB, COL_BA, COL_AGREE, COL_WHY = (
        range(10)
    )
    HEADERS = [
        "Pair",
        "Kind",
        "Candidate A",
        "Candidate B",
        "What differs",
        "Ground truth",
        "Verdict, A shown first",
        "Verdict, B shown first",
        "Orders agree",
        "Justification (A first)",
    ]
    ROW_ROLE = Qt.ItemDataRole.UserRole + 2

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[PairRow] = []
        self._by_pair: dict[int, int] = {}  # pair id -> index in rows
        self._view: list[int] = []  # indexes into rows, in display order
        self._pos: dict[int, int] = {}  # index in rows -> display position
        self._filter: Predicate | None = None
        self._sort: tuple[int, Qt.SortOrder] | None = None

    # -- content -----------------------------------------------------------------------

    def set_rows(self, rows: list[PairRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self._by_pair = {r.pair_id: i for i, r in enumerate(rows)}
        self._rebuild_view()
        self.endResetModel()

    def apply(self, updates: list[VerdictUpdate]) -> int:
        """New answers: change only the rows they touch. Returns how many changed."""
        touched: list[int] = []
        for pair_id, order, verdict in updates:
            i = self._by_pair.get(pair_id)
            if i is None:
                continue
            row = self.rows[i]
            current = row.ab if order == "ab" else row.ba
            if current == verdict:
                continue
            if order == "ab":
                row.ab = verdict
            else:
                row.ba = verdict
            touched.append(i)
        if not touched:
            return 0
        rebuild = self._sort is not None and self._sort[0] in (
            self.COL_AB,
            self.COL_BA,
            self.COL_AGREE,
            self.COL_WHY,
        )
        if self._filter is not None and not rebuild:
            pred = self._filter
            rebuild = any(pred(self.rows[i]) != (i in self._pos) for i in touched)
        if rebuild:
            # Membership or order changed: one pass over plain lists.
            self.layoutAboutToBeChanged.emit()
            self._rebuild_view()
            self.layoutChanged.emit()
            return len(touched)
        last = len(self.HEADERS) - 1
        for i in touched:
            pos = self._pos.get(i)
            if pos is not None:
                self.dataChanged.emit(self.index(pos, 0), self.index(pos, last))
        return len(touched)

    def set_filter(self, predicate: Predicate | None) -> None:
        self.layoutAboutToBeChanged.emit()
        self._filter = predicate
        self._rebuild_view()
        self.layoutChanged.emit()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.layoutAboutToBeChanged.emit()
        self._sort = (column, order)
        self._rebuild_view()
        self.layoutChanged.emit()

    def _rebuild_view(self) -> None:
        pred = self._filter
        if pred is None:
            view = list(range(len(self.rows)))
        else:
            view = [i for i, r in enumerate(self.rows) if pred(r)]
        if self._sort is not None:
            column, order = self._sort
            if column == self.COL_PAIR:
                view.sort(key=lambda i: self.rows[i].pair_id)
            else:
                view.sort(key=lambda i: self._display(self.rows[i], column))
            if order == Qt.SortOrder.DescendingOrder:
                view.reverse()
        self._view = view
        self._pos = {i: pos for pos, i in enumerate(view)}

    def row_at(self, position: int) -> PairRow:
        return self.rows[self._view[position]]

    def row_for_pair(self, pair_id: int) -> PairRow | None:
        i = self._by_pair.get(pair_id)
        return None if i is None else self.rows[i]

    def position_of(self, pair_id: int) -> int | None:
        i = self._by_pair.get(pair_id)
        return None if i is None else self._pos.get(i)

    # -- Qt ----------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._view)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def _display(self, row: PairRow, col: int) -> str:
        if col == self.COL_PAIR:
            return str(row.pair_id)
        if col == self.COL_KIND:
            return "Equal" if row.kind == "equal" else f"Unequal (k={row.k})"
        if col == self.COL_A:
            return f"{row.name_a} ({group_label(row.group_a)})"
        if col == self.COL_B:
            return f"{row.name_b} ({group_label(row.group_b)})"
        if col == self.COL_DIFFERS:
            return row.differs
        if col == self.COL_TRUTH:
            return row.truth_text
        if col == self.COL_AB:
            return row.verdict_text(row.ab)
        if col == self.COL_BA:
            return row.verdict_text(row.ba)
        if col == self.COL_AGREE:
            return {None: "…", True: "Yes", False: "No"}[row.agree]
        if col == self.COL_WHY:
            return (row.ab.justification if row.ab else "").replace("\n", " ")
        return ""

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._view):
            return None
        row = self.rows[self._view[index.row()]]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, col)
        if role == self.ROW_ROLE:
            return row
        if role == Qt.ItemDataRole.ForegroundRole and col in (self.COL_AB, self.COL_BA):
            ok = row.correct(row.ab if col == self.COL_AB else row.ba)
            if ok is not None:
                return QBrush(GOOD if ok else BAD)
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == self.COL_WHY and row.ab:
                return row.ab.justification
            if col == self.COL_DIFFERS:
                return row.differs
            if col in (self.COL_AB, self.COL_BA):
                ok = row.correct(row.ab if col == self.COL_AB else row.ba)
                return {
                    None: "No answer yet",
                    True: "Matches the ground truth",
                    False: "Does not match the ground truth",
                }[ok]
        return None


def pair_table(model: PairTableModel, name: str) -> QTableView:
    """A sortable, single-row-selecting table of pairs (this page and Results share it)."""
    table = QTableView()
    table.setModel(model)
    table.setSortingEnabled(True)
    table.setWordWrap(False)
    table.verticalHeader().setDefaultSectionSize(24)
    table.verticalHeader().setVisible(False)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setAccessibleName(name)
    return table
