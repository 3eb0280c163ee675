"""Long tasks: progress reaches the window, Cancel is answered at once, late results
are let go of; opening an audit can be cancelled."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot
from runner_fixtures import new_audit

from resume_auditor.domain.study import ModelSpec
from resume_auditor.store import writelock
from resume_auditor.ui.main_window import MainWindow
from resume_auditor.ui.tasks import TaskControl, run_cancellable, wait_for_background

MODEL = ModelSpec(provider="openai-compatible", base_url="http://127.0.0.1:9/v1", model="m")


def test_cancel_is_answered_at_once_and_the_late_result_goes_to_on_cancelled(
    qtbot: QtBot,
) -> None:
    started, release = threading.Event(), threading.Event()
    seen: dict[str, list[Any]] = {"done": [], "error": [], "progress": [], "late": []}

    def work(control: TaskControl) -> str:
        control.progress("step 1 of 2")
        started.set()
        release.wait(10)  # a step that cannot stop midway
        return "result"

    control = run_cancellable(
        work,
        seen["done"].append,
        seen["error"].append,
        on_progress=seen["progress"].append,
        on_cancelled=seen["late"].append,
    )
    assert started.wait(10)
    qtbot.waitUntil(lambda: seen["progress"] == ["step 1 of 2"])
    control.cancel()
    assert control.cancelled  # the caller updates the window now, not when the step ends
    release.set()
    assert wait_for_background()
    qtbot.waitUntil(lambda: seen["late"] == ["result"])
    assert seen["done"] == [] and seen["error"] == []


def test_a_task_stops_at_its_next_safe_point(qtbot: QtBot) -> None:
    steps: list[int] = []
    seen: list[Any] = []
    go = threading.Event()

    def work(control: TaskControl) -> None:
        for i in range(1000):
            go.wait(10)
            control.check()
            steps.append(i)

    control = run_cancellable(work, seen.append, seen.append, on_cancelled=seen.append)
    control.cancel()
    go.set()
    assert wait_for_background()
    qtbot.waitUntil(lambda: seen == [None])
    assert steps == []


def test_opening_an_audit_can_be_cancelled_and_lets_go_of_it(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audit = tmp_path / "c.audit"
    new_audit(audit, MODEL)
    loaded: list[Any] = []
    window.session.loaded.connect(loaded.append)
    with qtbot.waitSignal(window.session.cancelled, timeout=5000) as blocker:
        window.open_path(audit)
        assert window.cancel_button.isVisible()
        window.steps.setCurrentRow(0)  # as when the list takes focus: the waiting view stays
        assert window.stack.currentWidget() is window.waiting
        window.cancel_button.click()
    assert "Opening cancelled" in blocker.args[0]
    assert "File → Open" in window.placeholder.text()
    assert not window.cancel_button.isVisible()
    assert wait_for_background()  # the worker claimed the audit, or stopped before
    qtbot.waitUntil(lambda: not writelock.holds(audit), timeout=5000)  # the late claim let go
    assert loaded == [] and window.session.data is None
    # and opening it again works
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(audit)
    assert writelock.holds(audit)


def test_closing_does_not_wait_for_the_backup_when_the_user_says_so(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audit = tmp_path / "q.audit"
    new_audit(audit, MODEL)
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(audit)
    window.close()  # the backup starts in a worker; the window stays and says so
    assert window.isVisible() and window.cancel_button.text() == "Close now"
    assert "cannot stop midway" in window.placeholder.text()
    window.cancel_button.click()
    assert not window.isVisible()  # at once, not when the copy is done
    assert wait_for_background()


def test_adding_resumes_counts_them_and_stop_adds_no_more(
    qtbot: QtBot, window: MainWindow, small_study: Path
) -> None:
    from conftest import SAMPLE

    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(small_study)
    page = window.resumes_page
    before = page.files.count()
    files = sorted((SAMPLE / "resumes").glob("0[2-4]-*.pdf"))
    assert len(files) == 3
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        page.add_paths(files)
        assert "(1 of 3)" in page.message.text() and not page.stop_button.isHidden()
        page.stop_button.click()
        assert "2 file(s) will not be added" in page.message.text()
    assert page.files.count() == before + 1  # the file being read was finished, no more
    assert page.stop_button.isHidden()
