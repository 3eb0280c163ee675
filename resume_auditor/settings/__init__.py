"""The per-user settings files of the data folder, typed, versioned, written in one place.

One module per concern, each with its typed model and its migrations:

- app.py: recent audits, the last folder, the window's place (`app-settings.json`,
  migrated once from QSettings' `settings.ini`);
- capabilities.py: which settings each model accepts (`model-capabilities.json`);
- memory.py: rate limits and answer speeds runs measured (`rate-limits.json`,
  `answer-speed.json`);
- power.py: simulated power of audit sizes (`power-cache.json`);
- thresholds.py: the user's flag thresholds (`thresholds.toml`, also hand-edited);
- prices.py: where the user's own price table is (`prices.toml`, never written).

files.py is the one writer (lock, atomic replace, damaged files kept aside) and
document.py the versioned JSON file. Pure Python: no Qt, so the providers, the
runner, the workflow and the CLI use it as the app does. docs/settings.md has the
layout. Nothing outside this package writes these files (tests/test_settings_owner.py).
"""

from resume_auditor.settings.files import take_notices

__all__ = ["take_notices"]
