"""The Results page on an audit with every design answered: panels, words, drill-down, fixes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from report_fixtures import copy_audit
from results_fixtures import REAL_NAME

from resume_auditor.report.numbers import get_path
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui.models.metric_table import MetricTableModel, design_rows
from resume_auditor.ui.models.pair_table import PairTableModel
from resume_auditor.ui.pages.results_page import ResultsPage
from resume_auditor.ui.session import Session
from resume_auditor.ui.tasks import wait_for_background
from resume_auditor.workflow.metrics import metrics_report

JARGON = ("CriterionValidity", "DiscrimValidity", "SelectionRate", "RABBI", "k = ", "App. F")


@pytest.fixture
def page(qtbot: Any, all_designs_memory: ResultFile) -> Iterator[ResultsPage]:
    """The Results page alone, on an in-memory copy of the audit: no window, no file
    (issue 27 item 3). Its workers read copies of that audit, as they read the file in
    the app; the two tests marked "end to end" below use the window and a file."""
    session = Session()
    session.show_in_memory(all_designs_memory)
    assert session.data is not None
    results = ResultsPage(session)
    qtbot.addWidget(results)
    results.resize(1280, 800)
    results.show()
    results.show_audit(session.data)
    qtbot.waitUntil(
        lambda: results.tabs.count() == 5 and results.model.rowCount() > 0, timeout=30000
    )
    yield results
    # Before the audit in memory is closed: no refresh starts (a queued answer could
    # ask for one) and none is running.
    results._data = None  # noqa: SLF001
    wait_for_background()


@pytest.fixture
def audit(all_designs_audit: Path, tmp_path: Path) -> Path:
    """A file copy per test: the window opens a path and holds the audit it opens."""
    return copy_audit(all_designs_audit, tmp_path / "all.audit")


@pytest.fixture
def window_page(qtbot: Any, window: Any, audit: Path) -> ResultsPage:
    """End to end, as the app is used: the window opens the audit file."""
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(audit)
    window.resize(1280, 800)
    window.show_page(4)
    results: ResultsPage = window.results_page
    qtbot.waitUntil(
        lambda: results.tabs.count() == 5 and results.model.rowCount() > 0, timeout=30000
    )
    return results


def tab_titles(page: ResultsPage) -> list[str]:
    return [page.tabs.tabText(i) for i in range(page.tabs.count())]


def test_a_tab_for_every_design_the_audit_ran(page: ResultsPage) -> None:
    assert tab_titles(page) == [
        "Pairs (D1)",
        "Pair by pair (D1)",
        "Ratings by group (D2)",
        "Pools (D3)",
        "Scores and ranks (D4)",
    ]
    for design in ("d1", "d2", "d3", "d4"):
        panel = page.panels[design]
        page.tabs.setCurrentWidget(page._tab_of[design][0][0])
        assert panel.isVisible() and panel.model.rowCount() > 0, design
        assert all(chart.isVisible() for chart in panel.charts), design
    page.tabs.setCurrentWidget(page._tab_of["d1"][0][0])
    assert all(card.isVisible() for card in page.cards.values())
    # D2 has 70% intervals (Gaebler et al.), shown beside the 95% ones
    d2 = page.panels["d2"]
    assert not d2.table.isColumnHidden(MetricTableModel.COL_CI70)
    row = d2.model.row_at(0)
    assert row.path[:2] == ("d2", "smd") and row.interval70 and row.interval != "—"
    assert page.panels["d1"].table.isColumnHidden(MetricTableModel.COL_CI70)


def test_a_design_not_run_has_no_panel(page: ResultsPage, all_designs_memory: ResultFile) -> None:
    report = metrics_report(all_designs_memory)
    only_d1 = {k: v for k, v in report.items() if k not in ("d2", "d3", "d4")}
    page._show_panels(only_d1, {d: design_rows(only_d1, d) for d in ("d1", "d2", "d3", "d4")})
    assert tab_titles(page) == ["Pairs (D1)", "Pair by pair (D1)"]


def test_too_few_answers_are_said_in_words(page: ResultsPage) -> None:
    warning = page.panels["d2"].warning
    assert not warning.isHidden()
    assert "Only 20 ratings" in warning.text() and "too few" in warning.text()


def test_words_on_screen_are_plain(page: ResultsPage) -> None:
    shown = [page.flags.text(), *[c.title.text() for c in page.cards.values()]]
    for panel in page.panels.values():
        model = panel.model
        shown += [
            str(model.index(r, MetricTableModel.COL_MEASURE).data())
            for r in range(model.rowCount())
        ]
    text = " ".join(shown)
    assert "Picks the more qualified candidate" in text
    for word in JARGON:
        assert word not in text, word
    # the paper's term is one hover away
    first = page.panels["d1"].model.row_at(0)
    assert "CriterionValidity" in first.tooltip()


def test_every_number_matches_the_metrics(page: ResultsPage) -> None:
    report = page._report
    assert report is not None
    for panel in page.panels.values():
        for pos in range(panel.model.rowCount()):
            row = panel.model.row_at(pos)
            assert get_path(report, list(row.path)) is row.metric


def test_double_click_opens_the_answers_behind_a_number(qtbot: Any, page: ResultsPage) -> None:
    page.tabs.setCurrentIndex(2)
    panel = page.panels["d2"]
    panel.table.selectRow(0)
    row = panel.model.row_at(0)
    panel.table.doubleClicked.emit(panel.table.currentIndex())
    dialog = page._last_dialog
    qtbot.waitUntil(lambda: dialog.model.rowCount() > 0, timeout=20000)
    rows = dialog.model.rows
    assert sum(r.readable for r in rows) >= row.answers
    assert all(r.design == "D2" for r in rows)
    cells = [
        str(dialog.model.index(r, c).data())
        for r in range(dialog.model.rowCount())
        for c in range(dialog.model.columnCount())
    ]
    assert not any(REAL_NAME in c for c in cells)
    assert any("[Resume" in c for c in cells)
    assert "Rated" in dialog.detail.toPlainText()
    dialog.close()


def test_justifications_and_raw_responses_are_masked(page: ResultsPage) -> None:
    whys = [r.ab.justification for r in page.model.rows if r.ab]
    assert whys and any("[Resume" in w for w in whys)
    assert not any(REAL_NAME in w for w in whys)
    page.tabs.setCurrentIndex(1)
    page.table.selectRow(0)
    assert REAL_NAME not in page.why.toPlainText()
    assert REAL_NAME not in page.raw.toPlainText()
    assert "[Resume" in page.raw.toPlainText()


def test_the_detail_follows_the_selected_pair_after_sorting(page: ResultsPage) -> None:
    page.tabs.setCurrentIndex(1)
    page.table.sortByColumn(PairTableModel.COL_PAIR, Qt.SortOrder.AscendingOrder)
    page.table.selectRow(2)
    chosen = page.model.row_at(2).pair_id
    assert page.why.toPlainText().startswith(f"Pair {chosen}.")
    page.table.sortByColumn(PairTableModel.COL_PAIR, Qt.SortOrder.DescendingOrder)
    assert page.model.row_at(2).pair_id != chosen  # the rows did move
    current = page.table.currentIndex()
    assert current.isValid()
    assert page.model.row_at(current.row()).pair_id == chosen  # the selection moved with them
    selected = page.table.selectionModel().selectedRows()
    assert [page.model.row_at(i.row()).pair_id for i in selected] == [chosen]
    assert page.why.toPlainText().startswith(f"Pair {chosen}.")
    page.table.selectRow(0)  # now the top row: the highest pair number
    top = page.model.row_at(0).pair_id
    assert top == max(r.pair_id for r in page.model.rows)
    assert page.why.toPlainText().startswith(f"Pair {top}.")
    # filtering keeps the chosen pair selected while it is shown
    page.table.selectRow(5)
    chosen = page.model.row_at(5).pair_id
    page.kind_filter.setCurrentIndex(page.kind_filter.findData(page.model.row_at(5).kind))
    current = page.table.currentIndex()
    assert page.model.row_at(current.row()).pair_id == chosen
    assert page.why.toPlainText().startswith(f"Pair {chosen}.")


def test_the_pair_table_filters_by_group_and_resume(page: ResultsPage) -> None:
    combo = page.group_filter
    assert combo.count() > 2
    combo.setCurrentIndex(1)
    group = combo.currentData()
    assert page.model.rowCount() > 0
    for pos in range(page.model.rowCount()):
        row = page.model.row_at(pos)
        assert group in (row.group_a, row.group_b)
    combo.setCurrentIndex(0)
    resumes = page.resume_filter
    resumes.setCurrentIndex(1)
    cluster = resumes.currentData()
    assert {page.model.row_at(p).cluster for p in range(page.model.rowCount())} == {cluster}
    assert resumes.itemData(1, 3)  # the full file name as a tooltip (Qt.ToolTipRole == 3)


def test_nothing_clipped_at_1280_by_800(qtbot: Any, window_page: ResultsPage) -> None:
    """End to end: the page in the window, at the window's size."""
    page = window_page
    window = page.window()
    assert window.height() <= 800 and window.width() <= 1280  # the page fits the window
    page.tabs.setCurrentIndex(1)
    qtbot.wait(50)
    table = page.table
    fm = table.horizontalHeader().fontMetrics()
    for col, title in enumerate(PairTableModel.HEADERS):
        assert table.columnWidth(col) >= fm.horizontalAdvance(title), title
    # both verdict columns are on screen without scrolling
    right = table.columnViewportPosition(PairTableModel.COL_BA) + table.columnWidth(
        PairTableModel.COL_BA
    )
    assert 0 < right <= table.viewport().width()
    for design in ("d1", "d2"):
        panel = page.panels[design]
        page.tabs.setCurrentWidget(page._tab_of[design][0][0])
        qtbot.wait(50)
        ci = MetricTableModel.COL_CI
        end = panel.table.columnViewportPosition(ci) + panel.table.columnWidth(ci)
        assert 0 < end <= panel.table.viewport().width(), design


