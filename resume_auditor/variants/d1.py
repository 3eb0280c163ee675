"""D1 validity pairs (Castleman et al., "Measuring Validity in LLM-based Resume Screening").

For each source resume (a cluster):
- base variants: the resume filled with two personas per group (names and
  pronouns only differ);
- equal pairs: one for every unordered pair of groups, same group included
  (g, g) with two different names; both presentation orders together cover the
  paper's 16 ordered pairs of {Black, White} x {man, woman};
- unequal pairs: (c, c-) within each group, where c- deletes what carries k
  required qualifications (found lexically, no LLM), filled with the group's
  other name. Which of the two is "A" is drawn from the seed.
The same seed rebuilds the same cases.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

from resume_auditor.domain.case import Case, CaseKind, Truth, Variant, VariantKind
from resume_auditor.domain.groups import Group
from resume_auditor.domain.identity import Persona, Template
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import D1Spec
from resume_auditor.variants.lexical import choose_removals, remove
from resume_auditor.variants.names import personas_for


@dataclass
class BuiltCases:
    """Variants and cases for one source resume; variant ids are list indexes until stored."""

    resume_id: int
    variants: list[Variant] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _describe(persona: Persona) -> str:
    group = Group.parse(persona.group or "")
    return f"{group.label} ({persona.full_name})"


def build_d1(resume_id: int, template: Template, job: Job, spec: D1Spec, seed: int) -> BuiltCases:
    rng = random.Random(f"d1:{seed}:{resume_id}")
    out = BuiltCases(resume_id)
    personas = {g: personas_for(g, 2, rng) for g in spec.groups}

    def add(variant: Variant) -> int:
        out.variants.append(variant)
        return len(out.variants) - 1

    base: dict[tuple[Group, int], int] = {}
    for g in spec.groups:
        for i, persona in enumerate(personas[g]):
            base[(g, i)] = add(
                Variant(
                    resume_id=resume_id,
                    kind=VariantKind.BASE,
                    text=template.fill(persona),
                    group=g.key,
                    name=persona.full_name,
                )
            )

    if spec.equal_pairs:
        for g, h in itertools.combinations_with_replacement(spec.groups, 2):
            a, b = base[(g, 0)], base[(h, 1)]
            pa, pb = personas[g][0], personas[h][1]
            out.cases.append(
                Case(
                    design="D1",
                    kind=CaseKind.EQUAL,
                    variant_a=a,
                    variant_b=b,
                    truth=Truth.EQUAL,
                    cluster=resume_id,
                    differs=f"Name and pronouns only: {_describe(pa)} vs {_describe(pb)}",
                    group_a=g.key,
                    group_b=h.key,
                    signal="name",
                )
            )

    if spec.unequal_pairs:
        for k in spec.k:
            removals = choose_removals(template, job.required, k, rng)
            if removals is None:
                out.notes.append(
                    f"No less-qualified copy with k={k}: fewer than {k} required "
                    "qualifications could be found and cleanly deleted in this resume."
                )
                continue
            less_template = remove(template, removals)
            changes = [r.qualification.text for r in removals]
            removed_lines = [line for r in removals for line in r.removed]
            for g in spec.groups:
                persona = personas[g][1]
                less = add(
                    Variant(
                        resume_id=resume_id,
                        kind=VariantKind.LESS,
                        text=less_template.fill(persona),
                        group=g.key,
                        name=persona.full_name,
                        k=k,
                        changes=changes,
                        removed_lines=removed_lines,
                    )
                )
                full = base[(g, 0)]
                more_is_a = rng.random() < 0.5
                a, b = (full, less) if more_is_a else (less, full)
                missing = "; ".join(changes)
                out.cases.append(
                    Case(
                        design="D1",
                        kind=CaseKind.UNEQUAL,
                        variant_a=a,
                        variant_b=b,
                        truth=Truth.A if more_is_a else Truth.B,
                        cluster=resume_id,
                        k=k,
                        differs=(
                            f"{'B' if more_is_a else 'A'} lacks {k} required "
                            f"qualification{'s' if k > 1 else ''}: {missing}"
                        ),
                        group_a=g.key,
                        group_b=g.key,
                        signal="name",
                    )
                )
    return out
