"""Find a candidate's identity in resume text and turn it into slots.

Heuristics, offline and fast: the name from the top of the resume (or a
"Name:" line) and every later mention of it, the email address, pronouns with
their grammatical role, and titles. The result is a `Template` whose slots can be
refilled with another persona.
"""

from __future__ import annotations

import re

from resume_auditor.domain.identity import Slot, SlotKind, Template

_NAME_TOKEN = r"[A-Z][A-Za-z'\u2019\-]*\.?|[A-Z]{2,}"
_NAME_LINE = re.compile(
    rf"^\s*(?:name\s*:\s*)?((?:{_NAME_TOKEN})(?:\s+(?:{_NAME_TOKEN})){{1,3}})\s*$", re.IGNORECASE
)
_NOT_NAMES = {
    "resume",
    "curriculum",
    "vitae",
    "cv",
    "summary",
    "profile",
    "experience",
    "education",
    "skills",
    "contact",
    "objective",
    "professional",
    "page",
    "references",
    "the",
    "and",
}
_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}")
_PRONOUN = re.compile(r"\b(she|he|her|him|his|hers|herself|himself)\b", re.IGNORECASE)
_TITLE = re.compile(r"\b(Mr|Ms|Mrs|Miss|Mx)\.?(?=\s+[A-Z])")
# Words after "her"/"his" that show it is not a determiner ("gave her a", "her and").
_NOT_NOUN_AFTER = {
    "a",
    "an",
    "the",
    "and",
    "or",
    "to",
    "for",
    "with",
    "as",
    "in",
    "on",
    "at",
    "by",
    "from",
    "that",
    "this",
    "into",
    "about",
    "after",
    "before",
    "while",
    "when",
    "if",
    "but",
    "so",
    "is",
    "was",
    "be",
    "were",
    "are",
}
_SIMPLE = {
    "she": SlotKind.PRONOUN_SUBJECT,
    "he": SlotKind.PRONOUN_SUBJECT,
    "him": SlotKind.PRONOUN_OBJECT,
    "hers": SlotKind.PRONOUN_POSSESSIVE,
    "herself": SlotKind.PRONOUN_REFLEXIVE,
    "himself": SlotKind.PRONOUN_REFLEXIVE,
}


def find_name(text: str) -> tuple[int, int, str] | None:
    """The candidate's name as (start, end, name): the first name-like line near the top."""
    offset = 0
    for count, line in enumerate(text.split("\n")):
        if count > 8:
            break
        match = _NAME_LINE.match(line)
        if match:
            name = match.group(1)
            words = [w.strip(".").lower() for w in name.split()]
            if not any(w in _NOT_NAMES for w in words):
                start = offset + match.start(1)
                return start, start + len(name), name
        offset += len(line) + 1
    return None


def _free(taken: list[tuple[int, int]], start: int, end: int) -> bool:
    return all(end <= s or start >= e for s, e in taken)


def _mentions(text: str, token: str) -> list[tuple[int, int]]:
    """Capitalised or all-caps whole-word mentions of a name token."""
    if len(token) < 2:
        return []
    pattern = re.compile(rf"(?<![\w@.]){re.escape(token)}(?![\w@])", re.IGNORECASE)
    out = []
    for m in pattern.finditer(text):
        found = m.group(0)
        if found[:1].isupper():
            out.append((m.start(), m.end()))
    return out


def _pronoun_kind(text: str, match: re.Match[str]) -> SlotKind:
    word = match.group(1).lower()
    if word in _SIMPLE:
        return _SIMPLE[word]
    following = re.match(r"[ \t]*([A-Za-z][A-Za-z\-]*)", text[match.end() :])
    next_word = following.group(1).lower() if following else ""
    determiner = bool(next_word) and next_word not in _NOT_NOUN_AFTER
    # "she/her" and "her." are objects; "her team" is a determiner.
    if text[match.end() : match.end() + 1] in ("/", ",", ".", ")", ";", ":"):
        determiner = False
    if word == "his":
        return SlotKind.PRONOUN_DETERMINER if determiner else SlotKind.PRONOUN_POSSESSIVE
    return SlotKind.PRONOUN_DETERMINER if determiner else SlotKind.PRONOUN_OBJECT


def find_identity(text: str) -> Template:
    """Template the identity parts of `text`; filling with no persona gives `text` back."""
    slots: list[Slot] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, kind: SlotKind, confidence: float) -> None:
        if _free(taken, start, end):
            taken.append((start, end))
            slots.append(Slot(start, end, kind, text[start:end], confidence))

    found = find_name(text)
    if found is not None:
        _, _, name = found
        tokens = name.split()
        full = re.compile(
            r"(?<![\w@.])" + r"\s+".join(re.escape(t) for t in tokens) + r"(?![\w@])",
            re.IGNORECASE,
        )
        for m in full.finditer(text):
            add(m.start(), m.end(), SlotKind.FULL_NAME, 0.95)
        for start, end in _mentions(text, tokens[0].rstrip(".")):
            add(start, end, SlotKind.FIRST_NAME, 0.8)
        for start, end in _mentions(text, tokens[-1].rstrip(".")):
            add(start, end, SlotKind.LAST_NAME, 0.8)

    for m in _EMAIL.finditer(text):
        add(m.start(), m.end(), SlotKind.EMAIL, 0.95)
    for m in _TITLE.finditer(text):
        add(m.start(), m.end(), SlotKind.TITLE, 0.9)
    for m in _PRONOUN.finditer(text):
        add(m.start(1), m.end(1), _pronoun_kind(text, m), 0.85)
    return Template(text=text, slots=slots)
