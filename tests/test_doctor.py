"""`resume-auditor doctor` and Help → Check this computer: each part of the computer, for real.

The window is opened in a child process (offscreen here), the PDF is laid out by
WeasyPrint and read back by pypdf, the keyring is whatever this machine has (none in
most test runs: a warning, not a failure), and the bundled model check meets a stand-in
server that dies on a real SIGILL, as a badly built engine does. The real bundled
model's check runs with the local-model tests (tests/test_local_model.py).
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from test_local_crash import fake_server

from resume_auditor.cli import main
from resume_auditor.providers import local
from resume_auditor.workflow import doctor
from resume_auditor.workflow.doctor import Status


def test_doctor_says_what_works_one_json_line_per_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["doctor", "--json", "--skip", "model"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_name = {line["name"]: line for line in lines}
    assert set(by_name) == {"Window", "Keyring", "PDF engine"}
    assert by_name["Window"]["status"] == "ok", by_name["Window"]
    assert by_name["PDF engine"]["status"] in ("ok", "warning")
    assert all(line["detail"] for line in lines)
    failed = [line for line in lines if line["status"] == "failed"]
    assert code == (1 if failed else 0)


def test_a_model_that_dies_fails_the_check_with_the_rebuild_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(local, "local_model_available", lambda: True)
    monkeypatch.setattr(
        local, "LocalModelServer", lambda **_: fake_server(tmp_path, die_on=1, sig=signal.SIGILL)
    )
    code = main(["doctor", "--skip", "window", "--skip", "keyring", "--skip", "pdf"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("✗ Bundled model:") and "SIGILL" in out
    assert "CMAKE_ARGS=" in out and "--no-cache-dir --force-reinstall" in out


def test_no_screen_is_a_warning_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    check = doctor.check_window()
    assert check.status is Status.WARN and "no screen" in check.detail


def test_strict_turns_warnings_into_a_failed_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        doctor,
        "CHECKS",
        {"keyring": lambda: doctor.Check("Keyring", Status.WARN, "no keyring", "install one")},
    )
    assert main(["doctor"]) == 0
    assert main(["doctor", "--strict"]) == 1


def test_the_help_menu_check_fills_in_as_it_runs(qtbot: Any) -> None:
    from resume_auditor.ui.help_dialogs import DoctorDialog

    dialog = DoctorDialog(None, skip=frozenset({"model"}))
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # as the Help menu opens it
    dialog.show()
    dialog.start()
    qtbot.waitUntil(lambda: dialog.checks_done, timeout=60_000)
    assert [c.name for c in dialog.results] == ["Window", "Keyring", "PDF engine"]
    text = dialog.output.toPlainText()
    assert "Window: A window opened and closed" in text
    assert dialog.status.text() and "Checking" not in dialog.status.text()
    with qtbot.waitSignal(dialog.destroyed, timeout=5_000):
        dialog.close()


def test_about_carries_every_licence_the_app_ships(qtbot: Any) -> None:
    from resume_auditor.ui.help_dialogs import AboutDialog, notices_text

    text = notices_text()
    for needle in ("LGPL", "The ggml authors", "Andrei Betlen", "SmolLM2", "Apache"):
        assert needle in text, needle
    assert "- PySide6" in text  # the installed packages' own licences follow
    dialog = AboutDialog(None)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    assert "LGPL" in dialog.notices.toPlainText()
    with qtbot.waitSignal(dialog.destroyed, timeout=5_000):
        dialog.close()


def test_the_project_ships_the_licence_it_declares() -> None:
    root = Path(__file__).resolve().parent.parent
    assert "Apache License" in (root / "LICENSE").read_text()
    assert "Version 2.0" in (root / "LICENSE").read_text()
    pyproject = (root / "pyproject.toml").read_text()
    assert 'license = { text = "Apache-2.0" }' in pyproject
    assert '"share/resume-auditor" = ["LICENSE"]' in pyproject
    spec = (root / "packaging" / "resume-auditor.spec").read_text()
    assert '(str(ROOT / "LICENSE"), ".")' in spec
