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

from resume_auditor.prompts.reading import INVALID, Reading
from resume_auditor.providers.base import TokenLogprob

_TAGGED = re.compile(r"<resume>\s*(.*?)\s*(?:</resume>|\Z)", re.S | re.I)
_FENCED = re.compile(r"^```[a-zA-Z]*\s*\n(.*?)\n?```\s*$", re.S)
_PREAMBLE = re.compile(
    r"^(?:sure|certainly|okay|ok|here is|here's|below is)[^\n]{0,160}:\s*\n", re.I
)
_LINE = re.compile(r"^\W*(?:qualification\s*)?(\d{1,2})\s*[:.)\-]\s*\**\s*(yes|no)\b", re.I | re.M)
MIN_CHARS = 40  # less than this is not a resume


def extract_resume(text: str) -> str:
    """The resume inside a generator's answer, without tags, fences or a preamble."""
    tagged = _TAGGED.findall(text)
    body = max(tagged, key=len) if tagged else text.strip()
    fenced = _FENCED.match(body.strip())
    if fenced:
        body = fenced.group(1)
    if not tagged:
        body = _PREAMBLE.sub("", body, count=1)
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
    return Reading("text", "", {"text": body, "chars": len(body)})


def read_judge(
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
) -> Reading:
    count = int((context or {}).get("count", 0))
    found: dict[int, bool] = {}
    for number, word in _LINE.findall(text):
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
