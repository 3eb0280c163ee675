"""The Job page says why a checklist is empty or doubtful, and what to do about it."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from resume_auditor.domain.study import JobSpec, StudyConfig
from resume_auditor.ui.main_window import MainWindow
from resume_auditor.workflow.prepare import new_audit

DUTIES_ONLY = "Warehouse Operative\n\nResponsibilities\n- Pick and pack orders\n- Load lorries\n"
GOOD = "Warehouse Operative\n\nRequirements\n- Forklift licence\n- Steel-toe boots\n"


def _open_blank(qtbot: QtBot, win: MainWindow, tmp_path: Path) -> Path:
    path = new_audit(
        tmp_path / "mine.audit", StudyConfig(name="Mine", seed=3, job=JobSpec(), resumes=())
    )
    with qtbot.waitSignal(win.session.loaded, timeout=10000):
        win.open_path(path)
    return path


def test_job_page_explains_an_empty_checklist(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    path = _open_blank(qtbot, window, tmp_path)
    page = window.job_page
    page.text.setPlainText(DUTIES_ONLY)
    page.reparse_button.click()
    assert page.counts.text() == "0 required, 0 preferred."
    advice = page.advice.text()
    assert "'Responsibilities'" in advice and "unequal pairs" in advice and "by hand" in advice
    page.save_now()
    # reopening the audit shows the same reason
    with qtbot.waitSignal(window.session.loaded, timeout=10000):
        window.open_path(path)
    assert "unequal pairs" in window.job_page.advice.text()


def test_job_page_advice_clears_for_a_good_posting_and_returns_when_required_are_removed(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    _open_blank(qtbot, window, tmp_path)
    page = window.job_page
    page.text.setPlainText(GOOD)
    page.reparse_button.click()
    assert page.counts.text() == "2 required, 0 preferred."
    assert page.advice.text() == ""
    page.model.remove(1)
    page.model.remove(0)
    assert "No required qualification" in page.advice.text()
    page.undo.undo()
    page.undo.undo()
    assert page.advice.text() == ""
