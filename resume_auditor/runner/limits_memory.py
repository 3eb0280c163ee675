"""The rate limits a provider reported, remembered between runs (for the ETA).

Before a run, the ETA needs the provider's requests/min and tokens/min; the
headers only tell us once requests flow. What a run learnt is kept per provider,
server and model in `rate-limits.json` (kept by settings/memory.py, the one
writer of the settings files), and read by the next estimate and as the next
run's starting point (headers still correct it). A month-old figure is not used.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from resume_auditor.providers.capabilities import model_key
from resume_auditor.settings.memory import LIMITS_FILE, recall_limits, remember_limits

logger = logging.getLogger(__name__)

__all__ = ["LIMITS_FILE", "MAX_AGE_S", "recall", "remember"]

MAX_AGE_S = 30 * 86400.0  # an account's tier changes; look again after a month


def recall(
    provider: str, base_url: str, model: str, path: Path | None = None
) -> tuple[float | None, float | None]:
    """(requests/min, tokens/min) a run saw last time, or None for each not known."""
    entry = recall_limits(model_key(provider, base_url, model), path)
    if entry is None or time.time() - entry.seen > MAX_AGE_S:
        return None, None
    return entry.rpm, entry.tpm


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
    remember_limits(model_key(provider, base_url, model), rpm, tpm, path)
