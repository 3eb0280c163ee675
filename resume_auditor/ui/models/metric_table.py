"""Every number of one design as table rows: plain label, group, value, intervals, status.

`design_rows(metrics, design)` reads the metrics JSON by the keys documented in
docs/metrics-json.md (no Qt: it runs in the page's background worker); the model
shows and filters the rows. Each row keeps the metric's path, so the page can ask
for the answers behind it (workflow/drilldown.py). Labels come from report/terms.py,
the paper's term goes in the tooltip.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor

from resume_auditor.designs.registry import DESIGNS
from resume_auditor.report.numbers import ci_text, value_text
from resume_auditor.report.panels import ALL, panel_rows
from resume_auditor.report.terms import TERMS, Term, term_for
from resume_auditor.stats.model import MetricDict, MetricsReport
from resume_auditor.ui.models.view_table import Index, ViewTableModel

DESIGN_TITLES = {d.key: d.title for d in DESIGNS}


@dataclass(frozen=True)
class MetricRow:
    path: tuple[str, ...]
    measure: str  # the plain label
    detail: str  # which cut of it: "rated 3 or above", "top 2", "name: relevance"
    group: str  # reader's group label, or "All"
    metric: MetricDict
    term: Term | None

    @property
    def title(self) -> str:
        """The measure and which cut of it: "Impact ratio of high ratings, rated 3+",
        "Rated higher or lower than White man"."""
        if not self.detail:
            return self.measure
        joint = " " if self.detail.startswith(("than ", "vs ")) else ", "
        return f"{self.measure}{joint}{self.detail}"

    @property
    def value(self) -> str:
        return value_text(self.metric)

    @property
    def interval(self) -> str:
        return ci_text(self.metric) or "—"

    @property
    def interval70(self) -> str:
        # a metric that carries a 70% interval too (D2's differences: its own type)
        ci70 = cast(Mapping[str, Any], self.metric).get("ci70")
        if not ci70 or self.metric.get("value") is None:
            return ""
        return ci_text({**self.metric, "ci": ci70})

    @property
    def answers(self) -> int:
        return int(self.metric.get("n") or 0)

    @property
    def status(self) -> str:
        m = self.metric
        if m.get("value") is None:
            return "too few to compute" if self.answers else "no answers"
        if m.get("flag"):
            return "⚠ flagged"
        if m.get("not_significant"):
            return "within chance"
        if m.get("note"):
            return "few answers"
        return ""

    def tooltip(self) -> str:
        parts = [self.term.tooltip()] if self.term else []
        if self.metric.get("reading"):
            parts.append(str(self.metric["reading"]))
        if self.metric.get("flag"):
            parts.append(f"⚠ {self.metric['flag']}")
        if self.metric.get("note"):
            parts.append(str(self.metric["note"]))
        return "\n\n".join(parts)

    def searchable(self) -> str:
        return " ".join([self.title, self.group, self.status]).lower()


def plain_flag(flag: str) -> str:
    """The plain half of a flag's sentence ("...(p = 0.004 after Holm ...): the model does
    not reliably pick..."); the whole sentence, with the test, goes in a tooltip."""
    match = re.search(r"\):\s*(.+)$", flag)
    if match:
        text = match.group(1).strip()
        return text[:1].upper() + text[1:]
    return "Flagged: beyond chance (the tooltip says which test)."


def _row(path: list[str], m: MetricDict, group: str, detail: str = "") -> MetricRow:
    term = term_for(path)
    measure = term.label if term else str(m.get("title", path[-1]))
    named = next((d.measure_title(path) for d in DESIGNS if d.holds(path)), None)
    return MetricRow(tuple(path), named or measure, detail, group, m, term)


def design_rows(metrics: MetricsReport | None, design: str) -> list[MetricRow]:
    """The Results table of `design`: its rows (report/panels.py) in the screen's words."""
    return [_row(list(r.path), r.metric, r.group, r.detail) for r in panel_rows(metrics, design)]


