"""What a report says about how the audit was done, gathered from the result file.

Everything here is a fact the metrics do not carry: which model version the
server said answered, what it cost where the provider said, when the answers
came, how many resumes, variants and test cases there were, and the hashes of
the inputs. Numbers that are metrics come only from `metrics_report`.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from resume_auditor import __version__
from resume_auditor.domain.groups import group_label
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import study_from_dict
from resume_auditor.prompts.presets import PromptError, get_preset
from resume_auditor.report.inputs import ResumeInput, input_files, resume_inputs, sha256
from resume_auditor.report.pairs import OTHERS, PAIRS
from resume_auditor.report.privacy import safe_url
from resume_auditor.report.prompts import PromptShown, prompt_used
from resume_auditor.store.parts import AuditReader
from resume_auditor.store.runs import RunRecord
from resume_auditor.store.schema import SCHEMA_VERSION

logger = logging.getLogger(__name__)


@dataclass
class DesignCounts:
    design: str
    pairs: int = 0
    equal: int = 0
    unequal: int = 0
    ks: list[int] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)  # reader's labels
    signals: list[str] = field(default_factory=list)
    about: str = ""  # the design's words for its pairs, with their source (Design.pairs_about)


@dataclass
class UnitDesign:
    """A design kept as a unit (designs/registry.py) as the method section states it."""

    label: str  # "D5"
    title: str
    cases: int
    sentence: str
    prompts: list[PromptShown]
    groups: list[str] = field(default_factory=list)  # reader's labels of the groups shown


@dataclass
class AuditFacts:
    study_name: str
    study_created_at: str
    study_seed: int | None
    job_title: str
    required: list[str]
    preferred: list[str]
    run: RunRecord
    base_url: str  # safe to print
    other_runs: list[RunRecord]
    prompt: PromptShown
    resumes: list[ResumeInput]
    variants: int
    designs: list[DesignCounts]
    model_versions: list[tuple[str, int]]  # (what the server reported, answers)
    cost_usd: float | None
    cost_note: str
    first_answer: str
    last_answer: str
    failures: list[tuple[str, int]]  # (kind, requests)
    findings: list[tuple[str, int]]  # (kind of finding, resumes with it)
    input_hashes: list[tuple[str, str, int]]  # (path in bundle, sha256, bytes)
    app_version: str = __version__
    schema_version: int = SCHEMA_VERSION
    keep_instructions: bool = False  # instructions to an AI kept in the copies (study setting)
    checklist_doubts: list[str] = field(default_factory=list)
    unit_designs: list[UnitDesign] = field(default_factory=list)
    cases_total: int = 0  # test cases of every design
    # answers whose tokens (and so cost) the app estimated: the provider sent no counts
    # (a stream without usage; runner/answering.py `tokens_estimated`)
    estimated_usage: int = 0
    # sends that may have been billed without their answer reaching the app (stalled,
    # cut off, dropped, let go for an earlier copy, or in flight at an abrupt end):
    # not in the cost above, which counts the answers received
    maybe_paid_twice: int = 0


def reported_version(raw: dict[str, Any]) -> str:
    """The model and version a server said answered, from its raw response.

    OpenAI-style servers (OpenAI, Azure, OpenRouter, llama.cpp, vLLM) send `model`
    and often `system_fingerprint`; OpenRouter adds the upstream `provider`;
    Anthropic sends `model`; Gemini sends `modelVersion`.
    """
    parts = [raw.get("model") or raw.get("modelVersion"), raw.get("system_fingerprint")]
    if raw.get("provider"):
        parts.append(f"via {raw['provider']}")
    return " ".join(str(p) for p in parts if p)


def _reported_cost(raw: dict[str, Any]) -> float | None:
    """A cost the provider put in its answer (OpenRouter's `usage.cost`, in USD)."""
    usage = raw.get("usage")
    if isinstance(usage, dict):
        cost = usage.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool) and math.isfinite(cost):
            return float(cost)
    return None


def _designs(result: AuditReader) -> list[DesignCounts]:
    out: dict[str, DesignCounts] = {}
    about = {d.label: d.pairs_about for d in PAIRS}
    for pair in (c for label in about for c in result.cases(label)):
        counts = out.setdefault(pair.design, DesignCounts(pair.design, about=about[pair.design]))
        counts.pairs += 1
        if pair.kind == "equal":
            counts.equal += 1
        else:
            counts.unequal += 1
        if pair.k and pair.k not in counts.ks:
            counts.ks.append(pair.k)
        for g in (pair.group_a, pair.group_b):
            if g and group_label(g) not in counts.groups:
                counts.groups.append(group_label(g))
        if pair.signal and pair.signal not in counts.signals:
            counts.signals.append(pair.signal)
    for counts in out.values():
        counts.ks.sort()
        counts.groups.sort()
    return [out[k] for k in sorted(out)]


