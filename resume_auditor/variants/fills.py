"""Demographic fills: turn an identity template into the text one test case shows.

A fill replaces every identity slot and records *where* in the output it wrote
(`Filled.spans`), so the design check (`designcheck.py`) can prove that two
variants of one text differ only there.

Privacy: a real resume's contact details must not reach the model under test.
Unless the study asks to keep them (`keep_real_contact`), every fill writes
synthetic ones: a phone number from the range reserved for fiction (555-01xx),
a neutral fictional address and city, an example.com email, and links whose
handle is the persona's and whose personal sites live under example.com. The
college is always replaced (the caller passes one from the neutral list).

A resume with no name found (anonymised postings print none; a heading is not
a name) would give name variants that are the same text. So when the template
has no name slot, every fill starts with a name line of its own: the persona's
name, or the placeholder when blinded (`needs_name_line`; the resume's note
says so when it is added, workflow/ingest.py). The line is an identity span
like any name.

Blinded fills (D2's identity-removed condition, D4's "original") write a
neutral placeholder for the name and they/them pronouns, with the verb after a
subject pronoun put in agreement ("she leads" -> "they lead").
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, replace

from resume_auditor.domain.groups import Group
from resume_auditor.domain.identity import (
    PROFILE_HOSTS,
    Persona,
    SlotKind,
    Template,
    match_case,
    slug,
)

PLACEHOLDER_NAME = "Candidate"
WITHHELD_COLLEGE = "(college withheld)"
# A birth date, a parent's name, an ID number: the same in every variant, and never real.
WITHHELD = "(withheld)"
FICTIONAL_CITY = "Springfield"
_STREETS = ("Main Street", "Oak Avenue", "Maple Street", "Park Avenue", "Cedar Lane", "Elm Street")

THEY: dict[SlotKind, str] = {
    SlotKind.PRONOUN_SUBJECT: "they",
    SlotKind.PRONOUN_OBJECT: "them",
    SlotKind.PRONOUN_DETERMINER: "their",
    SlotKind.PRONOUN_POSSESSIVE: "theirs",
    SlotKind.PRONOUN_REFLEXIVE: "themselves",
}
_IRREGULAR = {"is": "are", "was": "were", "has": "have", "does": "do", "goes": "go"}
_ADVERBS = frozenset(
    "also then now currently often regularly consistently always still later recently".split()  # noqa: SIM905
)
_NEXT_WORD = re.compile(r"(\s+)([A-Za-z]+)")


@dataclass(frozen=True)
class Span:
    """A range of a filled text that carries identity (a slot) or an inserted signal."""

    start: int
    end: int
    what: str  # a SlotKind value, or "signal"


@dataclass(frozen=True)
class Filled:
    text: str
    spans: tuple[Span, ...] = ()
    # Whose variant this is: a group key, or None for an identity-removed copy. The
    # design check refuses two identical texts of different groups.
    group: str | None = None


_NAME_KINDS = frozenset({SlotKind.FULL_NAME, SlotKind.FIRST_NAME, SlotKind.LAST_NAME})


def needs_name_line(template: Template) -> bool:
    """True if no slot holds the name: fills then add a name line at the top."""
    return bool(template.text.strip()) and not any(s.kind in _NAME_KINDS for s in template.slots)


@dataclass(frozen=True)
class Contact:
    """Synthetic contact details for one persona."""

    phone_suffix: int  # 0..99: the number is 555-01NN
    street_number: int
    street: str

    @property
    def address(self) -> str:
        return f"{self.street_number} {self.street}, {FICTIONAL_CITY}"

    def phone(self, original: str) -> str:
        """A fictional number written the way `original` writes one."""
        tail = f"01{self.phone_suffix:02d}"
        prefix = "+1 " if original.strip().startswith("+") else ""
        if "(" in original:
            return f"{prefix}(555) 555-{tail}"
        if "." in original:
            return f"{prefix}555.555.{tail}"
        if " " in original.strip() and "-" not in original:
            return f"{prefix}555 555 {tail}"
        return f"{prefix}555-555-{tail}"


def synthetic_contact(rng: random.Random) -> Contact:
    return Contact(rng.randrange(100), rng.randrange(10, 990), rng.choice(_STREETS))


def with_college(persona: Persona, college: str | None) -> Persona:
    return replace(persona, college=college)


def _fictional_link(persona: Persona, original: str) -> str:
    """The persona's handle on a profile host, or a personal site under example.com."""
    swapped = persona.link(original)
    match = re.match(r"^(https?://)?(www\.)?([^/\s]+)", original.strip(), re.IGNORECASE)
    host = (match.group(3) if match else "").lower()
    if swapped and (host in PROFILE_HOSTS or any(host.endswith("." + h) for h in PROFILE_HOSTS)):
        return swapped
    if original.startswith("@") and swapped:
        return swapped
    if swapped and re.fullmatch(r"[\w\-]+", original):  # a bare handle after "GitHub:"
        return swapped
    scheme = match.group(1) or "" if match else ""
    return f"{scheme}{slug(persona.full_name, '-')}.example.com"


_CONTRACTION = re.compile(r"(['\u2019])s\b")
_PARTICIPLES = frozenset(
    {
        "been", "led", "done", "made", "built", "won", "taught", "run", "grown", "held",
        "kept", "brought", "sought", "met", "set", "put", "got", "gotten", "shown", "known",
        "seen", "written", "driven", "taken", "given", "spent", "sent", "lent", "begun",
        "become",
    }
)  # fmt: skip


