"""Reading a generator model's answers: a rewritten resume, and a judge's yes/no list.

A generator is asked to put the resume between <resume> and </resume>; models
also wrap it in a code fence or open with "Here is the resume:", which we strip.
A judge answers one "N: yes" / "N: no" line per qualification; a list with a
number missing or a word other than yes/no is unreadable (`invalid`), never
guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from resume_auditor.prompts.reading import (
    INVALID,
    Reading,
    find_json,
    mask_thinking,
    strip_thinking,
)
from resume_auditor.providers.base import TokenLogprob

_TAGGED = re.compile(r"<resume>\s*(.*?)\s*(?:</resume>|\Z)", re.S | re.I)
_FENCED = re.compile(r"^```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.S)
_FENCE = re.compile(r"```[a-zA-Z]*[ \t]*\n(.*?)\n?```", re.S)
_PREAMBLE = re.compile(
    r"^(?:sure|certainly|okay|ok|here is|here's|below is|of course)[^\n]{0,160}:\s*\n", re.I
)
# A closing remark after the resume: "---\n**Note:** I removed ...", "Let me know ...".
_CLOSING = re.compile(
    r"\n\s*(?:-{3,}|\*{3,}|_{3,})?\s*\n\s*\W{0,3}(?:notes?|changes\s+made|let\s+me\s+know|i\s+hope|"
    r"feel\s+free|i(?:'ve|\s+have)\s+(?:removed|added|kept|changed|made|updated)|this\s+version)"
    r"\b[^\n]*(?:\n[^\n]*){0,6}\s*\Z",
    re.I,
)
_REFUSAL = re.compile(
    r"^\W*(?:i\s+(?:can(?:no|['’])t|am\s+(?:not\s+able|unable)|won['’]t|will\s+not|must\s+decline)"
    r"|i['’]m\s+(?:sorry|unable|not\s+able)|sorry|unfortunately|as\s+an\s+ai)\b",
    re.I,
)
_LINE = re.compile(r"^\W*(?:qualification\s*)?(\d{1,2})\s*[:.)\-|]\s*\**\s*(yes|no)\b", re.I | re.M)
# "1. 3+ years of SQL: Yes": the qualification repeated, the verdict last on the line.
_REPEATED = re.compile(
    r"^\W*(?:qualification\s*)?(\d{1,2})\s*[:.)\-|]\s*[^\n]{1,200}?\s*[:\-–—|]\s*\**(yes|no)\b\**"
    r"[\s.|]*(?:[(\-–—][^\n]*)?$",
    re.I | re.M,
)
MIN_CHARS = 40  # less than this is not a resume


def extract_resume(text: str) -> str:
    """The resume inside a generator's answer, without tags, fences, a preamble or a
    closing remark; a reasoning model's <think> block is dropped first."""
    text = strip_thinking(text)
    tagged = _TAGGED.findall(text)
    body = max(tagged, key=len) if tagged else text.strip()
    fenced = _FENCED.match(body.strip())
    if fenced:
        body = fenced.group(1)
    elif not tagged:
        fences = [f for f in _FENCE.findall(body) if len(f.strip()) >= MIN_CHARS]
        if fences:
            body = max(fences, key=len)
        else:
            body = _PREAMBLE.sub("", body, count=1)
            body = _CLOSING.sub("", body)
    return body.strip("\n").rstrip()


def read_generated(
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
) -> Reading:
    body = extract_resume(text)
    if len(body.strip()) < MIN_CHARS:
        return Reading(INVALID, "", {"error": "the answer holds no resume text"})
    if "<resume>" not in text.lower() and _REFUSAL.match(body):
        return Reading(INVALID, body[:400], {"error": "the model declined to write the resume"})
    return Reading("text", "", {"text": body, "chars": len(body)})


def _judge_json(text: str) -> dict[int, bool]:
    found: dict[int, bool] = {}
    data = find_json(text)
    if isinstance(data, list):
        data = {str(i + 1): v for i, v in enumerate(data)}
    if isinstance(data, dict):
        for key, value in data.items():
            m = re.fullmatch(r"\s*(?:qualification\s*)?(\d{1,2})\s*", str(key), re.I)
            if not m:
                continue
            if isinstance(value, bool):
                found[int(m.group(1))] = value
            elif isinstance(value, str) and value.strip().lower() in ("yes", "no"):
                found[int(m.group(1))] = value.strip().lower() == "yes"
    return found


def read_judge(
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
) -> Reading:
    count = int((context or {}).get("count", 0))
    seen = mask_thinking(text)
    found = _judge_json(seen)
    if not found:
        for pattern in (_REPEATED, _LINE):
            for number, word in pattern.findall(seen):
                found[int(number)] = word.lower() == "yes"  # the last line for a number wins
    if count < 1 or any(n not in found for n in range(1, count + 1)):
        missing = [n for n in range(1, count + 1) if n not in found]
        return Reading(INVALID, text.strip()[:400], {"error": f"no yes/no for item(s) {missing}"})
    met = [found[n] for n in range(1, count + 1)]
    label = "all" if all(met) else "none" if not any(met) else "some"
    return Reading(label, "", {"met": met})


def judge_grammar(count: int) -> str:
    """For llama.cpp: exactly one "N: yes|no" line per qualification."""
    lines = " ".join(f'"{n}: " yn "\\n"' for n in range(1, count + 1))
    return f'root ::= {lines}\nyn ::= "yes" | "no"\n'
