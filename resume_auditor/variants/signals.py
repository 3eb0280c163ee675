"""Explicit demographic signals: awards, organisations and activities that name a group.

Castleman et al. (2025), Appendix F: the job title is mapped to a professional
field, and a template for the candidate's group is filled with the field and the
title; FAIRE (Wen et al. 2025, Appendix C) perturbs the experience the same way.
The lines go into the resume's awards/activities section, or a new one at the
end if it has none. The inserted block is recorded as a span, so the design
check knows it is the intended difference.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache

from resume_auditor.domain.groups import Group
from resume_auditor.resources import resource
from resume_auditor.variants.fills import Filled, Span

SIGNAL_KINDS = ("organization", "award", "experience")
_SECTION = re.compile(
    r"^[ \t]*(?:#+[ \t]*)?(awards?|honou?rs|activities|leadership|affiliations|"
    r"organi[sz]ations|volunteer\w*|extracurricular\w*|community\w*)\b[^\n]{0,40}$",
    re.IGNORECASE | re.MULTILINE,
)
_BULLET = re.compile(r"^[ \t]*([-*•·▪‣◦]|\d+\.)[ \t]+")


@dataclass(frozen=True)
class SignalTable:
    default_field: str
    fields: tuple[tuple[re.Pattern[str], str], ...]
    groups: dict[str, dict[str, str]]


@cache
def signal_table() -> SignalTable:
    data = tomllib.loads(resource("signals", "signals.toml").read_text(encoding="utf-8"))
    fields = tuple(
        (re.compile(f["pattern"], re.IGNORECASE), str(f["field"])) for f in data["fields"]
    )
    groups = {k: {kind: str(v[kind]) for kind in SIGNAL_KINDS} for k, v in data["groups"].items()}
    return SignalTable(str(data["default_field"]), fields, groups)


def field_for(job_title: str) -> str:
    """The professional field of a job title ("Software Engineer" -> "Computer Science")."""
    table = signal_table()
    for pattern, name in table.fields:
        if pattern.search(job_title):
            return name
    return table.default_field


def signal_lines(group: Group, job_title: str, kinds: tuple[str, ...]) -> list[str]:
    """The signal lines of `kinds` for a group, filled for the job."""
    templates = signal_table().groups.get(group.key)
    if templates is None:
        raise ValueError(f"no explicit signals for {group.label} in resources/signals")
    title = job_title.strip() or "Professional"
    values = {"field": field_for(job_title), "job_title": title}
    return [templates[k].format(**values) for k in kinds]


def insert_signal(filled: Filled, lines: list[str], section_title: str) -> Filled:
    """`filled` with `lines` added under its awards/activities heading (or a new one).

    The insertion point never falls inside an identity span; every span after it
    moves along, and the inserted block becomes a "signal" span.
    """
    text = filled.text
    match = _SECTION.search(text)
    if match:
        after = match.end()
        nxt = text[after + 1 : text.find("\n", after + 1) if "\n" in text[after + 1 :] else None]
        bullet = _BULLET.match(nxt)
        prefix = bullet.group(0) if bullet else "- "
        pos = after
        block = "".join(f"\n{prefix}{line}" for line in lines)
    else:
        pos = len(text.rstrip("\n"))
        block = f"\n\n{_heading(text, section_title)}" + "".join(f"\n- {line}" for line in lines)
    if any(s.start < pos < s.end for s in filled.spans):
        raise ValueError("a signal cannot go inside an identity slot")
    shift = len(block)
    spans = [
        s if s.end <= pos else Span(s.start + shift, s.end + shift, s.what) for s in filled.spans
    ]
    spans.append(Span(pos, pos + shift, "signal"))
    spans.sort(key=lambda s: s.start)
    return Filled(text[:pos] + block + text[pos:], tuple(spans))


def _heading(text: str, title: str) -> str:
    """`title` in the resume's own heading style (Markdown "## ", ALL CAPS or as is)."""
    if re.search(r"^##[ \t]", text, re.MULTILINE):
        return f"## {title}"
    known = re.findall(
        r"^[ \t]*(EXPERIENCE|EDUCATION|SKILLS|SUMMARY|WORK HISTORY)[ \t]*$", text, re.M
    )
    return title.upper() if known else title
