"""Build an audit's test cases from what the audit file holds.

Cases are built from the stored job, the stored resume templates and the audit's
settings, never from files on disk, so the GUI can edit the job or the identity
slots and build again, and a result file always explains its own cases.
"""

from __future__ import annotations

from resume_auditor.domain.study import StudyConfig, StudyError
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.variants.d1 import build_d1
from resume_auditor.workflow.ingest import check_job, template_from_json


def build_cases(result: ResultFile, config: StudyConfig) -> list[str]:
    """(Re)build every design's cases; returns notes for the user. All or nothing."""
    if not result.has_job():
        raise StudyError("There is no job description yet. Paste or load one first.")
    job = result.job()
    check_job(job)
    notes: list[str] = []
    with result.transaction():
        result.clear_cases()
        usable = 0
        for record in result.resumes():
            if record.status == "error":
                continue
            stored = result.resume_template(record.id) or {"slots": []}
            template = template_from_json(record.text, stored)
            if config.d1 is None:
                usable += 1
                continue
            built = build_d1(record.id, template, job, config.d1, config.seed)
            notes.extend(f"{record.filename}: {n}" for n in built.notes)
            ids = [result.add_variant(v) for v in built.variants]
            for case in built.cases:
                case.variant_a, case.variant_b = ids[case.variant_a], ids[case.variant_b]
                result.add_pair(case)
            usable += 1
        if usable == 0:
            raise StudyError(
                "None of the audit's resumes can be used. Add at least one readable resume."
            )
    return notes
