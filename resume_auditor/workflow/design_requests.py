"""The requests an audit's cases imply: one list of RequestSpecs for every design.

Every stored case (domain.case.Case) gives its requests here, each naming its
case (`case_id`), under the preset the run (D1) or its design's settings
(D2's folder and the registry's designs build their own) name, with the ukeys of
docs/runner.md so queuing twice adds nothing.
Repeats follow `run.repeats`; D1 pairs come in the orders `run.orders` asks.
"""

from __future__ import annotations

from typing import Any

from resume_auditor.designs.d2_correspondence.requests import d2_presets, d2_requests
from resume_auditor.designs.registry import enabled
from resume_auditor.domain.case import Case, Order, Truth, Variant
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.prompts import build_body, get_preset
from resume_auditor.prompts.requests import checked_preset as _preset
from resume_auditor.store.resultfile import RequestSpec, ResultFile


def check_design_presets(study: StudyConfig) -> None:
    """Unknown or wrong-kind presets fail before anything is written."""
    for spec in design_presets(study):
        _preset(*spec)


def design_presets(study: StudyConfig) -> list[tuple[str, tuple[str, ...], str]]:
    out: list[tuple[str, tuple[str, ...], str]] = []
    if study.d2 is not None:
        out += d2_presets(study.d2)
    for design, spec in enabled(study):
        out += design.presets(spec)
    return out


def request_body(
    model: ModelSpec, preset_id: str, job_text: str, first: str, second: str
) -> dict[str, Any]:
    """The stored body of one pairwise request (D1): two resumes under a preset."""
    preset = get_preset(preset_id)
    return build_body(
        model, preset, {"resume_1": first, "resume_2": second, "job_description": job_text}
    )


def _expected(truth: Truth | None, order: Order) -> str:
    """The answer a valid screener gives: the more qualified one, or abstain."""
    if truth is None or truth is Truth.EQUAL:
        return "abstain"
    shown_first = "a" if order is Order.AB else "b"
    return "first" if truth.value == shown_first else "second"


def _d1_specs(
    study: StudyConfig,
    model: ModelSpec,
    job_text: str,
    variants: dict[int, Variant],
    pairs: list[Case],
) -> list[RequestSpec]:
    """D1's pairs under the run's pairwise preset, in the orders the run asks for."""
    preset = get_preset(study.run.prompt)
    orders = [Order.AB, Order.BA] if study.run.orders == "both" else [Order.AB]
    keyed = []
    for pair in pairs:
        pair_id = pair.id or 0
        groups = sorted(g or "" for g in (pair.group_a, pair.group_b))
        cell = f"D1 {pair.kind} pairs, k={pair.k}, {' vs '.join(groups)}"
        if pair.signal != "name":
            cell += f", {pair.signal} signals"
        for order in orders:
            first, second = (
                (pair.variant_a, pair.variant_b)
                if order is Order.AB
                else (pair.variant_b, pair.variant_a)
            )
            body = request_body(
                model, study.run.prompt, job_text, variants[first].text, variants[second].text
            )
            context = {
                "names": [variants[first].name or "", variants[second].name or ""],
                "expect": _expected(pair.truth, order),
                "cluster": pair.cluster,
            }
            for rep in range(study.run.repeats):
                spec = RequestSpec(
                    ukey=f"pair:{pair_id}:{order.value}",
                    kind=preset.kind,
                    body=body,
                    variants=(first, second),
                    rep=rep,
                    preset=preset.id,
                    case_id=pair_id,
                    order=order.value,
                    context=context,
                    cell=cell,
                )
                keyed.append(((pair.cluster or 0, first, rep), spec))
    # Requests that show the same resume first run back to back, so a server that
    # caches the prompt prefix (llama.cpp, OpenAI, Anthropic) reuses it.
    keyed.sort(key=lambda kv: kv[0])
    return [spec for _, spec in keyed]


def design_specs(result: ResultFile, study: StudyConfig, model: ModelSpec) -> list[RequestSpec]:
    """Every request the audit's cases imply for `model`: D1 pairs, then the others."""
    job_text = result.job().text
    variants = {v.id or 0: v for v in result.variants()}
    cases = result.cases()
    out: list[RequestSpec] = _d1_specs(
        study, model, job_text, variants, [c for c in cases if c.design == "D1"]
    )

    registered = {design.label: (design, spec) for design, spec in enabled(study)}
    for s in cases:
        if s.design in registered:
            design, spec = registered[s.design]
            out += design.requests(spec, study, model, job_text, variants, s)
        elif s.design == "D2" and study.d2 is not None:
            out += d2_requests(study.d2, study, model, job_text, variants, s)
    return out
