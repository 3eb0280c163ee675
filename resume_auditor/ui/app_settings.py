"""The app's own preferences (recent audits, last folder), kept in the data folder.

QSettings in INI format under `paths.data_dir()`, so tests (which point
RESUME_AUDITOR_DATA_DIR at a temporary folder) never touch the user's real list.
No secret ever goes here: keys live in the OS keyring.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from resume_auditor.paths import data_dir

MAX_RECENT = 8


class AppSettings:
    def __init__(self) -> None:
        self._qs = QSettings(str(data_dir() / "settings.ini"), QSettings.Format.IniFormat)

    def recent(self) -> list[Path]:
        raw = self._qs.value("recent", [])
        items = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, list) else []
        return [Path(p) for p in items if p and Path(p).exists()]

    def add_recent(self, path: Path) -> None:
        items = [str(path)] + [str(p) for p in self.recent() if p != path]
        self._qs.setValue("recent", items[:MAX_RECENT])
        self._qs.sync()

    def last_dir(self) -> str:
        return str(self._qs.value("last_dir", ""))

    def set_last_dir(self, path: Path) -> None:
        self._qs.setValue("last_dir", str(path.parent if path.is_file() else path))
        self._qs.sync()
