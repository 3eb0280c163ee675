"""Walk the five pages like a user, against the provider simulator."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from devtools.simulator import Simulator
from pytestqt.qtbot import QtBot

from resume_auditor.runner import RunState
from resume_auditor.ui.main_window import MainWindow


def _open(qtbot: QtBot, win: MainWindow, path: Path) -> None:
    with qtbot.waitSignal(win.session.loaded, timeout=30000):
        win.open_path(path)


def _point_at(win: MainWindow, sim: Simulator) -> None:
    page = win.run_page
    page.provider.setCurrentIndex(page.provider.findData("openai-compatible"))
    page.base_url.setText(sim.base_url)
    page.model_id.setText("sim-model")


def test_walk_all_pages_and_run(qtbot: QtBot, window: MainWindow, small_study: Path) -> None:
    win = window
    _open(qtbot, win, small_study)
    # 1. Job
    assert win.job_page.job_title.text() == "Junior Data Analyst"
    assert win.job_page.counts.text() == "6 required, 3 preferred."
    # 2. Resumes: one PDF, text shown, identity marked
    win.job_page.next_button.click()
    assert win.stack.currentWidget() is win.resumes_page
    assert win.resumes_page.files.count() == 1
    assert "Jordan Ellery" in win.resumes_page.text.toPlainText()
    assert "identity mention" in win.resumes_page.message.text()
    # 3. Test cases
    win.resumes_page.next_button.click()
    qtbot.waitUntil(lambda: win.variants_page.model.rowCount() == 5, timeout=10000)
    # the requests are counted in the background, from the very specs a run would queue
    qtbot.waitUntil(lambda: "10 requests" in win.variants_page.summary.text(), timeout=10000)
    # 4. Run against the simulator
    win.variants_page.next_button.click()
    with Simulator() as sim:
        _point_at(win, sim)
        with qtbot.waitSignal(win.controller.finished, timeout=30000) as blocker:
            win.run_page.start_button.click()
        assert blocker.args[0].state is RunState.FINISHED
        assert win.run_page.progress.value() == 10
        assert win.run_page.feed.count() == 10
    # 5. Results
    win.run_page.next_button.click()
    assert win.stack.currentWidget() is win.results_page
    qtbot.waitUntil(
        lambda: (
            win.results_page.model.rowCount() == 5
            and all(r.ab and r.ba for r in win.results_page.model.rows)
        ),
        timeout=10000,
    )
    qtbot.waitUntil(
        lambda: win.results_page.cards["criterion_validity"].value.text() == "100%", timeout=10000
    )
    win.results_page.table.selectRow(0)
    assert "Right answer" in win.results_page.why.toPlainText()
    assert "choices" in win.results_page.raw.toPlainText()
    win.results_page.kind_filter.setCurrentIndex(win.results_page.kind_filter.findData("unequal"))
    assert win.results_page.model.rowCount() == 2


def test_cancel_then_resume_in_the_app(qtbot: QtBot, window: MainWindow, small_study: Path) -> None:
    win = window
    _open(qtbot, win, small_study)
    win.show_page(3)
    with Simulator(latency_s=0.3) as sim:
        _point_at(win, sim)
        win.run_page.concurrency.setValue(1)
        win.run_page.start_button.click()
        qtbot.waitUntil(lambda: win.run_page.progress.value() >= 2, timeout=15000)
        with qtbot.waitSignal(win.controller.finished, timeout=5000) as blocker:
            win.run_page.cancel_button.click()
        assert blocker.args[0].state is RunState.CANCELLED
        assert win.run_page.start_button.text() == "Resume"
        done = blocker.args[0].done
        with qtbot.waitSignal(win.controller.finished, timeout=30000) as blocker:
            win.run_page.start_button.click()
        assert blocker.args[0].state is RunState.FINISHED
        assert blocker.args[0].done == 10 and done < 10
        assert sim.answered == 10


def test_a_bad_key_is_reported_plainly(qtbot: QtBot, window: MainWindow, small_study: Path) -> None:
    win = window
    _open(qtbot, win, small_study)
    win.show_page(3)
    with Simulator(api_key="the-right-one") as sim:
        _point_at(win, sim)
        with qtbot.waitSignal(win.controller.finished, timeout=30000) as blocker:
            win.run_page.start_button.click()
        assert blocker.args[0].state is RunState.STOPPED
        assert "rejected the API key" in win.run_page.state_text.text()
        assert win.run_page.start_button.isEnabled()


def test_an_unusable_study_says_why(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QMessageBox

    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: shown.append(a[2]))
    bad = tmp_path / "bad.toml"
    bad.write_text('[job]\ntext = "x"\n[resumes]\nfiles = ["missing.pdf"]\n')
    with qtbot.waitSignal(window.session.failed, timeout=30000):
        window.open_path(bad)
    assert shown and "Could not open" in window.placeholder.text()


def test_presenter_mode_shows_verdicts_as_they_arrive(
    qtbot: QtBot, window: MainWindow, small_study: Path
) -> None:
    win = window
    _open(qtbot, win, small_study)
    presenter = win.open_presenter(full_screen=False)
    qtbot.addWidget(presenter)
    win.show_page(3)
    with Simulator() as sim:
        _point_at(win, sim)
        with qtbot.waitSignal(win.controller.finished, timeout=30000):
            win.run_page.start_button.click()
    # a few answers a tick are listed (a room reads no more); every one is counted
    assert 1 <= presenter.feed.count() <= 10
    first = presenter.feed.item(0).text()
    assert first.startswith(("✓", "✗")) and "“" in first
    qtbot.waitUntil(lambda: presenter.numbers["criterion_validity"].text() == "100%", timeout=10000)
    assert "10 of 10" in presenter.headline.text()


def test_two_runs_compared_side_by_side(
    qtbot: QtBot, window: MainWindow, small_study: Path
) -> None:
    from devtools.simulator import always

    win = window
    _open(qtbot, win, small_study)
    win.show_page(3)
    with Simulator() as good, Simulator(policy=always("first"), models=("biased",)) as biased:
        _point_at(win, good)
        with qtbot.waitSignal(win.controller.finished, timeout=30000):
            win.run_page.start_button.click()
        win.run_page.base_url.setText(biased.base_url)
        win.run_page.model_id.setText("biased")
        with qtbot.waitSignal(win.controller.finished, timeout=30000):
            win.run_page.start_button.click()
    page = win.results_page
    win.show_page(4)
    qtbot.waitUntil(lambda: page.run_combo.count() == 2, timeout=10000)
    assert "biased" in page.run_combo.itemText(0)  # the newest run is shown
    # each run is named by the prompts its requests used
    used = win.session.db().presets_by_run()[int(page.run_combo.itemData(0))]
    assert used and f" · {', '.join(used)} (run " in page.run_combo.itemText(0)
    page.compare_combo.setCurrentIndex(page.compare_combo.findData(page.run_combo.itemData(1)))
    page.compare_combo.activated.emit(page.compare_combo.currentIndex())
    qtbot.waitUntil(lambda: page.compare.rowCount() > 0, timeout=10000)
    first_row = [page.compare.item(0, c).text() for c in range(3)]
    assert first_row[0] == "Picks the more qualified candidate"
    assert first_row[2].startswith("100%")  # the valid simulated model
    assert not first_row[1].startswith("100%")  # always "first": half the unequal pairs wrong
    assert page.compare_note.text()


def test_report_and_bundle_from_the_app(
    qtbot: QtBot, window: MainWindow, small_study: Path, tmp_path: Path
) -> None:
    win = window
    _open(qtbot, win, small_study)
    win.show_page(3)
    with Simulator() as sim:
        _point_at(win, sim)
        with qtbot.waitSignal(win.controller.finished, timeout=30000):
            win.run_page.start_button.click()
    page = win.report_page
    qtbot.waitUntil(lambda: win.session.data.answered == 10, timeout=10000)
    win.show_page(5)
    qtbot.waitUntil(
        lambda: (
            "<h2" in page.verdict.toHtml()
            or page.verdict.toPlainText()
            and "No answers" not in page.verdict.toPlainText()
        ),
        timeout=30000,
    )
    assert page.buttons["pdf"].isEnabled()
    html_file = tmp_path / "r.html"
    page.save("html", html_file)
    qtbot.waitUntil(lambda: "Saved HTML" in page.message.text(), timeout=60000)
    assert html_file.exists() and "<html" in html_file.read_text().lower()
    bundle = tmp_path / "b.zip"
    page.save("bundle", bundle)
    qtbot.waitUntil(lambda: "Saved BUNDLE" in page.message.text(), timeout=60000)
    with qtbot.waitSignal(win.session.loaded, timeout=60000):
        win.open_path(bundle)
    data = win.session.data
    assert data.path != small_study and data.path.suffix == ".audit"
    assert data.answered == 10
    assert data.notes and "matches" in data.notes[0]


def test_the_bundled_model_is_called_a_demonstration_on_the_run_page(
    qtbot: QtBot, window: MainWindow, small_study: Path
) -> None:
    """A newcomer must not take the 135M model's verdicts for an audit of their model."""
    win = window
    _open(qtbot, win, small_study)
    page = win.run_page
    page.provider.setCurrentIndex(page.provider.findData("local"))
    assert not page.demo_notice.isHidden()
    assert "demonstration model" in page.demo_notice.text()
    page.provider.setCurrentIndex(page.provider.findData("openai"))
    assert page.demo_notice.isHidden()


