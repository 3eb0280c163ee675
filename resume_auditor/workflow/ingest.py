"""Bring a job description and resumes into an audit file.

The CLI (from a study file) and the GUI (pasted text, dropped files) both come
through here, so a document is read, cleaned and templated the same way whatever
the door it came in by.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from resume_auditor.documents.errors import DocumentError
from resume_auditor.documents.extract import analyse_resume, notice
from resume_auditor.documents.jobparse import classify, parse_job, read_checklist
from resume_auditor.documents.load import MAX_BYTES, MAX_PAGES, load_bytes, load_file
from resume_auditor.documents.names import is_placeholder_name, name_in_doubt
from resume_auditor.documents.resumecheck import (
    RefusedFile,
    check_not_secret,
    resume_refusal,
    resume_warnings,
    secret_problem,
    token_problem,
)
from resume_auditor.domain.identity import Slot, SlotKind, Template
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.domain.study import StudyError
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.studyfile import StudyFile

NO_NAME = (
    "No candidate name found at the top: every variant gets a name line at the top so "
    "name variants differ."
)
NAME_IN_DOUBT = (
    "No candidate name was recognised, but {doubt!r} near the top may be one: if it is, "
    "mark it by hand, or every copy keeps it beside the test name."
)
PLACEHOLDER = (
    "The name at the top ({name!r}) looks like a template's stand-in; it is replaced "
    "like a real name in every variant."
)


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


def read_job(
    text: str,
    title: str = "",
    required: tuple[str, ...] | list[str] = (),
    preferred: tuple[str, ...] | list[str] = (),
) -> Job:
    """The job and its checklist; explicit lists replace what the headings give."""
    if not text.strip():
        raise StudyError("The job description is empty. Paste or load the job you are hiring for.")
    job = parse_job(text, title)
    if required or preferred:
        job.qualifications = [
            Qualification(t, QualKind.REQUIRED, classify(t)) for t in required
        ] + [Qualification(t, QualKind.PREFERRED, classify(t)) for t in preferred]
    return job


def check_job(job: Job) -> None:
    """A study needs required qualifications: without them no validity pair can be built.

    The parser's own notes say why the list came out empty (only duties, only
    preferred items, an empty heading...) and what to do, so the user is told that
    rather than a generic line.
    """
    if job.required:
        return
    notes = read_checklist(job.text, job.title).notes if job.text.strip() else []
    if notes:  # they say why the list is empty and what to do
        raise StudyError(" ".join(notes))
    raise StudyError(
        "No required qualifications were found in the job description. List them under [job] "
        'in the study file as required = ["...", ...], or put them under a heading such as '
        "'Requirements' in the job description."
    )


def job_from_study(study: StudyFile) -> tuple[Job, str | None, bytes | None]:
    spec = study.config.job
    data: bytes | None = None
    name: str | None = None
    if spec.file:
        path = study.job_path()
        assert path is not None
        if path.is_file():
            check_not_secret(str(path), path.read_bytes())
        doc = load_file(path, max_pages=study.max_pages, max_bytes=study.max_bytes)
        problem = token_problem(doc.text, path.name)
        if problem:
            raise RefusedFile(problem)
        text, data, name = doc.text, doc.data, path.name
    else:
        text = spec.text
    job = read_job(text, spec.title, spec.required, spec.preferred)
    check_job(job)
    return job, name, data


def ingest_resume(
    result: ResultFile,
    filename: str,
    data: bytes,
    *,
    password: str | None = None,
    max_pages: int = MAX_PAGES,
    max_bytes: int = MAX_BYTES,
) -> tuple[int, str]:
    """Read, clean and template one resume; store it. Returns (id, note or '').

    A DocumentError (scanned, encrypted, damaged...) propagates and nothing is stored:
    the caller decides whether to ask for a password or record the failure. A file
    that is not a resume or may hold a secret (resumecheck.py) is a RefusedFile.
    """
    check_not_secret(filename, data)
    doc = load_bytes(data, filename, password=password, max_pages=max_pages, max_bytes=max_bytes)
    problem = resume_refusal(doc.text, filename)
    if problem:
        raise RefusedFile(problem)
    extraction = analyse_resume(doc)  # identity, plus what the user must see before a run
    template = extraction.template
    status, message = "ok", ""
    found_name = template.original_name()
    if found_name is None:
        # a warning only where a name may have been missed; an anonymised resume is fine
        doubt = name_in_doubt(doc.text)
        status, message = (
            ("warning", NAME_IN_DOUBT.format(doubt=doubt)) if doubt else ("ok", NO_NAME)
        )
    elif is_placeholder_name(found_name):
        status, message = "warning", PLACEHOLDER.format(name=found_name)
    flagged = notice(extraction.findings, doc.warnings + resume_warnings(doc.text, filename))
    if flagged:
        status, message = "warning", " ".join(m for m in (message, flagged) if m)
    resume_id = result.add_resume(
        filename,
        doc.data,
        doc.text,
        doc.pages,
        status,
        message,
        template_to_json(template),
        [f.to_json(doc.text) for f in extraction.findings],
    )
    return resume_id, message


def record_unreadable(result: ResultFile, filename: str, data: bytes | None, message: str) -> int:
    """Keep a file we could not read, with the reason, so the user sees what happened.

    The bytes of a file that may hold a secret are not kept: the audit file travels.
    """
    if data is not None and secret_problem(filename, data):
        data = None
    return result.add_resume(filename, data, "", 0, "error", message)


def ingest_study_resumes(result: ResultFile, study: StudyFile) -> list[str]:
    notes: list[str] = []
    paths = study.resume_paths()
    for name in study.unmatched_passwords(paths):
        notes.append(f"resumes.passwords names {name!r}, which is not among the resumes.")
    for path in paths:
        readable = path.is_file() and path.stat().st_size <= study.max_bytes
        data = path.read_bytes() if readable else None
        try:
            if data is None:
                load_file(path, max_bytes=study.max_bytes)  # the plain "no file", "too large"
                continue
            check_not_secret(str(path), data)  # the path too: a file in ~/.ssh
            _, message = ingest_resume(
                result,
                path.name,
                data,
                password=study.password_for(path),
                max_pages=study.max_pages,
                max_bytes=study.max_bytes,
            )
        except DocumentError as exc:
            notes.append(f"Skipped {path.name}: {exc.message}")
            record_unreadable(
                result, path.name, None if isinstance(exc, RefusedFile) else data, exc.message
            )
            continue
        if message:
            notes.append(f"{path.name}: {message}")
    return notes


def resume_from_path(path: Path) -> tuple[str, bytes]:
    try:
        return path.name, path.read_bytes()
    except FileNotFoundError as exc:
        raise StudyError(f"There is no file at {path}.") from exc
