"""The rate limits a provider reported, remembered between runs (for the ETA).

Before a run, the ETA needs the provider's requests/min and tokens/min; the
headers only tell us once requests flow. What a run learnt is kept in a small
JSON file in the data folder, per provider, server and model, and read by the
next estimate and as the next run's starting point (headers still correct it).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path

from resume_auditor.providers.capabilities import model_key

logger = logging.getLogger(__name__)

LIMITS_FILE = "rate-limits.json"
MAX_AGE_S = 30 * 86400.0  # an account's tier changes; look again after a month


def _path() -> Path:
    from resume_auditor.paths import data_dir

    return data_dir() / LIMITS_FILE


def read_entries(path: Path) -> dict[str, dict[str, float]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return (
        {str(k): v for k, v in data.items() if isinstance(v, dict)}
        if isinstance(data, dict)
        else {}
    )


def recall(
    provider: str, base_url: str, model: str, path: Path | None = None
) -> tuple[float | None, float | None]:
    """(requests/min, tokens/min) a run saw last time, or None for each not known."""
    entry = read_entries(path or _path()).get(model_key(provider, base_url, model), {})
    if time.time() - float(entry.get("seen", 0)) > MAX_AGE_S:
        return None, None
    rpm, tpm = entry.get("rpm"), entry.get("tpm")
    return (float(rpm) if rpm else None, float(tpm) if tpm else None)


def remember(
    provider: str,
    base_url: str,
    model: str,
    rpm: float | None,
    tpm: float | None,
    path: Path | None = None,
) -> None:
    if rpm is None and tpm is None:
        return
    entry = {"rpm": rpm or 0, "tpm": tpm or 0}
    write_entry(path or _path(), model_key(provider, base_url, model), entry, "rate limits")


def write_entry(path: Path, key: str, entry: dict[str, float], what: str) -> None:
    """Set one model's entry (stamped `seen` now) in a small JSON memory file, atomically."""
    data = read_entries(path)
    data[key] = {**entry, "seen": time.time()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError as exc:
        logger.warning("could not remember %s in %s: %s", what, path, exc)
