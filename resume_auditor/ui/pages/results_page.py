"""Results: a panel per design the audit ran, the per-pair table, and the answers behind
any number.

Everything slow happens off the UI thread (ui/tasks.py): the metrics, the rows of
every panel, the charts' pixels, the pair table and the drill-down. The UI thread
only hands finished rows to the models and pixels to the chart views, so a big
audit (100,000 answers) never freezes the window (benchmarks/results_stall.py).
Workers read the audit through the session's `source()` (store/source.py): the
file in the app, each worker with its own connection; a copy of an audit held in
memory when the page is shown alone (tests/test_ui_results.py), with no window.
Words come from report/terms.py: a plain label on screen, the paper's term in the
tooltip.
"""

from __future__ import annotations

import dataclasses
import gc
import html
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.designs.registry import DESIGNS as REGISTRY
from resume_auditor.domain.groups import group_label
from resume_auditor.report.numbers import ci_text, value_text
from resume_auditor.report.privacy import IdentityMask, identity_mask, mask_json
from resume_auditor.report.terms import term_for
from resume_auditor.stats.model import ComparisonDict, MetricDict, MetricsReport
from resume_auditor.store.parts import AuditReader
from resume_auditor.store.resultfile import ResultFileError
from resume_auditor.store.runs import Progress
from resume_auditor.ui.models.metric_table import (
    ALL,
    DESIGN_TITLES,
    MetricRow,
    design_answers,
    design_rows,
    plain_flag,
    small_cell,
    unreadable_answers,
)
from resume_auditor.ui.models.pair_table import (
    PairRow,
    PairTableModel,
    VerdictUpdate,
    make_filter,
    pair_table,
    rows_of,
    updates_of,
)
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.session import AuditData, Session
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.ui.widgets.answers_dialog import AnswersDialog
from resume_auditor.ui.widgets.charts import (
    ChartView,
    Pixels,
    chart_spec,
    render_spec,
)
from resume_auditor.ui.widgets.comparison_panel import KEY as COMPARE_CHART
from resume_auditor.ui.widgets.comparison_panel import ComparisonPanel
from resume_auditor.ui.widgets.comparison_panel import chart as comparison_chart
from resume_auditor.ui.widgets.design_panel import DesignPanel, content_combo
from resume_auditor.ui.widgets.diff_view import DiffView
from resume_auditor.ui.widgets.differing_dialog import DifferingDialog
from resume_auditor.ui.widgets.metric_card import MetricCard, pct
from resume_auditor.workflow.compare import (
    DifferingAnswer,
    RunsRead,
    compare_runs,
    differing_answers,
)
from resume_auditor.workflow.drilldown import AnswerIndex, Drilldown
from resume_auditor.workflow.metrics import metrics_report

logger = logging.getLogger(__name__)

# Every design of the registry, in its order: a tab each (its cards, its table and charts)
# and, for a design whose cases are pairs with a right answer, the pair-by-pair tab.
DESIGNS = tuple(d.key for d in REGISTRY)
INTROS = {d.key: d.results_intro or d.intro for d in REGISTRY}
CHARTS: dict[str, tuple[str, ...]] = {d.key: d.charts for d in REGISTRY}
CHART_OWNER = {key: d.key for d in REGISTRY for key in d.charts}

REGISTERED = {d.key: d for d in REGISTRY}
MODELS = "models"  # the "Models compared" tab, beside the designs' (issue 28)
INTROS[MODELS] = (
    "Every model this audit asked the same test cases, side by side: each one's numbers, "
    "the differences between them with intervals, and what each costs."
)
MAX_FLAGS = 4  # more would push the numbers off the screen; the report lists every flag


def answer_state(result: AuditReader, run_id: int | None, other: int | None) -> tuple[Any, ...]:
    """What the metrics of `run_id` (and `other`) depend on, read cheaply: each run's
    request and answer counts and token sums (a re-asked answer adds to its history's),
    the study's settings and the user's thresholds file. Equal states give the same
    report, so a refresh with no new answer need not compute it again."""
    from resume_auditor.settings.thresholds import thresholds_stamp

    def run(rid: int | None) -> tuple[Any, ...]:
        return () if rid is None else (rid, *dataclasses.astuple(result.progress(rid)))

    thresholds = thresholds_stamp()
    try:
        study = json.dumps(result.config(), sort_keys=True)
    except ResultFileError:
        study = None
    return (str(result.path), run(run_id), run(other), study, thresholds)


