"""The qualification texts of one source resume that the design builders may use.

Deterministic texts are built here (the original as the base; a lexical c- per k,
`lexical.py`); texts a generator model wrote are read from the result file by the
caller and passed in. A usable generated text replaces the deterministic one of
the same kind and k, and a generated base (completed or synthetic) replaces the
original. Only `usable()` texts are kept: a rejected or unverified text never
enters a case.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.identity import Template
from resume_auditor.domain.job import Job
from resume_auditor.domain.qualtext import QualOrigin, QualText
from resume_auditor.variants.lexical import choose_removals, remove
from resume_auditor.variants.summary_block import BlockTexts, block_texts


def deterministic_texts(
    resume_id: int, template: Template, job: Job, ks: tuple[int, ...], rng: random.Random
) -> list[QualText]:
    """The original base and, for each k, a lexical c- if k qualifications can be deleted."""
    out = [QualText(resume_id, VariantKind.BASE, 0, template, origin=QualOrigin.ORIGINAL)]
    for k in sorted(set(ks)):
        removals = choose_removals(template, job.required, k, rng)
        if removals is None:
            continue
        out.append(
            QualText(
                resume_id,
                VariantKind.LESS,
                k,
                remove(template, removals),
                changes=tuple(r.qualification.text for r in removals),
                removed_lines=tuple(line for r in removals for line in r.removed),
                origin=QualOrigin.LEXICAL,
            )
        )
    return out


@dataclass
class TextSet:
    """One source resume's usable texts, by kind and k."""

    resume_id: int
    base: QualText
    less: dict[int, QualText] = field(default_factory=dict)
    more: dict[int, QualText] = field(default_factory=dict)
    reworded: list[QualText] = field(default_factory=list)
    block: BlockTexts | None = None  # the qualifications-block construction, when asked for

    def generator_of(self, text: QualText) -> str:
        return text.generator if text.origin is QualOrigin.GENERATOR else ""


def add_block(texts: TextSet, job: Job, ks: tuple[int, ...], seed: int) -> TextSet:
    """`texts` with the qualifications-block copies of its base (summary_block.py).

    Its own seeded generator, so asking for the block shifts no other draw.
    """
    rng = random.Random(f"block:{seed}:{texts.resume_id}")
    texts.block = block_texts(texts.resume_id, texts.base.template, job, ks, rng)
    return texts


def construction_of(*texts: QualText) -> str:
    """How an unequal pair's changed texts were made: summary_block, lexical, generator
    (joined with '+' when the two differ), from the texts that are not a base."""
    origins = {t.origin.value for t in texts if t.kind in (VariantKind.LESS, VariantKind.MORE)}
    return "+".join(sorted(origins))


def merge_texts(deterministic: list[QualText], stored: list[QualText]) -> TextSet:
    """Usable stored (generated) texts over deterministic ones of the same kind and k."""
    usable = [t for t in stored if t.usable()]
    base = next((t for t in usable if t.kind is VariantKind.BASE), None)
    if base is None:
        base = next(t for t in deterministic if t.kind is VariantKind.BASE)
    out = TextSet(base.resume_id, base)
    for source in (deterministic, usable):  # later wins
        for t in source:
            if t.kind is VariantKind.LESS and t.usable():
                out.less[t.k] = t
            elif t.kind is VariantKind.MORE and t.usable():
                out.more[t.k] = t
    out.reworded = [t for t in usable if t.kind is VariantKind.REWORDED]
    return out
