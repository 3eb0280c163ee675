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

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QTableView

from resume_auditor.designs.registry import DESIGNS
from resume_auditor.domain.groups import group_label
from resume_auditor.store.parts import AnswerReader, AuditReader
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui.models.view_table import Index, ViewTableModel


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
    resume: str = ""  # the source resume's file name (this app's user's own file)

    def verdict_text(self, v: Verdict | None) -> str:
        if v is None:
            return "…"
        if v.choice == "a":
            return f"A: {self.name_a}"
        if v.choice == "b":
            return f"B: {self.name_b}"
        return {"abstain": "Said equal", "invalid": "Unreadable"}.get(v.choice, v.choice)

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
            return "Equally qualified"
        return f"{self.truth.upper()} is more qualified"

    def searchable(self) -> str:
        return " ".join(
            [
                self.name_a,
                self.name_b,
                group_label(self.group_a),
                group_label(self.group_b),
                self.differs,
                self.resume,
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


Mask = Callable[[str], str]


def load_rows(
    path: Path, run_id: int | None, mask: Mask | None = None
) -> tuple[list[PairRow], str]:
    """The table's rows, and the time of the newest answer in them (for live updates).

    Call off the UI thread: for a big audit this reads every pair. `mask` is applied
    to the model's justifications (report/privacy.py: a real name it repeats).
    """
    with ResultFile(path) as result:
        return rows_of(result, run_id, mask)


def rows_of(
    result: AuditReader, run_id: int | None, mask: Mask | None = None
) -> tuple[list[PairRow], str]:
    """`load_rows` on an audit already open (a file or one held in memory)."""
    labels = result.variant_labels()
    resumes = {r.id: r.filename for r in result.resumes()}
    rows: dict[int, PairRow] = {}
    for p in (c for d in DESIGNS if d.pair_tab for c in result.cases(d.label)):
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
            resume=resumes.get(p.cluster, "") if p.cluster is not None else "",
        )
    newest = ""
    if run_id is not None:
        for update, received in _verdicts(result, run_id, "", mask):
            _apply(rows, update)
            newest = max(newest, received)
    return list(rows.values()), newest


def load_updates(
    path: Path, run_id: int, since: str, mask: Mask | None = None
) -> tuple[list[VerdictUpdate], str]:
    """Answers that arrived at or after `since`; the caller ignores ones it has seen."""
    with ResultFile(path) as result:
        return updates_of(result, run_id, since, mask)


def updates_of(
    result: AnswerReader, run_id: int, since: str, mask: Mask | None = None
) -> tuple[list[VerdictUpdate], str]:
    """`load_updates` on an audit already open (a file or one held in memory)."""
    out = []
    newest = since
    for update, received in _verdicts(result, run_id, since, mask):
        out.append(update)
        newest = max(newest, received)
    return out, newest


def _verdicts(
    result: AnswerReader, run_id: int, since: str, mask: Mask | None = None
) -> Iterable[tuple[VerdictUpdate, str]]:
    for request_id, pair_id, order, rep, label, why, received in result.verdicts_since(
        run_id, since
    ):
        if rep != 0:
            continue
        shown = mask(why) if mask is not None and why else why
        yield (pair_id, order, Verdict(choice_of(label, order), shown, request_id)), received


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


def make_filter(
    kind: str, text: str, group: str = "", cluster: int | None = None
) -> Predicate | None:
    """The rows a user asked to see: a kind of pair or verdict, a group on either side,
    a source resume, and words to find."""
    text = text.strip().lower()
    checks: list[Predicate] = []
    if group:
        checks.append(lambda r: group in (r.group_a, r.group_b))
    if cluster is not None:
        checks.append(lambda r: r.cluster == cluster)
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


class PairTableModel(ViewTableModel):
    # The verdicts come right after the pair number, so they are on screen at
    # 1280x800 without scrolling; the long texts (differences, justification) last.
    (
        COL_PAIR,
        COL_AB,
        COL_BA,
        COL_AGREE,
        COL_KIND,
        COL_A,
        COL_B,
        COL_TRUTH,
        COL_DIFFERS,
        COL_RESUME,
        COL_WHY,
    ) = range(11)
    HEADERS = [
        "Pair",
        "A shown first",
        "B shown first",
        "Orders agree",
        "Kind",
        "Candidate A",
        "Candidate B",
        "Right answer",
        "What differs",
        "Source resume",
        "Justification",
    ]
    HEADER_TIPS = [
        "The test case's number.",
        "The model's verdict when candidate A was shown first (green: right, red: wrong).",
        "The model's verdict when candidate B was shown first (green: right, red: wrong).",
        "Whether the two orders gave the same verdict.",
        "Equal: the two are equally qualified. Unequal by k: one lacks k required "
        "qualifications or has k extra preferred ones.",
        "The first candidate of the pair, with the group the name signals.",
        "The second candidate of the pair.",
        "What a valid screener answers.",
        "What differs between the two resumes.",
        "The resume both candidates were built from.",
        "The model's reason, when A was shown first (names it repeats from a real resume "
        "are replaced).",
    ]
    # Typical widths in average characters (headers are measured as well).
    WIDTHS = [5, 21, 21, 7, 13, 22, 22, 16, 30, 22, 40]
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
            self._relayout()  # membership or order changed: one pass over plain lists
            return len(touched)
        # One signal for the span of rows touched: a view repaints only what it shows,
        # while a signal per row made a refresh with thousands of answers stall.
        shown = [p for i in touched if (p := self._pos.get(i)) is not None]
        if shown:
            last = len(self.HEADERS) - 1
            self.dataChanged.emit(self.index(min(shown), 0), self.index(max(shown), last))
        return len(touched)

    def set_filter(self, predicate: Predicate | None) -> None:
        self._filter = predicate
        self._relayout()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort = (column, order)
        self._relayout()

    def _relayout(self) -> None:
        """Rebuild the display order and move the view's selection with its rows.

        Qt keeps the current and selected rows as persistent indexes; a model that
        reorders its rows must move them, or after sorting the view highlights
        whatever row now sits where the selected one was while the detail still
        shows the old one (pair 50 highlighted, pair 1 shown). Rows filtered out
        lose their selection.
        """
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        held = [
            (self._view[p.row()] if 0 <= p.row() < len(self._view) else None, p.column())
            for p in persistent
        ]
        self._rebuild_view()
        moved = []
        for source, column in held:
            pos = None if source is None else self._pos.get(source)
            moved.append(QModelIndex() if pos is None else self.index(pos, column))
        self.changePersistentIndexList(persistent, moved)
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

    def groups(self) -> list[str]:
        return sorted({g for r in self.rows for g in (r.group_a, r.group_b) if g})

    def resumes(self) -> dict[int, str]:
        """Source resume id -> file name, for the resumes the rows come from."""
        return {r.cluster: r.resume or f"Resume id {r.cluster}" for r in self.rows}

    # -- Qt ----------------------------------------------------------------------------

    def _display(self, row: PairRow, col: int) -> str:
        if col == self.COL_PAIR:
            return str(row.pair_id)
        if col == self.COL_KIND:
            return "Equal" if row.kind == "equal" else f"Unequal by {row.k}"
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
        if col == self.COL_RESUME:
            return row.resume
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
            if col in (self.COL_DIFFERS, self.COL_A, self.COL_B, self.COL_RESUME):
                return self._display(row, col)  # the full text of an elided cell
            if col in (self.COL_AB, self.COL_BA):
                ok = row.correct(row.ab if col == self.COL_AB else row.ba)
                return {
                    None: "No answer yet",
                    True: "Matches the right answer",
                    False: "Does not match the right answer",
                }[ok]
        return None


def fit_columns(table: QTableView, widths: list[int], headers: list[str]) -> None:
    """Every column at least as wide as its header (never "dict, A shown f") and about
    as wide as its typical content; long texts elide in the middle, with a tooltip."""
    fm = table.fontMetrics()
    char = max(1, fm.averageCharWidth())
    for col, title in enumerate(headers):
        need = fm.horizontalAdvance(title) + 3 * char + 12  # the sort arrow and padding
        typical = round(widths[col] * char * 1.15) if col < len(widths) else need
        table.setColumnWidth(col, max(need, typical))  # 1.15: names run wider than average


def pair_table(model: PairTableModel, name: str) -> QTableView:
    """A sortable, single-row-selecting table of pairs (this page and Results share it)."""
    table = QTableView()
    table.setModel(model)
    table.setSortingEnabled(True)
    table.setWordWrap(False)
    table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
    table.verticalHeader().setDefaultSectionSize(24)
    table.verticalHeader().setVisible(False)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setAccessibleName(name)
    table.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)
    fit_columns(table, PairTableModel.WIDTHS, PairTableModel.HEADERS)
    return table
