"""The audit's settings in the result file: the study (its file's text and the
settings as edited), the job with its checklist, and small named values (`meta`).

One part of the result file (store/tables.py); read through `parts.StudyReader`.
"""

from __future__ import annotations

import json
from typing import Any

from resume_auditor.domain.job import Job, Qualification, QualKind, QualType
from resume_auditor.store.errors import ResultFileError
from resume_auditor.store.packing import now_iso
from resume_auditor.store.tables import Tables


class StudyTables(Tables):
    """The `study`, `job`, `qualification` and `meta` tables; mixed into ResultFile."""

    def _set_meta(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self._set_meta(key, value)

    def has_study(self) -> bool:
        return bool(self._db.execute("SELECT count(*) FROM study").fetchone()[0] > 0)

    def save_study(
        self, name: str, toml_text: str, config: dict[str, Any], source_path: str | None
    ) -> None:
        self._db.execute(
            "INSERT INTO study(id, name, source_path, toml, config_json, created_at) "
            "VALUES (1, ?, ?, ?, ?, ?)",
            (name, source_path, toml_text, json.dumps(config, sort_keys=True), now_iso()),
        )

    def save_config(self, config: dict[str, Any], name: str | None = None) -> None:
        """Replace the audit's settings (the GUI edits them; the study file's text stays)."""
        with self.transaction():
            self._db.execute(
                "UPDATE study SET config_json = ?, name = coalesce(?, name) WHERE id = 1",
                (json.dumps(config, sort_keys=True), name),
            )

    def config(self) -> dict[str, Any]:
        """The audit's settings in study-file shape (see domain.study.study_to_dict)."""
        data: dict[str, Any] = self.study()["config"]
        return data

    def study(self) -> dict[str, Any]:
        row = self._db.execute(
            "SELECT name, source_path, toml, config_json, created_at FROM study WHERE id = 1"
        ).fetchone()
        if row is None:
            raise ResultFileError(f"{self.path} holds no study yet.")
        return {
            "name": row[0],
            "source_path": row[1],
            "toml": row[2],
            "config": json.loads(row[3]),
            "created_at": row[4],
        }

    def save_job(self, job: Job, source_name: str | None, source_bytes: bytes | None) -> None:
        self._db.execute(
            "INSERT INTO job(id, title, text, source_name, source_bytes) VALUES (1, ?, ?, ?, ?)",
            (job.title, job.text, source_name, source_bytes),
        )
        self._db.executemany(
            "INSERT INTO qualification(position, kind, qtype, text) VALUES (?, ?, ?, ?)",
            [(i, q.kind.value, q.qtype.value, q.text) for i, q in enumerate(job.qualifications)],
        )

    def has_job(self) -> bool:
        return bool(self._db.execute("SELECT count(*) FROM job").fetchone()[0])

    def replace_job(self, job: Job, source_name: str | None, source_bytes: bytes | None) -> None:
        """Set the job and its checklist, replacing what was there."""
        with self.transaction():
            self._db.execute("DELETE FROM qualification")
            self._db.execute("DELETE FROM job")
            self.save_job(job, source_name, source_bytes)

    def job(self) -> Job:
        row = self._db.execute("SELECT title, text FROM job WHERE id = 1").fetchone()
        if row is None:
            raise ResultFileError(f"{self.path} holds no job description yet.")
        quals = [
            Qualification(text=t, kind=QualKind(k), qtype=QualType(qt))
            for k, qt, t in self._db.execute(
                "SELECT kind, qtype, text FROM qualification ORDER BY position"
            )
        ]
        return Job(title=row[0], text=row[1], qualifications=quals)
