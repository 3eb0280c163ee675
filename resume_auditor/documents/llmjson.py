"""Read the JSON a language model was asked for, trusting nothing about it.

Models wrap JSON in code fences, put prose before or after it, or stop half
way. We take the first complete JSON object or array in the reply and raise
`ModelOutputError` with a plain reason when there is none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

# (system prompt, user prompt) -> the model's reply text. The runner provides it.
Complete = Callable[[str, str], str]

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class ModelOutputError(ValueError):
    """The model's reply could not be used; the message says why."""


def parse_json_reply(reply: str) -> Any:
    """The first JSON object or array in `reply`."""
    if not isinstance(reply, str) or not reply.strip():
        raise ModelOutputError("the model returned nothing")
    candidates = [m.group(1) for m in _FENCE.finditer(reply)] + [reply]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start, ch in enumerate(candidate):
            if ch not in "{[":
                continue
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except json.JSONDecodeError:
                continue
            if isinstance(value, (dict, list)):
                return value
    raise ModelOutputError("the model's reply holds no complete JSON")
