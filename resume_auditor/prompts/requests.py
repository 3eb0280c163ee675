"""The request specs every design builds the same way, so a design folder never
copies another's: one resume under a preset, and a batch ranked in several orders.

The body (build_body) is what the response cache keys on, and the ukey what makes
queuing twice add nothing (docs/runner.md): both are built here exactly as the
designs built them before they moved into their folders, so nothing a user has
stored changes (tests/test_design_request_bodies.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.study import ModelSpec, StudyError
from resume_auditor.prompts.body import build_body
from resume_auditor.prompts.presets import Preset, get_preset
from resume_auditor.prompts.read_ranking import default_labels
from resume_auditor.store.requests import RequestSpec


def request_body(
    model: ModelSpec, preset_id: str, job_text: str, first: str, second: str
) -> dict[str, Any]:
    """The stored body of one pairwise request: two resumes under a preset."""
    preset = get_preset(preset_id)
    return build_body(
        model, preset, {"resume_1": first, "resume_2": second, "job_description": job_text}
    )


def checked_preset(preset_id: str, kinds: tuple[str, ...], where: str) -> Preset:
    """The preset `preset_id`, refused with a plain message unless of one of `kinds`."""
    preset = get_preset(preset_id)
    if preset.kind not in kinds:
        raise StudyError(
            f"{where}: the prompt {preset.id!r} is of kind {preset.kind}; "
            f"this design needs one of kind {' or '.join(kinds)}."
        )
    return preset


def single_requests(
    model: ModelSpec,
    preset: Preset,
    job_text: str,
    variant: Variant,
    *,
    case_id: int,
    ukey: str,
    cell: str,
    cluster: Any,
    repeats: int,
) -> list[RequestSpec]:
    """One resume shown alone under `preset`, every repeat."""
    body = build_body(model, preset, {"resume": variant.text, "job_description": job_text})
    return [
        RequestSpec(
            ukey=ukey,
            kind=preset.kind,
            body=body,
            variants=(variant.id or 0,),
            rep=rep,
            preset=preset.id,
            case_id=case_id,
            context={"cluster": cluster},
            cell=cell,
        )
        for rep in range(repeats)
    ]


def ranking_requests(
    model: ModelSpec,
    preset: Preset,
    job_text: str,
    variants: Mapping[int, Variant],
    case: Case,
    *,
    render: Callable[[Sequence[str], Sequence[str]], str],
    ukey: Callable[[Sequence[int]], str],
    cell: str,
    repeats: int,
    presentation: bool = False,
) -> list[RequestSpec]:
    """A batch of resumes ranked together, once per shown order of `case.meta["orders"]`
    (each a permutation of the case's variants) and repeat.

    Each resume is shown under a letter (`render` lays the {resumes} block out), and
    the context carries the letters and names shown, so the shared ranking reader
    (prompts/read_ranking.py) reads an answer by names or by letters. `ukey` names
    one shown order; `presentation`: the context also numbers the order.
    """
    out: list[RequestSpec] = []
    ids = case.variants
    for j, perm in enumerate(case.meta["orders"]):
        shown = [ids[i] for i in perm]
        labels = default_labels(len(shown))
        context: dict[str, Any] = {
            "count": len(shown),
            "labels": labels,
            "names": [variants[v].name or "" for v in shown],
        }
        if presentation:
            context["presentation"] = j
        body = build_body(
            model,
            preset,
            {
                "resumes": render([variants[v].text for v in shown], labels),
                "count": str(len(shown)),
                "job_description": job_text,
            },
            context=context,
        )
        out.extend(
            RequestSpec(
                ukey=ukey(perm),
                kind=preset.kind,
                body=body,
                variants=tuple(shown),
                rep=rep,
                preset=preset.id,
                case_id=case.id,
                context=context,
                cell=cell,
            )
            for rep in range(repeats)
        )
    return out
