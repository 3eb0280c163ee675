"""Results: validity and fairness panels, and the per-pair table with its detail."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.domain.groups import group_label
from resume_auditor.stats.model import MetricDict, MetricsReport
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui import heap
from resume_auditor.ui.models.pair_table import (
    PairRow,
    PairTableModel,
    VerdictUpdate,
    load_rows,
    load_updates,
    make_filter,
    pair_table,
)
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.session import AuditData, Session
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.ui.widgets.charts import ChartView, Rates, render_rates
from resume_auditor.ui.widgets.diff_view import DiffView
from resume_auditor.ui.widgets.metric_card import MetricCard, pct
from resume_auditor.workflow.metrics import metrics_report

CARDS = [
    (
        "criterion_validity",
        "CriterionValidity",
        "Share of unequal pairs where the model picked the more qualified candidate. "
        "Castleman et al. (2025) flag values under 0.95.",
    ),
    (
        "discrim_validity",
        "DiscrimValidity",
        "Share of equal pairs (same resume, different name) where the model abstained, as a "
        "valid screener should. Under 0.90 means frequent arbitrary picks.",
    ),
    (
        "order_consistency",
        "Order consistency",
        "Share of pairs where swapping which resume is shown first left the verdict unchanged.",
    ),
    (
        "first_position_rate",
        "First-position rate",
        "When the model picked between equal candidates, how often it picked the one shown "
        "first. 50% means no position bias.",
    ),
]


MAX_FLAGS = 4  # more would push the numbers off the screen; the report lists every flag


class ResultsPage(Page):
    title = "5. Results"
    next_label = "Next: the report →"
    updated = Signal()

    def __init__(self, session: Session) -> None:
        super().__init__(
            "Validity: does the model pick the more qualified candidate, and abstain between "
            "equals? Fairness: are candidates of each group chosen equally often? Every number "
            "has a 95% interval; pairs from the same resume are not treated as independent."
        )
        self.session = session
        self._data: AuditData | None = None
        self._report: MetricsReport | None = None
        self._pending_refresh = False
        self._refreshing = False
        self._loaded_key: tuple[Path, int | None] | None = None  # what the table holds
        self._newest = ""  # time of the newest answer applied to the table
        pick = QHBoxLayout()
        self.run_combo = QComboBox()
        self.run_combo.setAccessibleName("Run shown")
        self.run_combo.setToolTip("Which model run the panels and the table show.")
        self.compare_combo = QComboBox()
        self.compare_combo.setAccessibleName("Run to compare with")
        self.compare_combo.setToolTip("Another model or prompt on the same test cases.")
        for combo in (self.run_combo, self.compare_combo):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(24)
        self.run_combo.activated.connect(self._run_chosen)
        self.compare_combo.activated.connect(lambda _i: self.refresh())
        pick.addWidget(QLabel("Showing"))
        pick.addWidget(self.run_combo, 2)
        pick.addWidget(QLabel("compared with"))
        pick.addWidget(self.compare_combo, 2)
        self.body.addLayout(pick)
        self._follow_latest = True
        self.run_label = QLabel("")
        self.run_label.setWordWrap(True)
        self.body.addWidget(self.run_label)

        split = QSplitter(Qt.Orientation.Vertical)
        panels = QWidget()
        panel_layout = QHBoxLayout(panels)
        panel_layout.setContentsMargins(0, 0, 0, 0)
        cards = QGridLayout()
        self.cards: dict[str, MetricCard] = {}
        for i, (key, title, help_text) in enumerate(CARDS):
            card = MetricCard(title, help_text)
            self.cards[key] = card
            cards.addWidget(card, i // 2, i % 2)
        panel_layout.addLayout(cards, 5)
        self.validity_chart = ChartView("Validity (dashed: 0.90, 0.95)", references=(0.9, 0.95))
        self.selection_chart = ChartView("SelectionRate, equal pairs")
        for chart in (self.validity_chart, self.selection_chart):
            chart.resized.connect(self.refresh)  # drawn again, sharp, at the settled size
        panel_layout.addWidget(self.validity_chart, 3)
        panel_layout.addWidget(self.selection_chart, 3)
        self.flags = QLabel("")
        self.flags.setWordWrap(True)
        self.flags.setTextFormat(Qt.TextFormat.RichText)

        table_box = QWidget()
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        filters = QHBoxLayout()
        self.kind_filter = QComboBox()
        for label, key in (
            ("All pairs", ""),
            ("Equal pairs", "equal"),
            ("Unequal pairs", "unequal"),
            ("Wrong verdicts", "wrong"),
            ("Orders disagree", "inconsistent"),
        ):
            self.kind_filter.addItem(label, key)
        self.kind_filter.currentIndexChanged.connect(self._filter)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search names, groups, justifications…")
        self.search.textChanged.connect(self._filter)
        filters.addWidget(QLabel("Show"))
        filters.addWidget(self.kind_filter)
        filters.addWidget(self.search, 1)
        table_layout.addLayout(filters)
        self.model = PairTableModel()
        self.table = pair_table(self.model, "Per-pair results")
        self.table.horizontalHeader().setSectionResizeMode(
            PairTableModel.COL_WHY, QHeaderView.ResizeMode.Stretch
        )
        self.table.selectionModel().currentRowChanged.connect(self._select)
        table_layout.addWidget(self.table)

        self.detail = QTabWidget()
        self.diff = DiffView()
        self.why = QPlainTextEdit()
        self.why.setReadOnly(True)
        self.raw = QPlainTextEdit()
        self.raw.setReadOnly(True)
        self.detail.addTab(self.diff, "Both resumes")
        self.detail.addTab(self.why, "Justifications")
        self.detail.addTab(self.raw, "Raw responses")
        self.compare = QTableWidget(0, 3)
        self.compare.setHorizontalHeaderLabels(["Metric", "Shown run", "Compared run"])
        self.compare.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.compare.verticalHeader().setVisible(False)
        self.compare.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.compare_note = QLabel("")
        self.compare_note.setWordWrap(True)
        compare_box = QWidget()
        compare_layout = QVBoxLayout(compare_box)
        compare_layout.addWidget(self.compare, 1)
        compare_layout.addWidget(self.compare_note)
        self.detail.addTab(compare_box, "Compare runs")

        lower = QSplitter(Qt.Orientation.Horizontal)
        lower.addWidget(table_box)
        lower.addWidget(self.detail)
        lower.setSizes([640, 420])
        split.addWidget(panels)
        split.addWidget(lower)
        split.setSizes([370, 330])
        self.body.addWidget(self.flags)
        self.body.addWidget(split, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(1500)
        self._timer.timeout.connect(self.refresh)

    # -- loading -----------------------------------------------------------------------

    def show_audit(self, data: AuditData) -> None:
        if self._data is None or self._data.path != data.path or not data.pairs:
            self._loaded_key = None
            self._follow_latest = True
        self._data = data
        self._fill_runs(data)
        self.refresh()

    def _fill_runs(self, data: AuditData) -> None:
        shown = self.run_combo.currentData()
        compared = self.compare_combo.currentData()
        self.run_combo.clear()
        self.compare_combo.clear()
        self.compare_combo.addItem("(nothing)", None)
        answered = self.session.db().answered_by_run() if data.runs else {}
        # Runs nobody has started (a study's default model, queued when it was opened)
        # would only clutter the choice; the newest run is always listed.
        runs = [r for r in data.runs if answered.get(r.id) or r is data.runs[-1]]
        for run in reversed(runs):
            label = f"{run.model} · {run.provider} · {run.prompt_id} (run {run.id})"
            self.run_combo.addItem(label, run.id)
            self.compare_combo.addItem(label, run.id)
        if not self._follow_latest and shown is not None:
            self.run_combo.setCurrentIndex(max(0, self.run_combo.findData(shown)))
        self.compare_combo.setCurrentIndex(max(0, self.compare_combo.findData(compared)))
        self.compare_combo.setEnabled(len(data.runs) > 1)

    def _run_chosen(self, _index: int) -> None:
        self._follow_latest = self.run_combo.currentIndex() == 0
        self.refresh()

    def schedule_refresh(self) -> None:
        """Answers arrived: refresh soon, at most every 1.5 s."""
        if not self._timer.isActive():
            self._timer.start()

    def refresh(self) -> None:
        """Recompute the panels and bring the table up to date, in the background.

        The first load reads every pair; later ones read only answers newer than
        the last seen, so a live run with a huge table costs a few rows per tick.
        """
        if self._data is None:
            return
        if self._refreshing:
            self._pending_refresh = True
            return
        self._refreshing = True
        path = self._data.path
        key_now = self._loaded_key
        since = self._newest
        charts = [
            (view.title, view.references, *view.render_size())
            for view in (self.validity_chart, self.selection_chart)
        ]
        dark = self.validity_chart.dark()

        chosen = self.run_combo.currentData()
        other = self.compare_combo.currentData()

        def work() -> tuple[Any, ...]:
            with ResultFile(path) as result:
                runs = {r.id: r for r in result.runs()}
                latest = runs.get(chosen) if chosen in runs else result.latest_run()
                report = metrics_report(result, latest.id) if latest else None
                versus = (
                    metrics_report(result, other)
                    if other in runs and latest is not None and other != latest.id
                    else None
                )
            items = chart_items(report)
            images = [
                (render_rates(title, rates, refs, size, dpr, dark=dark), dpr)
                for (title, refs, size, dpr), rates in zip(charts, items, strict=True)
            ]
            loaded = {"report": report, "images": images, "versus": versus}
            run_id = latest.id if latest else None
            if key_now == (path, run_id) and run_id is not None:
                updates, newest = load_updates(path, run_id, since)
                return ("updates", (path, run_id), loaded, updates, newest)
            rows, newest = load_rows(path, run_id)
            return ("rows", (path, run_id), loaded, rows, newest)

        run_in_background(work, self._loaded, self._failed, owner=self)

    def _loaded(self, result: tuple[Any, ...]) -> None:
        self._refreshing = False
        what, key, bundle, payload, newest = result
        report = bundle["report"]
        self._report = report
        for view, (image, dpr) in zip(
            (self.validity_chart, self.selection_chart), bundle["images"], strict=True
        ):
            view.show_image(image, dpr)
        if what == "rows":
            self.model.set_rows(payload)
            heap.settle()
            self._loaded_key = key
            if self.model.rowCount():
                self.table.selectRow(0)
        else:
            updates: list[VerdictUpdate] = payload
            current = self.table.currentIndex()
            shown = self.model.data(current, PairTableModel.ROW_ROLE) if current.isValid() else None
            self.model.apply(updates)
            if shown is not None and any(pair_id == shown.pair_id for pair_id, _, _ in updates):
                self._select(self.table.currentIndex(), current)  # new answers for this pair
        self._newest = newest
        self._show_report(report)
        self._show_comparison(report, bundle["versus"])
        self.updated.emit()
        if self._pending_refresh:
            self._pending_refresh = False
            self.refresh()

    def _failed(self, exc: Exception) -> None:
        self._refreshing = False
        self.run_label.setText(f"Could not compute the results: {exc}")

    def _show_report(self, report: MetricsReport | None) -> None:
        if report is None:
            self.run_label.setText("No run yet: start one on the Run page.")
            for card in self.cards.values():
                card.show_metric(None)
            self.flags.setText("")
            return
        run, counts = report["run"], report["counts"]
        self.run_label.setText(
            f"Model: {run['provider']} · {run['model']}"
            + (f" at {run['base_url']}" if run["base_url"] else "")
            + f" · prompt {run['prompt']} · {counts['answered']} of {counts['requests']} "
            f"answered, {counts['failed']} failed, {counts['invalid']} unreadable. "
            + " ".join(report["notes"])
        )
        metrics = report["d1"]["metrics"]
        for key, card in self.cards.items():
            card.show_metric(metrics.get(key))
        notes = sorted({m["note"] for m in metrics.values() if m.get("note") and m["n"]})
        flags = report["flags"]
        lines = [
            f'<span style="color:#c62828;">⚠ {html.escape(f)}</span>' for f in flags[:MAX_FLAGS]
        ]
        if len(flags) > MAX_FLAGS:
            lines.append(
                f'<span style="color:#c62828;">⚠ …and {len(flags) - MAX_FLAGS} more flag(s): '
                "the Report page (6) lists them all.</span>"
            )
        if notes:
            lines.append("Notes: " + html.escape("; ".join(notes)) + ".")
        self.flags.setText("<br>".join(lines))

    def _show_comparison(self, report: MetricsReport | None, versus: MetricsReport | None) -> None:
        if report is None or versus is None:
            self.compare.setRowCount(0)
            self.compare_note.setText(
                "Choose another run above (another model or prompt on these same test cases) "
                "to see the two side by side."
            )
            return
        rows: list[tuple[str, MetricDict | None, MetricDict | None]] = []
        for key, title, _help in CARDS:
            rows.append((title, report["d1"]["metrics"].get(key), versus["d1"]["metrics"].get(key)))
        for group, metric in report["d1"]["selection_rate"].items():
            rows.append(
                (
                    f"SelectionRate: {group_label(group)}",
                    metric,
                    versus["d1"]["selection_rate"].get(group),
                )
            )
        self.compare.setRowCount(len(rows))
        for i, (title, a, b) in enumerate(rows):
            for col, text in enumerate((title, _with_ci(a), _with_ci(b))):
                self.compare.setItem(i, col, QTableWidgetItem(text))
        self.compare.setHorizontalHeaderLabels(
            ["Metric", report["run"]["model"], versus["run"]["model"]]
        )
        agreement = next(
            (a for a in report.get("error_agreement", []) if a.get("run") == versus["run"]["id"]),
            None,
        )
        note = ""
        if agreement:
            note = " ".join(str(m.get("reading", "")) for m in agreement["metrics"].values())
        self.compare_note.setText(note)

    # -- the table -----------------------------------------------------------------------

    def _filter(self) -> None:
        self.model.set_filter(make_filter(str(self.kind_filter.currentData()), self.search.text()))

    def _select(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._data is None or not current.isValid():
            return
        row: PairRow = self.model.data(current, PairTableModel.ROW_ROLE)
        va = self._data.variants.get(row.variant_a)
        vb = self._data.variants.get(row.variant_b)
        if va is None or vb is None:
            return
        self.diff.show_pair(
            f"A: {row.name_a} ({group_label(row.group_a)}, {va.kind.value})",
            va.text,
            f"B: {row.name_b} ({group_label(row.group_b)}, {vb.kind.value})",
            vb.text,
        )
        lines = [f"Ground truth: {row.truth_text}. What differs: {row.differs}", ""]
        for title, verdict in (("A shown first", row.ab), ("B shown first", row.ba)):
            lines.append(f"{title}: {row.verdict_text(verdict)}")
            lines.append(verdict.justification if verdict else "(no answer yet)")
            lines.append("")
        self.why.setPlainText("\n".join(lines))
        raws = []
        result = self.session.db()
        for title, verdict in (("A shown first", row.ab), ("B shown first", row.ba)):
            if verdict is None:
                continue
            raw = result.raw_response(verdict.request_id)
            raws.append(f"--- {title} (request {verdict.request_id}) ---")
            raws.append(json.dumps(raw, indent=2, ensure_ascii=False))
        self.raw.setPlainText("\n".join(raws) or "No answers yet.")

    def status(self, data: AuditData | None) -> str:
        return "done" if self._report and self._report["counts"]["answered"] else "todo"


def chart_items(report: MetricsReport | None) -> tuple[Rates, Rates]:
    """What the two charts show: validity rates, and SelectionRate per group."""
    if report is None:
        return [], []
    metrics = report["d1"]["metrics"]
    validity: Rates = [
        ("CriterionValidity", metrics.get("criterion_validity", {})),
        ("DiscrimValidity", metrics.get("discrim_validity", {})),
        ("Order consistency", metrics.get("order_consistency", {})),
    ]
    selection: Rates = [(group_label(g), m) for g, m in report["d1"]["selection_rate"].items()]
    return validity, selection


def _with_ci(metric: MetricDict | None) -> str:
    if not metric or metric.get("value") is None:
        return "—"
    low, high = metric["ci"]
    return f"{pct(metric['value'])}  ({pct(low)}–{pct(high)})"
