"""What every answer reader returns, and small text helpers they share."""

from __future__ import annotations

import ast
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


def json_blocks(text: str) -> list[tuple[int, Any]]:
    """Every JSON object or array in `text` with where it starts, in order.

    Bare, in a code fence or in prose. Models wrap JSON in explanations and
    fences, write Python-style single quotes, trailing commas, // comments and
    raw line breaks inside strings; each of those is forgiven. Only top-level
    blocks count: an inner {"score": 4} is part of its object, not an answer.
    """
    found: dict[int, Any] = {}
    spans: list[tuple[int, str]] = [(m.start(1), m.group(1)) for m in _FENCE.finditer(text)]
    i = 0
    while i < len(text):
        if text[i] in "{[":
            block = _balanced(text, i)
            if block is not None:
                if len(block) > 2:
                    spans.append((i, block))
                i += len(block)
                continue
        i += 1
    for start, block in spans:
        value = _parse(block)
        if isinstance(value, dict | list) and value:
            found.setdefault(start, value)
    return sorted(found.items(), key=lambda kv: kv[0])


def find_json(text: str) -> Any | None:
    """The last JSON object (or array) in `text` (see json_blocks); None when there is none."""
    blocks = json_blocks(text)
    return blocks[-1][1] if blocks else None


def _parse(block: str) -> Any | None:
    for attempt in (block, _forgive(block)):
        try:
            return json.loads(attempt, strict=False)
        except ValueError:
            continue
    if "'" in block and len(block) < 20_000:
        # Python-style dicts: {'answer': 'first'}, True/False/None, mixed quotes.
        py = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", block))
        py = re.sub(r"\bnull\b", "None", py)
        for attempt in (py, _forgive(py, quotes=False)):
            try:
                return ast.literal_eval(attempt.strip())
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
    return None


def _forgive(block: str, *, quotes: bool = True) -> str:
    out = re.sub(r'(?m)(?<=[,{\[\d"el])\s*//[^\n]*$', "", block.strip())  # // comments
    out = re.sub(r",\s*([}\]])", r"\1", out)  # trailing commas
    out = re.sub(r"}\s*\n\s*\"", '},\n"', out)  # a missing comma between members
    if quotes and "'" in out and '"' not in out:
        out = out.replace("'", '"')
    return out


_THINK = re.compile(
    r"<\s*(think|thinking|reasoning|thought|scratchpad)\s*>.*?(?:<\s*/\s*\1\s*>|\Z)", re.S | re.I
)
_THINK_CLOSE = re.compile(r"<\s*/\s*(?:think|thinking|reasoning|thought)\s*>", re.I)


def mask_thinking(text: str) -> str:
    """`text` with a reasoning model's thoughts blanked out, every other character in place.

    DeepSeek-R1, QwQ and Qwen3 write <think>...</think> before the answer (some
    chat templates put the opening tag in the prompt, so only the closing one
    arrives); a label the model weighed while thinking is not its answer. An
    unclosed <think> means the answer was cut off while thinking: nothing is left.
    Positions stay where they were so log-probabilities still line up.
    """
    out = _THINK.sub(lambda m: _blank(m.group(0)), text)
    closes = list(_THINK_CLOSE.finditer(out))
    if closes:
        end = closes[-1].end()
        out = _blank(out[:end]) + out[end:]
    return out


def strip_thinking(text: str) -> str:
    """`text` without a reasoning model's thoughts (see mask_thinking), for answers
    whose text itself is kept (a generated resume)."""
    out = _THINK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(out))
    return out[closes[-1].end() :] if closes else out


def _blank(segment: str) -> str:
    return re.sub(r"[^\n]", " ", segment)


def norm_key(key: object) -> str:
    """A JSON key without case, spaces or punctuation: "Final Answer" -> "finalanswer"."""
    return re.sub(r"[^a-z0-9]", "", str(key).lower())


