"""What runs measured, per provider, server and model: rate limits and answer speeds.

`rate-limits.json` keeps the requests/min and tokens/min a provider's headers
reported; `answer-speed.json` keeps how fast a model answered on this computer.
The runner reads them for the next estimate (runner/limits_memory.py,
runner/speed_memory.py decide what is still fresh and what it means); this module
only keeps them, typed, in files both the app and the CLI may write at once.

Version 0 (until the settings had versions) was one flat object of entries; 0
for an unknown rate. Version 1 puts the entries under "models" and writes an
unknown rate as null.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from resume_auditor.settings.document import Format, Json, JsonSettings, number, require, table
from resume_auditor.settings.folder import settings_folder

LIMITS_FILE = "rate-limits.json"
SPEED_FILE = "answer-speed.json"


@dataclass(frozen=True)
class RateLimits:
    """Requests and tokens per minute a provider reported (None: not reported)."""

    rpm: float | None
    tpm: float | None
    seen: float  # when, in seconds since the epoch


@dataclass(frozen=True)
class AnswerSpeed:
    """What one run measured: `answers` answered in `seconds`, with these tokens."""

    answers: int
    seconds: float
    input_tokens: int
    output_tokens: int
    seen: float


def _rate(value: Any, where: str) -> float | None:
    if value is None:
        return None
    rate = number(value, where)
    require(rate >= 0, f"{where} should not be negative")
    return rate or None


def _limits_entry(key: str, raw: Any) -> RateLimits:
    entry = table(raw, key)
    return RateLimits(
        _rate(entry.get("rpm"), f"{key}: rpm"),
        _rate(entry.get("tpm"), f"{key}: tpm"),
        number(entry.get("seen", 0), f"{key}: seen"),
    )


def _count(value: Any, where: str) -> int:
    n = number(value, where)
    require(n >= 0 and n == int(n), f"{where} should be a whole number")
    return int(n)


def _speed_entry(key: str, raw: Any) -> AnswerSpeed:
    entry = table(raw, key)
    return AnswerSpeed(
        answers=_count(entry.get("answers"), f"{key}: answers"),
        seconds=number(entry.get("seconds"), f"{key}: seconds"),
        input_tokens=_count(entry.get("input_tokens", 0), f"{key}: input_tokens"),
        output_tokens=_count(entry.get("output_tokens", 0), f"{key}: output_tokens"),
        seen=number(entry.get("seen", 0), f"{key}: seen"),
    )


def _models(read: Callable[[str, Any], Any]) -> Callable[[Json], dict[str, Any]]:
    def parse(data: Json) -> dict[str, Any]:
        return {k: read(k, v) for k, v in table(data.get("models", {}), "models").items()}

    return parse


def _dump(models: dict[str, Any]) -> Json:
    return {"models": {k: asdict(v) for k, v in models.items()}}


def _flat_to_models(data: Json) -> Json:
    """Version 0 -> 1: the flat object of entries goes under "models"."""
    return {"models": {k: v for k, v in data.items() if k != "version"}}


LIMITS: Format[dict[str, RateLimits]] = Format(
    name=LIMITS_FILE,
    version=1,
    what="the rate limits providers reported",
    parse=_models(_limits_entry),
    dump=_dump,
    default=dict,
    migrations={0: _flat_to_models},
)
SPEEDS: Format[dict[str, AnswerSpeed]] = Format(
    name=SPEED_FILE,
    version=1,
    what="how fast each model answered here",
    parse=_models(_speed_entry),
    dump=_dump,
    default=dict,
    migrations={0: _flat_to_models},
)


def limits_file(path: Path | None = None) -> JsonSettings[dict[str, RateLimits]]:
    return JsonSettings(LIMITS, path or settings_folder() / LIMITS_FILE)


def speeds_file(path: Path | None = None) -> JsonSettings[dict[str, AnswerSpeed]]:
    return JsonSettings(SPEEDS, path or settings_folder() / SPEED_FILE)


def recall_limits(key: str, path: Path | None = None) -> RateLimits | None:
    return limits_file(path).read().get(key)


def remember_limits(
    key: str,
    rpm: float | None,
    tpm: float | None,
    path: Path | None = None,
    now: Callable[[], float] = time.time,
) -> None:
    entry = RateLimits(rpm or None, tpm or None, now())
    limits_file(path).update(lambda models: {**models, key: entry})


def recall_speed(key: str, path: Path | None = None) -> AnswerSpeed | None:
    return speeds_file(path).read().get(key)


def remember_speed(
    key: str,
    answers: int,
    seconds: float,
    input_tokens: int,
    output_tokens: int,
    path: Path | None = None,
    now: Callable[[], float] = time.time,
) -> None:
    entry = AnswerSpeed(answers, round(seconds, 3), input_tokens, output_tokens, now())
    speeds_file(path).update(lambda models: {**models, key: entry})