def _answers(
    result: AuditReader, run_id: int, provider: str
) -> tuple[Counter[str], float | None, str, str, str]:
    """Model versions, summed reported cost, cost note, first and last answer time."""
    versions: Counter[str] = Counter()
    costs: list[float] = []
    unpriced = 0
    times: list[str] = []
    for request_id, *_rest, received_at in result.verdicts_since(run_id):
        times.append(received_at)
        raw = result.raw_response(request_id) or {}
        versions[reported_version(raw) or "(not reported)"] += 1
        cost = _reported_cost(raw)
        if cost is None:
            unpriced += 1
        else:
            costs.append(cost)
    # The runner's own record of what the answers cost (schema 3) comes first when it
    # says something: a positive total, or zero for the bundled local model.
    progress = result.progress(run_id)
    stored = getattr(progress, "cost_usd", None)
    first, last = min(times, default=""), max(times, default="")
    if isinstance(stored, int | float) and stored > 0:
        return (
            versions,
            float(stored),
            "as recorded by the app from the provider's prices",
            first,
            last,
        )
    if provider == "local":
        return versions, 0.0, "the bundled local model costs nothing per request", first, last
    if costs and not unpriced:
        total: float | None = math.fsum(costs)
        note = "as reported by the provider in its answers"
    elif costs:
        total = math.fsum(costs)
        note = f"reported by the provider for {len(costs)} of {len(costs) + unpriced} answers"
    else:
        total = None
        note = "not reported by the provider; see the token counts and the provider's prices"
    return versions, total, note, first, last


def _findings(result: AuditReader, resumes: list[ResumeInput]) -> list[tuple[str, int]]:
    """Kinds of things found in the resumes (hidden text, instructions to an AI...), counted.

    Only the kinds: a finding's text is the resume's own and may name the candidate.
    """
    counts: Counter[str] = Counter()
    for r in resumes:
        kinds = {str(f.get("kind", "other")) for f in result.resume_findings(r.id)}
        counts.update(kinds)
    return sorted(counts.items())


def gather_facts(result: AuditReader, run_id: int) -> AuditFacts:
    runs = result.runs()
    run = next(r for r in runs if r.id == run_id)
    study = result.study()
    config = study["config"]
    job = result.job() if result.has_job() else None
    resumes = resume_inputs(result)
    versions, cost, cost_note, first, last = _answers(result, run.id, run.provider)
    failures = Counter(kind or "error" for _, kind, _ in result.failures(run.id))
    files = input_files(result)
    seed = config.get("study", {}).get("seed")
    return AuditFacts(
        study_name=study["name"],
        study_created_at=study["created_at"],
        study_seed=seed if isinstance(seed, int) else None,
        job_title=job.title if job else "",
        required=[q.text for q in job.required] if job else [],
        preferred=[q.text for q in job.preferred] if job else [],
        run=run,
        base_url=safe_url(run.base_url),
        other_runs=[r for r in runs if r.id != run.id],
        prompt=prompt_used(result, run),
        resumes=resumes,
        variants=len(result.variant_labels()),
        designs=_designs(result),
        model_versions=versions.most_common(),
        cost_usd=cost,
        cost_note=cost_note,
        first_answer=first,
        last_answer=last,
        failures=sorted(failures.items()),
        findings=_findings(result, resumes),
        input_hashes=[(path, sha256(data), len(data)) for path, data in sorted(files.items())],
        keep_instructions=bool(config.get("variants", {}).get("keep_instructions", False)),
        checklist_doubts=_checklist_doubts(job),
        unit_designs=_unit_designs(result),
        cases_total=result.case_count(),
        estimated_usage=result.progress(run.id).estimated_usage,
        maybe_paid_twice=sum(result.unseen_sends(run.id).values()),
    )


def _unit_designs(result: AuditReader) -> list[UnitDesign]:
    """Each registry design with cases in the file that are not pairs (the method section
    counts those in `designs`): its cases in a sentence, its prompts."""
    out: list[UnitDesign] = []
    study = study_from_dict(result.config(), require_sources=False)
    variant_groups = {v.id: v.group for v in result.variants()}
    for design in OTHERS:
        cases = result.cases(design.label)
        if not cases:
            continue
        spec = design.spec(study)
        prompts = []
        for preset_id, _kinds, _where in design.presets(spec) if spec is not None else []:
            try:
                preset = get_preset(preset_id)
            except (KeyError, PromptError):
                continue
            prompts.append(
                PromptShown(
                    preset.id,
                    preset.title,
                    preset.citation,
                    preset.system,
                    preset.user,
                    "unchecked",
                    "The shipped preset; {resumes}, {count} and {job_description} stand for "
                    "the texts filled in.",
                )
            )
        sentence = design.describe_cases(cases)
        shown = {variant_groups.get(v) for c in cases for v in c.variants}
        groups = sorted(group_label(g) for g in shown if g)
        out.append(UnitDesign(design.label, design.title, len(cases), sentence, prompts, groups))
    return out


def _checklist_doubts(job: Job | None) -> list[str]:
    """What the parser doubted about the checklist, if it is still the one it read."""
    from resume_auditor.documents.jobparse import read_checklist

    if job is None or not job.text.strip():
        return []
    reading = read_checklist(job.text, job.title)
    return reading.notes if reading.job.qualifications == job.qualifications else []
