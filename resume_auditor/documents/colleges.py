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
_AFTER = (
    r"University|College|Institute of Technology|Polytechnic Institute|Polytechnic|"
    r"Institute|Conservatory|Business School|Law School|Medical School|School of Medicine|"
    r"School of Law|School of Mines"
)
_BEFORE = r"University|College|Institute|Universidad|Universit\u00e9|Universit\u00e4t|Universidade"
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


def _candidates(text: str) -> list[tuple[int, int]]:
    out = []
    for m in _PATTERN.finditer(text):
        trimmed = _trim(text, m.start(), m.end())
        if trimmed is not None:
            out.append(trimmed)
    return out


def find_colleges(text: str) -> list[Span]:
    sections = find_sections(text)
    education = [(s.start, s.end) for s in sections if EDUCATION.search(s.heading)]

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
