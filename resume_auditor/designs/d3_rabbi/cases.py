"""D3 allocation pools (Chen et al. 2024, RABBI).

`rounds` pools, each with one candidate per group. In each round the source
resumes are dealt to the groups at random (each resume used as evenly as
possible), and a share of the pool (`unqualified_share`) is given the resume's
less-qualified copy (c-, k required qualifications removed): those candidates
are labelled unqualified, the rest qualified (the base meets every required
qualification). The labels are the ground truth of the equal-opportunity gap.
Names are drawn per candidate; colleges independently of the group.
"""

from __future__ import annotations

import math
import random

from resume_auditor.designs.d3_rabbi.settings import D3Spec
from resume_auditor.domain.case import Case
from resume_auditor.domain.job import Job
from resume_auditor.variants.build import BuiltCases, VariantMaker
from resume_auditor.variants.colleges import draw_college
from resume_auditor.variants.names import personas_for
from resume_auditor.variants.texts import TextSet


def build_d3(
    textsets: list[TextSet],
    job: Job,
    spec: D3Spec,
    seed: int,
    *,
    keep_real_contact: bool = False,
) -> BuiltCases:
    out = BuiltCases(0)
    if not textsets:
        return out
    rng = random.Random(f"d3:{seed}")
    maker = VariantMaker(job.title, random.Random(f"d3-contact:{seed}"), keep_real_contact)
    n = len(spec.groups)
    n_unqualified = round(n * spec.unqualified_share)
    if n_unqualified and not any(spec.k in t.less for t in textsets):
        out.notes.append(
            f"D3: no resume has a less-qualified copy with k={spec.k}, so every pool "
            "candidate is qualified and the equal-opportunity gap cannot be computed."
        )
    deck = textsets * math.ceil(n / len(textsets))
    for round_no in range(spec.rounds):
        dealt = rng.sample(deck, n)
        eligible = [i for i, t in enumerate(dealt) if spec.k in t.less]
        unqualified = set(rng.sample(eligible, min(n_unqualified, len(eligible))))
        ids: list[int] = []
        qualified: list[bool] = []
        for i, (g, texts) in enumerate(zip(spec.groups, dealt, strict=True)):
            text = texts.less[spec.k] if i in unqualified else texts.base
            persona = personas_for(g, 1, rng)[0]
            ids.append(maker.make(out, text, persona, college=draw_college(rng)))
            qualified.append(i not in unqualified)
        out.sets.append(
            Case(
                "D3",
                "pool",
                ids,
                meta={
                    "round": round_no,
                    "groups": [g.key for g in spec.groups],
                    "qualified": qualified,
                    "sources": [t.resume_id for t in dealt],
                    "k": spec.k,
                },
            )
        )
    return out
