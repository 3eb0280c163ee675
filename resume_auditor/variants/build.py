"""What every design builder shares: the output shape and the variant maker.

`VariantMaker` turns a qualification text and an identity into a stored-ready
`Variant` plus the `Filled` text the design check reads. It keeps one synthetic
contact per persona (the same person has the same phone number in every case)
and one per source resume for blinded copies, all drawn from the seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from resume_auditor.domain.case import Case, CaseSet, Variant
from resume_auditor.domain.groups import Group
from resume_auditor.domain.identity import Persona
from resume_auditor.domain.qualtext import QualText
from resume_auditor.variants.fills import PLACEHOLDER_NAME, Contact, Filled, fill, synthetic_contact
from resume_auditor.variants.signals import insert_signal, signal_lines


@dataclass
class BuiltCases:
    """Variants, pairs and sets for one design; variant ids are list indexes until stored."""

    resume_id: int
    variants: list[Variant] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    sets: list[CaseSet] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    filled: list[Filled] = field(default_factory=list)  # parallel to variants


@dataclass
class VariantMaker:
    job_title: str
    rng: random.Random
    keep_real_contact: bool = False
    _contacts: dict[str, Contact] = field(default_factory=dict)

    def contact(self, key: str) -> Contact | None:
        if self.keep_real_contact:
            return None
        if key not in self._contacts:
            self._contacts[key] = synthetic_contact(self.rng)
        return self._contacts[key]

    def make(
        self,
        out: BuiltCases,
        text: QualText,
        persona: Persona | None,
        *,
        college: str | None,
        signal: Group | None = None,
        signal_kinds: tuple[str, ...] = ("organization", "award"),
        section_title: str = "Awards and Activities",
        blind_college: bool = False,
    ) -> int:
        """Add one variant of `text` to `out`; returns its index.

        `persona=None` is a blinded copy; `signal` inserts that group's explicit
        signal lines of `signal_kinds`.
        """
        filled = self.render(
            text,
            persona,
            college=college,
            signal=signal,
            signal_kinds=signal_kinds,
            section_title=section_title,
            blind_college=blind_college,
        )
        group = persona.group if persona is not None else (signal.key if signal else None)
        out.variants.append(
            Variant(
                resume_id=text.resume_id,
                kind=text.kind,
                text=filled.text,
                group=group,
                name=persona.full_name if persona is not None else PLACEHOLDER_NAME,
                k=text.k,
                changes=list(text.changes),
                removed_lines=list(text.removed_lines),
            )
        )
        out.filled.append(filled)
        return len(out.variants) - 1

    def render(
        self,
        text: QualText,
        persona: Persona | None,
        *,
        college: str | None,
        signal: Group | None = None,
        signal_kinds: tuple[str, ...] = ("organization", "award"),
        section_title: str = "Awards and Activities",
        blind_college: bool = False,
    ) -> Filled:
        """The filled text alone (what `make` stores), e.g. for a design check."""
        key = persona.full_name if persona is not None else f"blinded:{text.resume_id}"
        filled = fill(
            text.template,
            persona,
            contact=self.contact(key),
            college=college,
            blind=persona is None,
            blind_college=blind_college,
        )
        if signal is not None:
            filled = insert_signal(
                filled, signal_lines(signal, self.job_title, signal_kinds), section_title
            )
        group = persona.group if persona is not None else (signal.key if signal else None)
        return replace(filled, group=group)
