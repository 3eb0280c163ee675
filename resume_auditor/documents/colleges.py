"""Colleges and universities named in a resume.

A college can signal race or gender (a historically Black college, a women's
college), which is why Gaebler et al. replace it in every synthetic copy. We
find capitalised names built around University / College / Institute /
Polytechnic / School of ..., plus abbreviations everyone writes (MIT, UCLA)
when they sit in the Education section.

Which mentions become slots: every mention of a name that appears in the
Education section (the college the candidate attended, also where it recurs,
so the story stays consistent); when the resume has no Education section,
every mention, with a lower confidence. A university that appears only under
Experience is an employer and is left alone.
"""

from __future__ import annotations

import re

from resume_auditor.documents.sections import EDUCATION, find_sections

Span = tuple[int, int, float]

_CAP = r"(?:[A-Z]&[A-Z](?![\w&])|[A-Z][\w'\u2019.\-]*(?<!\.)|St\.)"  # A&M, A&T
_JOIN = r"(?: (?:of|at|and|&|for|the|de|du|in|la))?"
_WORDS = rf"{_CAP}(?:{_JOIN} {_CAP}){{0,5}}"
# The kind words in any case: "CORNELL UNIVERSITY" in an all-caps layout.
_AFTER = (
    r"(?i:University|College|Institute of Technology|Polytechnic Institute|Polytechnic|"
    r"Institute|Conservatory|Business School|Law School|Medical School|School of Medicine|"
    r"School of Law|School of Mines)"
)
_BEFORE = (
    r"(?i:University|College|Institute|Universidad|Universit\u00e9|Universit\u00e4t|"
    r"Universidade)"
)
# Headings that start a new part of the resume. Any other "heading" inside Education
# (a short all-caps line such as "B.S." or "MENG") is part of the entry, not its end.
_NEW_SECTION = re.compile(
    r"experience|employment|work|skills|projects|certification|awards|honou?rs|activities|"
    r"interests|languages|references|publications|summary|profile|objective|volunteer|"
    r"leadership|contact|training|courses|affiliations",
    re.IGNORECASE,
)
# ", Berkeley" after "University of California": a campus, not a state code
_CAMPUS = (
    r"(?:,| at| -| \u2013) (?!(?:[A-Z]{2})\b)[A-Z][a-z]+(?: [A-Z][a-z]+)?"
    r"(?=\s*(?:$|[,|(\n\-\u2013\u2014]))"
)
# A narrow column wraps a long name just before or after its kind word
# ("North Carolina A&T State" / "University"), so a line break may stand there.
_PATTERN = re.compile(
    rf"(?<![\w&])(?:"
    rf"(?:The )?(?:{_BEFORE})[ \n](?:of|de|du|at)(?: the)?[ \n]{_WORDS}(?:{_CAMPUS})?"
    rf"|{_WORDS}[ \n](?:{_AFTER})(?: (?:of|at) {_WORDS})?"
    rf")(?![\w&])",
    re.MULTILINE,
)
# Words that begin a matched run but belong to the degree or subject before the name.
_LEADING_NOISE = frozenset(
    """
    b.s b.a m.s m.a bs ba ms ma mba phd ph.d bsc msc beng meng jd md associate associates
    bachelor bachelors master masters doctor doctorate degree diploma certificate of in at from
    the and science sciences arts fine engineering computer economics mathematics statistics
    business administration psychology biology chemistry physics history english finance
    accounting marketing nursing education management information technology studies public
    policy health graduated attended studied minor major honors cum laude summa magna
    """.split()  # noqa: SIM905  (a word list reads better as text)
)
_ABBREVIATIONS = re.compile(
    r"(?<![\w&])(?:MIT|UCLA|USC|NYU|CMU|UCSD|UCSB|UIUC|UNC|UNLV|LSU|BYU|SMU|TCU|GWU|UCL|LSE|"
    r"EPFL|ETH Z\u00fcrich|ETH Zurich|UC (?:Berkeley|Davis|Irvine|San Diego|Santa Barbara|"
    r"Santa Cruz|Riverside|Merced)|UT Austin|IIT [A-Z][a-z]+|CUNY|SUNY [A-Z][a-z]+)(?![\w&])"
)


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Drop degree and subject words from the front of a match."""
    words = list(re.finditer(r"\S+", text[start:end]))
    keep = 0
    while keep < len(words) - 1:
        word = words[keep].group(0).lower().rstrip(".,")
        if word not in _LEADING_NOISE:
            break
        keep += 1
    if keep == len(words) - 1 and len(words) > 1:
        # only the kind word is left ("Science College"?): keep what was matched
        keep = 0
    new_start = start + words[keep].start() if words else start
    if not re.search(r"[A-Z]", text[new_start:end]):
        return None
    return new_start, end


_KIND = re.compile(r"\b(?:university|college|institute|polytechnic|school)\b", re.IGNORECASE)
_MONTH = re.compile(
    r"\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?$", re.IGNORECASE
)


def _trim_tail(text: str, start: int, end: int) -> int:
    """Drop what a glued line put after the name: a month ("... Pennsylvania Sept"),
    the campus city written twice ("Colorado Boulder Boulder")."""
    found = text[start:end]
    month = _MONTH.search(found)
    if month and month.start() > 0:
        return start + month.start()
    words = found.split(" ")
    if len(words) > 2 and words[-1] == words[-2]:
        return end - len(words[-1]) - 1
    return end


def _candidates(text: str) -> list[tuple[int, int]]:
    out = []
    spans: list[tuple[int, int]] = []
    for m in _PATTERN.finditer(text):
        # two names on two lines ("CORNELL UNIVERSITY" / "University of Iowa") are two
        lines = m.group(0).split("\n")
        if len(lines) > 1 and all(_KIND.search(line) for line in lines):
            at = m.start()
            for line in lines:
                spans.append((at, at + len(line)))
                at += len(line) + 1
        else:
            spans.append((m.start(), m.end()))
    for start, end in spans:
        trimmed = _trim(text, start, _trim_tail(text, start, end))
        if trimmed is not None:
            out.append(trimmed)
    return out


def _education_ranges(text: str) -> list[tuple[int, int]]:
    """Where the Education section runs, through sub-headings that are not new sections."""
    out: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for section in find_sections(text):
        if EDUCATION.search(section.heading):
            if current is not None:
                out.append(current)
            current = (section.start, section.end)
        elif current is not None and not _NEW_SECTION.search(section.heading):
            current = (current[0], section.end)
        elif current is not None:
            out.append(current)
            current = None
    if current is not None:
        out.append(current)
    return out


def find_colleges(text: str) -> list[Span]:
    education = _education_ranges(text)

    def in_education(start: int) -> bool:
        return any(lo <= start < hi for lo, hi in education)

    found = _candidates(text)
    abbreviations = [(m.start(), m.end()) for m in _ABBREVIATIONS.finditer(text)]
    if not education:
        return [(s, e, 0.6) for s, e in found]
    attended = {text[s:e] for s, e in found if in_education(s)}
    attended |= {text[s:e] for s, e in abbreviations if in_education(s)}
    out: list[Span] = []
    for start, end in [*found, *abbreviations]:
        name = text[start:end]
        if name in attended:
            out.append((start, end, 0.9 if in_education(start) else 0.8))
    return out
