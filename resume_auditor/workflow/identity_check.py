"""The identity check before a run: which real details of each resume the copies still carry.

The test copies are what the model is sent. For every resume, each identity detail the
finder marked (name, email, phone, address, city, links, personal details, college) is
looked for in the copies built from it; one still there is listed by resume, with why
(the study keeps real contact details, or it also stands where the finder did not mark
it). A detail that also names something else in the resume (the city of an employer,
a college that was also an employer) counts only when a copy holds it as often as the
source does: the candidate's own mention was not replaced. By default the list is
empty; the plan shows it before any request is sent.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from resume_auditor.documents.names import is_first_name, is_surname, name_in_doubt
from resume_auditor.domain.identity import SLOT_LABELS, SlotKind
from resume_auditor.store.resultfile import ResultFile

logger = logging.getLogger(__name__)

# What identifies a person; pronouns and titles are replaced but say nothing on their own.
_CHECKED = frozenset(
    {
        SlotKind.FULL_NAME,
        SlotKind.LAST_NAME,
        SlotKind.EMAIL,
        SlotKind.PHONE,
        SlotKind.ADDRESS,
        SlotKind.LOCATION,
        SlotKind.LINK,
        SlotKind.PERSONAL,
        SlotKind.COLLEGE,
    }
)
_CONTACT = frozenset({SlotKind.PHONE, SlotKind.ADDRESS, SlotKind.LOCATION, SlotKind.LINK})


@dataclass
class ResumeIdentity:
    filename: str
    sent: list[tuple[str, str, str]] = field(default_factory=list)  # (label, text, why)


def _pattern(value: str) -> re.Pattern[str]:
    core = r"\s+".join(re.escape(w) for w in value.split())
    return re.compile(rf"(?<!\w){core}(?!\w)")


_NAME_BEFORE = re.compile(r"[A-Z][\w.'\-]*[ \t]$")


def _count(pattern: re.Pattern[str], text: str, alone: bool) -> int:
    """Places of `pattern` in `text`; with `alone`, not where a capitalised word just
    before makes it part of a longer name ("State University" in "Portland State
    University", a stand-in college)."""
    return sum(
        1
        for m in pattern.finditer(text)
        if not (alone and _NAME_BEFORE.search(text, max(0, m.start() - 40), m.start()))
    )


def real_details_sent(result: ResultFile, keep_real_contact: bool) -> list[ResumeIdentity]:
    """Per resume with test copies, the marked details that the copies still carry."""
    by_resume: dict[int, list[str]] = {}
    for v in result.variants():
        by_resume.setdefault(v.resume_id, []).append(v.text)
    out: list[ResumeIdentity] = []
    for record in result.resumes():
        copies = by_resume.get(record.id)
        if record.status == "error" or not copies:
            continue
        found = ResumeIdentity(record.filename)
        template = result.resume_template(record.id) or {"slots": []}
        seen: set[tuple[SlotKind, str]] = set()
        for slot in template["slots"]:
            kind = SlotKind(slot["kind"])
            value = record.text[int(slot["start"]) : int(slot["end"])].strip()
            if kind not in _CHECKED or len(value) < 3 or (kind, value) in seen:
                continue
            seen.add((kind, value))
            pattern = _pattern(value)
            # not inside a stand-in's own name, unless the source's own mention is
            alone = kind is SlotKind.COLLEGE and _count(pattern, record.text, True) == _count(
                pattern, record.text, False
            )
            in_source = _count(pattern, record.text, alone)
            if not any(_count(pattern, text, alone) >= in_source for text in copies):
                continue
            why = (
                "the study keeps real contact details"
                if keep_real_contact and kind in _CONTACT
                else "it also stands where it was not marked"
            )
            found.sent.append((SLOT_LABELS[kind], value, why))
        found.sent += _unmarked(record.text, template["slots"], copies)
        out.append(found)
    return out


def _unmarked(
    text: str, slots: list[dict[str, Any]], copies: list[str]
) -> list[tuple[str, str, str]]:
    """What may be the candidate's name although nothing marked it: a name-shaped line
    at the top when no name was found, and a word of the email's local part ("jane" of
    jane.roe@...) still standing capitalised in every copy."""
    out: list[tuple[str, str, str]] = []
    marked_name = any(SlotKind(s["kind"]) is SlotKind.FULL_NAME for s in slots)
    doubt = None if marked_name else name_in_doubt(text)
    if doubt and "@" not in doubt and all(_pattern(doubt).search(c) for c in copies):
        out.append(("possible name (not marked)", doubt, "mark it on the Resumes page"))
    emails = sorted(
        (int(s["start"]), int(s["end"])) for s in slots if SlotKind(s["kind"]) is SlotKind.EMAIL
    )
    if emails:  # the first is the candidate's; later ones are often referees'
        start, end = emails[0]
        for word in re.split(r"[._\-+\d]+", text[start:end].split("@")[0]):
            if len(word) < 3 or not (is_first_name(word) or is_surname(word)):
                continue
            capital = re.compile(rf"(?<!\w){re.escape(word.capitalize())}(?!\w)")
            if all(capital.search(c) for c in copies) and capital.search(text):
                out.append(
                    ("possible name (not marked)", word.capitalize(), "it is in the email too")
                )
    return list(dict.fromkeys(out))


def identity_lines(checked: list[ResumeIdentity]) -> list[str]:
    """The check in sentences, one per resume that still sends something."""
    if not checked:
        return []
    leaking = [r for r in checked if r.sent]
    if not leaking:
        return [
            f"Identity check: no real detail the app found in the {len(checked)} resume(s) "
            "is in their test copies."
        ]
    out = [
        f"Identity check: {len(leaking)} of {len(checked)} resume(s) still send real details "
        "to the model:"
    ]
    for r in leaking:
        details = "; ".join(f"{label} {text!r} ({why})" for label, text, why in r.sent)
        out.append(f"  {r.filename}: {details}")
    return out