def test_a_card_leads_to_its_answers(qtbot: Any, page: ResultsPage) -> None:
    page.tabs.setCurrentIndex(0)
    card = page.cards["criterion_validity"]
    qtbot.mouseDClick(card, Qt.MouseButton.LeftButton)
    dialog = page._last_dialog
    qtbot.waitUntil(lambda: dialog.model.rowCount() > 0, timeout=20000)
    report = page._report
    assert report is not None
    n = report["d1"]["metrics"]["criterion_validity"]["n"]
    assert sum(r.readable for r in dialog.model.rows) == n
    assert all(r.what.startswith("Unequal pair") for r in dialog.model.rows)
    dialog.search.setText("wrong")
    assert 0 < dialog.model.rowCount() < len(dialog.model.rows)
    dialog.close()


def test_a_design_whose_answers_were_all_unreadable_says_so(page: ResultsPage) -> None:
    """A model answering D2 in a form the reader cannot read: no number, and the
    page says why instead of 'only 20 ratings so far'."""
    import copy

    report = copy.deepcopy(page._report)  # noqa: SLF001 - the page's own numbers
    assert report is not None
    report["d2"]["unreadable"] = report["d2"]["ratings"]
    rows = {d: design_rows(report, d) for d in ("d1", "d2", "d3", "d4")}
    page._show_panels(report, rows)  # noqa: SLF001
    text = page.panels["d2"].warning.text()
    assert f"None of the {report['d2']['ratings']} ratings could be read" in text
    assert "so far" not in text


