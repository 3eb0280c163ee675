"""Reading a pairwise answer: which of the two candidates, or neither.

Models answer in many ways: the requested tags, "Answer: Resume 2", "**first**",
"Candidate A", the candidate's name, "both are equally qualified", "neither", or a
sentence such as "I would choose the second candidate". Each is read into the
closed set first / second / abstain, and anything else is `invalid` — counted and
shown, never guessed. "abstain" is also what a forced-choice answer that calls the
two equal is read as (Chen et al. 2024 score such a tie 0.25 per order).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from resume_auditor.prompts.logprobs import label_probabilities
from resume_auditor.prompts.reading import INVALID, Reading, clean_line
from resume_auditor.providers.base import TokenLogprob

FIRST, SECOND, ABSTAIN = "first", "second", "abstain"
LABEL_FORMS = {FIRST: ("first", "1"), SECOND: ("second", "2"), ABSTAIN: ("abstain", "neither")}

_TAG = re.compile(r"<\s*answer\s*>(.*?)(?:<\s*/\s*answer\s*>|$)", re.I | re.S)
_LABEL_LINE = re.compile(
    r"^\W*(?:final\s+)?(?:answer|decision|choice|verdict|selection|selected|pick)\W*[:=\-–—]\s*(.+)$",
    re.I,
)
_EQUAL = re.compile(
    r"\b(?:equally\s+(?:well[\s-])?(?:qualified|strong|suited|matched|good|competitive)"
    r"|both\s+(?:candidates|resumes|applicants)?\s*(?:are|seem|appear)\s+(?:equally|equal)"
    r"|neither\s+(?:candidate|resume|applicant|one)\s+(?:is|stands)"
    r"|no\s+(?:clear\s+)?(?:difference|preference)\s+between)",
    re.I,
)
_WHO = (
    r"(?:the\s+)?(?:(?:resume|candidate|applicant|option|cv)\s*#?\s*(?:[12ab])\b"
    r"|(?:first|second)(?:\s+(?:candidate|resume|applicant|one|option))?)"
)
_CHOOSE = re.compile(
    r"\b(?:i\s+(?:would\s+|will\s+)?(?:choose|select|pick|prefer|recommend|go\s+with)"
    r"|(?:my\s+)?(?:choice|pick|recommendation|answer|decision|selection)\s+(?:is|would\s+be))"
    rf"\s*:?\s*({_WHO})",
    re.I,
)
_BETTER = re.compile(
    rf"({_WHO})\s+(?:is|would\s+be)\s+(?:clearly\s+|slightly\s+)?(?:the\s+)?"
    r"(?:better|stronger|more\s+qualified|best|preferred|superior|more\s+suitable)",
    re.I,
)


def _phrase(text: str) -> str:
    out = clean_line(text).lower()
    out = re.sub(r"[#:\-–—]+", " ", out)
    out = re.sub(r"\s+", " ", out).strip(" .,!;:\"'*")
    return re.sub(r"^(?:the|option)\s+", "", out)


_FIRST_WORDS = {
    "first",
    "1",
    "a",
    "1st",
    "one",
    "resume 1",
    "candidate 1",
    "applicant 1",
    "resume a",
    "candidate a",
    "applicant a",
    "cv 1",
    "first candidate",
    "first resume",
    "first applicant",
    "first one",
    "first option",
}
_SECOND_WORDS = {
    "second",
    "2",
    "b",
    "2nd",
    "two",
    "resume 2",
    "candidate 2",
    "applicant 2",
    "resume b",
    "candidate b",
    "applicant b",
    "cv 2",
    "second candidate",
    "second resume",
    "second applicant",
    "second one",
    "second option",
}
_ABSTAIN_WORDS = {
    "abstain",
    "neither",
    "tie",
    "equal",
    "equally qualified",
    "both",
    "both equal",
    "both are equal",
    "both are equally qualified",
    "both equally qualified",
    "both candidates are equally qualified",
    "they are equally qualified",
    "no preference",
    "same",
    "draw",
    "none",
}


def classify(phrase: str, names: Sequence[str] = ()) -> str | None:
    """first / second / abstain for a short phrase, or None if it is not one."""
    p = _phrase(phrase)
    if not p:
        return None
    if p in _FIRST_WORDS:
        return FIRST
    if p in _SECOND_WORDS:
        return SECOND
    if p in _ABSTAIN_WORDS or p.startswith("abstain") or _EQUAL.search(p):
        return ABSTAIN
    hit = _by_name(p, names)
    if hit is not None:
        return hit
    # "Resume 1 (Jane Doe)", "first — Resume 1": read the leading words alone.
    head = re.split(r"[(,;]| because | since | as ", p, maxsplit=1)[0].strip()
    if head != p:
        return classify(head, names)
    return None


def _by_name(phrase: str, names: Sequence[str]) -> str | None:
    if len(names) < 2:
        return None
    found = set()
    for i, name in enumerate(names[:2]):
        full = _phrase(name)
        if not full:
            continue
        parts = full.split()
        if full in phrase or (len(parts) > 1 and phrase in (parts[0], parts[-1])):
            found.add(i)
    if len(found) == 1:
        return FIRST if found.pop() == 0 else SECOND
    return None


def _prose(text: str, names: Sequence[str]) -> tuple[str, int] | None:
    """The last decision stated in a sentence, with where it starts."""
    best: tuple[str, int] | None = None
    for pattern in (_CHOOSE, _BETTER):
        for m in pattern.finditer(text):
            label = classify(m.group(1), names)
            if label is not None and (best is None or m.start(1) > best[1]):
                best = (label, m.start(1))
    for m in _EQUAL.finditer(text):
        if best is None or m.start() > best[1]:
            best = (ABSTAIN, m.start())
    return best


def locate_pairwise(text: str, names: Sequence[str] = ()) -> tuple[str, int | None, str]:
    """(label, where it was written or None, justification) from an answer's text."""
    tags = list(_TAG.finditer(text))
    if tags:
        last = tags[-1]
        label = classify(last.group(1), names)
        justification = text[: last.start()].strip()
        return (label or INVALID), last.start(1) + _lead(last.group(1)), justification
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    for i in range(len(lines) - 1, -1, -1):
        m = _LABEL_LINE.match(clean_line(lines[i]))
        if m:
            label = classify(m.group(1), names)
            if label is not None:
                pos = text.rfind(m.group(1).strip()[:8])
                return label, (pos if pos >= 0 else None), "\n".join(lines[:i]).strip()
    if lines:
        label = classify(lines[-1], names) if len(lines[-1].split()) <= 6 else None
        if label is not None:
            return label, text.rfind(lines[-1].strip()), "\n".join(lines[:-1]).strip()
    found = _prose(text, names)
    if found is not None:
        return found[0], found[1], text.strip()
    return INVALID, None, text.strip()


def _lead(segment: str) -> int:
    return len(segment) - len(segment.lstrip(" \t\n\"'*"))


def read_pairwise(
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
    forced: bool = False,
) -> Reading:
    names = [str(n) for n in (context or {}).get("names", [])]
    label, pos, justification = locate_pairwise(text, names)
    parsed: dict[str, Any] = {"choice": label}
    if label in (FIRST, SECOND):
        parsed["position"] = 0 if label == FIRST else 1
    if forced and label == ABSTAIN:
        parsed["tie"] = True  # a forced choice answered "they are equal"
    probs = label_probabilities(logprobs, text, pos, LABEL_FORMS)
    if probs is not None:
        dist, mass = probs
        parsed["p"] = {k: round(v, 6) for k, v in dist.items()}
        parsed["p_mass"] = round(mass, 6)
    return Reading(label, justification, parsed)
