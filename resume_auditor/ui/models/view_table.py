"""What the app's table models share: a header with tooltips over a filtered view."""

from __future__ import annotations

from typing import Any, ClassVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex


class ViewTableModel(QAbstractTableModel):
    """Rows shown are `_view` (the rows that pass the filter, in display order);
    columns are `HEADERS`, each with its `HEADER_TIPS` tooltip."""

    HEADERS: ClassVar[list[str]] = []
    HEADER_TIPS: ClassVar[list[str]] = []
    _view: list[Any]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._view)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(  # noqa: N802
        self, section: int, orientation: Qt.Orientation, role: int = 0
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.HEADER_TIPS[section]
        return None
