"""The per-pair table: one row per case, with the verdict in each presentation order."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

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


def load_rows(path: Path, run_id: int | None) -> list[PairRow]:
    """Build the table's rows from a result file (call off the UI thread for big files)."""
    with ResultFile(path) as result:
        variants = {v.id: v for v in result.variants()}
        rows: dict[int, PairRow] = {}
        for p in result.pairs():
            va, vb = variants[p.variant_a], variants[p.variant_b]
            rows[p.id or 0] = PairRow(
                pair_id=p.id or 0,
                kind=p.kind.value,
                truth=p.truth.value,
                k=p.k,
                cluster=p.cluster,
                name_a=va.name or "",
                name_b=vb.name or "",
                group_a=p.group_a or "",
                group_b=p.group_b or "",
                differs=p.differs,
                variant_a=p.variant_a,
                variant_b=p.variant_b,
            )
        if run_id is not None:
            frame = result.judgments(run_id)
            for rec in frame.itertuples(index=False):
                row = rows.get(int(rec.pair_id))
                if row is None or int(rec.rep) != 0:
                    continue
                first_is_a = rec.ord == "ab"
                label = str(rec.label)
                if label == "first":
                    choice = "a" if first_is_a else "b"
                elif label == "second":
                    choice = "b" if first_is_a else "a"
                else:
                    choice = label
                verdict = Verdict(choice, str(rec.justification), int(rec.request_id))
                if first_is_a:
                    row.ab = verdict
                else:
                    row.ba = verdict
    return list(rows.values())


GOOD = QColor(46, 125, 50)
BAD = QColor(198, 40, 40)


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
    SORT_ROLE = Qt.ItemDataRole.UserRole + 1
    ROW_ROLE = Qt.ItemDataRole.UserRole + 2

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[PairRow] = []

    def set_rows(self, rows: list[PairRow]) -> None:
        if [r.pair_id for r in rows] == [r.pair_id for r in self.rows]:
            # Same pairs: update in place so selection and scroll stay put.
            self.rows = rows
            if rows:
                self.dataChanged.emit(
                    self.index(0, 0), self.index(len(rows) - 1, len(self.HEADERS) - 1)
                )
            return
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

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
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(row, col)
        if role == self.SORT_ROLE:
            if col == self.COL_PAIR:
                return row.pair_id
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
