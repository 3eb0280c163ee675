"""The audit's resumes in the result file: each source's original bytes, its text,
its identity template and what reading it found.

One part of the result file (store/tables.py); read through `parts.ResumeReader`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from resume_auditor.store.errors import ResultFileError
from resume_auditor.store.tables import Tables


@dataclass(frozen=True)
class ResumeRecord:
    id: int
    filename: str
    sha256: str
    text: str
    pages: int
    status: str
    message: str


class ResumeTables(Tables):
    """The `resume` table; mixed into ResultFile."""

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
    ) -> int:
        digest = hashlib.sha256(data if data is not None else text.encode("utf-8")).hexdigest()
        cur = self._db.execute(
            "INSERT INTO resume(filename, sha256, bytes, text, pages, status, message, "
            "template_json, findings_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                filename,
                digest,
                data,
                text,
                pages,
                status,
                message,
                None if template is None else json.dumps(template),
                json.dumps(findings or []),
            ),
        )
        return int(cur.lastrowid or 0)

    def resumes(self) -> list[ResumeRecord]:
        return [
            ResumeRecord(*row)
            for row in self._db.execute(
                "SELECT id, filename, sha256, text, pages, status, message FROM resume ORDER BY id"
            )
        ]

    def delete_resume(self, resume_id: int) -> None:
        """Remove a resume; refused while test cases built from it exist."""
        used = self._db.execute(
            "SELECT count(*) FROM variant WHERE resume_id = ?", (resume_id,)
        ).fetchone()[0]
        if used:
            raise ResultFileError(
                "Test cases are built from this resume. Clear the test cases first."
            )
        with self.transaction() as db:
            db.execute("DELETE FROM qual_text WHERE resume_id = ?", (resume_id,))
            db.execute("DELETE FROM resume WHERE id = ?", (resume_id,))

    def resume_findings(self, resume_id: int) -> list[dict[str, Any]]:
        row = self._db.execute(
            "SELECT findings_json FROM resume WHERE id = ?", (resume_id,)
        ).fetchone()
        return [] if row is None else list(json.loads(row[0]))

    def set_template(self, resume_id: int, template: dict[str, Any]) -> None:
        self._db.execute(
            "UPDATE resume SET template_json = ? WHERE id = ?", (json.dumps(template), resume_id)
        )

    def resume_bytes(self, resume_id: int) -> bytes | None:
        row = self._db.execute("SELECT bytes FROM resume WHERE id = ?", (resume_id,)).fetchone()
        return None if row is None else row[0]

    def resume_template(self, resume_id: int) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT template_json FROM resume WHERE id = ?", (resume_id,)
        ).fetchone()
        return None if row is None or row[0] is None else json.loads(row[0])

    def set_resume_status(self, resume_id: int, status: str, message: str = "") -> None:
        """A resume row's status ('ok', 'warning', 'error') and the reason shown with it.

        A synthetic base's row follows its text's review: usable, it is a source
        ('ok'); flagged or rejected, 'error', which every builder skips.
        """
        with self.transaction() as db:
            db.execute(
                "UPDATE resume SET status = ?, message = ? WHERE id = ?",
                (status, message, resume_id),
            )
