"""The app's preferences: settings.ini written by QSettings read without Qt, migrated once."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from resume_auditor.settings.app import (
    APP_FILE,
    LEGACY_INI,
    MAX_RECENT,
    AppPrefs,
    AppSettingsFile,
)
from resume_auditor.settings.qsettings_ini import read_qsettings_ini
from resume_auditor.ui.app_settings import AppSettings

# characters QSettings escapes, quotes or passes through, and some it must not touch
POOL = list("abcXYZ019 ,;=\"'\\\t\n\r@%#[]()/é中") + ["\x00", "\x01", "\x7f", "😀", "  "]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(POOL) for _ in range(rng.randint(0, 12)))


def _qt_truth(path: Path) -> dict[str, object]:
    """What Qt reads from the file: a copy under a new name, so that QSettings' cache of
    what this process wrote (shared by every QSettings on one path) is not consulted."""
    fresh = path.with_name("fresh-" + path.name)
    fresh.write_bytes(path.read_bytes())
    qs = QSettings(str(fresh), QSettings.Format.IniFormat)
    out: dict[str, object] = {}
    for key in qs.allKeys():
        value = qs.value(key)
        out[key] = bytes(value.data()) if isinstance(value, QByteArray) else value
    return out


def test_the_ini_reader_reads_what_qsettings_writes_on_many_generated_values(
    tmp_path: Path,
) -> None:
    rng = random.Random(20261126)
    for trial in range(150):
        path = tmp_path / f"t{trial}.ini"
        qs = QSettings(str(path), QSettings.Format.IniFormat)
        for k in range(rng.randint(1, 6)):
            key = rng.choice(["recent", "last_dir", f"k{k}", f"Group/k{k}", f"we ird%{k} é"])
            shape = rng.choice(["str", "list", "one", "empty", "bytes", "at"])
            if shape == "str":
                qs.setValue(key, _word(rng))
            elif shape == "list":
                qs.setValue(key, [_word(rng) for _ in range(rng.randint(2, 5))])
            elif shape == "one":
                qs.setValue(key, [_word(rng)])
            elif shape == "empty":
                qs.setValue(key, [])
            elif shape == "bytes":
                qs.setValue(key, QByteArray(bytes(rng.randrange(256) for _ in range(9))))
            else:
                qs.setValue(key, "@" + _word(rng))
        qs.sync()
        del qs
        ours = read_qsettings_ini(path.read_text(encoding="utf-8"))
        truth = _qt_truth(path)
        assert set(ours) == set(truth), path.read_text(encoding="utf-8")
        for key, value in truth.items():
            assert ours[key] == value, (key, path.read_bytes())


def _old_app_settings(folder: Path, recent: list[str], last_dir: str) -> Path:
    """settings.ini exactly as ui/app_settings.py wrote it before version 1."""
    qs = QSettings(str(folder / LEGACY_INI), QSettings.Format.IniFormat)
    qs.setValue("recent", recent)
    qs.setValue("last_dir", last_dir)
    qs.sync()
    return folder / LEGACY_INI


@pytest.mark.parametrize("count", [1, 3, 12])
def test_a_settings_ini_of_today_is_migrated_once_and_kept(tmp_path: Path, count: int) -> None:
    audits = []
    for i in range(count):
        audit = tmp_path / f'my audit, no. {i}; "final".audit'
        audit.write_text("x")
        audits.append(str(audit))
    ini = _old_app_settings(tmp_path, audits, str(tmp_path / "résumés"))
    old_text = ini.read_text(encoding="utf-8")
    settings = AppSettings(tmp_path)
    assert settings.recent() == [Path(p) for p in audits[:MAX_RECENT]]
    assert settings.last_dir() == str(tmp_path / "résumés")
    assert not ini.exists()
    assert (tmp_path / (LEGACY_INI + ".migrated")).read_text(encoding="utf-8") == old_text
    data = json.loads((tmp_path / APP_FILE).read_text(encoding="utf-8"))
    assert data["version"] == 1 and data["recent"] == audits[:MAX_RECENT]
    # read once: a settings.ini written later by an old copy of the app is not read again
    _old_app_settings(tmp_path, [str(tmp_path / "other.audit")], "/elsewhere")
    assert AppSettings(tmp_path).last_dir() == str(tmp_path / "résumés")


def test_recent_audits_and_the_last_folder_are_kept(tmp_path: Path) -> None:
    settings = AppSettings(tmp_path)
    paths = []
    for i in range(MAX_RECENT + 2):
        paths.append(tmp_path / f"a{i}.audit")
        paths[-1].write_text("x")
        settings.add_recent(paths[-1])
    settings.add_recent(paths[3])
    assert AppSettings(tmp_path).recent()[:2] == [paths[3], paths[-1]]
    assert len(AppSettings(tmp_path).recent()) == MAX_RECENT
    paths[3].unlink()
    assert paths[3] not in AppSettings(tmp_path).recent(), "a deleted audit is not offered"
    settings.set_last_dir(paths[0])
    assert AppSettings(tmp_path).last_dir() == str(tmp_path)


def test_the_window_comes_back_where_it_was(qtbot: QtBot, tmp_path: Path) -> None:
    first = QMainWindow()
    qtbot.addWidget(first)
    first.resize(733, 511)
    assert AppSettings(tmp_path).restore_window(first) is False, "nothing kept yet"
    AppSettings(tmp_path).save_window(first)
    kept = AppSettingsFile(tmp_path).read()
    assert kept.window_geometry == bytes(first.saveGeometry().data())
    second = QMainWindow()
    qtbot.addWidget(second)
    assert AppSettings(tmp_path).restore_window(second) is True
    assert (second.width(), second.height()) == (733, 511)


def test_a_hand_broken_preferences_file_is_kept_aside(tmp_path: Path) -> None:
    (tmp_path / APP_FILE).write_text('{"version": 1, "recent": "not a list"}')
    assert AppSettingsFile(tmp_path).read() == AppPrefs()
    assert (tmp_path / (APP_FILE + ".damaged")).exists()
    (tmp_path / APP_FILE).write_text('{"version": 1, "window": {"geometry": "%%%"}}')
    assert AppSettingsFile(tmp_path).read() == AppPrefs()
    assert (tmp_path / (APP_FILE + ".damaged.1")).exists()


def test_the_app_says_when_a_settings_file_was_set_aside(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QMessageBox

    from resume_auditor.settings import take_notices
    from resume_auditor.ui.main_window import MainWindow

    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path))
    take_notices()
    (tmp_path / APP_FILE).write_text("{damaged")
    win = MainWindow()
    qtbot.addWidget(win)
    boxes = [b for b in win.findChildren(QMessageBox) if APP_FILE in b.text()]
    assert len(boxes) == 1 and ".damaged" in boxes[0].text()
    assert (tmp_path / (APP_FILE + ".damaged")).read_text() == "{damaged"
    boxes[0].close()