def test_the_sample_says_what_to_do_next_and_the_quick_demo_starts_itself(
    qtbot: QtBot, window: MainWindow
) -> None:
    """First start: one sentence on what to do, and one button to a running demo."""
    from resume_auditor.resources import sample_study

    win = window
    _open(qtbot, win, sample_study())
    assert not win.hint_bar.isHidden()
    assert "Run the quick demo" in win.next_hint.text()
    assert not win.quick_button.isHidden()
    started: list[bool] = []
    win.run_page.start_button.clicked.disconnect(win.run_page._start)  # no model in this test
    win.run_page.start_button.clicked.connect(lambda: started.append(True))
    with qtbot.waitSignal(win.session.loaded, timeout=60000):
        win.quick_button.click()
    assert win.session.data is not None and win.session.data.study.name.startswith("Quick demo")
    assert win.stack.currentWidget() is win.run_page
    assert started == [True]
    assert "not an audit of any model" in win.next_hint.text()
    assert win.quick_button.isHidden()


def test_no_hint_on_an_audit_of_ones_own(
    qtbot: QtBot, window: MainWindow, small_study: Path
) -> None:
    _open(qtbot, window, small_study)
    assert window.hint_bar.isHidden()


def test_no_sample_hint_on_a_copy_of_the_sample_study_with_ones_own_resumes(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """A user who starts from a copy of the sample study keeps its name: with their own
    resumes it is their audit, not "a fictional job and four fictional resumes"."""
    from resume_auditor.resources import sample_study

    sample = sample_study()
    (tmp_path / "job.md").write_text((sample.parent / "job.md").read_text())
    (tmp_path / "resumes").mkdir()
    (tmp_path / "resumes" / "avery-quinn.txt").write_text(
        "Avery Quinn\nData Analyst\n\nExperience\n"
        "Data Analyst, Northwind Retail, 2020-2024\n"
        "- Built weekly sales dashboards in Tableau and SQL for 40 stores\n"
        "- Automated inventory reports with Python and pandas\n\n"
        "Education\nB.S. Statistics, State University, 2019\n\n"
        "Skills\nSQL, Python, pandas, Excel, Tableau, A/B testing\n"
    )
    study = tmp_path / "study.toml"
    study.write_text(
        sample.read_text().replace('files = ["resumes/*.pdf"]', 'files = ["resumes/*.txt"]')
    )
    _open(qtbot, window, study)
    assert window.session.data is not None
    assert window.session.data.study.name == tomllib.loads(sample.read_text())["study"]["name"]
    assert window.hint_bar.isHidden()


def test_the_resumes_page_reads_its_resume_when_shown(
    qtbot: QtBot, window: MainWindow, small_study: Path
) -> None:
    """At an opening page 1 is shown: the Resumes page does not read and lay out its
    resume, text and PDF on the window's thread until the user goes to it."""
    win = window
    _open(qtbot, win, small_study)
    page = win.resumes_page
    assert page.isHidden() and page.files.currentRow() == 0
    assert page.text.toPlainText() == "" and page._unshown == 0
    win.job_page.next_button.click()
    assert win.stack.currentWidget() is page
    assert "Jordan Ellery" in page.text.toPlainText() and page._unshown is None
