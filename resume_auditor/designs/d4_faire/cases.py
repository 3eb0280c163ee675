"""D4's test cases (FAIRE, Wen et al. 2025): scored perturbations and ranked batches.

Direct scoring, per source resume: the original (identity removed: a neutral
placeholder name and they/them, so it carries no group signal), a name
perturbation per group (the group's name and pronouns) and an experience
perturbation per group (the original plus an activity that names the group, as
FAIRE's Appendix C does; signals.toml). Same college and contact style in all.

Ranking: batches of one candidate per race (the races of `groups`; FAIRE has
five, we have four) with one gender per batch, and batches of two (one woman,
one man) of one race. Each candidate comes from a different source resume when
there are enough ("to avoid giving the LLM identical profiles"). Presentation
orders: `orders_per_batch` permutations sampled from the seed, or all of them.
"""

from __future__ import annotations

import itertools
import math
import random

from resume_auditor.designs.d4_faire.settings import D4Spec
from resume_auditor.domain.case import Case
from resume_auditor.domain.groups import Group
from resume_auditor.domain.job import Job
from resume_auditor.variants.build import BuiltCases, VariantMaker
from resume_auditor.variants.colleges import draw_college
from resume_auditor.variants.designcheck import check_same_outside_identity
from resume_auditor.variants.names import personas_for
from resume_auditor.variants.texts import TextSet

DESIGN = "D4"


def build_d4_scoring(
    texts: TextSet, job: Job, spec: D4Spec, seed: int, *, keep_real_contact: bool = False
) -> BuiltCases:
    rid = texts.resume_id
    rng = random.Random(f"d4:{seed}:{rid}")
    out = BuiltCases(rid)
    maker = VariantMaker(job.title, random.Random(f"d4-contact:{seed}:{rid}"), keep_real_contact)
    college = draw_college(rng)
    ids = [maker.make(out, texts.base, None, college=college)]
    kinds, groups = ["original"], [""]
    if "name" in spec.perturbations:
        for g in spec.groups:
            ids.append(maker.make(out, texts.base, personas_for(g, 1, rng)[0], college=college))
            kinds.append("name")
            groups.append(g.key)
            check_same_outside_identity(out.filled[ids[1]], out.filled[ids[-1]], "D4 name")
    if "experience" in spec.perturbations:
        first = len(ids)
        for g in spec.groups:
            ids.append(
                maker.make(
                    out,
                    texts.base,
                    None,
                    college=college,
                    signal=g,
                    signal_kinds=("experience",),
                    section_title="Activities",
                )
            )
            kinds.append("experience")
            groups.append(g.key)
            check_same_outside_identity(
                out.filled[ids[first]], out.filled[ids[-1]], "D4 experience"
            )
    out.sets.append(
        Case(DESIGN, "scoring", ids, cluster=rid, meta={"variant": kinds, "groups": groups})
    )
    return out


def _orders(size: int, spec: D4Spec, rng: random.Random) -> list[list[int]]:
    perms = [list(p) for p in itertools.permutations(range(size))]
    if spec.all_orders or spec.orders_per_batch >= len(perms):
        return perms
    return [perms[i] for i in sorted(rng.sample(range(len(perms)), spec.orders_per_batch))]


def build_d4_ranking(
    textsets: list[TextSet],
    job: Job,
    spec: D4Spec,
    seed: int,
    *,
    keep_real_contact: bool = False,
) -> BuiltCases:
    out = BuiltCases(0)
    if not textsets or not spec.ranking_prompt:
        return out
    rng = random.Random(f"d4-rank:{seed}")
    maker = VariantMaker(job.title, random.Random(f"d4-rank-contact:{seed}"), keep_real_contact)
    races = list(dict.fromkeys(g.race for g in spec.groups))
    genders = list(dict.fromkeys(g.gender for g in spec.groups))
    plans: list[tuple[str, list[Group], list[str]]] = []
    for _ in range(spec.race_batches if len(races) > 1 else 0):
        gender = rng.choice(genders)
        plans.append(("race", [Group(r, gender) for r in races], races))
    for _ in range(spec.gender_batches if len(genders) > 1 else 0):
        race = rng.choice(races)
        plans.append(("gender", [Group(race, g) for g in genders], genders))
    if spec.race_batches and len(races) < 2:
        out.notes.append("D4: ranking by race needs at least two races in designs.d4.groups.")
    if spec.gender_batches and len(genders) < 2:
        out.notes.append("D4: ranking by gender needs both genders in designs.d4.groups.")
    for by, members, keys in plans:
        deck = textsets * math.ceil(len(members) / len(textsets))
        dealt = rng.sample(deck, len(members))
        ids = [
            maker.make(out, t.base, personas_for(g, 1, rng)[0], college=draw_college(rng))
            for g, t in zip(members, dealt, strict=True)
        ]
        out.sets.append(
            Case(
                DESIGN,
                "ranking",
                ids,
                meta={
                    "by": by,
                    "groups": keys,
                    "sources": [t.resume_id for t in dealt],
                    "orders": _orders(len(ids), spec, rng),
                },
            )
        )
    return out