def _registered(metrics: MetricsReport, design: str) -> Mapping[str, Any]:
    """A registry design's block (designs/registry.py), empty when absent."""
    return REGISTERED[design].block(metrics) or {}


REGISTERED = {d.key: d for d in DESIGNS}  # every registry design counts its own answers


# How many answers a design has, and the word for them (for "too few answers").
def design_answers(metrics: MetricsReport, design: str) -> tuple[int, str]:
    if design in REGISTERED:
        answers, _unread, what = REGISTERED[design].counts(_registered(metrics, design))
        return answers, what
    return 0, "answers"


def unreadable_answers(metrics: MetricsReport, design: str) -> int:
    """How many of a design's answers could not be read (left out of its numbers)."""
    if design in REGISTERED:
        return REGISTERED[design].counts(_registered(metrics, design))[1]
    return 0


def small_cell(metrics: MetricsReport) -> int:
    for t in metrics["thresholds"]:
        if t["key"] == "small_cell":
            return int(t["value"])
    return 30


RED = QColor(198, 40, 40)


class MetricTableModel(ViewTableModel):
    COL_MEASURE, COL_GROUP, COL_VALUE, COL_CI, COL_CI70, COL_N, COL_STATUS = range(7)
    HEADERS = [
        "Measure",
        "Group",
        "Value",
        "95% interval",
        "70% interval",
        "Answers",
        "Status",
    ]
    HEADER_TIPS = [
        "What the number measures, in plain words, and which cut of it (a threshold, a "
        "shortlist size, a kind of change). The paper's term is in each row's tooltip.",
        "The group the number is about; 'All' for the whole design.",
        "The number itself.",
        "95% of intervals built this way contain the true value; answers about the same "
        "source resume are not treated as independent.",
        "A narrower 70% interval (Gaebler et al. report both).",
        "Answers the number is computed from. Double-click a row to read them.",
        "Flagged: beyond chance after correcting for every test of the audit.",
    ]
    ROW_ROLE = Qt.ItemDataRole.UserRole + 3

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[MetricRow] = []
        self._view: list[MetricRow] = []
        self._measure = ""
        self._group = ""
        self._text = ""

    def set_rows(self, rows: list[MetricRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self._rebuild()
        self.endResetModel()

    def set_filter(self, measure: str = "", group: str = "", text: str = "") -> None:
        self.beginResetModel()
        self._measure, self._group, self._text = measure, group, text.strip().lower()
        self._rebuild()
        self.endResetModel()

    def _rebuild(self) -> None:
        self._view = [
            r
            for r in self.rows
            if (not self._measure or r.measure == self._measure)
            and (not self._group or r.group == self._group)
            and (not self._text or self._text in r.searchable())
        ]

    def measures(self) -> list[str]:
        return list(dict.fromkeys(r.measure for r in self.rows))

    def groups(self) -> list[str]:
        return sorted({r.group for r in self.rows if r.group != ALL})

    def has_ci70(self) -> bool:
        return any(r.interval70 for r in self.rows)

    def row_at(self, position: int) -> MetricRow:
        return self._view[position]

    def text_of(self, row: MetricRow, col: int) -> str:
        return [
            row.title,
            row.group,
            row.value,
            row.interval,
            row.interval70,
            str(row.answers) if row.answers else "",
            row.status,
        ][col]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self._view):
            return None
        row = self._view[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self.text_of(row, col)
        if role == self.ROW_ROLE:
            return row
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.tooltip()
        if role == Qt.ItemDataRole.ForegroundRole and row.metric.get("flag"):
            return QBrush(RED)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (
            self.COL_VALUE,
            self.COL_N,
        ):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


__all__ = [
    "ALL",
    "DESIGN_TITLES",
    "TERMS",
    "MetricRow",
    "MetricTableModel",
    "design_answers",
    "design_rows",
    "plain_flag",
    "small_cell",
]
