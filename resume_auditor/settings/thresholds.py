"""The user's flag thresholds: `thresholds.toml` in the data folder, over the shipped ones.

This file is the user's as much as the app's: the Settings dialog writes it, and a
user or an auditor may edit it by hand (resources/thresholds.toml shows the
layout). So it is TOML, where it always was, and it is treated unlike the
app's own memory files in one way on purpose: a file that cannot be used is
**not** set aside for the shipped numbers. Flags decided with thresholds the user
did not choose would mislead without a word; instead `ThresholdError` says what to
fix, and the caller shows it (the results and the report stop at it, the dialog
shows the shipped values beside the message). The file is left exactly as it is.

Version: the app writes `version = 1` at the top; a file without it (written
before, or by hand) is version 1 too. A larger number was written by a newer app
and is refused with a message rather than read wrongly. Going back to the shipped
thresholds keeps the user's file as `thresholds.toml.previous`.
"""

from __future__ import annotations

import json
import logging
import tomllib
from pathlib import Path
from typing import Any

from resume_auditor.resources import resource
from resume_auditor.settings.files import keep_as, locked, write_atomic
from resume_auditor.settings.folder import settings_folder
from resume_auditor.stats.thresholds import ThresholdError, Thresholds, thresholds_from_mapping

logger = logging.getLogger(__name__)

USER_THRESHOLDS = "thresholds.toml"
VERSION = 1
PREVIOUS_SUFFIX = ".previous"


def shipped_thresholds() -> Thresholds:
    """The flag thresholds in resources/thresholds.toml (values with their sources)."""
    text = resource("thresholds.toml").read_text(encoding="utf-8")
    return thresholds_from_mapping(tomllib.loads(text))


def user_thresholds_file(folder: Path | None = None) -> Path:
    return (folder or settings_folder()) / USER_THRESHOLDS


def _user_mapping(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ThresholdError(f"Your thresholds file {path} cannot be read: {exc}") from exc
    version = data.pop("version", VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ThresholdError(f"Your thresholds file {path}: version should be {VERSION}.")
    if version > VERSION:
        raise ThresholdError(
            f"Your thresholds file {path} was written by a newer Resume Auditor (version "
            f"{version}); update the app, or delete the file to use the shipped thresholds."
        )
    return data


def active_thresholds(folder: Path | None = None) -> Thresholds:
    """The user's thresholds (a thresholds.toml in the data folder) over the shipped ones.

    A user file that cannot be read raises ThresholdError with what to fix, rather
    than silently falling back to numbers the user did not choose.
    """
    base = shipped_thresholds()
    path = user_thresholds_file(folder)
    data = _user_mapping(path)
    if data is None:
        return base
    try:
        return thresholds_from_mapping(data, base)
    except ThresholdError as exc:
        raise ThresholdError(f"Your thresholds file {path}: {exc}") from exc


def save_user_thresholds(values: dict[str, tuple[float, str]], folder: Path | None = None) -> Path:
    """Write the user's thresholds (key -> (value, source)) to the data folder.

    Checked first (a ThresholdError says what is wrong and nothing is written).
    """
    check = thresholds_from_mapping(
        {k: {"value": v, "source": src} for k, (v, src) in values.items()}, shipped_thresholds()
    )
    lines = [
        "# Your flag thresholds (Resume Auditor settings). You may edit this file; delete it",
        "# to go back to the shipped ones in resources/thresholds.toml.",
        f"version = {VERSION}",
        "",
    ]
    for t in check:
        if t.key in values:
            lines += [f"[{t.key}]", f"value = {t.value!r}", f"source = {json.dumps(t.source)}", ""]
    path = user_thresholds_file(folder)
    with locked(path):
        write_atomic(path, "\n".join(lines))
    return path


def forget_user_thresholds(folder: Path | None = None) -> Path | None:
    """Back to the shipped thresholds: the user's file is kept as thresholds.toml.previous.

    Returns where it went (None if there was none)."""
    path = user_thresholds_file(folder)
    with locked(path):
        kept = keep_as(path, PREVIOUS_SUFFIX)
    if kept is not None:
        logger.info("the user's thresholds were kept as %s", kept)
    return kept


def thresholds_stamp(folder: Path | None = None) -> tuple[int, int] | tuple[()]:
    """What changes when the user's thresholds file does (for a cheap 'anything new?')."""
    try:
        stat = user_thresholds_file(folder).stat()
    except OSError:
        return ()
    return (stat.st_mtime_ns, stat.st_size)
