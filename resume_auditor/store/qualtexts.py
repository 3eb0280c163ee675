"""Qualification texts in the result file (schema 4, table `qual_text`).

A qualification text is stored with its identity slots (so a persona can fill it
later), the checks a generated one passed or failed, its review status and its
provenance. Mixed into `ResultFile`; the design builders read `qual_texts()` and
keep only `usable()` ones, so a status change takes effect the next time cases
are built.
"""

from __future__ import annotations

import json
from typing import Any

from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.identity import Slot, SlotKind, Template
from resume_auditor.domain.qualtext import Check, QualOrigin, QualStatus, QualText
from resume_auditor.store.packing import now_iso
from resume_auditor.store.tables import Tables

_COLUMNS = (
    "id, resume_id, kind, k, text, slots_json, changes_json, removed_json, origin, generator, "
    "verified, checks_json, attempts, status, provenance_json"
)


def slots_to_json(template: Template) -> str:
    return json.dumps(
        [
            {
                "start": s.start,
                "end": s.end,
                "kind": s.kind.value,
                "original": s.original,
                "confidence": s.confidence,
            }
            for s in template.slots
        ]
    )


def slots_from_json(text: str, data: str) -> Template:
    slots = [
        Slot(d["start"], d["end"], SlotKind(d["kind"]), d["original"], float(d["confidence"]))
        for d in json.loads(data)
    ]
    return Template(text, slots)


def _row_to_qual(row: tuple[Any, ...]) -> QualText:
    return QualText(
        id=int(row[0]),
        resume_id=int(row[1]),
        kind=VariantKind(row[2]),
        k=int(row[3]),
        template=slots_from_json(row[4], row[5]),
        changes=tuple(json.loads(row[6])),
        removed_lines=tuple(json.loads(row[7])),
        origin=QualOrigin(row[8]),
        generator=row[9],
        verified=bool(row[10]),
        checks=tuple(
            Check(c["name"], bool(c["passed"]), c.get("detail", "")) for c in json.loads(row[11])
        ),
        attempts=int(row[12]),
        status=QualStatus(row[13]),
        provenance=json.loads(row[14]),
    )


class QualTextTables(Tables):
    """The `qual_text` table; mixed into ResultFile."""

    def add_qual_text(self, q: QualText) -> int:
        """Store a qualification text; returns its id (the `id` field of `q` is ignored)."""
        cur = self._db.execute(
            "INSERT INTO qual_text(resume_id, kind, k, text, slots_json, changes_json, "
            "removed_json, origin, generator, verified, checks_json, attempts, status, "
            "provenance_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                q.resume_id,
                q.kind.value,
                q.k,
                q.template.text,
                slots_to_json(q.template),
                json.dumps(list(q.changes)),
                json.dumps(list(q.removed_lines)),
                q.origin.value,
                q.generator,
                int(q.verified),
                json.dumps(
                    [{"name": c.name, "passed": c.passed, "detail": c.detail} for c in q.checks]
                ),
                q.attempts,
                q.status.value,
                json.dumps(q.provenance, sort_keys=True, default=str),
                now_iso(),
            ),
        )
        return int(cur.lastrowid or 0)

    def qual_texts(self, resume_id: int | None = None) -> list[QualText]:
        """Every qualification text (of one resume, if given), oldest first."""
        where, params = ("WHERE resume_id = ?", (resume_id,)) if resume_id is not None else ("", ())
        return [
            _row_to_qual(row)
            for row in self._db.execute(
                f"SELECT {_COLUMNS} FROM qual_text {where} ORDER BY id", params
            )
        ]

    def qual_text(self, qual_id: int) -> QualText | None:
        row = self._db.execute(
            f"SELECT {_COLUMNS} FROM qual_text WHERE id = ?", (qual_id,)
        ).fetchone()
        return None if row is None else _row_to_qual(row)

    def set_qual_status(self, qual_id: int, status: QualStatus) -> QualStatus | None:
        """Set the review status; returns the status it had (None: no such text)."""
        with self.transaction() as db:
            row = db.execute("SELECT status FROM qual_text WHERE id = ?", (qual_id,)).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE qual_text SET status = ? WHERE id = ?", (QualStatus(status).value, qual_id)
            )
            return QualStatus(row[0])

    def delete_qual_texts(
        self, resume_id: int | None = None, origin: QualOrigin | None = None
    ) -> int:
        """Remove texts (of one resume, of one origin, or both); returns how many went."""
        clauses: list[str] = []
        params: list[int | str] = []
        if resume_id is not None:
            clauses.append("resume_id = ?")
            params.append(resume_id)
        if origin is not None:
            clauses.append("origin = ?")
            params.append(QualOrigin(origin).value)
        where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
        with self.transaction() as db:
            cur = db.execute(f"DELETE FROM qual_text {where}", params)
            return int(cur.rowcount)
