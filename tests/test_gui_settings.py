"""Settings and the model picker: keys masked and never shown, thresholds saved with sources."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_keys import fake_key
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from resume_auditor.providers.keys import KeyLocation, KeyStore
from resume_auditor.ui.main_window import MainWindow
from resume_auditor.ui.settings_dialog import SettingsDialog

SENTINEL = fake_key("SENTINEL")


class _MemoryOnly:
    """A keyring backend the store must treat as unusable (like keyring's 'fail')."""

    priority = 0
    name = "no keyring"


def _all_text(root: QWidget) -> str:
    """Everything a screenshot of these widgets could show."""
    parts = [root.windowTitle()]
    for w in root.findChildren(QWidget):
        if isinstance(w, QLineEdit):
            parts.append(w.displayText())  # masked fields show bullets here
        elif isinstance(w, QLabel | QAbstractButton):
            parts.append(w.text())
        elif isinstance(w, QTextEdit | QPlainTextEdit):
            parts.append(w.toPlainText())
        elif isinstance(w, QComboBox):
            parts.extend(w.itemText(i) for i in range(w.count()))
        elif isinstance(w, QListWidget):
            parts.extend(w.item(i).text() for i in range(w.count()))
        parts.append(w.toolTip())
    return "\n".join(parts)


def test_a_key_set_in_the_app_is_used_but_never_shown(
    qtbot: QtBot, window: MainWindow, small_study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: (SENTINEL, True))
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(small_study)
    picker = window.run_page.picker
    picker.keys = KeyStore(_MemoryOnly(), environ={})
    picker.provider.setCurrentIndex(picker.provider.findData("openai"))
    picker.model_id.setText("gpt-4.1-mini")
    assert "needs an API key" in picker.problem()
    picker.key_button.click()
    status = picker.keys.status("openai")
    assert status.location is KeyLocation.MEMORY and "memory" in status.message.lower()
    assert picker.problem() == ""
    assert picker.keys.get("openai") == SENTINEL
    dialog = SettingsDialog(window, keys=picker.keys)
    qtbot.addWidget(dialog)
    dialog.show()
    for page in (window, dialog):
        assert SENTINEL not in _all_text(page)
        assert SENTINEL[:16] not in _all_text(page)


def test_capability_badges_follow_the_model(qtbot: QtBot, window: MainWindow) -> None:
    picker = window.run_page.picker
    picker.provider.setCurrentIndex(picker.provider.findData("openai"))
    picker.model_id.setText("o3-mini")
    picker.model_id.editingFinished.emit()
    assert "✗ randomness can be set" in picker.badges.text()  # reasoning models refuse it
    picker.model_id.setText("gpt-4.1-mini")
    picker.model_id.editingFinished.emit()
    assert "✗ randomness can be set" not in picker.badges.text()


def test_thresholds_are_saved_with_their_source_and_used(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    from resume_auditor.settings.thresholds import active_thresholds

    dialog = SettingsDialog(window, keys=KeyStore(_MemoryOnly(), environ={}))
    qtbot.addWidget(dialog)
    spin, source = dialog.threshold_fields["criterion_validity"]
    spin.setValue(0.9)
    source.setPlainText("Our hiring policy, March 2026")
    dialog.save_thresholds()
    assert "Saved" in dialog.threshold_message.text()
    saved = active_thresholds()["criterion_validity"]
    assert saved.value == pytest.approx(0.9) and saved.source == "Our hiring policy, March 2026"
    dialog._reset_thresholds()
    assert active_thresholds()["criterion_validity"].value == pytest.approx(0.95)
    assert "Yours are kept in" in dialog.threshold_message.text()
    kept = Path(dialog.threshold_message.text().split("Yours are kept in ")[1].rstrip("."))
    assert "Our hiring policy, March 2026" in kept.read_text(encoding="utf-8")


def test_a_paid_run_asks_first_and_stops_at_its_budget(
    qtbot: QtBot, window: MainWindow, small_study: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from devtools.simulator import Simulator
    from PySide6.QtWidgets import QMessageBox

    from resume_auditor.runner import RunState

    asked: list[str] = []

    def confirm(*args: object, **kwargs: object) -> QMessageBox.StandardButton:
        asked.append(str(args[2]))
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", confirm)
    monkeypatch.setenv("OPENAI_API_KEY", fake_key("budget"))
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(small_study)
    page = window.run_page
    window.show_page(3)
    with Simulator(models=("gpt-4.1-mini",)) as sim:
        page.picker.keys = KeyStore(_MemoryOnly(), environ={"OPENAI_API_KEY": "sk-test-x"})
        page.provider.setCurrentIndex(page.provider.findData("openai"))
        page.base_url.setText(sim.url_for("openai"))
        page.model_id.setText("gpt-4.1-mini")
        page.estimate_button.click()
        qtbot.waitUntil(lambda: "Cost: about $" in page.plan_text.text(), timeout=20000)
        page.budget.setValue(0.002)  # the 10 requests cost about $0.004: half of them at most
        page.start_button.click()
        qtbot.waitUntil(lambda: bool(asked), timeout=20000)
        assert "costs about $" in asked[0]
        qtbot.waitUntil(lambda: "could pass the budget" in page.state_text.text(), timeout=30000)
        status = window.controller.runner.status()
        assert status.state is RunState.PAUSED and status.budget_reached
        assert 0 < status.done < 10
        assert status.cost_usd is not None and status.cost_usd <= 0.002
        window.controller.cancel()
        qtbot.waitUntil(lambda: not window.controller.running, timeout=10000)
