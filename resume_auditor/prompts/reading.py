"""What every answer reader returns, and small text helpers they share."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

INVALID = "invalid"


@dataclass(frozen=True)
class Reading:
    """One answer, read.

    label: the kind's closed set (first/second/abstain, yes/no, "1".."5", ok,
        partial, ranked) or "invalid" when nothing usable could be read.
    justification: the model's reasons in its own words (the text before the
        answer, or a summary it was asked for).
    parsed: everything else the kind yields (docs/prompts.md lists the keys),
        JSON-ready: it is stored as the response's parsed_json.
    """

    label: str
    justification: str = ""
    parsed: dict[str, Any] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return self.label != INVALID


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)


def _balanced(text: str, start: int) -> str | None:
    """The {...} or [...] starting at `start`, braces balanced outside strings."""
    opener = text[start]
    closer = "}" if opener == "{" else "]"
    depth = 0
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[start : i + 1] if ch == closer else None
    return None


def find_json(text: str) -> Any | None:
    """The last JSON object (or array) in `text`: bare, in a code fence or in prose.

    Models wrap JSON in explanations and fences; a trailing comma or Python-style
    quotes are forgiven once. None when there is none.
    """
    candidates: list[str] = [m.group(1) for m in _FENCE.finditer(text)]
    i = 0
    while i < len(text):  # top-level blocks only: an inner {"score": 4} is not the answer
        if text[i] in "{[":
            block = _balanced(text, i)
            if block is not None:
                if len(block) > 2:
                    candidates.append(block)
                i += len(block)
                continue
        i += 1
    for block in reversed(candidates):
        for attempt in (block, _forgive(block)):
            try:
                value = json.loads(attempt)
            except ValueError:
                continue
            if isinstance(value, dict | list) and value:
                return value
    return None


def _forgive(block: str) -> str:
    out = re.sub(r",\s*([}\]])", r"\1", block.strip())  # trailing commas
    out = re.sub(r"}\s*\n\s*\"", '},\n"', out)  # a missing comma between members
    if "'" in out and '"' not in out:
        out = out.replace("'", '"')
    return out


def clean_line(line: str) -> str:
    """A line without markdown emphasis, quotes and trailing punctuation."""
    return line.strip().strip("*_`#>\"' ").rstrip(".!").strip("*_`\"' ").strip()
