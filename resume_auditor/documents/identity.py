"""Find a candidate's identity in resume text and turn it into slots.

Heuristics, offline and fast. In order of precedence (an earlier finder's span
wins an overlap): email, links, phone; labelled personal details (birth date,
a parent's name, nationality, ID numbers); street address; the candidate's name
and every mention of it (names.py); colleges attended (colleges.py); the city
in the contact block; titles before the candidate's name; pronouns with their
grammatical role. The result is a `Template` whose slots can be refilled with
another persona; filling it with no persona gives the text back exactly.

An optional pass through a language model (llm_identity.py) can add slots the
heuristics missed; explicit demographic mentions are findings, never slots
(demographics.py).
"""

from __future__ import annotations

import re

from resume_auditor.documents import colleges, contact
from resume_auditor.documents.names import Name, find_name, mentions
from resume_auditor.documents.sections import CONTACT, find_sections
from resume_auditor.domain.identity import Slot, SlotKind, Template

__all__ = ["find_identity", "find_name", "header_end"]

_PRONOUN = re.compile(r"\b(she|he|her|him|his|hers|herself|himself)\b", re.IGNORECASE)
_TITLE = re.compile(r"(?<![\w.])(Mr|Ms|Mrs|Miss|Mx|Dr|Prof)\b\.?(?=[ \t]+([^\W\d_][\w'\-]*))")
# Words after "her"/"his" that show it is not a determiner ("gave her a", "her and").
_NOT_NOUN_AFTER = frozenset(
    """
    a an the and or to for with as at by from that this into about after before while when
    if but so is was be were are
    """.split()  # noqa: SIM905  (a word list reads better as text)
)
_SIMPLE = {
    "she": SlotKind.PRONOUN_SUBJECT,
    "he": SlotKind.PRONOUN_SUBJECT,
    "him": SlotKind.PRONOUN_OBJECT,
    "hers": SlotKind.PRONOUN_POSSESSIVE,
    "herself": SlotKind.PRONOUN_REFLEXIVE,
    "himself": SlotKind.PRONOUN_REFLEXIVE,
}
_PART_KIND = {
    "full": SlotKind.FULL_NAME,
    "first": SlotKind.FIRST_NAME,
    "last": SlotKind.LAST_NAME,
    "first_initial": SlotKind.FIRST_INITIAL,
    "initials": SlotKind.INITIALS,
}


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


def header_end(text: str) -> int:
    """Where the contact block at the top ends: the first section heading (or ~8 lines)."""
    for section in find_sections(text):
        if section.start > 0:  # a heading on the first line is the name in capitals
            return section.start
    lines = text.split("\n")
    return min(len(text), sum(len(line) + 1 for line in lines[:8]))


def _contact_blocks(text: str) -> list[tuple[int, int]]:
    """The header block and any "Contact" section (a sidebar often holds the details)."""
    blocks = [(0, header_end(text))]
    for section in find_sections(text):
        if CONTACT.search(section.heading):
            blocks.append((section.start, section.end))
    return blocks


class _Slots:
    """Slots being collected; a span that overlaps one already taken is dropped."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.slots: list[Slot] = []
        self.taken: list[tuple[int, int]] = []

    def free(self, start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in self.taken)

    def add(self, start: int, end: int, kind: SlotKind, confidence: float) -> None:
        if start < end and self.free(start, end):
            self.taken.append((start, end))
            self.slots.append(Slot(start, end, kind, self.text[start:end], confidence))

    def add_address(self, start: int, end: int, confidence: float) -> None:
        """An address; one that overlaps addresses already found (the two lines of an
        address broken by a narrow column, found apart) becomes one with them."""
        overlapping = [s for s in self.slots if s.start < end and s.end > start]
        if overlapping and all(s.kind is SlotKind.ADDRESS for s in overlapping):
            for s in overlapping:
                self.slots.remove(s)
                self.taken.remove((s.start, s.end))
            start = min(start, *(s.start for s in overlapping))
            end = max(end, *(s.end for s in overlapping))
        self.add(start, end, SlotKind.ADDRESS, confidence)


def _titles(text: str, name: Name | None, slots: _Slots) -> None:
    own = {t.lower().rstrip(".") for t in name.tokens} if name else set()
    for m in _TITLE.finditer(text):
        following = m.group(2).lower().rstrip(".")
        if name is None:
            slots.add(m.start(), m.end(), SlotKind.TITLE, 0.5)
        elif following in own:
            slots.add(m.start(), m.end(), SlotKind.TITLE, 0.95)


def find_identity(text: str) -> Template:
    """Template the identity parts of `text`; filling with no persona gives `text` back."""
    slots = _Slots(text)
    for start, end, conf in contact.find_emails(text):
        slots.add(start, end, SlotKind.EMAIL, conf)
    for start, end, conf in contact.find_links(text):
        slots.add(start, end, SlotKind.LINK, conf)
    for start, end, conf in contact.find_labelled_handles(text):
        slots.add(start, end, SlotKind.LINK, conf)
    for start, end, conf in contact.find_phones(text):
        slots.add(start, end, SlotKind.PHONE, conf)
    for start, end, conf in contact.find_personal_details(text):
        slots.add(start, end, SlotKind.PERSONAL, conf)
    for start, end, conf, is_address in contact.find_cjk_fields(text):
        slots.add(start, end, SlotKind.ADDRESS if is_address else SlotKind.PERSONAL, conf)
    blocks = _contact_blocks(text)
    for start, end, conf, street in contact.find_labelled_addresses(text):
        if street:
            slots.add_address(
                contact.address_start(text, start), contact.extend_address(text, start, end), conf
            )
        elif any(lo <= start < hi for lo, hi in blocks):  # a job's "Location:" is not theirs
            slots.add(start, end, SlotKind.LOCATION, conf)
    for lo, hi in _contact_blocks(text):  # a whole address line before its street part
        for start, end, conf in contact.find_header_addresses(text, hi, lo):
            slots.add_address(
                contact.address_start(text, start), contact.extend_address(text, start, end), conf
            )
    for start, end, conf in contact.find_street_addresses(text, blocks):
        slots.add_address(
            contact.address_start(text, start), contact.extend_address(text, start, end), conf
        )
    name = find_name(text)
    if name is not None:
        for mention in mentions(text, name):
            confidence = min(mention.confidence, name.confidence)
            slots.add(mention.start, mention.end, _PART_KIND[mention.part], confidence)
    for start, end, conf in colleges.find_colleges(text):
        slots.add(start, end, SlotKind.COLLEGE, conf)
    for lo, hi in _contact_blocks(text):
        for start, end, conf in contact.find_locations(text, hi, lo):
            slots.add(start, end, SlotKind.LOCATION, conf)
        for start, end, conf in contact.find_handles(text, hi, lo):
            slots.add(start, end, SlotKind.LINK, conf)
        for start, end, conf in contact.find_header_numbers(text, hi, lo):
            slots.add(start, end, SlotKind.PHONE, conf)
    _titles(text, name, slots)
    for m in _PRONOUN.finditer(text):
        slots.add(m.start(1), m.end(1), _pronoun_kind(text, m), 0.85)
    return Template(text=text, slots=slots.slots)
