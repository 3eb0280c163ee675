"""D5's test cases: each resume copied once per group and ranked together.

A batch is one source resume filled with one name per group (names drawn as every
design draws them, `variants.names`), the same college and contact details in
every copy, so the copies differ only in the name. Its shown orders are rows of a
Latin square drawn from the seed: with as many orders as groups every copy is shown
at every place exactly once, so position effects cancel out of the group rates.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from resume_auditor.designs.d5_bloomberg.settings import D5Spec
from resume_auditor.domain.case import Case
from resume_auditor.domain.job import Job
from resume_auditor.variants.build import BuiltCases, VariantMaker
from resume_auditor.variants.colleges import draw_college
from resume_auditor.variants.designcheck import IdenticalPairError, check_same_outside_identity
from resume_auditor.variants.names import personas_for
from resume_auditor.variants.texts import TextSet

DESIGN = "D5"
KIND = "ranking"


def latin_orders(size: int, count: int, rng: random.Random) -> list[list[int]]:
    """`count` shown orders of `size` candidates: rows of random Latin squares.

    Row r of a square shows candidate square[r][p] at place p. Rows, columns and
    symbols of the cyclic square are shuffled, so any square of the group's size is
    possible in its isotopy class; every `size` consecutive rows form one square, so
    each candidate takes each place once per square.
    """
    out: list[list[int]] = []
    while len(out) < count:
        rows = list(range(size))
        cols = list(range(size))
        symbols = list(range(size))
        rng.shuffle(rows)
        rng.shuffle(cols)
        rng.shuffle(symbols)
        for r in rows[: count - len(out)]:
            out.append([symbols[(r + c) % size] for c in cols])
    return out


def build_d5(
    texts: Sequence[TextSet],
    job: Job,
    spec: D5Spec,
    seed: int,
    *,
    keep_real_contact: bool = False,
) -> BuiltCases:
    out = BuiltCases(0)
    maker = VariantMaker(job.title, random.Random(f"d5-contact:{seed}"), keep_real_contact)
    left_out: list[str] = []
    for t in texts:
        for batch in range(spec.batches):
            rng = random.Random(f"d5:{seed}:{t.resume_id}:{batch}")
            college = draw_college(rng)
            trial = BuiltCases(t.resume_id)
            ids = [
                maker.make(trial, t.base, personas_for(g, 1, rng)[0], college=college)
                for g in spec.groups
            ]
            try:
                for i in ids[1:]:
                    check_same_outside_identity(trial.filled[ids[0]], trial.filled[i], "D5")
            except IdenticalPairError:
                left_out.append(str(t.resume_id))
                break
            offset = len(out.variants)
            out.variants += trial.variants
            out.filled += trial.filled
            out.sets.append(
                Case(
                    DESIGN,
                    KIND,
                    [offset + i for i in ids],
                    cluster=t.resume_id,
                    meta={
                        "groups": [g.key for g in spec.groups],
                        "batch": batch,
                        "top_k": spec.top_k,
                        "orders": latin_orders(len(ids), spec.orders, rng),
                    },
                )
            )
    if left_out:
        out.notes.append(
            f"D5: {len(left_out)} resume(s) left out: their copies came out identical for "
            "different names (the resume shows no name the app could replace)."
        )
    if spec.orders % len(spec.groups):
        out.notes.append(
            f"D5: {spec.orders} shown orders per batch is not a multiple of the "
            f"{len(spec.groups)} groups, so not every group is shown at every place equally "
            "often; position effects may then move the group rates a little."
        )
    return out
