"""The result file's parts as narrow interfaces: what a reader or a writer of one
concern may call, and nothing else.

`ResultFile` is every part at once (it opens, locks and closes the file); code that
only reads an audit, such as the report, names the Protocols it needs, so mypy
keeps it from writing and a test can hand it an audit held in memory
(`ResultFile.in_memory`) or any stand-in. Each `...Reader` is a part's read side;
each `...Store` adds its writes. docs/result-file.md, "Parts", says who uses which.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from sqlite3 import Connection
from typing import Any, Protocol

import pandas as pd

from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.job import Job
from resume_auditor.domain.qualtext import QualOrigin, QualStatus, QualText
from resume_auditor.store.requests import BatchRecord, PendingRequest, RequestSpec
from resume_auditor.store.resumes import ResumeRecord
from resume_auditor.store.runs import Progress, RunRecord


class Named(Protocol):
    """Where the audit is (`:memory:` for one held in memory): for messages and keys."""

    @property
    def path(self) -> Path: ...


class Transactional(Protocol):
    """All or nothing: writes inside leave the audit as it was if one fails."""

    def transaction(self) -> AbstractContextManager[Connection]: ...


# -- the audit's settings (store/study.py) -------------------------------------------


class StudyReader(Protocol):
    def has_study(self) -> bool: ...
    def study(self) -> dict[str, Any]: ...
    def config(self) -> dict[str, Any]: ...
    def has_job(self) -> bool: ...
    def job(self) -> Job: ...
    def meta(self, key: str) -> str | None: ...


class StudyStore(StudyReader, Protocol):
    def save_study(
        self, name: str, toml_text: str, config: dict[str, Any], source_path: str | None
    ) -> None: ...
    def save_config(self, config: dict[str, Any], name: str | None = None) -> None: ...
    def save_job(self, job: Job, source_name: str | None, source_bytes: bytes | None) -> None: ...
    def replace_job(
        self, job: Job, source_name: str | None, source_bytes: bytes | None
    ) -> None: ...
    def set_meta(self, key: str, value: str) -> None: ...


# -- resumes (store/resumes.py) --------------------------------------------------------


class ResumeReader(Protocol):
    def resumes(self) -> list[ResumeRecord]: ...
    def resume_findings(self, resume_id: int) -> list[dict[str, Any]]: ...
    def resume_bytes(self, resume_id: int) -> bytes | None: ...
    def resume_template(self, resume_id: int) -> dict[str, Any] | None: ...


class ResumeStore(ResumeReader, Protocol):
    def add_resume(
        self,
        filename: str,
        data: bytes | None,
        text: str,
        pages: int,
        status: str,
        message: str = "",
        template: dict[str, Any] | None = None,
        findings: list[dict[str, Any]] | None = None,
    ) -> int: ...
    def delete_resume(self, resume_id: int) -> None: ...
    def set_template(self, resume_id: int, template: dict[str, Any]) -> None: ...
    def set_resume_status(self, resume_id: int, status: str, message: str = "") -> None: ...


# -- variants and test cases (store/cases.py) -----------------------------------------


class CaseReader(Protocol):
    def variants(self) -> list[Variant]: ...
    def variant_labels(self) -> dict[int, tuple[str, str, str]]: ...
    def variant_text(self, variant_id: int) -> str: ...
    def variant_details(self) -> dict[int, tuple[str, str, str, str]]: ...
    def cases(self, design: str | None = None) -> list[Case]: ...
    def case_count(self, design: str | None = None) -> int: ...
    def case_kinds(self) -> dict[tuple[str, str], int]: ...


class CaseStore(CaseReader, Protocol):
    def add_variant(self, v: Variant) -> int: ...
    def set_variant_details(
        self, variant_id: int, *, qual_type: str, change_location: str, generator: str
    ) -> None: ...
    def add_case(self, c: Case) -> int: ...
    def clear_cases(self) -> None: ...
    def drop_audit_runs_and_cases(self) -> None: ...


# -- runs and their progress (store/runs.py) ------------------------------------------


class RunReader(Protocol):
    def runs(self, *, purpose: str | None = "audit") -> list[RunRecord]: ...
    def latest_run(self) -> RunRecord | None: ...
    def find_run(
        self, provider: str, base_url: str, model: str, prompt_id: str, params: dict[str, Any]
    ) -> int | None: ...
    def progress(self, run_id: int) -> Progress: ...
    def failures(self, run_id: int) -> list[tuple[int, str, str]]: ...
    def answered_by_run(self) -> dict[int, int]: ...
    def answer_marks(self) -> dict[int, tuple[int, str, int]]: ...
    def answered_count(self) -> int: ...


class RunStore(RunReader, Protocol):
    def add_run(
        self,
        provider: str,
        base_url: str,
        model: str,
        prompt_id: str,
        params: dict[str, Any],
        *,
        purpose: str = "audit",
    ) -> int: ...


# -- requests and answers (store/requests.py) -----------------------------------------


class AnswerReader(Protocol):
    def answers(
        self,
        run_id: int,
        *,
        design: str | None = None,
        kind: str | None = None,
        columns: Collection[str] | None = None,
    ) -> pd.DataFrame: ...
    def failed_requests(self, run_id: int, *, design: str | None = None) -> pd.DataFrame: ...
    def verdicts_since(
        self, run_id: int, since: str = ""
    ) -> list[tuple[int, int, str, int, str, str, str]]: ...
    def raw_response(self, request_id: int) -> dict[str, Any] | None: ...
    def request_body(self, request_id: int) -> dict[str, Any] | None: ...
    def response_record(self, request_id: int) -> dict[str, Any] | None: ...
    def response_history(self, request_id: int) -> list[dict[str, Any]]: ...
    def unseen_sends(self, run_id: int) -> dict[int, int]: ...
    def presets_by_run(self) -> dict[int, list[str]]: ...
    def cell_requests(
        self, run_id: int
    ) -> Iterator[tuple[str, dict[str, Any], str | None, dict[str, Any]]]: ...
    def open_count(self, run_id: int) -> int: ...
    def batches(self, run_id: int, *, open_only: bool = False) -> list[BatchRecord]: ...


class RequestStore(AnswerReader, Protocol):
    def add_request_specs(self, run_id: int, specs: Iterable[RequestSpec]) -> int: ...
    def add_repeat(self, request_id: int, rep: int, body: dict[str, Any] | None = None) -> int: ...
    def open_requests(
        self,
        run_id: int,
        include_failed: bool = True,
        *,
        after_id: int = 0,
        limit: int | None = None,
        batch_id: int | None = None,
    ) -> list[PendingRequest]: ...
    def duplicate_bodies(self, run_id: int) -> set[tuple[str, int]]: ...
    def mark_sent(self, request_id: int) -> None: ...
    def mark_unsent(self, request_id: int) -> None: ...
    def record_failure(self, request_id: int, kind: str, message: str) -> None: ...
    def sent_unanswered(self, run_id: int) -> list[int]: ...
    def note_unseen_sends(self, run_id: int, request_ids: Iterable[int]) -> None: ...
    def record_cached(
        self,
        request_id: int,
        raw: dict[str, Any],
        text: str,
        label: str,
        justification: str,
        parsed: dict[str, Any],
        model_version: str,
        notes: Iterable[str] = (),
    ) -> None: ...
    def record_response(
        self,
        request_id: int,
        raw: dict[str, Any],
        text: str,
        label: str,
        justification: str,
        usage: tuple[int, int, int, int],
        model_version: str,
        latency_s: float,
        *,
        parsed: dict[str, Any] | None = None,
        source: str = "api",
        cost_usd: float | None = 0.0,
        notes: Iterable[str] = (),
        unsupported: Iterable[str] = (),
    ) -> None: ...
    def mark_skipped(self, request_ids: Iterable[int], reason: str) -> int: ...
    def unskip(self, run_id: int) -> int: ...
    def add_batch(self, run_id: int, provider: str, request_ids: list[int]) -> int: ...
    def set_batch(
        self,
        batch_id: int,
        *,
        state: str | None = None,
        remote_id: str | None = None,
        remote_status: str | None = None,
        message: str | None = None,
    ) -> None: ...
    def release_batch(self, batch_id: int, message: str) -> int: ...
    def batch_requests(self, batch_id: int) -> dict[int, tuple[str, dict[str, Any]]]: ...


# -- qualification texts (store/qualtexts.py) ----------------------------------------


class QualTextReader(Protocol):
    def qual_texts(self, resume_id: int | None = None) -> list[QualText]: ...
    def qual_text(self, qual_id: int) -> QualText | None: ...


class QualTextStore(QualTextReader, Protocol):
    def add_qual_text(self, q: QualText) -> int: ...
    def set_qual_status(self, qual_id: int, status: QualStatus) -> QualStatus | None: ...
    def delete_qual_texts(
        self, resume_id: int | None = None, origin: QualOrigin | None = None
    ) -> int: ...


# -- every part, read only -----------------------------------------------------------


class AuditReader(
    Named, StudyReader, ResumeReader, CaseReader, RunReader, AnswerReader, QualTextReader, Protocol
):
    """An audit read and never written: what the report reads (report/*)."""


__all__ = [
    "AnswerReader",
    "AuditReader",
    "CaseReader",
    "CaseStore",
    "Named",
    "QualTextReader",
    "QualTextStore",
    "RequestStore",
    "ResumeReader",
    "ResumeStore",
    "RunReader",
    "RunStore",
    "StudyReader",
    "StudyStore",
    "Transactional",
]
