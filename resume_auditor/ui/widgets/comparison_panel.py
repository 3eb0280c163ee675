"""The Results page's "Models compared" tab: every model of the audit side by side.

A recruiter choosing between models reads, from the top: which models answered the
same test cases; each headline number per model with its interval; one sentence per
difference that names the model ahead (clear ones first, in bold); and a chart of the
differences with their paired intervals. Everything comes from the comparison the
Results page computes off the UI thread (workflow/compare.py); this widget only shows
it, so opening the tab never waits for a number.
"""

from __future__ import annotations

import html
import logging

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.report.comparison import alike_sentences, cost_rows, difference_items
from resume_auditor.report.numbers import ci_text, value_text
from resume_auditor.stats.model import AgreementRow, ComparisonDict, IntervalDict
from resume_auditor.ui.widgets.charts import ChartSpec, ChartView, Pixels

logger = logging.getLogger(__name__)

KEY = "models_differences"  # the chart's key among the Results page's charts
PLAIN_METHOD = (
    "Every difference is measured on the same test cases, and its interval allows for "
    "which resumes this audit happened to use. The more differences are compared, the "
    "larger each must be to count as clear."
)


def chart(comparison: ComparisonDict | None, this_run: int | None = None) -> ChartSpec:
    """The differences chart (drawn in a worker, as every Results chart): of several
    models, each other one minus the run the other tabs show (`this_run`; else the
    newest), so that it stays readable at five models."""
    if not comparison:
        return ChartSpec("gaps", "Differences between models", [])
    runs = [r["run"] for r in comparison["runs"]]
    reference = this_run if this_run in runs else (runs[-1] if runs else None)
    title, items = difference_items(comparison, reference)
    return ChartSpec("differences", title, items, (), "points")


def _cell(metric: IntervalDict) -> str:
    value = value_text(dict(metric))
    ci = ci_text(dict(metric))
    return f"{value}\n{ci}" if ci else value  # two short lines: five models fit side by side


def _clear(metric: IntervalDict, alpha: float) -> bool:
    p = metric["p_holm"]
    return p is not None and p < alpha