def test_numbers_nobody_sees_wait_until_shown(
    qtbot: Any, window: Any, window_page: ResultsPage
) -> None:
    """Answers arriving while another page is shown only mark the numbers stale (a
    refresh of a big run's metrics stalls the window); showing the page, or the
    presenter, brings them up to date. End to end: the window switches pages."""
    page = window_page
    window.show_page(3)  # the Run page, as during a run
    qtbot.waitUntil(lambda: not page.isVisible())
    page._timer.stop()  # noqa: SLF001 - start from no refresh planned
    page.schedule_refresh()
    assert not page._timer.isActive()  # noqa: SLF001
    window.show_page(4)
    qtbot.waitUntil(lambda: page._timer.isActive() or page._refreshing, timeout=5000)  # noqa: SLF001
    window.show_page(3)
    qtbot.waitUntil(lambda: not page.isVisible())
    page._timer.stop()  # noqa: SLF001
    presenter = window.open_presenter(full_screen=False)
    page.schedule_refresh()
    assert page._timer.isActive()  # noqa: SLF001 - the presenter shows these numbers
    presenter.hide()
    page._timer.stop()  # noqa: SLF001
    page.schedule_refresh()
    assert not page._timer.isActive()  # noqa: SLF001


def test_answers_lost_unevenly_by_group_are_flagged_on_the_page(page: ResultsPage) -> None:
    """The missing-answer flag (stats/missing.py) is shown with the other flags."""
    import copy

    report = copy.deepcopy(page._report)  # noqa: SLF001 - the page's own numbers
    assert report is not None and "missing" in report
    flag = "D2: answers were lost unevenly by group: 40% of the answers showing ..."
    report["missing"]["D2"]["flag"] = flag
    rows = {d: design_rows(report, d) for d in ("d1", "d2", "d3", "d4")}
    page._show_flags(report, rows)  # noqa: SLF001
    assert "lost unevenly by group" in page.flags.text()
    assert not page.flags.isHidden()


