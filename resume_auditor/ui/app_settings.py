"""The Qt glue of the app's preferences (recent audits, last folder, window place).

The preferences themselves are typed, versioned and written by
settings/app.py (no Qt there); this class only turns paths and a window's
geometry (Qt's opaque bytes) into what that module keeps. Tests point
RESUME_AUDITOR_DATA_DIR at a temporary folder, so they never touch a user's list.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QByteArray
from PySide6.QtWidgets import QMainWindow

from resume_auditor.settings.app import MAX_RECENT, AppSettingsFile

logger = logging.getLogger(__name__)

__all__ = ["MAX_RECENT", "AppSettings"]


class AppSettings:
    def __init__(self, folder: Path | None = None) -> None:
        self._file = AppSettingsFile(folder)

    def recent(self) -> list[Path]:
        """Recent audits that still exist, newest first."""
        return [Path(p) for p in self._file.read().recent if Path(p).exists()]

    def add_recent(self, path: Path) -> None:
        self._file.add_recent(str(path))

    def last_dir(self) -> str:
        return self._file.read().last_dir

    def set_last_dir(self, path: Path) -> None:
        self._file.set_last_dir(str(path.parent if path.is_file() else path))

    def restore_window(self, window: QMainWindow) -> bool:
        """Put `window` where it was last closed; False when nothing was kept (or unusable)."""
        prefs = self._file.read()
        if not prefs.window_geometry:
            return False
        ok = window.restoreGeometry(QByteArray(prefs.window_geometry))
        if prefs.window_state:
            window.restoreState(QByteArray(prefs.window_state))
        if not ok:
            logger.info("the saved window geometry could not be used; the default size is kept")
        return bool(ok)

    def save_window(self, window: QMainWindow) -> None:
        self._file.set_window(bytes(window.saveGeometry().data()), bytes(window.saveState().data()))
