"""The app's own preferences: recent audits, the last folder, the window's place and size.

Kept in `app-settings.json` (typed: `AppPrefs`). Until version 1 they were in
`settings.ini`, written by Qt's QSettings; on first use that file is read
(settings/qsettings_ini.py, no Qt needed), its values moved here, and it is
renamed `settings.ini.migrated`, so nothing in it is lost and it is read once.
The window's geometry is Qt's own opaque bytes (QMainWindow.saveGeometry), kept
base64-encoded; ui/app_settings.py is the Qt glue that hands them over.
No secret ever goes here: keys live in the OS keyring.
"""

from __future__ import annotations

import base64
import binascii
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from resume_auditor.settings.document import Damaged, Format, Json, JsonSettings, require, table
from resume_auditor.settings.files import keep_as, locked, set_aside
from resume_auditor.settings.folder import settings_folder
from resume_auditor.settings.qsettings_ini import Unsupported, read_qsettings_ini

logger = logging.getLogger(__name__)

APP_FILE = "app-settings.json"
LEGACY_INI = "settings.ini"
MIGRATED_SUFFIX = ".migrated"
MAX_RECENT = 8


@dataclass(frozen=True)
class AppPrefs:
    recent: tuple[str, ...] = ()  # audits opened, newest first
    last_dir: str = ""  # the folder a file dialog opens in
    window_geometry: bytes = b""  # QMainWindow.saveGeometry(); empty: the default size
    window_state: bytes = b""  # QMainWindow.saveState()


def _text(value: Any, where: str) -> str:
    require(isinstance(value, str), f"{where} should be text")
    return str(value)


def _b64(value: Any, where: str) -> bytes:
    try:
        return base64.b64decode(_text(value, where), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise Damaged(f"{where} is not base64") from exc


def _parse(data: Json) -> AppPrefs:
    recent = data.get("recent", [])
    require(isinstance(recent, list), "recent should be a list of paths")
    window = table(data.get("window", {}), "window")
    return AppPrefs(
        recent=tuple(_text(p, "recent") for p in recent)[:MAX_RECENT],
        last_dir=_text(data.get("last_dir", ""), "last_dir"),
        window_geometry=_b64(window.get("geometry", ""), "window.geometry"),
        window_state=_b64(window.get("state", ""), "window.state"),
    )


def _dump(prefs: AppPrefs) -> Json:
    return {
        "recent": list(prefs.recent),
        "last_dir": prefs.last_dir,
        "window": {
            "geometry": base64.b64encode(prefs.window_geometry).decode("ascii"),
            "state": base64.b64encode(prefs.window_state).decode("ascii"),
        },
    }


APP: Format[AppPrefs] = Format(
    name=APP_FILE,
    version=1,
    what="recent audits and the window's place",
    parse=_parse,
    dump=_dump,
    default=AppPrefs,
    legacy_has_no_version=False,
)


def prefs_from_ini(values: dict[str, Any]) -> AppPrefs:
    """The preferences QSettings kept (recent, last_dir) as an AppPrefs."""
    recent = values.get("recent")
    items = [recent] if isinstance(recent, str) else recent if isinstance(recent, list) else []
    last = values.get("last_dir")
    ignored = sorted(k for k in values if k not in ("recent", "last_dir"))
    if ignored:
        logger.info("old settings not used any more (kept in the .migrated copy): %s", ignored)
    for key, value in values.items():
        if isinstance(value, Unsupported):
            logger.info("old setting %s has a Qt type not read here: %s", key, value.raw)
    return AppPrefs(
        recent=tuple(p for p in items if isinstance(p, str) and p)[:MAX_RECENT],
        last_dir=last if isinstance(last, str) else "",
    )


class AppSettingsFile:
    """The app's preferences in `folder` (default: the data folder)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or settings_folder()
        self._file = JsonSettings(APP, self.folder / APP_FILE)
        self._migrated = False

    @property
    def path(self) -> Path:
        return self._file.path

    def _migrate_ini(self) -> None:
        """settings.ini (QSettings, until version 1) -> app-settings.json, once."""
        if self._migrated:
            return
        self._migrated = True
        old = self.folder / LEGACY_INI
        if self.path.exists() or not old.exists():
            return
        try:
            with locked(self.path):
                if self.path.exists() or not old.exists():
                    return  # another program migrated it meanwhile
                try:
                    values = read_qsettings_ini(old.read_text(encoding="utf-8"))
                except UnicodeDecodeError as exc:
                    set_aside(old, f"it is not UTF-8 text ({exc.reason})", APP.what)
                    return
                prefs = prefs_from_ini(values)
                if self._file.write(prefs) is None:
                    return  # not written: settings.ini stays, and is tried again next time
                keep_as(old, MIGRATED_SUFFIX)
                logger.info("moved the preferences of %s into %s", old, self.path)
        except OSError as exc:
            logger.warning("could not move the preferences of %s: %s", old, exc)

    def read(self) -> AppPrefs:
        self._migrate_ini()
        return self._file.read()

    def add_recent(self, path: str) -> None:
        self._migrate_ini()

        def change(prefs: AppPrefs) -> AppPrefs:
            items = (path, *(p for p in prefs.recent if p != path))
            return replace(prefs, recent=items[:MAX_RECENT])

        self._file.update(change)

    def set_last_dir(self, folder: str) -> None:
        self._migrate_ini()
        self._file.update(lambda prefs: replace(prefs, last_dir=folder))

    def set_window(self, geometry: bytes, state: bytes) -> None:
        self._migrate_ini()
        self._file.update(
            lambda prefs: replace(prefs, window_geometry=geometry, window_state=state)
        )