def test_a_refresh_with_no_new_answer_computes_nothing(
    qtbot: Any,
    page: ResultsPage,
    all_designs_memory: ResultFile,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 25: every refresh ran every permutation test again (about a second for a
    mid-sized audit); the report is kept while the audit's answers are the same."""
    from resume_auditor.ui.pages import results_page

    calls: list[int | None] = []

    def counted(result: ResultFile, run_id: int | None = None, **kw: Any) -> Any:
        calls.append(run_id)
        return metrics_report(result, run_id, **kw)

    monkeypatch.setattr(results_page, "metrics_report", counted)
    shown = page._report  # noqa: SLF001
    for _ in range(2):
        page.refresh()
        qtbot.waitUntil(lambda: not page._refreshing, timeout=30000)  # noqa: SLF001
    assert calls == [] and page._report is shown  # noqa: SLF001
    # a new answer (here: a re-asked one, whose history changes the run's counts),
    # written to the audit the page shows: its next worker reads a copy that has it
    result = all_designs_memory
    run_id = result.runs()[-1].id
    before = results_page.answer_state(result, run_id, None)
    request_id, text, label = result._db.execute(  # noqa: SLF001 - test set-up
        "SELECT request_id, text, label FROM response LIMIT 1"
    ).fetchone()
    # the same answer asked again: the counts stay, its history grows
    result.record_response(request_id, {}, text, label, "", (7, 7, 0, 0), "m", 0.1)
    assert results_page.answer_state(result, run_id, None) != before
    page.refresh()
    qtbot.waitUntil(lambda: not page._refreshing, timeout=30000)  # noqa: SLF001
    assert calls == [run_id]


def test_the_pair_rows_and_what_a_refresh_compares_come_from_an_audit_in_memory(
    all_designs_memory: ResultFile,
) -> None:
    """No window and no file: the rows of the pair table, and the state a refresh
    compares, which changes with the audit's settings (issue 27 item 3)."""
    from resume_auditor.ui.models.pair_table import rows_of
    from resume_auditor.ui.pages import results_page

    result = all_designs_memory
    run_id = result.runs()[-1].id
    rows, newest = rows_of(result, run_id)
    assert sorted(r.pair_id for r in rows) == [c.id for c in result.cases("D1")]
    first_asks = [v for v in result.verdicts_since(run_id) if v[3] == 0]
    assert newest == max(v[-1] for v in first_asks)
    assert len(first_asks) == sum((r.ab is not None) + (r.ba is not None) for r in rows)
    before = results_page.answer_state(result, run_id, None)
    assert results_page.answer_state(result, run_id, None) == before
    config = result.config()
    config["study"]["seed"] += 1
    result.save_config(config)
    assert results_page.answer_state(result, run_id, None) != before
