"""The D1-D4 case builders: counts follow their formulas, the seed rebuilds them."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from resume_auditor.designs.d1_castleman.cases import build_d1_texts
from resume_auditor.designs.d1_castleman.spec import D1_GROUPS, D1Spec
from resume_auditor.designs.d2_correspondence.cases import build_d2
from resume_auditor.designs.d2_correspondence.settings import D2Spec
from resume_auditor.designs.d3_rabbi.cases import build_d3
from resume_auditor.designs.d3_rabbi.settings import D3Spec
from resume_auditor.designs.d4_faire.cases import build_d4_ranking, build_d4_scoring
from resume_auditor.designs.d4_faire.settings import D4Spec
from resume_auditor.documents.identity import find_identity
from resume_auditor.documents.jobparse import parse_job
from resume_auditor.documents.load import load_file
from resume_auditor.domain.case import CaseKind, Truth, VariantKind
from resume_auditor.domain.groups import ALL_GROUPS
from resume_auditor.domain.identity import Template
from resume_auditor.domain.qualtext import QualOrigin, QualStatus, QualText
from resume_auditor.variants.texts import TextSet, deterministic_texts, merge_texts

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
JOB = parse_job((SAMPLE / "job.md").read_text(), "Junior Data Analyst")


def _template(i: int = 1) -> Template:
    pdf = sorted((SAMPLE / "resumes").glob("*.pdf"))[i - 1]
    return find_identity(load_file(pdf).text)


def _generated(rid: int, kind: VariantKind, k: int, t: Template, extra: str) -> QualText:
    return QualText(
        rid,
        kind,
        k,
        Template(t.text + extra, t.slots),
        changes=(f"change k={k}",),
        origin=QualOrigin.GENERATOR,
        verified=True,
    )


def _texts(rid: int = 1, ks: tuple[int, ...] = (1, 2, 3), generated: bool = True) -> TextSet:
    t = _template(rid)
    det = deterministic_texts(rid, t, JOB, ks, random.Random(rid))
    stored = []
    if generated:
        stored = [_generated(rid, VariantKind.MORE, k, t, f"\n- extra {k}") for k in ks]
        stored.append(_generated(rid, VariantKind.LESS, 3, t, "\n- lexical stand-in"))
        stored.append(_generated(rid, VariantKind.REWORDED, 0, t, "\n- reworded"))
    return merge_texts(det, stored)


@pytest.mark.parametrize("groups", [D1_GROUPS, D1_GROUPS[:2], ALL_GROUPS[:3]])
@pytest.mark.parametrize("which", ["same", "cross", "both"])
def test_d1_counts_follow_the_formulas(groups: tuple, which: str) -> None:
    texts = _texts()
    ks = tuple(k for k in (1, 2, 3) if k in texts.less and k in texts.more)
    spec = D1Spec(groups=groups, k=ks, signals=("name", "explicit"), unequal_groups=which)
    built = build_d1_texts(texts, JOB, spec, seed=3)
    g = len(groups)
    equal = [c for c in built.cases if c.kind is CaseKind.EQUAL]
    unequal = [c for c in built.cases if c.kind is CaseKind.UNEQUAL]
    assert len(equal) == 2 * g * g  # reworded twin: every ordered pair, per signal
    per_type = {"same": g, "cross": g * (g - 1), "both": g * g}[which]
    assert len(unequal) == 3 * len(ks) * per_type
    assert {c.signal for c in equal} == {"name", "explicit"}
    for c in unequal:
        a, b = built.variants[c.variant_a], built.variants[c.variant_b]
        more, less = (a, b) if c.truth is Truth.A else (b, a)
        order = [VariantKind.LESS, VariantKind.BASE, VariantKind.MORE]
        assert order.index(more.kind) > order.index(less.kind)


def test_d1_without_generated_texts_falls_back_and_says_so() -> None:
    built = build_d1_texts(_texts(generated=False), JOB, D1Spec(groups=D1_GROUPS), seed=1)
    g = len(D1_GROUPS)
    assert len([c for c in built.cases if c.kind is CaseKind.EQUAL]) == g * (g + 1) // 2
    assert any("no reworded copy" in n for n in built.notes)
    assert any("no c+ copy" in n for n in built.notes)
    assert all(v.kind is not VariantKind.MORE for v in built.variants)


def test_rejected_generated_texts_are_not_used() -> None:
    t = _template()
    det = deterministic_texts(1, t, JOB, (1,), random.Random(1))
    more = _generated(1, VariantKind.MORE, 1, t, "\n- more")
    rejected = QualText(**{**more.__dict__, "status": QualStatus.REJECTED})
    unverified = QualText(**{**more.__dict__, "verified": False})
    assert 1 not in merge_texts(det, [rejected, unverified]).more
    assert merge_texts(det, [more]).more[1] == more


@pytest.mark.parametrize("groups", [ALL_GROUPS, D1_GROUPS])
@pytest.mark.parametrize("blinded", [True, False])
def test_d2_one_copy_per_group_plus_blinded(groups: tuple, blinded: bool) -> None:
    built = build_d2(_texts(), JOB, D2Spec(groups=groups, blinded=blinded), seed=2)
    (s,) = built.sets
    assert len(s.variants) == len(groups) + int(blinded)
    assert s.meta["conditions"].count("blinded") == int(blinded)
    names = [built.variants[i].name for i in s.variants[: len(groups)]]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("rounds,groups", [(3, ALL_GROUPS), (5, D1_GROUPS)])
def test_d3_pools_have_one_candidate_per_group_and_labels(rounds: int, groups: tuple) -> None:
    sets = [_texts(i, (1,), generated=False) for i in (1, 2, 3, 4)]
    spec = D3Spec(groups=groups, rounds=rounds, unqualified_share=0.5)
    built = build_d3(sets, JOB, spec, seed=4)
    assert len(built.sets) == rounds
    for pool in built.sets:
        assert pool.meta["groups"] == [g.key for g in groups]
        assert len(pool.variants) == len(groups)
        unq = [not q for q in pool.meta["qualified"]]
        assert sum(unq) == round(len(groups) * 0.5)
        for i, vid in enumerate(pool.variants):
            kind = built.variants[vid].kind
            assert (kind is VariantKind.LESS) == unq[i]


@pytest.mark.parametrize("groups", [ALL_GROUPS, D1_GROUPS])
def test_d4_counts(groups: tuple) -> None:
    spec = D4Spec(groups=groups, race_batches=3, gender_batches=2, orders_per_batch=2)
    scoring = build_d4_scoring(_texts(), JOB, spec, seed=5)
    (s,) = scoring.sets
    assert len(s.variants) == 1 + 2 * len(groups)
    sets = [_texts(i, (1,), generated=False) for i in (1, 2, 3, 4)]
    ranking = build_d4_ranking(sets, JOB, spec, seed=5)
    races = len({g.race for g in groups})
    by = [r.meta["by"] for r in ranking.sets]
    assert by.count("race") == 3 and by.count("gender") == 2
    for r in ranking.sets:
        size = races if r.meta["by"] == "race" else 2
        assert len(r.variants) == size
        assert len(r.meta["orders"]) == min(2, math.factorial(size))
        if size <= len(sets):  # different source resumes when there are enough
            assert len(set(r.meta["sources"])) == size
    every = build_d4_ranking(
        sets, JOB, D4Spec(race_batches=1, gender_batches=0, all_orders=True), 5
    )
    assert len(every.sets[0].meta["orders"]) == math.factorial(4)


def test_same_seed_same_cases_every_design() -> None:
    def build(seed: int) -> list[object]:
        texts = _texts()
        sets = [_texts(i, (1,), generated=False) for i in (1, 2)]
        parts = [
            build_d1_texts(texts, JOB, D1Spec(k=(1,), unequal_groups="both"), seed),
            build_d2(texts, JOB, D2Spec(), seed),
            build_d3(sets, JOB, D3Spec(rounds=2), seed),
            build_d4_scoring(texts, JOB, D4Spec(), seed),
            build_d4_ranking(sets, JOB, D4Spec(race_batches=2, gender_batches=2), seed),
        ]
        return [
            (
                [v.text for v in p.variants],
                [(c.truth, c.differs) for c in p.cases],
                [(s.variants, s.meta) for s in p.sets],
            )  # fmt: skip
            for p in parts
        ]

    assert build(11) == build(11)
    assert build(11) != build(12)