def _contraction(text: str, pos: int) -> tuple[int, str] | None:
    """ "she's led" -> "they've led", "she's a lead" -> "they're a lead" (never "they's")."""
    m = _CONTRACTION.match(text, pos)
    if not m:
        return None
    nxt = _NEXT_WORD.match(text, m.end())
    word = nxt.group(2).lower() if nxt and "\n" not in nxt.group(1) else ""
    perfect = word in _PARTICIPLES or (word.endswith("ed") and len(word) > 3)
    return m.end(), m.group(1) + ("ve" if perfect else "re")


def _agree(text: str, pos: int) -> tuple[int, str] | None:
    """After a subject pronoun turned "they": (end, replacement) for the verb at `pos`."""
    contracted = _contraction(text, pos)
    if contracted is not None:
        return contracted
    out = ""
    cursor = pos
    for _ in range(2):
        m = _NEXT_WORD.match(text, cursor)
        if not m:
            return None
        space, word = m.group(1), m.group(2)
        if "\n" in space:
            return None
        lower = word.lower()
        if lower in _ADVERBS:
            out += space + word
            cursor = m.end()
            continue
        if lower in _IRREGULAR:
            verb = _IRREGULAR[lower]
        elif lower.endswith("ies") and len(lower) > 4:
            verb = word[:-3] + "y"
        elif lower.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
            verb = word[:-2]
        elif lower.endswith("s") and not lower.endswith(("ss", "us", "is")) and len(lower) > 3:
            verb = word[:-1]
        else:
            return None
        return m.end(), out + space + match_case(word, verb)
    return None


def fill(
    template: Template,
    persona: Persona | None,
    *,
    contact: Contact | None,
    college: str | None,
    blind: bool = False,
    blind_college: bool = False,
) -> Filled:
    """The template filled with `persona` (or blinded), with spans of what was written.

    `contact=None` keeps the source's real phone, address, city and links (only
    when the study asks for it). `college=None` keeps the source's college.
    """
    blind = blind or persona is None
    text = template.text
    out: list[str] = []
    spans: list[Span] = []
    pos = 0
    length = 0
    if needs_name_line(template):
        header = PLACEHOLDER_NAME if blind or persona is None else persona.full_name
        out.append(header + "\n")
        spans.append(Span(0, len(header), SlotKind.FULL_NAME.value))
        length = len(header) + 1
    for slot in template.slots:
        if slot.start < pos:  # swallowed by a blinded title's trailing space
            continue
        between = text[pos : slot.start]
        out.append(between)
        length += len(between)
        value = _value(slot.kind, slot.original, persona, contact, college, blind, blind_college)
        end = slot.end
        if blind and slot.kind is SlotKind.TITLE:
            while end < len(text) and text[end] in " \t":
                end += 1  # "Ms. Lee" -> "Candidate", not " Candidate"
        written = slot.original if value is None else match_case(slot.original, value)
        if blind and slot.kind is SlotKind.PRONOUN_SUBJECT:
            agreed = _agree(text, end)
            if agreed is not None and not any(end <= s.start < agreed[0] for s in template.slots):
                written += agreed[1]
                end = agreed[0]
        out.append(written)
        spans.append(Span(length, length + len(written), slot.kind.value))
        length += len(written)
        pos = end
    out.append(text[pos:])
    return Filled("".join(out), tuple(spans))


def _value(
    kind: SlotKind,
    original: str,
    persona: Persona | None,
    contact: Contact | None,
    college: str | None,
    blind: bool,
    blind_college: bool,
) -> str | None:
    if kind is SlotKind.PERSONAL:
        return WITHHELD
    if kind is SlotKind.INSTRUCTION:
        return ""  # an instruction to an AI is in no copy (the study may keep it)
    if kind is SlotKind.COLLEGE:
        if blind and blind_college:
            return WITHHELD_COLLEGE
        return college
    if kind in (SlotKind.PHONE, SlotKind.ADDRESS, SlotKind.LOCATION):
        if contact is None:
            return None
        if kind is SlotKind.PHONE:
            return contact.phone(original)
        if kind is SlotKind.ADDRESS:
            return contact.address
        return FICTIONAL_CITY
    if blind or persona is None:
        return _blind_value(kind, original, contact)
    if kind is SlotKind.LINK:
        if contact is None:
            return persona.link(original)
        return _fictional_link(persona, original)
    return persona.value(kind, original)


def _blind_value(kind: SlotKind, original: str, contact: Contact | None) -> str | None:
    if kind in (SlotKind.FULL_NAME, SlotKind.FIRST_NAME, SlotKind.LAST_NAME):
        return PLACEHOLDER_NAME
    if kind is SlotKind.EMAIL:
        return "candidate@example.com"
    if kind in (SlotKind.FIRST_INITIAL, SlotKind.INITIALS):
        return "C." if "." in original else "C"
    if kind is SlotKind.LINK:
        return "example.com/candidate" if contact is not None else None
    if kind is SlotKind.TITLE:
        return ""
    return THEY.get(kind)


def persona_label(persona: Persona | None) -> str:
    if persona is None:
        return "identity removed"
    group = Group.parse(persona.group) if persona.group else None
    return f"{group.label} ({persona.full_name})" if group else persona.full_name
