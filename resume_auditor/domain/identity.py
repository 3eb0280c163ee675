"""Identity slots: where a candidate's identity sits in a resume, and how to refill it.

A `Template` is the clean text of a resume plus a list of non-overlapping `Slot`
spans (the name, pronouns, title, email...). Filling every slot with its original
value gives back the clean text exactly; filling it with a `Persona` gives a
variant that differs from the original only inside the slots.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum


class SlotKind(StrEnum):
    FULL_NAME = "full_name"
    FIRST_NAME = "first_name"
    LAST_NAME = "last_name"
    EMAIL = "email"
    PRONOUN_SUBJECT = "pronoun_subject"  # he / she
    PRONOUN_OBJECT = "pronoun_object"  # him / her
    PRONOUN_DETERMINER = "pronoun_determiner"  # his / her (before a noun)
    PRONOUN_POSSESSIVE = "pronoun_possessive"  # his / hers (stands alone)
    PRONOUN_REFLEXIVE = "pronoun_reflexive"  # himself / herself
    TITLE = "title"  # Mr. / Ms.


PRONOUNS: dict[str, dict[SlotKind, str]] = {
    "woman": {
        SlotKind.PRONOUN_SUBJECT: "she",
        SlotKind.PRONOUN_OBJECT: "her",
        SlotKind.PRONOUN_DETERMINER: "her",
        SlotKind.PRONOUN_POSSESSIVE: "hers",
        SlotKind.PRONOUN_REFLEXIVE: "herself",
        SlotKind.TITLE: "Ms.",
    },
    "man": {
        SlotKind.PRONOUN_SUBJECT: "he",
        SlotKind.PRONOUN_OBJECT: "him",
        SlotKind.PRONOUN_DETERMINER: "his",
        SlotKind.PRONOUN_POSSESSIVE: "his",
        SlotKind.PRONOUN_REFLEXIVE: "himself",
        SlotKind.TITLE: "Mr.",
    },
}


@dataclass(frozen=True)
class Persona:
    """The identity a variant is filled with."""

    first: str
    last: str
    gender: str  # "woman" | "man"
    group: str | None = None  # group key, e.g. "black_woman"
    email_domain: str = "example.com"

    @property
    def full_name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def email(self) -> str:
        local = f"{self.first}.{self.last}".lower().replace(" ", "").replace("'", "")
        return f"{local}@{self.email_domain}"

    def value(self, kind: SlotKind) -> str | None:
        """The replacement for a slot, or None to keep the original text."""
        if kind is SlotKind.FULL_NAME:
            return self.full_name
        if kind is SlotKind.FIRST_NAME:
            return self.first
        if kind is SlotKind.LAST_NAME:
            return self.last
        if kind is SlotKind.EMAIL:
            return self.email
        table = PRONOUNS.get(self.gender, {})
        return table.get(kind)


@dataclass(frozen=True)
class Slot:
    start: int
    end: int
    kind: SlotKind
    original: str
    confidence: float = 1.0

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end:
            raise ValueError(f"bad slot span {self.start}..{self.end}")


def match_case(original: str, value: str) -> str:
    """Give `value` the letter case of `original` (ALL CAPS, Capitalised, lower)."""
    letters = [c for c in original if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return value.upper()
    if original[:1].isupper():
        return value[:1].upper() + value[1:]
    if letters and all(c.islower() for c in letters):
        return value.lower()
    return value


@dataclass
class Template:
    text: str
    slots: list[Slot] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.slots = sorted(self.slots, key=lambda s: s.start)
        prev_end = 0
        for slot in self.slots:
            if slot.start < prev_end:
                raise ValueError(f"slots overlap at {slot.start}")
            if slot.end > len(self.text):
                raise ValueError("slot runs past the end of the text")
            if self.text[slot.start : slot.end] != slot.original:
                raise ValueError(
                    f"slot {slot.kind} at {slot.start} does not match the text "
                    f"({self.text[slot.start : slot.end]!r} != {slot.original!r})"
                )
            prev_end = slot.end

    def fill(self, persona: Persona | None) -> str:
        """The text with every slot filled from `persona` (None: the original)."""
        out: list[str] = []
        pos = 0
        for slot in self.slots:
            out.append(self.text[pos : slot.start])
            value = persona.value(slot.kind) if persona is not None else None
            out.append(slot.original if value is None else match_case(slot.original, value))
            pos = slot.end
        out.append(self.text[pos:])
        return "".join(out)

    def with_slots(self, slots: Iterable[Slot]) -> Template:
        return replace(self, slots=list(slots))

    def kinds(self) -> set[SlotKind]:
        return {s.kind for s in self.slots}

    def original_name(self) -> str | None:
        for slot in self.slots:
            if slot.kind is SlotKind.FULL_NAME:
                return slot.original
        return None