def comparison_state(
    result: AuditReader, progress: Mapping[int, Progress] | None = None
) -> tuple[Any, ...]:
    """What the comparison of the audit's models depends on, read cheaply: every run's
    model and its request and answer counts and token sums (`progress`: each run's, if
    read already). Equal states give the same comparison, so a refresh with no new
    answer shows it without computing it again."""
    read = progress or {r.id: result.progress(r.id) for r in result.runs()}
    return (
        str(result.path),
        tuple(
            (r.id, r.provider, r.model, r.prompt_id, *dataclasses.astuple(read[r.id]))
            for r in result.runs()
        ),
    )


@dataclass
class _Computed:
    """What a background refresh hands to the UI thread: all of it ready to show."""

    report: MetricsReport | None
    versus: MetricsReport | None
    rows: dict[str, list[MetricRow]]
    images: dict[str, tuple[Pixels, float]]
    mask: IdentityMask | None
    state: tuple[Any, ...] = ()  # the answer state the report was computed from


class ResultsPage(Page):
    title = "5. Results"
    next_label = "Next: the report →"
    updated = Signal()

    def __init__(self, session: Session) -> None:
        super().__init__(
            "Is the model valid (does it pick the more qualified candidate, and treat equal "
            "candidates as equal)? Is it fair (are candidates of each group treated alike)? "
            "One tab per design the audit ran. Every number has a 95% interval; double-click "
            "a number to read the answers behind it."
        )
        self.session = session
        self._data: AuditData | None = None
        self._report: MetricsReport | None = None
        self._pending_refresh = False
        self._refreshing = False
        self._drawing = False
        self._loaded_key: tuple[Path, int | None] | None = None  # what the table holds
        self._newest = ""  # time of the newest answer applied to the table
        # (answer state, report, versus): a refresh with no new answer reuses the report
        # instead of running every permutation test again (about a second per audit)
        self._metrics_cache: tuple[tuple[Any, ...], Any, Any] | None = None
        # (every run's answer state, the comparison of the audit's models): computed and
        # shown before the shown run's metrics, which then reuse it
        self._comparison: tuple[tuple[Any, ...], ComparisonDict | None] | None = None
        # what the comparison read of each run, kept while this audit stays open
        self._runs_read = RunsRead()
        self._mask: IdentityMask | None = None
        self._mask_path: Path | None = None
        self._index: AnswerIndex | None = None
        self._index_key: tuple[Any, ...] | None = None

        pick = QHBoxLayout()
        self.run_combo = content_combo("Run shown")
        self.run_combo.setToolTip("Which model run the panels and the table show.")
        self.compare_combo = content_combo("Run to compare with")
        self.compare_combo.setToolTip("Another model or prompt on the same test cases.")
        # A run's entry names its model and every prompt it used: with several models
        # that ran every design, two such boxes asked for 1,600 pixels and the page
        # scrolled sideways at 1280x800. They show about 40 characters (the model
        # first); the list and the tooltip show it whole.
        for combo in (self.run_combo, self.compare_combo):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(40)
            combo.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
            combo.view().setMinimumWidth(480)
        self.run_combo.activated.connect(self._run_chosen)
        self.compare_combo.activated.connect(lambda _i: self.refresh())
        pick.addWidget(QLabel("Showing"))
        pick.addWidget(self.run_combo)
        pick.addWidget(QLabel("compared with"))
        pick.addWidget(self.compare_combo)
        pick.addStretch(1)
        self.body.addLayout(pick)
        self._follow_latest = True
        self.run_label = QLabel("")
        self.run_label.setWordWrap(True)
        self.body.addWidget(self.run_label)
        self.flags = QLabel("")
        self.flags.setWordWrap(True)
        self.flags.setTextFormat(Qt.TextFormat.RichText)
        self.body.addWidget(self.flags)

        # one chart view per chart key (each design's `charts`)
        self.charts: dict[str, ChartView] = {}
        for keys in CHARTS.values():
            for key in keys:
                view = ChartView(key, key=key)
                view.setMinimumSize(220, 150)
                view.resized.connect(self._redraw_charts)  # drawn again, sharp, when settled
                self.charts[key] = view
        # every model of the audit side by side (issue 28): its own tab and chart
        self.compare_panel = ComparisonPanel()
        self.compare_panel.chart_view.resized.connect(self._redraw_charts)
        self.compare_panel.differing.connect(self._show_differing)
        self.charts[COMPARE_CHART] = self.compare_panel.chart_view
        self.panels: dict[str, DesignPanel] = {}
        for design in DESIGNS:
            panel = DesignPanel(design, INTROS[design], [self.charts[k] for k in CHARTS[design]])
            panel.drill.connect(self._drill)
            self.panels[design] = panel

        # A design with headline numbers (`Design.headline`): its cards on top of its panel
        # in its tab, each by its metric's key in `cards`; the others' tab is the panel.
        self.cards: dict[str, MetricCard] = {}
        self._card_paths: list[tuple[tuple[str, ...], MetricCard]] = []
        design_tab: dict[str, QWidget] = {}
        for unit in REGISTRY:
            if not unit.headline:
                design_tab[unit.key] = self.panels[unit.key]
                continue
            cards_row = QHBoxLayout()
            for path in unit.headline:
                title, help_text = _words(path)
                card = MetricCard(title, help_text)
                card.setAccessibleName(title)
                card.activated.connect(lambda path=path, title=title: self._drill_card(path, title))
                self.cards[path[-1]] = card
                self._card_paths.append((path, card))
                cards_row.addWidget(card)
            top = QWidget()
            top_layout = QVBoxLayout(top)
            top_layout.setContentsMargins(0, 0, 0, 0)
            top_layout.addLayout(cards_row)
            top_layout.addWidget(self.panels[unit.key], 1)
            design_tab[unit.key] = top

        # The pairs with a right answer one by one (`Design.pair_tab`), with their detail

        table_box = QWidget()
        table_layout = QVBoxLayout(table_box)
        table_layout.setContentsMargins(0, 0, 0, 0)
        filters = QHBoxLayout()
        self.kind_filter = content_combo("Pairs shown")
        for text, key in (
            ("All pairs", ""),
            ("Equal pairs", "equal"),
            ("Unequal pairs", "unequal"),
            ("Wrong verdicts", "wrong"),
            ("Orders disagree", "inconsistent"),
        ):
            self.kind_filter.addItem(text, key)
        self.group_filter = content_combo("Group shown")
        self.resume_filter = content_combo("Source resume shown")
        self.resume_filter.setMaximumWidth(320)
        for combo in (self.kind_filter, self.group_filter, self.resume_filter):
            combo.currentIndexChanged.connect(self._filter)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search names, groups, justifications…")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(180)
        self.search.textChanged.connect(self._filter)
        filters.addWidget(QLabel("Show"))
        filters.addWidget(self.kind_filter)
        filters.addWidget(self.group_filter)
        filters.addWidget(self.resume_filter)
        filters.addWidget(self.search, 1)
        table_layout.addLayout(filters)
        self.model = PairTableModel()
        self.table = pair_table(self.model, "Per-pair results")
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.selectionModel().currentRowChanged.connect(self._select)
        table_layout.addWidget(self.table)

        self.detail = QTabWidget()
        self.detail.setUsesScrollButtons(True)
        self.detail.setMinimumWidth(320)  # its tab bar would otherwise claim half the page
        self.diff = DiffView()
        self.why = QPlainTextEdit()
        self.why.setReadOnly(True)
        self.raw = QPlainTextEdit()
        self.raw.setReadOnly(True)
        self.detail.addTab(self.diff, "Both resumes")
        self.detail.addTab(self.why, "Justifications")
        self.detail.addTab(self.raw, "Raw responses")
        self.compare = QTableWidget(0, 3)
        self.compare.setHorizontalHeaderLabels(["Measure", "Shown run", "Compared run"])
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

        # The pairs one by one get a tab of their own: at 1280x800 the table needs
        # the height, and its verdict columns the width.
        self.pairs_tab = QSplitter(Qt.Orientation.Horizontal)
        self.pairs_tab.addWidget(table_box)
        self.pairs_tab.addWidget(self.detail)
        self.pairs_tab.setStretchFactor(0, 3)
        self.pairs_tab.setStretchFactor(1, 2)
        self.pairs_tab.setSizes([760, 480])

        self.tabs = QTabWidget()
        self._compare_by_default = False  # "Models compared" current only as the first tab
        self.tabs.tabBarClicked.connect(self._tab_clicked)
        self.tabs.setAccessibleName("Results by design")
        # each design's tab, then (the first design that has one) the pair-by-pair tab
        self._tab_of: dict[str, list[tuple[QWidget, str]]] = {}
        pair_tab = next((d for d in REGISTRY if d.pair_tab), None)
        for unit in REGISTRY:
            self._tab_of[unit.key] = [(design_tab[unit.key], DESIGN_TITLES[unit.key])]
            if unit is pair_tab:
                self._tab_of[unit.key].append((self.pairs_tab, unit.pair_tab))
        self._tab_of[MODELS] = [(self.compare_panel, "Models compared")]
        self._pairs_sized = False
        self.tabs.currentChanged.connect(self._pairs_shown)
        self.empty = QLabel("No answers yet: start a run on the Run page.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.body.addWidget(self.tabs, 1)
        self.body.addWidget(self.empty, 1)
        self.tabs.hide()
        pages = [w for tabs in self._tab_of.values() for w, _title in tabs]
        for widget in pages:
            # Owned by the page until a tab takes them (a design the audit did not run
            # never gets a tab): Qt, not Python's collector, deletes them with the page.
            widget.setParent(self)
            widget.hide()
            widget.ensurePolished()  # now, not on the UI thread when the first numbers land

        self._stale = False  # answers came while the numbers were not shown
        self.watchers = 0  # other views showing these numbers (the presenter)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(1500)
        self._timer.timeout.connect(self.refresh)

    # -- loading -----------------------------------------------------------------------

    def show_audit(self, data: AuditData) -> None:
        if self._data is None or self._data.path != data.path or not data.pairs:
            self._loaded_key = None
            self._follow_latest = True
        if self._data is None or self._data.path != data.path:
            self._mask, self._mask_path = None, None
            self._index, self._index_key = None, None
            self._comparison = None
        if self._data is None or self._data.generation != data.generation:
            self._runs_read = RunsRead()  # read from disk anew (a restored copy, another file)
        self._data = data
        self._fill_runs(data)
        self.refresh()

    def _fill_runs(self, data: AuditData) -> None:
        shown = self.run_combo.currentData()
        compared = self.compare_combo.currentData()
        self.run_combo.clear()
        self.compare_combo.clear()
        self.compare_combo.addItem("(nothing)", None)
        answered, presets = data.answered_by_run, data.presets_by_run  # read off the UI thread
        # Runs nobody has started (a study's default model, queued when it was opened)
        # would only clutter the choice; the newest run is always listed.
        runs = [r for r in data.runs if answered.get(r.id) or r is data.runs[-1]]
        for run in reversed(runs):
            prompts = ", ".join(presets.get(run.id) or [run.prompt_id])
            text = f"{run.model} · {run.provider} · {prompts} (run {run.id})"
            for combo in (self.run_combo, self.compare_combo):
                combo.addItem(text, run.id)
                combo.setItemData(combo.count() - 1, text, Qt.ItemDataRole.ToolTipRole)
        if not self._follow_latest and shown is not None:
            self.run_combo.setCurrentIndex(max(0, self.run_combo.findData(shown)))
        self.compare_combo.setCurrentIndex(max(0, self.compare_combo.findData(compared)))
        self.compare_combo.setEnabled(len(data.runs) > 1)

    def _run_chosen(self, _index: int) -> None:
        self._follow_latest = self.run_combo.currentIndex() == 0
        self.refresh()

    def schedule_refresh(self) -> None:
        """Answers arrived: refresh soon, at most every 1.5 s; while nobody looks at
        the numbers (another page shown, no presenter), only note that they are stale.

        A refresh recomputes every design's metrics over all the run's answers in a
        worker; with 100,000 answers its pandas work holds the interpreter long enough
        to stall the window by 100-300 ms (benchmarks/ui_stall.py), which is a cost
        worth paying only for numbers someone sees.
        """
        if not self.isVisible() and self.watchers == 0:
            self._stale = True
            return
        if not self._timer.isActive():
            self._timer.start()

    def watch(self, on: bool) -> None:
        """Another view shows these numbers (the presenter): keep them fresh."""
        self.watchers = max(0, self.watchers + (1 if on else -1))
        if on and self._stale:
            self._stale = False
            self.schedule_refresh()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self.schedule_refresh()

    def _chart_jobs(self) -> list[tuple[str, tuple[int, int], float]]:
        return [(key, *view.render_size()) for key, view in self.charts.items()]

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
        opener, known = self.session.source().opener(), self._comparison
        kept = self._runs_read
        chosen = self.run_combo.currentData()

        def work() -> tuple[Any, ...]:
            """The comparison of every model first (0.4 s at 5 x 10,000 answers),
            so that its tab does not wait for the shown run's permutation tests."""
            with opener() as result:  # this worker's own connection (or copy)
                progress = {r.id: result.progress(r.id) for r in result.runs()}
                state = comparison_state(result, progress)
                if known is not None and known[0] == state:
                    return state, known[1], None
                latest = result.latest_run()
                runs = {r.id for r in result.runs()}
                shown = chosen if chosen in runs else latest.id if latest else None
                return state, compare_runs(result, kept=kept, progress=progress), shown

        # ahead of the other pages' fills at an opening: the comparison is the longest
        # and the one a user going to the results waits for
        run_in_background(work, self._compared, self._failed, owner=self, first=True)

    def _compared(self, found: tuple[Any, ...]) -> None:
        """The comparison is ready: show its tab now if it changed (its chart follows from
        its own job: matplotlib's first drawing takes most of a second), then the metrics."""
        state, comparison, shown = found
        fresh = self._comparison is None or self._comparison[0] != state
        self._comparison = (state, comparison)
        if fresh and comparison is not None:
            jobs = [job for job in self._chart_jobs() if job[0] == COMPARE_CHART]
            dark = self.compare_panel.chart_view.dark()

            def draw() -> dict[str, tuple[Pixels, float]]:
                spec = comparison_chart(comparison, shown)
                return {
                    key: (render_spec(spec, size, dpr, dark=dark), dpr) for key, size, dpr in jobs
                }

            if self.tabs.indexOf(self.compare_panel) < 0:
                # alone until the designs' tabs come: current only by default, so the
                # page still opens on its first design's tab unless the user clicks it
                self._compare_by_default = self.tabs.count() == 0
                self.tabs.addTab(self.compare_panel, "Models compared")
                self.tabs.setTabToolTip(self.tabs.count() - 1, INTROS[MODELS])
            self.tabs.setVisible(True)
            self.empty.setVisible(False)
            # shown before the next jobs start: they would share the interpreter with it
            self.compare_panel.show_comparison(comparison, shown)

            def drawn(images: dict[str, tuple[Pixels, float]]) -> None:
                self._show_images(images)
                self._refresh_metrics(comparison)

            def not_drawn(exc: Exception) -> None:
                logger.warning("comparison chart not drawn: %s", exc)
                self._refresh_metrics(comparison)

            # the metrics after the chart: drawn alongside them, it took a third longer;
            # the chart once the tab is laid out and painted (the events just posted):
            # begun now, matplotlib held the interpreter the window then waited for
            QTimer.singleShot(
                0, self, lambda: run_in_background(draw, drawn, not_drawn, owner=self, first=True)
            )
            return
        self._refresh_metrics(comparison)

    def _refresh_metrics(self, comparison: ComparisonDict | None) -> None:
        """The shown run's metrics, the table of its answers and every chart (the
        comparison computed just before rides along in the report)."""
        if self._data is None:
            self._refreshing = False
            return
        source = self.session.source()
        path, opener = source.path, source.opener()
        key_now = self._loaded_key
        since = self._newest
        jobs = self._chart_jobs()
        dark = self.compare_panel.chart_view.dark()
        mask = self._mask if self._mask_path == path else None
        chosen = self.run_combo.currentData()
        other = self.compare_combo.currentData()

        cached = self._metrics_cache

        def work() -> tuple[Any, ...]:
            with opener() as result:  # this worker's own connection (or copy)
                runs = {r.id: r for r in result.runs()}
                latest = runs.get(chosen) if chosen in runs else result.latest_run()
                compare = (
                    other if other in runs and latest is not None and other != latest.id else None
                )
                state = answer_state(result, latest.id if latest else None, compare)
                if cached is not None and cached[0] == state:
                    report, versus = cached[1], cached[2]
                else:
                    report = metrics_report(result, latest.id) if latest else None
                    versus = metrics_report(result, compare) if compare is not None else None
                if report is not None and report.get("comparison") is not comparison:
                    report = report.copy()  # a cached report is the UI's: not changed here
                    report.pop("comparison", None)
                    if comparison is not None:
                        report["comparison"] = comparison
                found = mask or identity_mask(result)
                run_id = latest.id if latest else None
                payload: tuple[list[Any], str]
                if key_now == (path, run_id) and run_id is not None:
                    what, payload = "updates", updates_of(result, run_id, since, found)
                else:
                    what, payload = "rows", rows_of(result, run_id, found)
            computed = _Computed(
                report,
                versus,
                {d: design_rows(report, d) for d in DESIGNS},
                draw_charts(report, jobs, dark),
                found,
                state,
            )
            return (what, (path, run_id), computed, *payload)

        run_in_background(work, self._loaded, self._failed, owner=self)

    def _loaded(self, result: tuple[Any, ...]) -> None:
        self._refreshing = False
        what, key, computed, payload, newest = result
        report = computed.report
        self._report = report
        self._metrics_cache = (computed.state, report, computed.versus)
        self._mask, self._mask_path = computed.mask, key[0]
        self._show_images(computed.images)
        self._show_panels(report, computed.rows)
        if what == "rows":
            self.model.set_rows(payload)
            self._fill_table_filters()
            gc.freeze()  # a big table, kept: out of the collector's walk (see ui/heap.py)
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
        self._show_flags(report, computed.rows)
        self._show_comparison(report, computed.versus)
        self.updated.emit()
        if self._pending_refresh:
            self._pending_refresh = False
            self.refresh()

    def _failed(self, exc: Exception) -> None:
        self._refreshing = False
        logger.warning("results refresh failed: %s", exc)
        self.run_label.setText(f"Could not compute the results: {exc}")

    # -- charts ------------------------------------------------------------------------

    def _show_images(self, images: dict[str, tuple[Pixels, float]]) -> None:
        for key, (image, dpr) in images.items():
            view = self.charts.get(key)
            if view is not None:
                view.show_image(image, dpr)

    def _redraw_charts(self) -> None:
        """A chart's size settled: draw the charts again at their sizes, from the numbers
        already computed (no new metrics)."""
        if self._drawing or not self.isVisible():
            # Hidden (another page, or the window closing): nothing to draw for, and a
            # worker started while the window is torn down would outlive its receiver.
            return
        self._drawing = True
        report, jobs, dark = self._report, self._chart_jobs(), self.compare_panel.chart_view.dark()

        def done(images: dict[str, tuple[Pixels, float]]) -> None:
            self._drawing = False
            self._show_images(images)

        def failed(exc: Exception) -> None:
            self._drawing = False
            logger.warning("charts not drawn: %s", exc)

        run_in_background(lambda: draw_charts(report, jobs, dark), done, failed, owner=self)

    # -- panels ------------------------------------------------------------------------

    def _tab_clicked(self, _index: int) -> None:
        self._compare_by_default = False  # the user's choice now, kept on the next load

    def _show_panels(self, report: MetricsReport | None, rows: dict[str, list[MetricRow]]) -> None:
        present = [d for d in DESIGNS if report is not None and _ran(report, d)]
        current = self.tabs.currentWidget()
        compared = [MODELS] if report is not None and report.get("comparison") else []
        wanted = [(d, w, t) for d in [*present, *compared] for w, t in self._tab_of[d]]
        if [self.tabs.widget(i) for i in range(self.tabs.count())] != [w for _, w, _ in wanted]:
            self.tabs.clear()
            for design, widget, text in wanted:
                self.tabs.addTab(widget, text)
                self.tabs.setTabToolTip(self.tabs.count() - 1, INTROS[design])
            by_default = current is self.compare_panel and self._compare_by_default
            if any(w is current for _, w, _ in wanted) and not by_default:
                self.tabs.setCurrentWidget(current)
        self._compare_by_default = False
        self.tabs.setVisible(bool(present))
        self.empty.setVisible(not present)
        if report is None:
            return
        self.compare_panel.show_comparison(report.get("comparison"), report["run"]["id"])
        cell = small_cell(report)
        counts = report["counts"]
        # "so far" only while answers may still come: a run with an answer (or a
        # failure) for every request has said all it will.
        ended = counts["answered"] + counts["failed"] >= counts["requests"]
        for design in present:
            count, what = design_answers(report, design)
            unread = unreadable_answers(report, design)
            warning = ""
            if count and unread >= count:
                warning = (
                    f"None of the {count} {what} could be read, so there is no number here. "
                    "The Run page and the report show what the model wrote; a model that "
                    "keeps answering in another form needs another prompt."
                )
            elif count - unread < cell:
                readable = count - unread
                also = f" ({unread} more could not be read)" if unread else ""
                warning = (
                    f"Only {readable} {what} {'in this run' if ended else 'so far'}{also}: "
                    "too few to read much into; every "
                    "interval here is wide."
                )
            self.panels[design].show_rows(rows.get(design, []), warning)

    def _show_report(self, report: MetricsReport | None) -> None:
        if report is None:
            self.run_label.setText("No run yet: start one on the Run page.")
            for card in self.cards.values():
                card.show_metric(None)
            return
        run, counts = report["run"], report["counts"]
        self.run_label.setText(
            f"Model: {run['provider']} · {run['model']}"
            + (f" at {run['base_url']}" if run["base_url"] else "")
            + f" · prompt {run['prompt']} · {counts['answered']} of {counts['requests']} "
            f"answered, {counts['failed']} failed, {counts['invalid']} unreadable. "
            + " ".join(report["notes"])
        )
        for path, card in self._card_paths:
            card.show_metric(metric_at(report, path))

    def _show_flags(self, report: MetricsReport | None, rows: dict[str, list[MetricRow]]) -> None:
        """Each flag in plain words (the statistics' own sentence, with the paper's
        term and the test, in the tooltip); the report lists every one."""
        flagged = [r for d in DESIGNS for r in rows.get(d, []) if r.metric.get("flag")]
        lines = [  # answers lost unevenly by group: every fairness number may be biased
            f'<span style="color:#c62828;">⚠ {html.escape(str(block["flag"]))}</span>'
            for block in ((report.get("missing") if report else None) or {}).values()
            if block["flag"]
        ]
        for row in flagged[:MAX_FLAGS]:
            who = f", {row.group}" if row.group != ALL else ""
            lines.append(
                f'<span style="color:#c62828;">⚠ {html.escape(row.title + who)}: '
                f"{html.escape(row.value)}. {html.escape(plain_flag(str(row.metric['flag'])))}"
                "</span>"
            )
        if len(flagged) > MAX_FLAGS:
            lines.append(
                f'<span style="color:#c62828;">⚠ …and {len(flagged) - MAX_FLAGS} more: '
                "the Report page (6) lists them all.</span>"
            )
        self.flags.setText("<br>".join(lines))
        self.flags.setToolTip("\n\n".join(str(r.metric["flag"]) for r in flagged))
        self.flags.setVisible(bool(lines) and report is not None)
        if lines and not flagged:
            self.flags.setToolTip("Answers that could not be used fell unevenly on the groups.")

    def _show_comparison(self, report: MetricsReport | None, versus: MetricsReport | None) -> None:
        if report is None or versus is None:
            self.compare.setRowCount(0)
            self.compare_note.setText(
                "Choose another run above (another model or prompt on these same test cases) "
                "to see the two side by side."
            )
            return
        # each design's headline numbers, then its own rows (`Design.compared`), each
        # found in the other run by its path
        rows: list[tuple[str, str, MetricDict | None, MetricDict | None]] = []
        for unit in REGISTRY:
            for path in unit.headline:
                title, tip = _words(path)
                rows.append((title, tip, metric_at(report, path), metric_at(versus, path)))
            block = unit.block(report)
            for row in unit.compared(block) if block else []:
                title, tip = _words(row.path)
                title = f"{title}: {row.group}" if row.group else title
                rows.append((title, tip, row.metric, metric_at(versus, row.path)))
        self.compare.setRowCount(len(rows))
        for i, (title, tooltip, a, b) in enumerate(rows):
            for col, text in enumerate((title, _with_ci(a), _with_ci(b))):
                item = QTableWidgetItem(text)
                item.setToolTip(tooltip if col == 0 else text)
                self.compare.setItem(i, col, item)
        self.compare.setHorizontalHeaderLabels(
            ["Measure", report["run"]["model"], versus["run"]["model"]]
        )
        agreement = next(
            (a for a in report["error_agreement"] if a["run"] == versus["run"]["id"]),
            None,
        )
        note = ""
        if agreement:
            note = " ".join(m["reading"] for m in agreement["metrics"].values())
        self.compare_note.setText(note)

    # -- drill-down --------------------------------------------------------------------

    def _show_differing(self, design: str, run_a: int, run_b: int, title: str) -> None:
        """The requests two models answered differently, read in the background."""
        comparison = self._comparison[1] if self._comparison else None  # shown before the report
        if comparison is None:
            return
        names = {r["run"]: r["name"] for r in comparison["runs"]}
        dialog = DifferingDialog(title, (names[run_a], names[run_b]), self)
        dialog.show()
        opener = self.session.source().opener()
        limit = 500

        def work() -> list[DifferingAnswer]:
            with opener() as result:
                return differing_answers(result, run_a, run_b, design, limit=limit)

        run_in_background(
            work,
            lambda rows: dialog.show_rows(rows, limit),
            lambda exc: dialog.show_failure(str(exc)),
            owner=dialog,
        )

    def _drill(self, path: tuple[str, ...], title: str) -> None:
        """Open the answers behind one number (read in the background)."""
        report, data = self._report, self._data
        if report is None or data is None:
            return
        run_id = int(report["run"]["id"])
        key = (data.path, run_id, report["counts"]["answered"])
        cached = self._index if self._index_key == key else None
        dialog = AnswersDialog(title, self)
        term = term_for(path)
        if term is not None:
            dialog.heading.setToolTip(term.tooltip())
        dialog.show()
        opener = None if cached is not None else self.session.source().opener(readonly=True)

        def work() -> tuple[AnswerIndex, Drilldown]:
            index = cached
            if index is None:
                assert opener is not None
                with opener() as result:  # this worker's own connection (or copy)
                    index = AnswerIndex.load(result, run_id, report)
            return index, index.behind(path)

        def done(result: tuple[AnswerIndex, Drilldown]) -> None:
            if self._index is not result[0]:
                self._index, self._index_key = result[0], key
                gc.freeze()  # a big audit's answers, kept: out of the collector's walk
            dialog.show_answers(result[1])

        def failed(exc: Exception) -> None:
            logger.warning("answers behind %s not read: %s", ".".join(path), exc)
            dialog.show_error(str(exc))

        run_in_background(work, done, failed, owner=dialog)
        self._last_dialog = dialog  # for tests and screenshots

    def _drill_card(self, path: tuple[str, ...], title: str) -> None:
        metric = metric_at(self._report, path)
        if metric and metric.get("n"):
            self._drill(path, f"{title}: {value_text(metric)}")

    def _pairs_shown(self, _index: int) -> None:
        """The first time the pair-by-pair tab shows, give the table 60% of the width."""
        if self.tabs.currentWidget() is self.pairs_tab and not self._pairs_sized:
            width = self.pairs_tab.width()
            if width > 0:
                self._pairs_sized = True
                self.pairs_tab.setSizes([int(width * 0.6), int(width * 0.4)])

    # -- the table -----------------------------------------------------------------------

    def _fill_table_filters(self) -> None:
        for combo, first, items in (
            (self.group_filter, "All groups", [(group_label(g), g) for g in self.model.groups()]),
            (
                self.resume_filter,
                "All source resumes",
                sorted(((name, cid) for cid, name in self.model.resumes().items())),
            ),
        ):
            kept = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(first, None)
            for text, key in items:
                combo.addItem(_elide_middle(text, 40), key)
                combo.setItemData(combo.count() - 1, text, Qt.ItemDataRole.ToolTipRole)
            combo.setCurrentIndex(max(0, combo.findData(kept)))
            combo.blockSignals(False)
            combo.setVisible(len(items) > 1)

    def _filter(self) -> None:
        cluster = self.resume_filter.currentData()
        self.model.set_filter(
            make_filter(
                str(self.kind_filter.currentData() or ""),
                self.search.text(),
                str(self.group_filter.currentData() or ""),
                int(cluster) if cluster is not None else None,
            )
        )
        current = self.table.currentIndex()
        if not current.isValid() and self.model.rowCount():
            self.table.selectRow(0)
        elif current.isValid():
            self._select(current, current)

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
        lines = [f"Pair {row.pair_id}. Right answer: {row.truth_text}. What differs: {row.differs}"]
        lines.append("")
        for title, verdict in (("A shown first", row.ab), ("B shown first", row.ba)):
            lines.append(f"{title}: {row.verdict_text(verdict)}")
            lines.append(verdict.justification if verdict else "(no answer yet)")
            lines.append("")
        self.why.setPlainText("\n".join(lines))
        raws = []
        result = self.session.db()
        mask = self._mask
        for title, verdict in (("A shown first", row.ab), ("B shown first", row.ba)):
            if verdict is None:
                continue
            raw = result.raw_response(verdict.request_id)
            if mask is not None:
                raw = mask_json(raw, mask)
            raws.append(f"--- {title} (request {verdict.request_id}) ---")
            raws.append(json.dumps(raw, indent=2, ensure_ascii=False))
        self.raw.setPlainText("\n".join(raws) or "No answers yet.")

    def status(self, data: AuditData | None) -> str:
        return "done" if self._report and self._report["counts"]["answered"] else "todo"


def _ran(report: MetricsReport, design: str) -> bool:
    """A design the run has answers for: its block, where it sits, holding answers (a
    design computed on every run has a block without any: `Design.answered`)."""
    unit = REGISTERED.get(design)
    if unit is None:
        return bool(report.get(design))
    block = unit.block(report)
    return bool(block) and unit.answered(block or {})


def metric_at(report: Mapping[str, Any] | None, path: Sequence[str]) -> MetricDict | None:
    """The metric at `path` in a metrics report (None: not there)."""
    node: Any = report
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    return cast(MetricDict, node) if isinstance(node, Mapping) else None


def _words(path: Sequence[str]) -> tuple[str, str]:
    """A number's plain title and its tooltip (the meaning, with the paper's term)."""
    term = term_for(path)
    return (term.label, term.tooltip()) if term is not None else (str(path[-1]), "")


def draw_charts(
    report: MetricsReport | None,
    jobs: list[tuple[str, tuple[int, int], float]],
    dark: bool,
) -> dict[str, tuple[Pixels, float]]:
    """Every chart's pixels at its view's size (in a worker: matplotlib is slow).

    Only charts of designs the run has are drawn; the others stay hidden anyway.
    """
    out: dict[str, tuple[Pixels, float]] = {}
    for key, size, dpr in jobs:
        if key == COMPARE_CHART:
            if report is not None and report.get("comparison"):
                spec = comparison_chart(report.get("comparison"), report["run"]["id"])
                out[key] = (render_spec(spec, size, dpr, dark=dark), dpr)
            continue
        design = CHART_OWNER.get(key, "")
        if report is not None and not _ran(report, design):
            continue
        out[key] = (render_spec(chart_spec(key, report), size, dpr, dark=dark), dpr)
    return out


def _with_ci(metric: MetricDict | None) -> str:
    if not metric or metric.get("value") is None:
        return "—"
    interval = ci_text(metric)
    return value_text(metric) + (f"  ({interval})" if interval else "")


def _elide_middle(text: str, width: int) -> str:
    """'software_engineer__livecareer_IN….pdf' cut in the middle, so the end that tells
    two resumes apart stays readable; the full name goes in the tooltip."""
    if len(text) <= width:
        return text
    keep = width - 1
    return text[: keep - keep // 2] + "…" + text[-(keep // 2) :]


__all__ = ["ResultsPage", "draw_charts", "metric_at", "pct"]
