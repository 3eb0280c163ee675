"""D2's requests: each copy of a resume rated alone under every rating prompt, and each
named copy asked, when the study wants it, whom the model takes the candidate to be.

Built by the shared helper (`prompts.requests.single_requests`) with the ukeys, cells
and bodies D2 has always had, in the same order, so the response cache and stored
audits match (tests/test_design_request_bodies.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from resume_auditor.designs.d2_correspondence.settings import D2Spec
from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.prompts import get_preset
from resume_auditor.prompts.requests import checked_preset, single_requests
from resume_auditor.store.requests import RequestSpec

MANIPULATION_PRESET = "d2-manipulation-check"


def d2_presets(spec: D2Spec) -> list[tuple[str, tuple[str, ...], str]]:
    """(prompt preset id, the kinds it may have, the setting that names it)."""
    out: list[tuple[str, tuple[str, ...], str]] = [
        (p, ("rating",), "designs.d2.prompts") for p in spec.prompts
    ]
    if spec.manipulation_check:
        out.append((MANIPULATION_PRESET, ("manipulation",), "designs.d2"))
    return out


def d2_requests(
    spec: D2Spec,
    study: StudyConfig,
    model: ModelSpec,
    job_text: str,
    variants: Mapping[int, Variant],
    case: Case,
) -> list[RequestSpec]:
    sid, meta = case.id or 0, case.meta
    out: list[RequestSpec] = []

    for i, vid in enumerate(case.variants):
        group = meta["groups"][i] or "blinded"
        presets = [checked_preset(p, ("rating",), "designs.d2.prompts") for p in spec.prompts]
        cells = [f"D2 {group}"] * len(presets)
        if spec.manipulation_check and meta["conditions"][i] == "named":
            presets.append(get_preset(MANIPULATION_PRESET))
            cells.append(f"D2 check {group}")
        for preset, cell in zip(presets, cells, strict=True):
            out += single_requests(
                model,
                preset,
                job_text,
                variants[vid],
                case_id=sid,
                ukey=f"d2:var:{vid}:{preset.id}",
                cell=cell,
                cluster=case.cluster,
                repeats=study.run.repeats,
            )
    return out
