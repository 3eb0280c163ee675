"""How fast a model answered here last time, remembered between runs (for the ETA).

A model on this computer (the bundled one) has no rate limit to learn from headers:
its pace is this machine's. A guessed "6 s per answer" was off by a factor of two
or more on a 2-core machine, so every run writes down what it measured (answers
sent, the time they took from the first send to the last answer, their tokens)
and the next estimate scales that pace to the tokens it plans to send (kept in
`answer-speed.json` by settings/memory.py, the one writer of the settings files).
The ETA is then calibrated on this machine's own first answers, and keeps being
re-measured.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

from resume_auditor.providers.capabilities import model_key
from resume_auditor.settings.memory import SPEED_FILE, recall_speed, remember_speed

logger = logging.getLogger(__name__)

__all__ = ["SPEED_FILE", "Pace", "recall", "remember"]

MAX_AGE_S = 30 * 86400.0  # a new machine or model version: measure again
MIN_ANSWERS = 3  # fewer say little about a pace
# One generated token costs about as much as three prompt tokens for llama.cpp on a
# CPU (measured here: ~9 ms per prompt token, ~25 ms per generated token, one
# thread); the weight only matters when a plan's answers are longer or shorter
# than the measured ones.
OUTPUT_TOKEN_WEIGHT = 3.0


@dataclass(frozen=True)
class Pace:
    """What one run measured: `answers` sent, in `seconds`, with these tokens."""

    answers: int
    seconds: float
    input_tokens: int
    output_tokens: int

    def seconds_per_answer(self, input_tokens: float, output_tokens: float) -> float:
        """The time one answer of this size takes, scaled from the measured ones."""
        base = self.seconds / self.answers
        measured = (self.input_tokens + OUTPUT_TOKEN_WEIGHT * self.output_tokens) / self.answers
        planned = input_tokens + OUTPUT_TOKEN_WEIGHT * output_tokens
        if measured <= 0 or planned <= 0:
            return base
        return base * planned / measured


def recall(provider: str, base_url: str, model: str, path: Path | None = None) -> Pace | None:
    """The pace the last run of this model measured here, or None."""
    entry = recall_speed(model_key(provider, base_url, model), path)
    if entry is None or time.time() - entry.seen > MAX_AGE_S:
        return None
    pace = Pace(entry.answers, entry.seconds, entry.input_tokens, entry.output_tokens)
    return pace if pace.answers >= MIN_ANSWERS and pace.seconds > 0 else None


def remember(
    provider: str, base_url: str, model: str, pace: Pace, path: Path | None = None
) -> None:
    if pace.answers < MIN_ANSWERS or pace.seconds <= 0:
        return
    remember_speed(
        model_key(provider, base_url, model),
        pace.answers,
        pace.seconds,
        pace.input_tokens,
        pace.output_tokens,
        path,
    )
