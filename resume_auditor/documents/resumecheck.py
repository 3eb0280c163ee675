"""Does a text look like a resume, or like a job description? A warning, never a refusal.

People pick the wrong file: a cover letter, a job ad in the resume list, an
invoice. We count plain signals (section headings, year ranges, contact
details; for a job: requirements language) and warn when there are too few.
The user may keep the file: an unusual resume is still a resume.
"""

from __future__ import annotations

import re

from resume_auditor.documents.contact import EMAIL
from resume_auditor.documents.sections import EDUCATION, EXPERIENCE, find_sections

_YEARS = re.compile(r"\b(?:19[5-9]\d|20[0-4]\d)\b")
_PHONE_LIKE = re.compile(r"\(?\d{3}\)?[ .\-]\d{3}[ .\-]\d{4}|\+\d[\d \-]{7,}")
_RESUME_WORDS = re.compile(
    r"\b(experience|education|skills|employment|projects|university|college|bachelor|master|"
    r"degree|intern(?:ship)?|managed|led|developed|built|responsible for)\b",
    re.IGNORECASE,
)
_JOB_WORDS = re.compile(
    r"\b(requirements?|qualifications?|responsibilities|you will|you'll|we are looking|"
    r"we're looking|the role|this role|apply|benefits|salary|equal opportunity|preferred|"
    r"must have|nice to have|job description|about (?:us|the team))\b",
    re.IGNORECASE,
)
MIN_RESUME_CHARS = 200


def resume_warnings(text: str, filename: str = "This file") -> list[str]:
    """Plain warnings if `text` does not look like a resume (empty list if it does)."""
    sections = find_sections(text)
    signals = 0
    signals += any(EXPERIENCE.search(s.heading) for s in sections)
    signals += any(EDUCATION.search(s.heading) for s in sections)
    signals += len(_YEARS.findall(text)) >= 2
    signals += bool(EMAIL.search(text) or _PHONE_LIKE.search(text))
    signals += len(_RESUME_WORDS.findall(text)) >= 3
    job_like = len(_JOB_WORDS.findall(text))
    out = []
    if len("".join(text.split())) < MIN_RESUME_CHARS:
        out.append(
            f"{filename} is very short ({len(text.split())} words) for a resume. "
            "Check that the whole resume was read."
        )
    if signals <= 1:
        out.append(
            f"{filename} does not look like a resume: no Experience or Education section, "
            "few dates, no contact details. Check that it is the right file; you can keep it."
        )
    elif job_like >= 5 and job_like > len(_RESUME_WORDS.findall(text)):
        out.append(
            f"{filename} reads more like a job description than a resume. Check that it "
            "is the right file; you can keep it."
        )
    return out


def job_warnings(text: str, filename: str = "The job description") -> list[str]:
    """Plain warnings if `text` does not look like a job description."""
    if len(_JOB_WORDS.findall(text)) >= 2:
        return []
    if len(_RESUME_WORDS.findall(text)) >= 5 and (EMAIL.search(text) or _YEARS.search(text)):
        return [
            f"{filename} reads more like a resume than a job description. Check that it is "
            "the right file; you can keep it."
        ]
    return [
        f"{filename} does not mention requirements, qualifications or responsibilities. "
        "Check that it is the right text; you can keep it."
    ]
