"""Unexpected errors reach the user as a dialog and the log; a damaged audit offers its backup."""

from __future__ import annotations

import logging
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot
from runner_fixtures import new_audit

from resume_auditor.domain.study import ModelSpec
from resume_auditor.store import writelock
from resume_auditor.store.backup import backup_path, make_backup
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui import errors as ui_errors
from resume_auditor.ui.errors import ErrorReporter, log_file, setup_logging
from resume_auditor.ui.main_window import MainWindow

MODEL = ModelSpec(provider="openai-compatible", base_url="http://127.0.0.1:9/v1", model="m")


def _raised(exc: BaseException) -> tuple[type[BaseException], BaseException, Any]:
    try:
        raise exc
    except BaseException as caught:  # noqa: BLE001 - we want its traceback
        return type(caught), caught, caught.__traceback__


@pytest.fixture
def reporter(qtbot: QtBot) -> Any:
    target = setup_logging()
    rep = ErrorReporter()
    rep.install()
    yield rep
    rep.uninstall()
    if rep.dialog is not None:
        rep.dialog.close()
    root = logging.getLogger()
    for handler in list(root.handlers):  # the next test's log goes elsewhere
        if getattr(handler, "baseFilename", None) == str(target.resolve()):
            root.removeHandler(handler)
            handler.close()


def test_an_error_in_the_ui_thread_shows_a_dialog_and_goes_to_the_log(
    qtbot: QtBot, reporter: ErrorReporter
) -> None:
    sys.excepthook(*_raised(KeyError("no such page")))
    qtbot.waitUntil(lambda: reporter.dialog is not None and reporter.dialog.isVisible())
    dialog = reporter.dialog
    assert dialog is not None
    shown = " ".join(label.text() for label in (dialog.happened, dialog.todo, dialog.log_label))
    assert "KeyError" in shown and "no such page" in shown and "Traceback" not in shown
    assert str(log_file()) in shown
    for handler in logging.getLogger().handlers:
        handler.flush()
    logged = log_file().read_text(encoding="utf-8")
    assert "Traceback" in logged and "KeyError: 'no such page'" in logged
    dialog.copy_button.click()
    from PySide6.QtWidgets import QApplication

    copied = QApplication.clipboard().text()
    assert "Traceback" in copied and "Resume Auditor" in copied and "SQLite" in copied
    # a second error while the first is shown: counted, not a second dialog
    sys.excepthook(*_raised(ValueError("again")))
    qtbot.waitUntil(lambda: dialog.more == 1)
    assert reporter.dialog is dialog and "1 more error" in dialog.more_label.text()


def test_an_error_in_a_worker_thread_reaches_the_ui(qtbot: QtBot, reporter: ErrorReporter) -> None:
    def work() -> None:
        raise sqlite3.OperationalError("disk I/O error")

    thread = threading.Thread(target=work, name="audit-worker")
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: reporter.dialog is not None and reporter.dialog.isVisible())
    dialog = reporter.dialog
    assert dialog is not None
    assert "audit file could not be read or written" in dialog.happened.text()
    assert "reopen the audit" in dialog.todo.text()
    assert "audit-worker" in dialog.detail_text


def test_the_window_holds_its_audit_and_backs_it_up_on_close(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    audit = tmp_path / "w.audit"
    new_audit(audit, MODEL)
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(audit)
    assert writelock.holds(audit)  # no other program may write it while it is open here
    with qtbot.waitSignal(window.session.closed, timeout=10000):
        window.close()  # the backup is made in a worker; the window says so meanwhile
        assert window.isVisible() and "Backing up w.audit" in window.placeholder.text()
    assert backup_path(audit).exists()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=5000)
    # Background readers the pages started may still be finishing; then nobody holds it.
    qtbot.waitUntil(lambda: not writelock.holds(audit), timeout=10000)


def test_a_damaged_audit_offers_its_last_good_copy(
    qtbot: QtBot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    audit = tmp_path / "d.audit"
    new_audit(audit, MODEL)
    with ResultFile(audit) as rf:
        make_backup(rf.path)
    audit.write_bytes(b"\0" * 8192)  # the first page overwritten, as was seen
    asked: list[str] = []
    told: list[str] = []

    def choose(parent: object, exc: Any) -> bool:
        asked.append(str(exc))
        return True

    monkeypatch.setattr("resume_auditor.ui.main_window.damaged_dialog", choose)
    monkeypatch.setattr(
        "resume_auditor.ui.main_window.QMessageBox.information",
        lambda _parent, _title, text: told.append(text),
    )
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(audit)
    assert asked and "damaged" in asked[0]
    assert told and "last good copy is back" in told[0]
    assert window.session.data is not None and window.session.data.study.name
    assert list(tmp_path.glob("d.audit.damaged-*"))


def test_the_damaged_dialog_names_the_backup_time(qtbot: QtBot, tmp_path: Path) -> None:
    from resume_auditor.store.errors import AuditDamaged

    audit = tmp_path / "x.audit"
    backup_path(audit).write_bytes(b"")
    shown: list[Any] = []

    def fake_exec(box: Any) -> int:
        shown.append(box)
        return 0

    monkeypatch = pytest.MonkeyPatch()
    try:
        monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.exec", fake_exec)
        result = ui_errors.damaged_dialog(
            None, AuditDamaged("damaged", str(audit), str(backup_path(audit)))
        )
    finally:
        monkeypatch.undo()
    assert result is None  # nothing clicked
    box = shown[0]
    assert "x.audit is damaged" in box.text()
    assert "good copy of it from" in box.informativeText()
    assert any(b.text() == "Restore the last good copy" for b in box.buttons())


def test_an_error_raised_in_a_qt_slot_reaches_the_dialog_and_the_log(
    qtbot: QtBot, reporter: ErrorReporter
) -> None:
    """End to end: Qt calls a slot that raises; PySide hands it to sys.excepthook."""
    from PySide6.QtCore import QTimer

    def slot() -> None:
        raise RuntimeError("a slot that fails")

    QTimer.singleShot(0, slot)
    qtbot.waitUntil(lambda: reporter.dialog is not None and reporter.dialog.isVisible())
    dialog = reporter.dialog
    assert dialog is not None and "a slot that fails" in dialog.happened.text()
    assert dialog.copy_button.text() == "Copy details"
    for handler in logging.getLogger().handlers:
        handler.flush()
    logged = log_file().read_text(encoding="utf-8")
    assert "RuntimeError: a slot that fails" in logged and "Traceback" in logged
