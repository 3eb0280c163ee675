"""The Results page's "Models compared" tab shows what the comparison says (issue 28)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl

from resume_auditor.stats.model import ComparisonDict


def _comparison() -> ComparisonDict:
    def interval(value: float | None, low: float | None, high: float | None, p: Any = None) -> Any:
        return {
            "value": value,
            "ci": [low, high],
            "level": 0.95,
            "n": 40,
            "successes": None,
            "clusters": 8,
            "note": "",
            "p": p,
            "p_holm": p,
            "unit": "proportion" if p is None else "points",
        }

    return {
        "schema": 1,
        "runs": [
            {
                "run": 1,
                "name": "Model A",
                "provider": "openai",
                "model": "a",
                "prompt": "p",
                "answered": 40,
                "invalid": 0,
                "cost_usd": 0.5,
                "cost_per_1000": 12.5,
            },
            {
                "run": 2,
                "name": "Model B",
                "provider": "openai",
                "model": "b",
                "prompt": "p",
                "answered": 40,
                "invalid": 1,
                "cost_usd": None,
                "cost_per_1000": None,
            },
        ],
        "measures": [
            {
                "design": "D1",
                "key": "criterion_validity",
                "label": "Picks the more qualified",
                "kind": "validity",
                "unit": "proportion",
                "values": {"1": interval(0.9, 0.8, 0.97), "2": interval(0.6, 0.45, 0.74)},
            },
        ],
        "differences": [
            {
                "design": "D1",
                "key": "criterion_validity",
                "label": "Picks the more qualified",
                "kind": "validity",
                "run_a": 1,
                "run_b": 2,
                "difference": interval(0.3, 0.15, 0.45, 0.001),
                "sentence": "Model A picks the more qualified candidate more often than Model B: "
                "+30 points, 95% CI +15 to +45.",
            },
        ],
        "agreement": [
            {
                "design": "D1",
                "run_a": 1,
                "run_b": 2,
                "alike": interval(0.75, 0.6, 0.86),
                "differ": 10,
                "differ_case_count": 2,
                "differ_cases": [3, 5],
            }
        ],
        "alpha": 0.05,
        "method": "technical method",
        "notes": [],
    }


def test_the_tab_shows_each_model_and_each_sentence(qtbot: Any) -> None:
    from resume_auditor.ui.widgets.comparison_panel import ComparisonPanel, chart

    panel = ComparisonPanel()
    qtbot.addWidget(panel)
    comparison = _comparison()
    panel.show_comparison(comparison, 2)
    assert "2 models answered the same test cases: Model A, Model B" in panel.heading.text()
    assert "1 of 1 differences" in panel.heading.text()
    assert "The other tabs show Model B." in panel.heading.text()
    headers = [panel.values.horizontalHeaderItem(i).text() for i in range(3)]
    assert headers == ["Measure", "Model A", "Model B"]
    assert panel.values.item(0, 1).text() == "90%\n80%–97%"
    assert panel.values.item(0, 2).text() == "60%\n45%–74%"
    assert panel.values.item(2, 0).text() == "Cost per 1,000 screening decisions"
    assert [panel.values.item(2, j).text() for j in (1, 2)] == ["$12.50", "not known"]
    text = panel.differences.toPlainText()
    assert "Model A picks the more qualified candidate more often than Model B" in text
    assert "<b>Model A picks" in panel.differences.toHtml().replace('font-weight:700;">', "<b>")
    assert (
        "D1: Model A and Model B gave the same answer to 75% (95% CI 60%–86%) of the 40 "
        "requests both answered readably; they answered 10 differently, on 2 test case(s)." in text
    )
    assert panel.method.toolTip() == "technical method"
    spec = chart(comparison)
    assert spec.kind == "differences"
    assert [name for name, _ in spec.items] == ["Picks the more qualified"]
    assert spec.items[0][1]["flag"]  # clear: drawn red
    panel.show_comparison(None, None)
    assert panel.values.rowCount() == 0
    assert "Only one model" in panel.heading.text()


def test_of_several_models_the_chart_shows_each_minus_the_shown_one() -> None:
    """Every pair of five models is 60 bars for D1's six measures, more than a tab's chart
    can label: of three or more, the chart shows each other model minus the one the
    other tabs show (turned round where that one is the pair's first), grouped by
    measure; the sentences still name every pair."""
    from resume_auditor.report.comparison import difference_items
    from resume_auditor.ui.widgets.comparison_panel import chart

    comparison = _comparison()
    third = {**comparison["runs"][1], "run": 3, "name": "Model C"}
    comparison["runs"].append(third)
    base = comparison["differences"][0]

    def diff(a: int, b: int, value: float, low: float, high: float, p: float) -> Any:
        return {
            **base,
            "run_a": a,
            "run_b": b,
            "difference": {**base["difference"], "value": value, "ci": [low, high], "p_holm": p},
        }

    comparison["differences"] = [
        diff(1, 2, 0.3, 0.15, 0.45, 0.001),
        diff(1, 3, 0.1, -0.05, 0.2, 0.4),
    ]
    comparison["differences"].append(diff(2, 3, -0.2, -0.3, -0.1, 0.01))
    spec = chart(comparison, 2)
    assert spec.title.startswith("Each model minus Model B")
    items = dict(spec.items)
    assert list(items) == ["Picks the more qualified: Model A", "Picks the more qualified: Model C"]
    a, c = items["Picks the more qualified: Model A"], items["Picks the more qualified: Model C"]
    assert (a["value"], a["ci"], bool(a["flag"])) == (0.3, [0.15, 0.45], True)  # A - B as it is
    assert (c["value"], c["ci"], bool(c["flag"])) == (0.2, [0.1, 0.3], True)  # C - B: turned round
    assert chart(comparison, None).title.startswith("Each model minus Model C")  # the newest
    # the report keeps every pair (its chart grows with them)
    assert len(difference_items(comparison)[1]) == 3


def test_the_results_page_compares_the_audits_models(qtbot: Any, sample_memory: Any) -> None:
    """The sample audit holds two models: the Results page gains a "Models compared" tab
    with what compare_runs says, computed off the UI thread, and its chart drawn."""
    from resume_auditor.ui.pages.results_page import ResultsPage
    from resume_auditor.ui.session import Session
    from resume_auditor.ui.tasks import wait_for_background
    from resume_auditor.workflow.compare import compare_runs

    session = Session()
    session.show_in_memory(sample_memory)
    assert session.data is not None
    results = ResultsPage(session)
    qtbot.addWidget(results)
    results.resize(1280, 800)
    results.show()
    results.show_audit(session.data)
    titles = lambda: [results.tabs.tabText(i) for i in range(results.tabs.count())]  # noqa: E731
    qtbot.waitUntil(lambda: "Models compared" in titles(), timeout=30000)
    expected = compare_runs(sample_memory)
    assert expected is not None
    panel = results.compare_panel
    assert [panel.values.horizontalHeaderItem(i).text() for i in (1, 2)] == [
        r["name"] for r in expected["runs"]
    ]
    for d in expected["differences"]:
        assert d["sentence"] in panel.differences.toPlainText()
    results.tabs.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: not panel.chart_view.pixmap().isNull(), timeout=30000)
    results._data = None  # noqa: SLF001
    wait_for_background()


def test_the_requests_two_models_answered_differently_open_from_the_tab(
    qtbot: Any, tmp_path: Any
) -> None:
    """Two loopback models over HTTP (one right, one always first): "Show them" opens the
    requests they answered differently, both answers side by side, read off the UI thread."""
    from test_compare import two_models

    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.ui.pages.results_page import ResultsPage
    from resume_auditor.ui.session import Session
    from resume_auditor.ui.tasks import wait_for_background
    from resume_auditor.ui.widgets.differing_dialog import DifferingDialog
    from resume_auditor.workflow.compare import differing_answers

    class Factory:
        def mktemp(self, name: str) -> Any:
            (tmp_path / name).mkdir()
            return tmp_path / name

    audit = two_models.__wrapped__(Factory())
    with ResultFile.in_memory(audit) as memory:
        expected = differing_answers(memory, 1, 2, "D1")
        assert expected and all(d.answer_a != d.answer_b for d in expected)
        session = Session()
        session.show_in_memory(memory)
        assert session.data is not None
        results = ResultsPage(session)
        qtbot.addWidget(results)
        results.show()
        results.show_audit(session.data)
        panel = results.compare_panel
        qtbot.waitUntil(lambda: "Show them" in panel.differences.toHtml(), timeout=30000)
        with qtbot.waitSignal(panel.differing, timeout=5000) as blocker:
            panel._link(QUrl("differ:0"))  # noqa: SLF001  (what a click on the link does)
        assert blocker.args[:3] == ["D1", 1, 2]
        dialogs = [w for w in results.findChildren(DifferingDialog)]
        assert len(dialogs) == 1
        dialog = dialogs[0]
        qtbot.waitUntil(lambda: dialog.table.rowCount() == len(expected), timeout=30000)
        assert dialog.table.item(0, 2).text() == expected[0].answer_a
        assert dialog.table.item(0, 3).text() == expected[0].answer_b
        assert expected[0].detail_a in dialog.detail.toPlainText()
        results._data = None  # noqa: SLF001
        wait_for_background()


def test_the_comparison_shows_before_the_shown_runs_metrics(
    qtbot: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    """The tab does not wait for the shown run's permutation tests: with the metrics held
    back, "Models compared" appears with its chart; once they are let through, the
    report carries the same comparison, computed once."""
    import threading

    from test_compare import two_models

    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.ui.pages import results_page
    from resume_auditor.ui.pages.results_page import ResultsPage
    from resume_auditor.ui.session import Session
    from resume_auditor.ui.tasks import wait_for_background
    from resume_auditor.workflow.metrics import metrics_report

    class Factory:
        def mktemp(self, name: str) -> Any:
            (tmp_path / name).mkdir()
            return tmp_path / name

    audit = two_models.__wrapped__(Factory())
    held = threading.Event()
    compared: list[object] = []

    def slow_metrics(result: Any, run_id: int | None = None, **kw: Any) -> Any:
        assert held.wait(60), "the metrics were never let through"
        return metrics_report(result, run_id, **kw)

    def counted(result: Any, *args: Any, **kw: Any) -> Any:
        compared.append(result)
        return results_page.__dict__["_real_compare"](result, *args, **kw)

    monkeypatch.setitem(results_page.__dict__, "_real_compare", results_page.compare_runs)
    monkeypatch.setattr(results_page, "metrics_report", slow_metrics)
    monkeypatch.setattr(results_page, "compare_runs", counted)
    with ResultFile.in_memory(audit) as memory:
        session = Session()
        session.show_in_memory(memory)
        assert session.data is not None
        results = ResultsPage(session)
        qtbot.addWidget(results)
        results.show()
        results.show_audit(session.data)
        panel = results.compare_panel
        titles = lambda: [results.tabs.tabText(i) for i in range(results.tabs.count())]  # noqa: E731
        try:
            qtbot.waitUntil(lambda: "Models compared" in titles(), timeout=30000)
            assert results._report is None  # noqa: SLF001 - the metrics are still held
            assert "sim-right" in panel.heading.text()
            results.tabs.setCurrentWidget(panel)
            qtbot.waitUntil(lambda: not panel.chart_view.pixmap().isNull(), timeout=30000)
        finally:
            held.set()
        qtbot.waitUntil(lambda: results._report is not None, timeout=30000)  # noqa: SLF001
        qtbot.waitUntil(lambda: not results._refreshing, timeout=30000)  # noqa: SLF001
        report = results._report  # noqa: SLF001
        assert report is not None
        assert report["comparison"] is results._comparison[1]  # noqa: SLF001
        assert len(compared) == 1
        assert len(titles()) > 1 and titles()[-1] == "Models compared"  # after the designs
        results._data = None  # noqa: SLF001
        wait_for_background()


def test_the_report_page_builds_its_numbers_only_once_shown(
    qtbot: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    """Building the report runs every test and the comparison again: a hidden Report page
    only notes it is due (it held the Results page's comparison back by seconds), and
    builds it when shown."""
    from test_compare import two_models

    from resume_auditor.ui.pages import report_page
    from resume_auditor.ui.pages.report_page import ReportPage
    from resume_auditor.ui.session import Session
    from resume_auditor.ui.tasks import wait_for_background

    class Factory:
        def mktemp(self, name: str) -> Any:
            (tmp_path / name).mkdir()
            return tmp_path / name

    audit = two_models.__wrapped__(Factory())
    built: list[Any] = []
    real = report_page.report_document

    def counted(*args: Any, **kw: Any) -> Any:
        built.append(args)
        return real(*args, **kw)

    monkeypatch.setattr(report_page, "report_document", counted)
    session = Session()
    with qtbot.waitSignal(session.loaded, timeout=60000):
        session.open_file(audit)
    assert session.data is not None
    page = ReportPage(session)
    qtbot.addWidget(page)
    page.show_audit(session.data)
    wait_for_background()
    assert built == []
    page.show()
    qtbot.waitUntil(lambda: "<h2" in page.verdict.toHtml(), timeout=60000)
    assert len(built) == 1
    page.hide()
    page.show()  # shown again with nothing new: not built again
    wait_for_background()
    assert len(built) == 1
    session.close_audit()


def test_the_page_opens_on_its_first_design_not_on_the_comparison(
    qtbot: Any, sample_memory: Any
) -> None:
    """The comparison comes first and is, for a moment, the only tab; once the designs'
    tabs come, the page shows the first of them, as it did before the comparison came
    first."""
    from resume_auditor.ui.pages.results_page import ResultsPage
    from resume_auditor.ui.session import Session
    from resume_auditor.ui.tasks import wait_for_background

    session = Session()
    session.show_in_memory(sample_memory)
    assert session.data is not None
    results = ResultsPage(session)
    qtbot.addWidget(results)
    results.show()
    results.show_audit(session.data)
    titles = lambda: [results.tabs.tabText(i) for i in range(results.tabs.count())]  # noqa: E731
    qtbot.waitUntil(lambda: len(titles()) > 1 and results._report is not None, timeout=30000)  # noqa: SLF001
    qtbot.waitUntil(lambda: not results._refreshing, timeout=30000)  # noqa: SLF001
    assert titles()[-1] == "Models compared"
    assert results.tabs.currentIndex() == 0
    results._data = None  # noqa: SLF001
    wait_for_background()
