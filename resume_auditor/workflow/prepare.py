"""Turn a study file into a result file ready to run.

A new result file is written under a temporary name and renamed into place only
when complete, so a failure leaves nothing half-written. An existing result file
for the same study is reused: its cases stay as they are and only requests for a
model not yet run are added, so re-running a finished audit sends nothing.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resume_auditor.documents.errors import DocumentError
from resume_auditor.documents.identity import find_identity
from resume_auditor.documents.jobparse import classify, parse_job
from resume_auditor.documents.load import load_file
from resume_auditor.domain.case import Order
from resume_auditor.domain.identity import Slot, SlotKind, Template
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.domain.study import ModelSpec, StudyConfig, StudyError, study_from_dict
from resume_auditor.prompts import PAIRWISE_GRAMMAR, get_preset
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.variants.d1 import build_d1
from resume_auditor.workflow.studyfile import StudyFile

logger = logging.getLogger(__name__)


@dataclass
class Prepared:
    path: Path
    run_id: int
    study: StudyConfig
    model: ModelSpec
    new_file: bool
    requests_added: int
    notes: list[str] = field(default_factory=list)


def template_to_json(t: Template) -> dict[str, Any]:
    return {
        "slots": [
            {"start": s.start, "end": s.end, "kind": s.kind.value, "confidence": s.confidence}
            for s in t.slots
        ]
    }


def template_from_json(text: str, data: dict[str, Any]) -> Template:
    slots = [
        Slot(
            d["start"], d["end"], SlotKind(d["kind"]), text[d["start"] : d["end"]], d["confidence"]
        )
        for d in data["slots"]
    ]
    return Template(text, slots)


def study_of(result: ResultFile) -> StudyConfig:
    """The study stored in a result file."""
    return study_from_dict(tomllib.loads(result.study()["toml"]))


def _config_json(config: StudyConfig) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(dataclasses.asdict(config), default=str))
    return data


def _load_job(study: StudyFile) -> tuple[Job, str | None, bytes | None]:
    spec = study.config.job
    data: bytes | None = None
    name: str | None = None
    if spec.file:
        path = study.job_path()
        assert path is not None
        doc = load_file(path)
        text, data, name = doc.text, doc.data, path.name
    else:
        text = spec.text
    if not text.strip():
        raise StudyError("The job description is empty. Paste or load the job you are hiring for.")
    job = parse_job(text, spec.title)
    if spec.required or spec.preferred:
        job.qualifications = [
            Qualification(t, QualKind.REQUIRED, classify(t)) for t in spec.required
        ] + [Qualification(t, QualKind.PREFERRED, classify(t)) for t in spec.preferred]
    if not job.required:
        raise StudyError(
            "No required qualifications were found in the job description. Put them under a "
            "heading such as 'Requirements', or list them in the study file (job.required)."
        )
    return job, name, data


def request_body(
    model: ModelSpec, preset_id: str, job_text: str, first: str, second: str
) -> dict[str, Any]:
    preset = get_preset(preset_id)
    system, user = preset.render(
        {"resume_1": first, "resume_2": second, "job_description": job_text}
    )
    body: dict[str, Any] = {
        "model": model.model,
        "system": system,
        "user": user,
        "temperature": model.temperature,
        "max_tokens": model.max_tokens,
        "seed": model.seed,
    }
    if model.provider == "local":
        body["grammar"] = PAIRWISE_GRAMMAR
    return body


def _queue_run(result: ResultFile, study: StudyConfig, model: ModelSpec) -> tuple[int, int]:
    params = {
        "temperature": model.temperature,
        "max_tokens": model.max_tokens,
        "seed": model.seed,
        "orders": study.run.orders,
        "repeats": study.run.repeats,
    }
    run_id = result.find_run(model.provider, model.base_url, model.model, study.run.prompt, params)
    if run_id is None:
        run_id = result.add_run(
            model.provider, model.base_url, model.model, study.run.prompt, params
        )
    job_text = result.job().text
    texts = {v.id: v.text for v in result.variants()}
    orders = [Order.AB, Order.BA] if study.run.orders == "both" else [Order.AB]
    keyed = []
    for pair in result.pairs():
        for order in orders:
            first, second = (
                (pair.variant_a, pair.variant_b)
                if order is Order.AB
                else (pair.variant_b, pair.variant_a)
            )
            body = request_body(model, study.run.prompt, job_text, texts[first], texts[second])
            for rep in range(study.run.repeats):
                keyed.append(((pair.cluster, first, rep), (pair.id or 0, order, rep, body)))
    # Requests that show the same resume first run back to back, so a server that
    # caches the prompt prefix (llama.cpp, OpenAI, Anthropic) reuses it.
    keyed.sort(key=lambda kv: kv[0])
    items = [item for _, item in keyed]
    with result.transaction():
        added = result.add_requests(run_id, items)
    return run_id, added


def _build(result: ResultFile, study: StudyFile, notes: list[str]) -> None:
    config = study.config
    job, job_name, job_bytes = _load_job(study)
    result.save_study(config.name, study.text, _config_json(config), str(study.path))
    result.save_job(job, job_name, job_bytes)
    usable = 0
    for path in study.resume_paths():
        try:
            doc = load_file(path)
        except DocumentError as exc:
            notes.append(f"Skipped {path.name}: {exc.message}")
            data = path.read_bytes() if path.exists() else None
            result.add_resume(path.name, data, "", 0, "error", exc.message)
            continue
        template = find_identity(doc.text)
        status, message = "ok", ""
        if template.original_name() is None:
            status = "warning"
            message = "No candidate name found at the top; name-swap variants will not differ."
            notes.append(f"{path.name}: {message}")
        resume_id = result.add_resume(
            path.name, doc.data, doc.text, doc.pages, status, message, template_to_json(template)
        )
        if config.d1 is None:
            continue
        built = build_d1(resume_id, template, job, config.d1, config.seed)
        notes.extend(f"{path.name}: {n}" for n in built.notes)
        ids = [result.add_variant(v) for v in built.variants]
        for case in built.cases:
            case.variant_a, case.variant_b = ids[case.variant_a], ids[case.variant_b]
            result.add_pair(case)
        usable += 1
    if usable == 0:
        raise StudyError("None of the study's resumes could be used: " + " ".join(notes))


def prepare(study: StudyFile, out: str | Path, model: ModelSpec | None = None) -> Prepared:
    """Create or reuse the result file `out` for `study`, and queue its requests."""
    out = Path(out)
    config = study.config if model is None else dataclasses.replace(study.config, model=model)
    get_preset(config.run.prompt)  # an unknown preset fails before anything is written
    notes: list[str] = []
    if out.exists():
        with ResultFile(out) as result:
            if not result.has_study():
                raise StudyError(f"{out} is an empty result file; delete it and start again.")
            stored = result.study()
            if stored["toml"] != study.text:
                raise StudyError(
                    f"{out} already holds a different study ({stored['name']!r}). "
                    "Choose another output file, or delete this one to start over."
                )
            run_id, added = _queue_run(result, config, config.model)
        return Prepared(out, run_id, config, config.model, False, added, notes)

    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        with ResultFile(partial, create=True) as result:
            with result.transaction():
                _build(result, dataclasses.replace(study, config=config), notes)
            run_id, added = _queue_run(result, config, config.model)
        os.replace(partial, out)
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(str(partial) + suffix).unlink(missing_ok=True)
    return Prepared(out, run_id, config, config.model, True, added, notes)


def queue_run(path: str | Path, model: ModelSpec) -> tuple[int, int]:
    """(run id, requests added) for `model` on an existing result file; reuses a same run."""
    with ResultFile(path) as result:
        study = study_of(result)
        return _queue_run(result, study, model)
