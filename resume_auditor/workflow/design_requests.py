"""The requests an audit's cases imply: one list of RequestSpecs for every design.

Every stored case (domain.case.Case) gives its requests here, each naming its
case (`case_id`), under the preset the run (a design with `run_prompt`: the pairs) or its
design's settings name (each design builds its own), with the ukeys of docs/runner.md
so queuing twice adds nothing.
"""

from __future__ import annotations

from resume_auditor.designs.registry import enabled
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.prompts.requests import checked_preset as _preset
from resume_auditor.store.resultfile import RequestSpec, ResultFile


def check_design_presets(study: StudyConfig) -> None:
    """Unknown or wrong-kind presets fail before anything is written."""
    for spec in design_presets(study):
        _preset(*spec)


def design_presets(study: StudyConfig) -> list[tuple[str, tuple[str, ...], str]]:
    out: list[tuple[str, tuple[str, ...], str]] = []
    for design, spec in enabled(study):
        out += design.presets(spec)
    return out


def design_specs(result: ResultFile, study: StudyConfig, model: ModelSpec) -> list[RequestSpec]:
    """Every request the audit's cases imply for `model`: a design placed "head" (the
    pairs) all at once first, then the others case by case."""
    job_text = result.job().text
    variants = {v.id or 0: v for v in result.variants()}
    cases = result.cases()
    out: list[RequestSpec] = []
    registered = {}
    for design, spec in enabled(study):
        if design.placement == "head":
            mine = [c for c in cases if c.design == design.label]
            out += design.case_requests(spec, study, model, job_text, variants, mine)
        else:
            registered[design.label] = (design, spec)
    for s in cases:
        if s.design in registered:
            design, spec = registered[s.design]
            out += design.requests(spec, study, model, job_text, variants, s)
    return out
