"""An audit's inputs as files: the settings, the job, the templated resumes, the prompts.

The bundle stores exactly these files and the report's reproducibility appendix
prints their SHA-256, so an auditor holding both can check that the report
describes the bundle. No original resume text, bytes or file name is in them
(privacy.py); no key is either: a key never enters the result file.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from resume_auditor.report.privacy import resume_labels, resume_slug, safe_url, templated
from resume_auditor.report.prompts import preset_shown, prompt_used
from resume_auditor.store.parts import AuditReader, ResumeReader


def canonical_json(data: Any) -> bytes:
    """Stable JSON bytes (sorted keys, UTF-8, trailing newline): same data, same hash."""
    return (json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class ResumeInput:
    id: int
    label: str  # "Resume 1"
    path: str  # "inputs/resumes/resume-01.txt"
    pages: int
    status: str
    source_sha256: str  # of the original file, as the app read it
    templated_text: str
    slots: list[dict[str, Any]]

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "file": self.path,
            "pages": self.pages,
            "status": self.status,
            "source_sha256": self.source_sha256,
            "templated_sha256": sha256(self.templated_text.encode("utf-8")),
            "slots": self.slots,
        }


def resume_inputs(result: ResumeReader) -> list[ResumeInput]:
    records = result.resumes()
    labels = resume_labels([r.id for r in records])
    out = []
    for record in records:
        stored = result.resume_template(record.id) or {"slots": []}
        text, slots = templated(record.text, list(stored.get("slots", [])))
        label = labels[record.id]
        out.append(
            ResumeInput(
                record.id,
                label,
                f"inputs/resumes/{resume_slug(label)}.txt",
                record.pages,
                record.status,
                record.sha256,
                text,
                slots,
            )
        )
    return out


def anonymised_settings(config: dict[str, Any], resumes: list[ResumeInput]) -> dict[str, Any]:
    """The audit's settings with resume paths (which often carry names) replaced."""
    out = copy.deepcopy(config)
    if isinstance(out.get("resumes"), dict):
        out["resumes"]["files"] = [r.path for r in resumes]
    model = out.get("model")
    if isinstance(model, dict) and isinstance(model.get("base_url"), str):
        model["base_url"] = safe_url(model["base_url"])
    return out


def input_files(result: AuditReader) -> dict[str, bytes]:
    """Path in the bundle -> content, for every input of the audit."""
    resumes = resume_inputs(result)
    files: dict[str, bytes] = {
        "settings/study.json": canonical_json(anonymised_settings(result.config(), resumes))
    }
    if result.has_job():
        job = result.job()
        files["inputs/job.txt"] = job.text.encode("utf-8")
        files["inputs/job.json"] = canonical_json(
            {
                "title": job.title,
                "qualifications": [
                    {"text": q.text, "kind": q.kind.value, "type": q.qtype.value}
                    for q in job.qualifications
                ],
            }
        )
    for r in resumes:
        files[r.path] = r.templated_text.encode("utf-8")
    files["inputs/resumes.json"] = canonical_json([r.summary() for r in resumes])
    # every prompt a run's requests were built with (a run of D5 alone never used
    # `run.prompt_id`, D1's); D1's as sent, the others' as shipped
    seen: set[str] = set()
    used = result.presets_by_run()
    for run in result.runs():
        for preset_id in used.get(run.id) or [run.prompt_id]:
            if preset_id in seen:
                continue
            seen.add(preset_id)
            shown = prompt_used(result, run) if preset_id == run.prompt_id else None
            shown = shown or preset_shown(preset_id)
            if shown is not None:
                files[f"prompts/{preset_id}.txt"] = shown.text().encode("utf-8")
    return files