class ComparisonPanel(QWidget):
    """Shows a `ComparisonDict`; `chart_view` is drawn by the page with its other charts.

    `differing(design, run_a, run_b, title)`: the user asked for the answers where two
    models differ (the page reads them off the UI thread)."""

    differing = Signal(str, int, int, str)

    def __init__(self) -> None:
        super().__init__()
        self.setAccessibleName("Models compared")
        self.heading = QLabel("")
        self.heading.setWordWrap(True)
        self.values = QTableWidget(0, 1)
        self.values.setAccessibleName("Each model's headline numbers")
        self.values.verticalHeader().setVisible(False)
        self.values.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.values.setWordWrap(True)
        # one sentence per difference, the clear ones first and in bold: read, not scanned
        self.differences = QTextBrowser()
        self.differences.setAccessibleName("Differences between two models")
        self.differences.setOpenLinks(False)
        self.differences.anchorClicked.connect(self._link)
        self._agreement: list[AgreementRow] = []
        self._names: dict[int, str] = {}
        self.chart_view = ChartView("Differences between models", key=KEY)
        self.chart_view.setMinimumSize(260, 160)
        self.method = QLabel("")
        self.method.setWordWrap(True)

        tables = QSplitter(Qt.Orientation.Vertical)
        tables.addWidget(self.values)
        tables.addWidget(self.differences)
        tables.setStretchFactor(0, 2)
        tables.setStretchFactor(1, 3)
        body = QSplitter(Qt.Orientation.Horizontal)
        body.addWidget(tables)
        body.addWidget(self.chart_view)
        body.setStretchFactor(0, 3)
        body.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(body, 1)
        layout.addWidget(self.method)

    def show_comparison(self, comparison: ComparisonDict | None, this_run: int | None) -> None:
        if not comparison:
            self.heading.setText("Only one model has answered these test cases.")
            self.values.setRowCount(0)
            self.differences.clear()
            self.method.setText("")
            return
        runs = comparison["runs"]
        names = {r["run"]: r["name"] for r in runs}
        alpha = comparison["alpha"]
        clear = [d for d in comparison["differences"] if _clear(d["difference"], alpha)]
        self.heading.setText(
            f"{len(runs)} models answered the same test cases: "
            + ", ".join(r["name"] for r in runs)
            + f". {len(clear)} of {len(comparison['differences'])} differences between them "
            "are clear after adjusting for how many were compared."
            + (f" The other tabs show {names[this_run]}." if this_run in names else "")
        )
        self.values.setColumnCount(1 + len(runs))
        self.values.setHorizontalHeaderLabels(["Measure", *(r["name"] for r in runs)])
        header = self.values.horizontalHeader()
        # the measure's name keeps room for about 24 characters a line (it wraps): a
        # stretched first column was squeezed to a few letters by five models' columns
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, self.values.fontMetrics().averageCharWidth() * 26)
        for j in range(1, 1 + len(runs)):  # fitted once, below (not at every layout)
            header.setSectionResizeMode(j, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        costs = cost_rows(runs)
        self.values.setRowCount(len(comparison["measures"]) + len(costs))
        for i, (what, cells) in enumerate(costs, start=len(comparison["measures"])):
            self.values.setItem(i, 0, QTableWidgetItem(what))
            for j, text in enumerate(cells, start=1):
                cell = QTableWidgetItem(text)
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.values.setItem(i, j, cell)
        for i, row in enumerate(comparison["measures"]):
            item = QTableWidgetItem(f"{row['label']} ({row['design']})")
            self.values.setItem(i, 0, item)
            for j, r in enumerate(runs, start=1):
                metric = row["values"][str(r["run"])]
                cell = QTableWidgetItem(_cell(metric))
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if metric["note"]:
                    cell.setToolTip(metric["note"])
                self.values.setItem(i, j, cell)
        ordered = clear + [d for d in comparison["differences"] if d not in clear]
        items = []
        for d in ordered:
            text = html.escape(d["sentence"])
            items.append(f"<li><b>{text}</b></li>" if d in clear else f"<li>{text}</li>")
        self._agreement = list(comparison.get("agreement", []))
        self._names = names
        alike = "".join(
            f"<li>{html.escape(line)}"
            + (f' <a href="differ:{i}">Show them</a>' if row["differ"] else "")
            + "</li>"
            for i, (row, line) in enumerate(
                zip(self._agreement, alike_sentences(comparison), strict=True)
            )
        )
        self.differences.setHtml(
            "<p><b>What differs</b> (clear differences first, in bold)</p><ul>"
            + "".join(items)
            + "</ul>"
            + (
                f"<p><b>How often they gave the same answer</b></p><ul>{alike}</ul>"
                if alike
                else ""
            )
        )
        # the models' columns fitted to their numbers once: a ResizeToContents section
        # measured every cell at every layout, which made showing the tab take 50 ms
        for j in range(1, 1 + len(runs)):
            self.values.resizeColumnToContents(j)
        self.values.resizeRowsToContents()
        self.method.setText(" ".join([PLAIN_METHOD, *comparison["notes"]]))
        self.method.setToolTip(comparison["method"])

    def _link(self, url: QUrl) -> None:
        text = url.toString()
        if not text.startswith("differ:"):
            return
        row = self._agreement[int(text.removeprefix("differ:"))]
        a, b = self._names[row["run_a"]], self._names[row["run_b"]]
        self.differing.emit(
            row["design"], row["run_a"], row["run_b"], f"Where {a} and {b} differ ({row['design']})"
        )

    def show_chart(self, image: Pixels, dpr: float) -> None:
        self.chart_view.show_image(image, dpr)


__all__ = ["KEY", "ComparisonPanel", "chart"]