def json_field(data: Any, wanted: tuple[str, ...]) -> tuple[str, Any] | None:
    """(key, value) of the first of `wanted` (normalised keys, in order of preference)
    found in a JSON object, looking into nested objects too."""
    found: dict[str, tuple[str, Any]] = {}

    def walk(node: Any, depth: int) -> None:
        if depth > 4:
            return
        if isinstance(node, dict):
            for key, value in node.items():
                k = norm_key(key)
                if k in wanted and k not in found:
                    found[k] = (str(key), value)
            for value in node.values():
                if isinstance(value, dict | list):
                    walk(value, depth + 1)
        elif isinstance(node, list):
            for item in node:
                walk(item, depth + 1)

    walk(data, 0)
    for k in wanted:
        if k in found:
            return found[k]
    return None


def clean_line(line: str) -> str:
    """A line without markdown emphasis, quotes and trailing punctuation."""
    return line.strip().strip("*_`#>\"' ").rstrip(".!").strip("*_`\"' ").strip()


_SCALE = re.compile(
    r"\(\s*(?:on\s+a\s+)?(?:scale\s+(?:of\s+|from\s+)?)?1\s*(?:-|–|—|to)\s*5\s*(?:scale)?\s*\)"
    r"|\b(?:on\s+a\s+|from\s+)?(?:scale\s+(?:of\s+|from\s+)?)1\s*(?:-|–|—|to)\s*5\b"
    r"|\bfrom\s+1\s+to\s+5\b",
    re.I,
)


def mask_scale(text: str) -> str:
    """Blank "(1-5)", "on a scale of 1 to 5": the scale's ends are not a score."""
    return _SCALE.sub(lambda m: _blank(m.group(0)), text)


_CLOSING = re.compile(
    r"^\W*(?:let\s+me\s+know|i\s+hope\s+(?:this|that)|hope\s+this|feel\s+free|please\s+(?:note|let)"
    r"|if\s+you\s+(?:need|would|have|want)|note\s*:|disclaimer\s*:|i\s+can\s+also"
    r"|would\s+you\s+like|happy\s+to\s+help)",
    re.I,
)


_OPENING = re.compile(
    r"^\W*(?:(?:sure|certainly|okay|of\s+course|here(?:'s|’s|\s+is|\s+are)|below\s+is)\b[^\n]{0,100}:"
    r"|(?:after|having|upon)\s+(?:reviewing|reading|considering|evaluating|comparing)\b[^\n]{0,80}[:,]"
    r"|here(?:'s|’s|\s+is)\s+my\s+(?:assessment|evaluation|analysis|answer|ranking|review)\W)\W*$",
    re.I,
)


def answer_lines(text: str) -> list[str]:
    """The non-empty lines of `text` without an opening "Here is my evaluation:" and
    closing pleasantries ("Let me know if...", "I hope this helps", "Note: ...")."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    while len(lines) > 1 and _CLOSING.match(lines[-1]):
        lines.pop()
    if len(lines) > 1 and _OPENING.match(lines[0]):
        lines.pop(0)
    return lines


# A model that declines: "I'm sorry, but I can't rank", "it is difficult to rank the
# candidates without further information", "As an AI, I cannot".
_REFUSAL = re.compile(
    r"\b(?:i\s*(?:am|'m|’m)\s+(?:sorry|unable|not\s+able)|i\s+(?:can(?:no|['’])t|cannot|won['’]t"
    r"|will\s+not|must\s+decline|am\s+not\s+comfortable|do\s+not\s+feel\s+comfortable)"
    r"|as\s+an\s+ai\b"
    r"|(?:difficult|impossible|not\s+possible|unable)\s+to\s+(?:accurately\s+|fairly\s+)?"
    r"(?:rank|determine|compare|evaluate|assess|say|rate|score|judge))",
    re.I,
)


def refusal(text: str) -> str:
    """The sentence in which a model declines to answer, or "" when it does not.

    Only asked of answers that could not be read: a refusal is counted as a refusal
    (stats/missing.py), not as noise.
    """
    seen = mask_thinking(text)
    m = _REFUSAL.search(seen)
    if m is None:
        return ""
    start = max(seen.rfind(".", 0, m.start()), seen.rfind("\n", 0, m.start())) + 1
    end = min(
        (i for i in (seen.find(".", m.end()), seen.find("\n", m.end())) if i >= 0),
        default=len(seen),
    )
    return seen[start : end + 1].strip()[:200]
