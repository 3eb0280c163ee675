"""Where the user's own price table lives: `prices.toml` in the data folder.

The app never writes this file: it is the user's correction of the shipped table
(resources/prices.toml), written by hand, read after the shipped one and winning
model by model (runner/prices.py reads and validates both into a `PriceTable`,
and says which line is wrong). Like the thresholds, a user's price file that
cannot be read is not set aside: the cost estimate says so and falls back to the
shipped prices for that run (workflow/execute.py, `run_prices`), and the file is
left for the user to fix.
"""

from __future__ import annotations

from pathlib import Path

from resume_auditor.settings.folder import settings_folder

PRICE_FILE = "prices.toml"


def user_price_file(folder: Path | None = None) -> Path:
    return (folder or settings_folder()) / PRICE_FILE
