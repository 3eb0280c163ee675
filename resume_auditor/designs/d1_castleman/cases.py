"""D1 validity pairs (Castleman et al. 2025, "Measuring Validity in LLM-based Resume Screening").

For each source resume (a cluster), from its usable qualification texts
(`texts.TextSet`: base c, c- and c+ per k, reworded twins):

- unequal pairs (c+, c), (c, c-), (c+, c-) for every k that has the texts (body
  edits by a generator or lexical deletion, and/or the qualifications block in the
  summary, per `D1Spec.summary_block`; each pair records its `construction`), with
  both candidates of the same group (two different names), of different groups
  (every ordered pair: the more qualified one's group, the less qualified one's),
  or both (`unequal_groups`). Which of the two is "A" is drawn from the seed.
- equal pairs for each signal: names (implicit) or awards and organisations
  (explicit, App. F; the candidates' names are replaced by a placeholder so the
  award is the only signal). With a reworded twin, A is the base and B the twin,
  for all ordered pairs of groups (16 for the paper's four). Without one, B is
  the same base text with another name: then (g, h) and (h, g) would be the same
  case, so every unordered pair (same-group included) is built once, its A drawn
  by a coin from the seed, and the two presentation orders cover the 16 ordered
  pairs (with `orders = "ab"` the coin keeps position independent of group). The
  notes say which it was.

Every equal pair passes the design check (designcheck.py) or nothing is built.
The same seed rebuilds the same cases.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

from resume_auditor.designs.d1_castleman.spec import D1Spec
from resume_auditor.domain.case import Case, CaseKind, Truth
from resume_auditor.domain.groups import Group
from resume_auditor.domain.identity import Persona, Template
from resume_auditor.domain.job import Job
from resume_auditor.domain.qualtext import QualOrigin, QualText
from resume_auditor.variants.build import BuiltCases, VariantMaker
from resume_auditor.variants.colleges import draw_college
from resume_auditor.variants.designcheck import check_same_outside_identity
from resume_auditor.variants.fills import persona_label
from resume_auditor.variants.names import personas_for
from resume_auditor.variants.texts import (
    TextSet,
    add_block,
    construction_of,
    deterministic_texts,
    merge_texts,
)

__all__ = ["BuiltCases", "build_d1", "build_d1_texts", "d1_group_pairs"]

Make = Callable[[QualText, Persona | None, Group | None], int]

_TYPES = {
    "more_base": ("c+", "c"),
    "base_less": ("c", "c-"),
    "more_less": ("c+", "c-"),
}


def d1_group_pairs(groups: tuple[Group, ...], which: str) -> list[tuple[Group, Group]]:
    """(more qualified's group, less qualified's group) for unequal pairs."""
    same = [(g, g) for g in groups]
    cross = [(g, h) for g, h in itertools.product(groups, groups) if g != h]
    return {"same": same, "cross": cross, "both": same + cross}[which]


def _qual(texts: TextSet, label: str, k: int) -> QualText | None:
    if label == "c":
        return texts.base
    return (texts.more if label == "c+" else texts.less).get(k)


def build_d1(
    resume_id: int,
    template: Template,
    job: Job,
    spec: D1Spec,
    seed: int,
    *,
    keep_real_contact: bool = False,
) -> BuiltCases:
    """D1 cases from the resume as written (no generated texts): the original base,
    its lexical c- copies and the qualifications block. `build_d1_texts` takes
    generated texts too."""
    rng = random.Random(f"texts:{seed}:{resume_id}")
    texts = merge_texts(deterministic_texts(resume_id, template, job, spec.k, rng), [])
    if spec.unequal_pairs and spec.summary_block != "never":
        add_block(texts, job, spec.k, seed)
    return build_d1_texts(texts, job, spec, seed, keep_real_contact=keep_real_contact)


def build_d1_texts(
    texts: TextSet,
    job: Job,
    spec: D1Spec,
    seed: int,
    *,
    keep_real_contact: bool = False,
) -> BuiltCases:
    rid = texts.resume_id
    rng = random.Random(f"d1:{seed}:{rid}")
    out = BuiltCases(rid)
    personas = {g: personas_for(g, 2, rng) for g in spec.groups}
    college = draw_college(rng)  # one per source resume: never a difference within a pair
    maker = VariantMaker(job.title, random.Random(f"d1-contact:{seed}:{rid}"), keep_real_contact)
    made: dict[tuple[int, str, str], int] = {}

    def variant(text: QualText, persona: Persona | None, signal: Group | None) -> int:
        key = (id(text), persona.full_name if persona else "", signal.key if signal else "")
        if key not in made:
            made[key] = maker.make(out, text, persona, college=college, signal=signal)
        return made[key]

    if spec.equal_pairs:
        # Its own generator: which group is A must not shift any other seeded draw.
        flips = random.Random(f"d1-sides:{seed}:{rid}")
        _equal_pairs(out, texts, spec, personas, variant, maker, college, flips)
    if spec.unequal_pairs:
        _unequal_pairs(out, texts, spec, personas, variant, rng)
    return out


def _equal_pairs(
    out: BuiltCases,
    texts: TextSet,
    spec: D1Spec,
    personas: dict[Group, list[Persona]],
    make: Make,
    maker: VariantMaker,
    college: str,
    flips: random.Random,
) -> None:
    twin = texts.reworded[0] if texts.reworded else None
    if twin is None:
        out.notes.append(
            "Equal pairs use the same text with two identities (no reworded copy: "
            "rewording needs a generator model)."
        )
        group_pairs = list(itertools.combinations_with_replacement(spec.groups, 2))
    else:
        group_pairs = list(itertools.product(spec.groups, spec.groups))
    for signal in spec.signals:
        for g0, h0 in group_pairs:
            # Without a twin each unordered pair is built once; a fixed (g, h) would put
            # the group listed first in front every time a run shows only order "ab",
            # and position bias would read as a group gap. A coin per pair decides which
            # group is A, so under "ab" position is randomized, independently of group
            # (the sign-flip test stays exact); "both" shows each pair both ways anyway.
            g, h = (h0, g0) if twin is None and g0 != h0 and flips.random() < 0.5 else (g0, h0)
            if signal == "name":
                pa, pb = personas[g][0], personas[h][1]
                a = make(texts.base, pa, None)
                b = make(twin or texts.base, pb, None)
                what = f"Name and pronouns only: {persona_label(pa)} vs {persona_label(pb)}"
                check_b = maker.render(texts.base, pb, college=college)
            else:
                a = make(texts.base, None, g)
                b = make(twin or texts.base, None, h)
                what = f"Explicit signals only (award and organisation): {g.label} vs {h.label}"
                check_b = maker.render(texts.base, None, college=college, signal=h)
            if twin is not None:
                what += "; B is a reworded copy with the same qualifications"
            check_same_outside_identity(out.filled[a], check_b, f"Equal pair ({what})")
            out.cases.append(
                Case.pair(
                    design="D1",
                    kind=CaseKind.EQUAL,
                    variant_a=a,
                    variant_b=b,
                    truth=Truth.EQUAL,
                    cluster=texts.resume_id,
                    differs=what,
                    group_a=g.key,
                    group_b=h.key,
                    signal=signal,
                )
            )


_BODY_WHY = {
    "c+": "it needs a generator model to add preferred qualifications",
    "c-": "fewer than {k} required qualifications could be found and cleanly deleted in "
    "this resume",
}


def _constructions(
    texts: TextSet, label_hi: str, label_lo: str, k: int, mode: str
) -> tuple[list[tuple[QualText, QualText]], list[str]]:
    """The (more, less qualified) texts of one pair type and k, per construction used.

    Body edits (generator, lexical deletion) unless `mode` is "only"; the
    qualifications block per `mode` (D1Spec.summary_block): "missing" takes it only
    when the body edits give no such pair. Never a pair mixing the two: their bases
    differ, so only the block's own c, c- and c+ differ by the qualifications alone.
    Also says why a construction gave nothing.
    """
    out: list[tuple[QualText, QualText]] = []
    why: list[str] = []
    if mode != "only":
        hi, lo = _qual(texts, label_hi, k), _qual(texts, label_lo, k)
        if hi is not None and lo is not None:
            out.append((hi, lo))
        else:
            missing = label_hi if hi is None else label_lo
            why.append(f"no {missing} copy by body edits ({_BODY_WHY[missing].format(k=k)})")
    if mode == "never" or (mode == "missing" and out):
        return out, why
    block = texts.block
    if block is None:
        return out, why
    sets = {"c": {0: block.base}, "c+": block.more, "c-": block.less}
    bhi, blo = (
        sets[label_hi].get(0 if label_hi == "c" else k),
        sets[label_lo].get(0 if label_lo == "c" else k),
    )
    if bhi is not None and blo is not None:
        out.append((bhi, blo))
    else:
        missing = label_hi if bhi is None else label_lo
        why.append(f"no {missing} copy by the qualifications block")
    return out, why


def _unequal_pairs(
    out: BuiltCases,
    texts: TextSet,
    spec: D1Spec,
    personas: dict[Group, list[Persona]],
    make: Make,
    rng: random.Random,
) -> None:
    if texts.block is not None:
        out.notes.extend(dict.fromkeys(texts.block.notes))
    for ptype in spec.pair_types:
        hi_label, lo_label = _TYPES[ptype]
        for k in spec.k:
            pairs, why = _constructions(texts, hi_label, lo_label, k, spec.summary_block)
            if not pairs:
                out.notes.append(f"No ({hi_label}, {lo_label}) pairs with k={k}: {'; '.join(why)}.")
                continue
            for hi, lo in pairs:
                construction = construction_of(hi, lo)
                for gm, gl in d1_group_pairs(spec.groups, spec.unequal_groups):
                    more = make(hi, personas[gm][0], None)
                    less = make(lo, personas[gl][1], None)
                    more_is_a = rng.random() < 0.5
                    a, b = (more, less) if more_is_a else (less, more)
                    out.cases.append(
                        Case.pair(
                            design="D1",
                            kind=CaseKind.UNEQUAL,
                            variant_a=a,
                            variant_b=b,
                            truth=Truth.A if more_is_a else Truth.B,
                            cluster=texts.resume_id,
                            k=k,
                            differs=_differs(hi, lo, k, more_is_a),
                            group_a=(gm if more_is_a else gl).key,
                            group_b=(gl if more_is_a else gm).key,
                            signal="name",
                            construction=construction,
                        )
                    )


def _differs(hi: QualText, lo: QualText, k: int, more_is_a: bool) -> str:
    better, worse = ("A", "B") if more_is_a else ("B", "A")
    plural = "s" if k > 1 else ""
    parts = []
    if lo.changes:
        parts.append(f"{worse} lacks {k} required qualification{plural}: {'; '.join(lo.changes)}")
    if hi.changes:
        parts.append(f"{better} adds {k} preferred qualification{plural}: {'; '.join(hi.changes)}")
    out = ". ".join(parts) or f"{better} is more qualified (k={k})"
    if QualOrigin.SUMMARY_BLOCK in (hi.origin, lo.origin):
        out += ". Only the qualifications block in the summary differs"
    return out
