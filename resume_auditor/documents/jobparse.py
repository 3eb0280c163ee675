"""Read required and preferred qualifications out of a job description, offline.

Headings such as "Requirements", "Minimum qualifications", "Basic", "You have",
"Must have" open a required list; "Preferred", "Nice to have", "Bonus", "Pluses"
a preferred one; any other heading ("Responsibilities", "Benefits") closes the
list. A heading is a Markdown heading, a short line ending in a colon, a short
ALL-CAPS line, or a short line that is one of those phrases (Word and PDF
headings carry no markup). One qualification per bullet; a wrapped bullet's
continuation lines are joined back; a section without bullets takes one
qualification per line. An item that says "(preferred)" or "is a plus" inside a
required list is preferred. The user edits the result; an LLM extraction path is
in llm_job.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from resume_auditor.domain.job import Job, Qualification, QualKind, QualType

_REQUIRED = re.compile(
    r"\b(requirements?|required|minimum|basic|must[- ]haves?|must have|you have|you bring|"
    r"what you bring|what you(?:'ll| will)? need|what we need|what we(?:'re| are) looking for|"
    r"you should have|you(?:'ll| will) have|"
    r"who you are|qualifications|skills and experience|about you|essential)\b",
    re.IGNORECASE,
)
_PREFERRED = re.compile(
    r"\b(preferred|nice[- ]to[- ]haves?|bonus|pluses|plus|desired|desirable|ideally|"
    r"extra credit|even better|great to have|good to have|assets?)\b",
    re.IGNORECASE,
)
_OTHER = re.compile(
    r"\b(responsibilities|what you(?:'ll| will) do|the role|about (?:us|the (?:team|company|"
    r"role))|who we are|benefits|perks|compensation|salary|pay|how to apply|our (?:team|"
    r"company|values|mission)|what we offer|why (?:join|work)|equal opportunity|location|"
    r"schedule|day to day|duties|overview|summary)\b",
    re.IGNORECASE,
)
_BULLET = re.compile(
    r"^\s*(?:[-*+\u2022\u25cf\u25aa\u25e6\u2013\u2014]|\d{1,2}[.)]|[a-z][.)])\s+(.*\S)\s*$"
)
_HEADING_MD = re.compile(r"^\s*#{1,6}\s+(.*\S)\s*$")
_INLINE = re.compile(r"^\s*\**([A-Za-z][A-Za-z' /&\-]{2,40}?)\**\s*:\s*(\S.*)$")
_MARKED_PREFERRED = re.compile(
    r"\((?:preferred|a plus|bonus|nice to have|desired|optional)\)|\b(?:is|are|would be) an? "
    r"(?:plus|bonus|advantage)\b|\b(?:a plus|nice to have|preferred)\.?\s*$",
    re.IGNORECASE,
)
_NUMBER_WORDS = r"one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty"


def _section_of(heading: str) -> QualKind | None | str:
    """REQUIRED / PREFERRED, None for another section, "" for an unknown heading."""
    if _PREFERRED.search(heading):
        return QualKind.PREFERRED
    if _REQUIRED.search(heading):
        return QualKind.REQUIRED
    if _OTHER.search(heading):
        return None
    return ""


def _heading(line: str) -> str | None:
    """The heading text if `line` looks like a heading, else None."""
    md = _HEADING_MD.match(line)
    if md:
        return md.group(1).strip("*_: ")
    stripped = line.strip()
    if not stripped or _BULLET.match(line):
        return None
    bare = stripped.strip("*_").strip()
    if bare.endswith(":") and len(bare) <= 60:
        return bare.rstrip(":").strip()
    if len(bare) <= 40 and bare.upper() == bare and any(c.isalpha() for c in bare):
        return bare
    bold = stripped.startswith("**") and stripped.endswith("**")
    short = len(bare.split()) <= 8 and not bare.endswith((".", ";", ","))
    if short and (bold or _section_of(bare) != ""):
        return bare
    return None


def classify(text: str) -> QualType:
    """A first guess at what a qualification is about; the user can change it."""
    low = text.lower()
    if re.search(
        rf"\b(?:\d+|{_NUMBER_WORDS})\s*(?:\+|-\s*\d+|to\s+\d+)?\s*(?:or more\s+)?\+?\s*"
        rf"(?:years?|yrs)\b",
        low,
    ):
        return QualType.EXPERIENCE
    if re.search(
        r"\b(bachelor\w*|master\w*|phd|ph\.d|doctorate|degree|b\.s|b\.a|m\.s|m\.a|bs|ba|ms|"
        r"mba|associate'?s|diploma|ged|high school|graduate|coursework|majoring)\b",
        low,
    ):
        return QualType.EDUCATION
    if re.search(r"\b(certif\w*|licen[cs]\w*|credential\w*|accredit\w*)", low) or re.search(
        r"\b(CPA|PMP|CFA|CISSP|CISA|CCNA|CDL|PHR|SHRM-CP|RN|LPN|CSM|ITIL)\b", text
    ):
        return QualType.CERTIFICATION
    if re.search(
        r"\b(communicat\w*|collaborat\w*|teamwork|team player|curio\w*|passion\w*|"
        r"detail[- ]oriented|attention to detail|self[- ]starter|motivated|interpersonal|"
        r"leadership|adaptab\w*|problem[- ]solving|organi[sz]ed|organi[sz]ational|empathy|"
        r"ownership|presentation skills|time management|critical thinking|creativ\w*|"
        r"independently|fast[- ]paced|multi-?task\w*|flexib\w*|work ethic|customer[- ]focused|"
        r"stakeholder management|written and verbal|verbal and written|influenc\w*|negotiat\w*|"
        r"mentor\w*|prioriti[sz]\w*)\b",
        low,
    ):
        return QualType.SOFT_SKILL
    return QualType.HARD_SKILL


def _item_kind(item: str, section: QualKind) -> QualKind:
    if section is QualKind.REQUIRED and _MARKED_PREFERRED.search(item):
        return QualKind.PREFERRED
    return section


@dataclass
class _Item:
    kind: QualKind
    text: str
    bullet: bool


def parse_job(text: str, title: str = "") -> Job:
    section: QualKind | None = None
    first_heading = ""
    items: list[_Item] = []
    pending: list[_Item] = []  # the open section's items

    def close() -> None:
        # a section with bullets keeps only its bullets (plain lines are prose)
        bullets = [i for i in pending if i.bullet]
        items.extend(bullets if bullets else pending)
        pending.clear()

    for line in text.splitlines():
        inline = _INLINE.match(line)
        inline_kind = _section_of(inline.group(1)) if inline else ""
        if inline and isinstance(inline_kind, QualKind):
            close()
            section = inline_kind
            first_heading = first_heading or inline.group(1)
            for part in re.split(r";\s*", inline.group(2)):
                if part.strip():
                    pending.append(_Item(_item_kind(part, section), part.strip(), True))
            continue
        heading = _heading(line)
        lead_in = line.strip().endswith(":") and len(line.split()) > 3
        if heading is not None and section is not None and lead_in and _section_of(heading) == "":
            continue  # "We expect the following:" introduces the list, it does not end it
        if heading is not None:
            close()
            first_heading = first_heading or heading
            found = _section_of(heading)
            section = found if isinstance(found, QualKind) else None
            continue
        if section is None:
            continue
        bullet = _BULLET.match(line)
        stripped = line.strip()
        if bullet:
            item = bullet.group(1).strip()
            pending.append(_Item(_item_kind(item, section), item, True))
        elif stripped and pending and stripped[:1].islower():
            last = pending[-1]  # a wrapped bullet continues
            last.text = f"{last.text} {stripped}"
            last.kind = _item_kind(last.text, section)
        elif stripped and len(stripped) <= 300 and not stripped.endswith(":"):
            pending.append(_Item(_item_kind(stripped, section), stripped, False))
    close()
    quals = []
    for entry in items:
        clean = entry.text.strip().rstrip(";").strip()
        if clean:
            quals.append(Qualification(text=clean, kind=entry.kind, qtype=classify(clean)))
    return Job(
        title=title or _title_line(text) or first_heading or "Untitled job",
        text=text,
        qualifications=quals,
    )


def _title_line(text: str) -> str:
    """The first line, if it is short enough to be the job's title."""
    for line in text.splitlines():
        bare = line.strip().lstrip("#").strip().strip("*_").strip()
        if not bare:
            continue
        short = len(bare) <= 80 and len(bare.split()) <= 10
        if short and not bare.endswith((".", ":")) and _section_of(bare) == "":
            return bare
        return ""
    return ""
