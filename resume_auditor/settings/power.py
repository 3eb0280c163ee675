"""Simulated power figures, kept in `power-cache.json` so a plan asks for each only once.

stats/power_sim.py computes them (seconds of simulation each) and asks a store
it is handed (its `PowerStore` protocol) before computing one; this is that store
on disk. Version 0 (until the settings had versions) was one flat object of
key -> power; version 1 puts them under "powers". A power must be within 0..1.
"""

from __future__ import annotations

import threading
from pathlib import Path

from resume_auditor.settings.document import Format, Json, JsonSettings, number, require, table
from resume_auditor.settings.folder import settings_folder

POWER_FILE = "power-cache.json"


def _parse(data: Json) -> dict[str, float]:
    out = {}
    for key, value in table(data.get("powers", {}), "powers").items():
        power = number(value, key)
        require(0.0 <= power <= 1.0, f"{key}: a power should be between 0 and 1")
        out[key] = power
    return out


def _dump(powers: dict[str, float]) -> Json:
    return {"powers": powers}


def _flat_to_powers(data: Json) -> Json:
    """Version 0 -> 1: the flat object of powers goes under "powers"."""
    return {"powers": {k: v for k, v in data.items() if k != "version"}}


POWERS: Format[dict[str, float]] = Format(
    name=POWER_FILE,
    version=1,
    what="the simulated power of audit sizes",
    parse=_parse,
    dump=_dump,
    default=dict,
    migrations={0: _flat_to_powers},
)


class PowerCache:
    """stats.power_sim.PowerStore on a settings file (thread-safe; merges on write)."""

    def __init__(self, path: Path | None = None) -> None:
        self._file = JsonSettings(POWERS, path or settings_folder() / POWER_FILE)
        self._lock = threading.Lock()
        self._known: dict[str, float] | None = None

    @property
    def path(self) -> Path:
        return self._file.path

    def get(self, key: str) -> float | None:
        with self._lock:
            if self._known is None:
                self._known = self._file.read()
            return self._known.get(key)

    def put(self, key: str, power: float) -> None:
        written = self._file.update(lambda powers: {**powers, key: power})
        with self._lock:
            self._known = written if written is not None else {**(self._known or {}), key: power}
