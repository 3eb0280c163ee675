"""D2 correspondence experiment (Gaebler et al. 2024).

For each source resume: one synthetic copy per group (a strongly signalling name,
matching pronouns and title, a college drawn at random independently of the
group, synthetic contact details) and, optionally, one copy with the identity
removed (the blinded condition). The copies differ only in identity slots; the
design check proves it for every copy against the first.
"""

from __future__ import annotations

import random

from resume_auditor.designs.d2_correspondence.settings import D2Spec
from resume_auditor.domain.case import Case
from resume_auditor.domain.job import Job
from resume_auditor.variants.build import BuiltCases, VariantMaker
from resume_auditor.variants.colleges import draw_college
from resume_auditor.variants.designcheck import check_same_outside_identity
from resume_auditor.variants.names import personas_for
from resume_auditor.variants.texts import TextSet


def build_d2(
    texts: TextSet, job: Job, spec: D2Spec, seed: int, *, keep_real_contact: bool = False
) -> BuiltCases:
    rid = texts.resume_id
    rng = random.Random(f"d2:{seed}:{rid}")
    out = BuiltCases(rid)
    maker = VariantMaker(job.title, random.Random(f"d2-contact:{seed}:{rid}"), keep_real_contact)
    ids: list[int] = []
    groups: list[str] = []
    conditions: list[str] = []
    for g in spec.groups:
        persona = personas_for(g, 1, rng)[0]
        ids.append(maker.make(out, texts.base, persona, college=draw_college(rng)))
        groups.append(g.key)
        conditions.append("named")
        check_same_outside_identity(
            out.filled[ids[0]], out.filled[ids[-1]], f"D2 copy for {g.label}"
        )
    if spec.blinded:
        ids.append(
            maker.make(
                out,
                texts.base,
                None,
                college=draw_college(rng),
                blind_college=spec.blind_college,
            )
        )
        groups.append("")
        conditions.append("blinded")
    out.sets.append(
        Case(
            "D2",
            "copies",
            ids,
            cluster=rid,
            meta={"groups": groups, "conditions": conditions, "k": texts.base.k},
        )
    )
    return out
