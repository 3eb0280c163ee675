"""D4's requests: each scored copy alone, each ranked batch in each of its orders.

Built by the shared helpers (`prompts.requests`) with the ukeys, cells and bodies
D4 has always had, so the response cache and stored audits match
(tests/test_design_request_bodies.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from resume_auditor.designs.d4_faire.settings import D4Spec
from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.prompts import render_resumes
from resume_auditor.prompts.requests import checked_preset, ranking_requests, single_requests
from resume_auditor.store.requests import RequestSpec


def d4_requests(
    spec: D4Spec,
    study: StudyConfig,
    model: ModelSpec,
    job_text: str,
    variants: Mapping[int, Variant],
    case: Case,
) -> list[RequestSpec]:
    sid, meta = case.id or 0, case.meta
    repeats = study.run.repeats
    if case.kind == "scoring" and spec.scoring_prompt:
        preset = checked_preset(spec.scoring_prompt, ("dimensions",), "designs.d4")
        out: list[RequestSpec] = []
        for i, vid in enumerate(case.variants):
            out += single_requests(
                model,
                preset,
                job_text,
                variants[vid],
                case_id=sid,
                ukey=f"d4:var:{vid}:{preset.id}",
                cell=f"D4 {meta['variant'][i]} {meta['groups'][i]}".strip(),
                cluster=case.cluster,
                repeats=repeats,
            )
        return out
    if case.kind == "ranking" and spec.ranking_prompt:
        preset = checked_preset(spec.ranking_prompt, ("ranking",), "designs.d4.ranking_prompt")
        return ranking_requests(
            model,
            preset,
            job_text,
            variants,
            case,
            render=render_resumes,
            ukey=lambda perm: f"d4:batch:{case.id}:perm:{'-'.join(str(i) for i in perm)}",
            cell=f"D4 ranking by {meta['by']}",
            repeats=repeats,
        )
    return []
