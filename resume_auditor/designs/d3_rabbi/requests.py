"""D3's requests: each candidate of a pool alone (pointwise), and every two candidates
of a pool in both orders (pairwise: Chen et al. score a pair from both).

Built with the ukeys, cells and bodies D3 has always had, so the response cache and
stored audits match (tests/test_design_request_bodies.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from resume_auditor.designs.d3_rabbi.settings import D3Spec
from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.prompts import build_body
from resume_auditor.prompts.requests import checked_preset, single_requests
from resume_auditor.store.requests import RequestSpec

POINTWISE_KINDS = ("yes_no", "rating")
PAIRWISE_KINDS = ("forced_choice", "pairwise_abstain")


def d3_requests(
    spec: D3Spec,
    study: StudyConfig,
    model: ModelSpec,
    job_text: str,
    variants: Mapping[int, Variant],
    case: Case,
) -> list[RequestSpec]:
    sid, ids, meta = case.id or 0, case.variants, case.meta
    out: list[RequestSpec] = []
    if spec.prompt:
        preset = checked_preset(spec.prompt, POINTWISE_KINDS, "designs.d3.prompt")
        for i, vid in enumerate(ids):
            out += single_requests(
                model,
                preset,
                job_text,
                variants[vid],
                case_id=sid,
                ukey=f"d3:pool:{sid}:var:{vid}:{preset.id}",
                cell=f"D3 {meta['groups'][i]}",
                cluster=sid,
                repeats=study.run.repeats,
            )
    if spec.pairwise_prompt:
        out += _pairwise(spec, study, model, job_text, variants, sid, ids)
    return out


def _pairwise(
    spec: D3Spec,
    study: StudyConfig,
    model: ModelSpec,
    job_text: str,
    variants: Mapping[int, Variant],
    sid: int,
    ids: list[int],
) -> list[RequestSpec]:
    preset = checked_preset(spec.pairwise_prompt, PAIRWISE_KINDS, "designs.d3")
    out: list[RequestSpec] = []
    for a, b in itertools.combinations(ids, 2):
        for order, shown in (("ab", (a, b)), ("ba", (b, a))):
            first, second = variants[shown[0]], variants[shown[1]]
            body = build_body(
                model,
                preset,
                {"resume_1": first.text, "resume_2": second.text, "job_description": job_text},
            )
            out.extend(
                RequestSpec(
                    ukey=f"d3:pool:{sid}:pair:{a}-{b}:{order}:{preset.id}",
                    kind=preset.kind,
                    body=body,
                    variants=shown,
                    rep=rep,
                    preset=preset.id,
                    order=order,
                    case_id=sid,
                    context={"names": [first.name or "", second.name or ""], "cluster": sid},
                    cell="D3 pairwise",
                )
                for rep in range(study.run.repeats)
            )
    return out
