"""Where a resume's sections start and end, from its heading lines.

A heading is a Markdown heading, a short ALL-CAPS line, a short line ending in a
colon, or a short line that is one of the usual section names ("Education",
"Work Experience"). Identity finding uses it to tell the college the candidate
attended (Education) from a university they worked for (Experience); the
resume check uses it to see whether a text looks like a resume at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_KNOWN_HEADINGS = frozenset(
    [
        "summary", "profile", "objective", "about", "about me", "professional summary",
        "career summary", "experience", "work experience", "professional experience",
        "employment", "employment history", "work history", "career history",
        "relevant experience", "internships", "research experience", "education",
        "academic background", "education and training", "academics", "degrees", "skills",
        "technical skills", "core skills", "key skills", "core competencies", "competencies",
        "tools", "projects", "selected projects", "certifications", "certificates", "licenses",
        "licenses and certifications", "awards", "honors", "honors and awards", "achievements",
        "activities", "leadership", "volunteer", "volunteering", "volunteer experience",
        "community involvement", "publications", "presentations", "references", "languages",
        "interests", "hobbies", "contact", "contact information", "affiliations",
        "memberships", "organizations", "professional affiliations", "coursework",
        "relevant coursework", "training", "courses", "extracurricular activities",
        "additional information",
    ]
)  # fmt: skip
_MD = re.compile(r"^\s*#{1,6}\s+(.*\S)\s*$")
EDUCATION = re.compile(r"\b(education|academic|degrees?|schooling)\b", re.IGNORECASE)
CONTACT = re.compile(r"\b(contact|personal (?:details|information))\b", re.IGNORECASE)
EXPERIENCE = re.compile(r"\b(experience|employment|work|career|internships?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Section:
    heading: str
    start: int  # where the heading line starts
    body_start: int  # just after the heading line
    end: int  # where the next heading starts (or the end of the text)


def _known(words: str) -> bool:
    key = re.sub(r"[^a-z& ]", "", words.lower()).replace("&", "and")
    return " ".join(key.split()) in _KNOWN_HEADINGS


def heading_of(line: str) -> str | None:
    """The heading's text if `line` looks like a section heading, else None."""
    md = _MD.match(line)
    if md:
        return md.group(1).strip("*_: ")
    stripped = line.strip().strip("*_")
    if not stripped or len(stripped) > 48 or stripped.startswith(("-", "\u2022")):
        return None
    bare = stripped.rstrip(":").strip()
    if not any(c.isalpha() for c in bare):
        return None
    if _known(bare):
        return bare
    words = bare.split()
    if len(words) <= 5 and bare.upper() == bare and not re.search(r"[@\d|/]", bare):
        return bare
    if stripped.endswith(":") and len(words) <= 5:
        return bare
    return None


def find_sections(text: str) -> list[Section]:
    heads: list[tuple[int, int, str]] = []
    pos = 0
    for line in text.split("\n"):
        name = heading_of(line)
        if name is not None:
            heads.append((pos, pos + len(line) + 1, name))
        pos += len(line) + 1
    out = []
    for i, (start, body, name) in enumerate(heads):
        end = heads[i + 1][0] if i + 1 < len(heads) else len(text)
        out.append(Section(name, start, min(body, len(text)), end))
    return out


def section_at(sections: list[Section], offset: int) -> Section | None:
    for section in sections:
        if section.start <= offset < section.end:
            return section
    return None
