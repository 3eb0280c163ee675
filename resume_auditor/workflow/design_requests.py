"""The requests an audit's cases imply: one list of RequestSpecs for every design.

Every stored case (domain.case.Case) gives its requests here, each naming its
case (`case_id`), under the preset the run (D1) or its design's settings
(D2, D3 here; the registry's designs build their own) name, with the ukeys of
docs/runner.md so queuing twice adds nothing.
Repeats follow `run.repeats`; D1 pairs come in the orders `run.orders` asks,
D3's pairwise requests always in both (Chen et al. score a pair from both).
"""

from __future__ import annotations

import itertools
from typing import Any

from resume_auditor.designs.d1_castleman.requests import d1_requests
from resume_auditor.designs.d1_castleman.requests import request_body as request_body
from resume_auditor.designs.registry import enabled
from resume_auditor.domain.case import Variant
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.prompts import Preset, build_body, get_preset
from resume_auditor.prompts.requests import checked_preset as _preset
from resume_auditor.prompts.requests import single_requests
from resume_auditor.store.resultfile import RequestSpec, ResultFile

MANIPULATION_PRESET = "d2-manipulation-check"


def check_design_presets(study: StudyConfig) -> None:
    """Unknown or wrong-kind presets fail before anything is written."""
    for spec in design_presets(study):
        _preset(*spec)


def design_presets(study: StudyConfig) -> list[tuple[str, tuple[str, ...], str]]:
    out: list[tuple[str, tuple[str, ...], str]] = []
    if study.d2 is not None:
        out += [(p, ("rating",), "designs.d2.prompts") for p in study.d2.prompts]
        if study.d2.manipulation_check:
            out.append((MANIPULATION_PRESET, ("manipulation",), "designs.d2"))
    if study.d3 is not None:
        if study.d3.prompt:
            out.append((study.d3.prompt, ("yes_no", "rating"), "designs.d3.prompt"))
        if study.d3.pairwise_prompt:
            out.append(
                (
                    study.d3.pairwise_prompt,
                    ("forced_choice", "pairwise_abstain"),
                    "designs.d3.pairwise_prompt",
                )
            )
    for design, spec in enabled(study):
        out += design.presets(spec)
    return out


def design_specs(result: ResultFile, study: StudyConfig, model: ModelSpec) -> list[RequestSpec]:
    """Every request the audit's cases imply for `model`: D1 pairs, then the others."""
    job_text = result.job().text
    variants = {v.id or 0: v for v in result.variants()}
    cases = result.cases()
    out: list[RequestSpec] = d1_requests(
        study, model, job_text, variants, [c for c in cases if c.design == "D1"]
    )

    def single(
        preset: Preset, v: Variant, case_id: int, ukey: str, cell: str, cluster: Any
    ) -> None:
        out.extend(
            single_requests(
                model,
                preset,
                job_text,
                v,
                case_id=case_id,
                ukey=ukey,
                cell=cell,
                cluster=cluster,
                repeats=study.run.repeats,
            )
        )

    registered = {design.label: (design, spec) for design, spec in enabled(study)}
    for s in cases:
        sid, ids, meta = s.id or 0, s.variants, s.meta
        if s.design in registered:
            design, spec = registered[s.design]
            out += design.requests(spec, study, model, job_text, variants, s)
        elif s.design == "D2" and study.d2 is not None:
            for i, vid in enumerate(ids):
                group = meta["groups"][i] or "blinded"
                for pid in study.d2.prompts:
                    preset = _preset(pid, ("rating",), "designs.d2.prompts")
                    ukey = f"d2:var:{vid}:{preset.id}"
                    single(preset, variants[vid], sid, ukey, f"D2 {group}", s.cluster)
                if study.d2.manipulation_check and meta["conditions"][i] == "named":
                    preset = get_preset(MANIPULATION_PRESET)
                    ukey = f"d2:var:{vid}:{preset.id}"
                    single(preset, variants[vid], sid, ukey, f"D2 check {group}", s.cluster)
        elif s.design == "D3" and study.d3 is not None:
            if study.d3.prompt:
                preset = _preset(study.d3.prompt, ("yes_no", "rating"), "designs.d3.prompt")
                for i, vid in enumerate(ids):
                    ukey = f"d3:pool:{sid}:var:{vid}:{preset.id}"
                    single(preset, variants[vid], sid, ukey, f"D3 {meta['groups'][i]}", sid)
            if study.d3.pairwise_prompt:
                out += _d3_pairwise(study, model, job_text, variants, sid, ids)
    return out


def _d3_pairwise(
    study: StudyConfig,
    model: ModelSpec,
    job_text: str,
    variants: dict[int, Variant],
    sid: int,
    ids: list[int],
) -> list[RequestSpec]:
    assert study.d3 is not None
    preset = _preset(study.d3.pairwise_prompt, ("forced_choice", "pairwise_abstain"), "designs.d3")
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
