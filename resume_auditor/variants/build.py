"""What every design builder shares: the output shape and the variant maker.

`VariantMaker` turns a qualification text and an identity into a stored-ready
`Variant` plus the `Filled` text the design check reads. It keeps one synthetic
contact per persona (the same person has the same phone number in every case)
and one per source resume for blinded copies, all drawn from the seed.
"""

from __future__ import annotations

import difflib
import random
import re
from dataclasses import dataclass, field, replace

from resume_auditor.documents.jobparse import classify
from resume_auditor.documents.sections import find_sections, section_at
from resume_auditor.domain.case import Case, Variant, VariantKind
from resume_auditor.domain.groups import Group
from resume_auditor.domain.identity import Persona
from resume_auditor.domain.job import Job
from resume_auditor.domain.qualtext import QualOrigin, QualText
from resume_auditor.variants.fills import PLACEHOLDER_NAME, Contact, Filled, fill, synthetic_contact
from resume_auditor.variants.signals import insert_signal, signal_lines


@dataclass
class BuiltCases:
    """Variants, pairs and sets for one design; variant ids are list indexes until stored."""

    resume_id: int
    variants: list[Variant] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    sets: list[Case] = field(default_factory=list)
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
                construction=text.origin.value,
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


_SUMMARY = re.compile(r"\b(summary|profile|objective|about)\b", re.IGNORECASE)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9+#]+", " ", text.lower()).split())


def qualification_type(changes: list[str] | tuple[str, ...], job: Job) -> str:
    """The type of the qualifications changed (Castleman et al. App. D.1, Table 10).

    Each change is matched to the job's checklist (the user's types win); one the
    checklist does not hold is classified from its words. Several types: joined
    with '+', so a breakdown never silently picks one.
    """
    by_text = {_norm(q.text): q.qtype.value for q in job.qualifications}
    types = []
    for change in changes:
        key = _norm(change)
        found = by_text.get(key) or next(
            (t for text, t in by_text.items() if text and (text in key or key in text)), None
        )
        types.append(found or classify(change).value)
    return "+".join(sorted(set(types)))


def change_location(base: str, changed: str) -> str:
    """Where `changed` differs from `base`: 'summary', 'body' or 'both' ('' if nowhere).

    A line counts as summary when it sits under a summary / profile / objective
    heading, or above the first heading (where a resume's summary usually is).
    """
    a, b = base.split("\n"), changed.split("\n")
    places: set[str] = set()
    for text, lines, spans in (
        (base, a, [(i1, i2) for tag, i1, i2, _, _ in _ops(a, b) if tag != "insert"]),
        (changed, b, [(j1, j2) for tag, _, _, j1, j2 in _ops(a, b) if tag != "delete"]),
    ):
        sections = find_sections(text)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line) + 1)
        for lo, hi in spans:
            for i in range(lo, hi):
                if not lines[i].strip():
                    continue
                section = section_at(sections, starts[i])
                in_summary = section is None or bool(_SUMMARY.search(section.heading))
                places.add("summary" if in_summary else "body")
    if len(places) > 1:
        return "both"
    return next(iter(places), "")


def _ops(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    return [op for op in difflib.SequenceMatcher(None, a, b).get_opcodes() if op[0] != "equal"]


def text_details(text: QualText, base: QualText, job: Job) -> tuple[str, str, str]:
    """(qualification type, change location, generator) of a c+ or c- text; '' for others.

    A qualifications-block text's change sits in the summary by construction (its
    heading need not be one `find_sections` knows).
    """
    if text.kind not in (VariantKind.MORE, VariantKind.LESS):
        return "", "", text.generator
    location = (
        "summary"
        if text.origin is QualOrigin.SUMMARY_BLOCK
        else change_location(base.template.text, text.template.text)
    )
    return qualification_type(text.changes, job), location, text.generator
