"""One design's numbers on the Results page: a filterable table, its chart, what a row means.

The page fills it with rows computed off the UI thread (ui/models/metric_table.py)
and chart images rendered off it (ui/widgets/charts.py); the panel only shows
them. Double-clicking a number (or "Show the answers") asks the page, through
`drill`, for the answers behind it.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.ui.models.metric_table import ALL, MetricRow, MetricTableModel, plain_flag
from resume_auditor.ui.widgets.charts import ChartView


def content_combo(name: str) -> QComboBox:
    """A combo box as wide as its longest entry (never clipped), elided in the middle
    in its list if an entry is longer than the screen allows."""
    combo = QComboBox()
    combo.setAccessibleName(name)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    # never squeezed below its content by a crowded row (the row scrolls or wraps instead)
    combo.setSizePolicy(QSizePolicy.Policy.Minimum, QSizePolicy.Policy.Fixed)
    combo.view().setTextElideMode(Qt.TextElideMode.ElideMiddle)
    return combo


class DesignPanel(QWidget):
    """Signals: drill(tuple[str, ...], str) — a metric's path and its label."""

    drill = Signal(object, str)

    def __init__(self, design: str, intro: str, charts: list[ChartView]) -> None:
        super().__init__()
        self.design = design
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.intro = QLabel(intro)
        self.intro.setWordWrap(True)
        self.warning = QLabel("")
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("color: #b26a00; font-weight: 600;")
        self.warning.hide()
        layout.addWidget(self.intro)
        layout.addWidget(self.warning)

        filters = QHBoxLayout()
        self.measure_filter = content_combo(f"{design} measure shown")
        self.group_filter = content_combo(f"{design} group shown")
        self.search = QLineEdit()
        self.search.setPlaceholderText("Find a measure, group or status…")
        self.search.setClearButtonEnabled(True)
        for w in (self.measure_filter, self.group_filter):
            w.currentIndexChanged.connect(self._filter)
        self.search.textChanged.connect(self._filter)
        filters.addWidget(QLabel("Measure"))
        filters.addWidget(self.measure_filter)
        filters.addWidget(QLabel("Group"))
        filters.addWidget(self.group_filter)
        filters.addWidget(self.search, 1)
        self.drill_button = QPushButton("Show the answers behind this number…")
        self.drill_button.setEnabled(False)
        self.drill_button.clicked.connect(self._drill_current)
        filters.addWidget(self.drill_button)
        layout.addLayout(filters)

        self.model = MetricTableModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(f"{design} numbers")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.doubleClicked.connect(self._drill_index)
        self.table.activated.connect(self._drill_index)
        self.table.selectionModel().currentRowChanged.connect(self._explain)
        self.meaning = QLabel(
            "Select a number to see what it means; double-click it to read the answers behind it."
        )
        self.meaning.setWordWrap(True)
        self.meaning.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.meaning)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        self.charts = charts
        if charts:
            chart_box = QWidget()
            chart_layout = QVBoxLayout(chart_box)
            chart_layout.setContentsMargins(0, 0, 0, 0)
            for chart in charts:
                chart_layout.addWidget(chart, 1)
            split.addWidget(chart_box)
            split.setStretchFactor(0, 3)
            split.setStretchFactor(1, 2)
        self._split = split
        self._sized = False
        self._fitted = False
        layout.addWidget(split, 1)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        """The first time it is shown, give the numbers about two thirds of the width: the value
        and interval columns must be on screen at 1280x800."""
        super().showEvent(event)
        if not self._sized and self.charts and self.width() > 0:
            self._sized = True
            self._split.setSizes([int(self.width() * 0.68), int(self.width() * 0.32)])

    # -- content ----------------------------------------------------------------------

    def show_rows(self, rows: list[MetricRow], warning: str = "") -> None:
        keep = (self.measure_filter.currentData(), self.group_filter.currentData())
        self.model.set_rows(rows)
        for combo, items, kept in (
            (self.measure_filter, self.model.measures(), keep[0]),
            (self.group_filter, self.model.groups(), keep[1]),
        ):
            combo.blockSignals(True)
            combo.clear()
            combo.addItem("All measures" if combo is self.measure_filter else "All groups", "")
            for item in items:
                combo.addItem(item, item)
                combo.setItemData(combo.count() - 1, item, Qt.ItemDataRole.ToolTipRole)
            combo.setCurrentIndex(max(0, combo.findData(kept or "")))
            combo.blockSignals(False)
        self.table.setColumnHidden(MetricTableModel.COL_CI70, not self.model.has_ci70())
        self._filter()
        if not self._fitted and rows:
            self._fitted = True  # once: measuring text on every refresh costs the UI thread
            self._fit_columns()
        self.warning.setText(warning)
        self.warning.setVisible(bool(warning))

    def _fit_columns(self) -> None:
        """Wide enough for every header and the values (never "dict, A shown f").

        Headers are measured; cells are estimated from their length (measuring
        hundreds of strings with the font costs the UI thread tens of milliseconds).
        """
        fm = self.table.fontMetrics()
        sample = self.model.rows[:80]
        for col, title in enumerate(MetricTableModel.HEADERS):
            texts = [self.model.text_of(r, col) for r in sample]
            longest = max(texts, key=len, default="")
            widest = max(fm.horizontalAdvance(title) + 28, fm.horizontalAdvance(longest) + 20)
            caps = {MetricTableModel.COL_MEASURE: 300, MetricTableModel.COL_STATUS: 200}
            self.table.setColumnWidth(col, min(widest, caps.get(col, 170)))

    def _filter(self) -> None:
        self.model.set_filter(
            str(self.measure_filter.currentData() or ""),
            str(self.group_filter.currentData() or ""),
            self.search.text(),
        )
        self.drill_button.setEnabled(False)
        if self.model.rowCount():
            self.table.selectRow(0)

    def _explain(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            self.drill_button.setEnabled(False)
            return
        row = self.model.row_at(current.row())
        who = "" if row.group == ALL else f" — {row.group}"
        lines = [f"<b>{_esc(row.title)}{_esc(who)}: {_esc(row.value)}</b>"]
        if row.metric.get("reading"):
            lines.append(_esc(str(row.metric["reading"])))
        elif row.term:
            lines.append(_esc(row.term.meaning))
        if row.metric.get("flag"):
            flag = plain_flag(str(row.metric["flag"]))
            lines.append(f'<span style="color:#c62828;">⚠ Flagged: {_esc(flag)}</span>')
        self.meaning.setText("<br>".join(lines))
        self.meaning.setToolTip(row.tooltip())
        self.drill_button.setEnabled(row.answers > 0)

    def _drill_index(self, index: QModelIndex) -> None:
        if index.isValid():
            row = self.model.row_at(index.row())
            self.drill.emit(row.path, _title(row))

    def _drill_current(self) -> None:
        self._drill_index(self.table.currentIndex())


def _title(row: MetricRow) -> str:
    bits = [row.title]
    if row.group != ALL:
        bits.append(f"— {row.group}")
    return " ".join(bits) + f": {row.value}"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
