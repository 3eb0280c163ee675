"""Identity placeholders: what a generator model sees instead of the candidate's identity.

Each identity slot of a template (name, pronouns, email, phone, college...) is
sent as a stable token such as `[[FULL_NAME]]` or `[[PRONOUN_SUBJECT_2]]`. The
model is told to keep every token; from its answer we rebuild a `Template` whose
slots sit where the tokens now are, each keeping its `original`, so filling the
rebuilt template with a persona works exactly as for the source. A side effect we
want: the real identity never reaches the generator model.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from resume_auditor.domain.identity import Slot, SlotKind, Template

TOKEN = re.compile(r"\[\[([A-Z][A-Z0-9_]*)\]\]")
# What the name slot of a synthetic base holds before a persona fills it: no real
# person, and no name that signals a group.
SYNTHETIC_NAME = "Candidate Name"


@dataclass(frozen=True)
class Placeholdered:
    """A template's text with tokens for its slots, and the slot behind each token."""

    text: str
    slots: dict[str, Slot]  # token ("[[FULL_NAME]]") -> the source slot

    @property
    def tokens(self) -> list[str]:
        return list(self.slots)


@dataclass(frozen=True)
class Rebuilt:
    template: Template
    missing: tuple[str, ...]  # tokens the answer dropped
    repeated: tuple[str, ...]  # tokens it wrote more than once
    unknown: tuple[str, ...]  # tokens it made up

    @property
    def ok(self) -> bool:
        return not (self.missing or self.repeated or self.unknown)


def to_placeholders(template: Template) -> Placeholdered:
    """The text with each slot replaced by its token (numbered when a kind repeats)."""
    per_kind = Counter(s.kind for s in template.slots)
    seen: Counter[str] = Counter()
    pieces: list[str] = []
    mapping: dict[str, Slot] = {}
    pos = 0
    for slot in template.slots:
        name = slot.kind.value.upper()
        seen[name] += 1
        token = f"[[{name}_{seen[name]}]]" if per_kind[slot.kind] > 1 else f"[[{name}]]"
        pieces.append(template.text[pos : slot.start])
        pieces.append(token)
        mapping[token] = slot
        pos = slot.end
    pieces.append(template.text[pos:])
    return Placeholdered("".join(pieces), mapping)


def synthetic_source(name: str = SYNTHETIC_NAME) -> Placeholdered:
    """The 'source' of a resume written from the job alone: no text, one name token.

    The generator writes `[[FULL_NAME]]` once; `from_placeholders` turns it into a
    name slot whose original is `name`, so personas fill it like a real resume's.
    """
    return Placeholdered("", {"[[FULL_NAME]]": Slot(0, len(name), SlotKind.FULL_NAME, name)})


def from_placeholders(text: str, source: Placeholdered) -> Rebuilt:
    """A template from a generated text: every known token becomes its slot again.

    A token written twice gives two slots of the same kind (both fill correctly),
    but the answer is reported as not preserving the identity exactly; an unknown
    token stays in the text as written and is reported.
    """
    counts = Counter(m.group(0) for m in TOKEN.finditer(text))
    pieces: list[str] = []
    slots: list[Slot] = []
    pos = 0
    length = 0
    for match in TOKEN.finditer(text):
        token = match.group(0)
        slot = source.slots.get(token)
        if slot is None:
            continue
        before = text[pos : match.start()]
        pieces.append(before)
        length += len(before)
        slots.append(
            Slot(length, length + len(slot.original), slot.kind, slot.original, slot.confidence)
        )
        pieces.append(slot.original)
        length += len(slot.original)
        pos = match.end()
    pieces.append(text[pos:])
    return Rebuilt(
        template=Template("".join(pieces), slots),
        missing=tuple(t for t in source.slots if counts[t] == 0),
        repeated=tuple(t for t in source.slots if counts[t] > 1),
        unknown=tuple(sorted(t for t in counts if t not in source.slots)),
    )
