"""Where the per-user settings files live: the data folder (`paths.data_dir`).

`RESUME_AUDITOR_DATA_DIR` overrides it, as for audits and the answer cache; the
tests point it at a temporary folder so they never touch a user's settings.
"""

from __future__ import annotations

from pathlib import Path

from resume_auditor.paths import data_dir


def settings_folder() -> Path:
    """The folder the settings files are read from and written to (created if need be)."""
    return data_dir()
