"""Read required and preferred qualifications out of a job description, offline.

Headings such as "Requirements", "Minimum qualifications", "You have", "Must have"
open a required list; "Preferred", "Nice to have", "Bonus", "Pluses" a preferred
one; any other heading closes the list. One qualification per bullet. The user
edits the result; an LLM extraction path comes with the generator model.
"""

from __future__ import annotations

import re

from resume_auditor.domain.job import Job, Qualification, QualKind, QualType

_REQUIRED = re.compile(
    r"\b(requirements?|required|minimum|basic|must[- ]haves?|must have|you have|what you bring|"
    r"qualifications)\b",
    re.IGNORECASE,
)
_PREFERRED = re.compile(
    r"\b(preferred|nice[- ]to[- ]haves?|bonus|pluses|plus|desired|desirable|ideally)\b",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*\u2022\u25cf\u25aa+]|\d+[.)])\s+(.*\S)\s*$")
_HEADING_MD = re.compile(r"^\s*#{1,6}\s+(.*\S)\s*$")


def _heading(line: str) -> str | None:
    """The heading text if `line` looks like a heading, else None."""
    md = _HEADING_MD.match(line)
    if md:
        return md.group(1).strip("*_: ")
    stripped = line.strip()
    if not stripped or _BULLET.match(line):
        return None
    bare = stripped.strip("*_")
    if bare.endswith(":") and len(bare) <= 60:
        return bare.rstrip(":")
    if len(bare) <= 40 and bare.upper() == bare and any(c.isalpha() for c in bare):
        return bare
    return None


def classify(text: str) -> QualType:
    """A first guess at what a qualification is about; the user can change it."""
    low = text.lower()
    if re.search(r"\b\d+\s*\+?\s*(?:or more\s+)?years?\b", low):
        return QualType.EXPERIENCE
    if re.search(r"\b(bachelor|master|phd|ph\.d|degree|b\.s|m\.s|mba|diploma|graduate)\b", low):
        return QualType.EDUCATION
    if re.search(r"\b(certif|license|licensed|credential)\w*", low):
        return QualType.CERTIFICATION
    if re.search(
        r"\b(communicat\w*|collaborat\w*|teamwork|team player|curio\w*|passion\w*|"
        r"detail[- ]oriented|attention to detail|self[- ]starter|motivated|interpersonal|"
        r"leadership|adaptab\w*|problem[- ]solving|organi[sz]ed|empathy|ownership)\b",
        low,
    ):
        return QualType.SOFT_SKILL
    return QualType.HARD_SKILL


def parse_job(text: str, title: str = "") -> Job:
    section: QualKind | None = None
    quals: list[Qualification] = []
    first_heading = ""
    for line in text.splitlines():
        heading = _heading(line)
        if heading is not None:
            first_heading = first_heading or heading
            if _PREFERRED.search(heading):
                section = QualKind.PREFERRED
            elif _REQUIRED.search(heading):
                section = QualKind.REQUIRED
            else:
                section = None
            continue
        bullet = _BULLET.match(line)
        if bullet and section is not None:
            item = bullet.group(1).strip()
            quals.append(Qualification(text=item, kind=section, qtype=classify(item)))
    return Job(title=title or first_heading or "Untitled job", text=text, qualifications=quals)
