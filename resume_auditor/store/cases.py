"""Variants and test cases in the result file: the resume texts shown to a model
and the cases of every design (one shape, docs/result-file.md).

One part of the result file (store/tables.py); read through `parts.CaseReader`.
"""

from __future__ import annotations

import json

from resume_auditor.domain.case import Case, CaseKind, Truth, Variant, VariantKind
from resume_auditor.store.errors import ResultFileError
from resume_auditor.store.runs import audit_answer_count
from resume_auditor.store.tables import Tables

# The kinds of a pair with a known right answer (equal or unequal: D1's); any other
# design's kind is its own string.
PAIR_KINDS = frozenset(k.value for k in CaseKind)


class CaseTables(Tables):
    """The `variant` and `test_case` tables; mixed into ResultFile."""

    def add_variant(self, v: Variant) -> int:
        cur = self._db.execute(
            "INSERT INTO variant(resume_id, kind, grp, name, k, changes_json, removed_json, text) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                v.resume_id,
                v.kind.value,
                v.group,
                v.name,
                v.k,
                json.dumps(v.changes),
                json.dumps(v.removed_lines),
                v.text,
            ),
        )
        v.id = int(cur.lastrowid or 0)
        return v.id

    def variants(self) -> list[Variant]:
        return [
            Variant(
                id=row[0],
                resume_id=row[1],
                kind=VariantKind(row[2]),
                group=row[3],
                name=row[4],
                k=row[5],
                changes=json.loads(row[6]),
                removed_lines=json.loads(row[7]),
                text=row[8],
            )
            for row in self._db.execute(
                "SELECT id, resume_id, kind, grp, name, k, changes_json, removed_json, text "
                "FROM variant ORDER BY id"
            )
        ]

    def variant_labels(self) -> dict[int, tuple[str, str, str]]:
        """id -> (name, group, kind) without the texts: what a big table needs."""
        return {
            int(r[0]): (r[1] or "", r[2] or "", r[3])
            for r in self._db.execute("SELECT id, name, grp, kind FROM variant")
        }

    def variant_text(self, variant_id: int) -> str:
        row = self._db.execute("SELECT text FROM variant WHERE id = ?", (variant_id,)).fetchone()
        return "" if row is None else str(row[0])

    def add_case(self, c: Case) -> int:
        """Store a test case of any design (its variants stored first); sets `c.id`.

        An unequal pair's type and true gap come from its variants' kinds, as
        migration 5 derived them, so the two can never disagree.
        """
        if c.kind == CaseKind.UNEQUAL:
            c.pair_type, c.gap = self._pair_type(c)
        cur = self._db.execute(
            "INSERT INTO test_case(design, kind, cluster, variants_json, meta_json, truth, k, "
            "gap, pair_type, differs, group_a, group_b, signal, construction) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                c.design,
                str(c.kind),
                c.cluster,
                json.dumps(list(c.variants)),
                json.dumps(c.meta),
                None if c.truth is None else c.truth.value,
                c.k,
                c.gap,
                c.pair_type,
                c.differs,
                c.group_a,
                c.group_b,
                c.signal,
                c.construction,
            ),
        )
        c.id = int(cur.lastrowid or 0)
        return c.id

    def _pair_type(self, c: Case) -> tuple[str, int]:
        """(pair type, true gap) of an unequal pair from its variants' kinds.

        (c+, c-) differs by 2k qualifications although it was built with k.
        """
        marks = ",".join("?" * len(c.variants))
        kinds = {
            str(row[0])
            for row in self._db.execute(
                f"SELECT kind FROM variant WHERE id IN ({marks})", tuple(c.variants)
            )
        }
        if {"more", "less"} <= kinds:
            return "more_less", 2 * c.k
        if "more" in kinds:
            return "more_base", c.k
        if "less" in kinds:
            return "base_less", c.k
        return "", c.k

    def set_variant_details(
        self, variant_id: int, *, qual_type: str, change_location: str, generator: str
    ) -> None:
        """What the D1 breakdowns read about a variant (docs/designs.md)."""
        self._db.execute(
            "UPDATE variant SET qual_type = ?, change_location = ?, generator = ? WHERE id = ?",
            (qual_type, change_location, generator, variant_id),
        )

    def variant_details(self) -> dict[int, tuple[str, str, str, str]]:
        """id -> (kind, qual_type, change_location, generator); '' where not known.

        What the D1 breakdowns read (d1_castleman/inputs.d1_judgments), without the texts.
        """
        return {
            int(r[0]): (r[1], r[2], r[3], r[4])
            for r in self._db.execute(
                "SELECT id, kind, qual_type, change_location, generator FROM variant"
            )
        }

    def case_count(self, design: str | None = None) -> int:
        """How many test cases (of one design), without reading them (the app asks often)."""
        where, params = ("", ()) if design is None else (" WHERE design = ?", (design,))
        return int(self._db.execute(f"SELECT count(*) FROM test_case{where}", params).fetchone()[0])

    def case_kinds(self) -> dict[tuple[str, str], int]:
        """(design, kind) -> how many test cases, without reading them."""
        return {
            (str(d), str(k)): int(n)
            for d, k, n in self._db.execute(
                "SELECT design, kind, count(*) FROM test_case GROUP BY design, kind"
            )
        }

    def cases(self, design: str | None = None) -> list[Case]:
        """Every test case (of one design), by id: one shape for D1-D4."""
        where, params = ("", ()) if design is None else (" WHERE design = ?", (design,))
        return [
            Case(
                id=r[0],
                design=r[1],
                kind=CaseKind(r[2]) if r[2] in PAIR_KINDS else r[2],
                cluster=r[3],
                variants=json.loads(r[4]),
                meta=json.loads(r[5]),
                truth=None if r[6] is None else Truth(r[6]),
                k=r[7],
                gap=r[8],
                pair_type=r[9],
                differs=r[10],
                group_a=r[11],
                group_b=r[12],
                signal=r[13],
                construction=r[14],
            )
            for r in self._db.execute(
                "SELECT id, design, kind, cluster, variants_json, meta_json, truth, k, gap, "
                "pair_type, differs, group_a, group_b, signal, construction "
                f"FROM test_case{where} ORDER BY id",
                params,
            )
        ]

    def clear_cases(self) -> None:
        """Delete variants, pairs and their unanswered requests, to build them again.

        Refused once any answer exists: those answers belong to these cases, and an
        audit's numbers must always trace back to the cases that produced them.
        """
        if audit_answer_count(self._db):
            raise ResultFileError(
                "This audit already has answers from a model, so its test cases are fixed. "
                "Save a copy as a new audit to change them."
            )
        waiting = self._db.execute(
            "SELECT count(*) FROM batch WHERE state IN ('submitted', 'ended') "
            "AND run_id IN (SELECT id FROM run WHERE purpose = 'audit')"
        ).fetchone()[0]
        if waiting:
            raise ResultFileError(
                "A batch of this audit's requests is still with the provider (and paid for). "
                "Collect it by running the audit, or save a copy as a new audit."
            )
        self.drop_audit_runs_and_cases()

    def drop_audit_runs_and_cases(self) -> None:
        """Delete the audit's runs with their requests, answers and batches, and every
        test case and variant, without asking: for a new audit made from a copy of
        this one (workflow.prepare.fork_audit), and for `clear_cases` once it has
        checked that nothing answered would be lost.

        The study, job, resumes, qualification texts and the generator's runs (their
        paid answers wrote those texts, and their provenance names those requests) stay.
        """
        audit_runs = "SELECT id FROM run WHERE purpose = 'audit'"
        audit_requests = f"SELECT id FROM request WHERE run_id IN ({audit_runs})"
        with self.transaction() as db:
            for statement in (
                f"DELETE FROM response_history WHERE request_id IN ({audit_requests})",
                f"DELETE FROM response WHERE request_id IN ({audit_requests})",
                f"DELETE FROM request WHERE run_id IN ({audit_runs})",
                f"DELETE FROM batch WHERE run_id IN ({audit_runs})",
                "DELETE FROM run WHERE purpose = 'audit'",
                "DELETE FROM test_case",
                "DELETE FROM variant",
            ):
                db.execute(statement)
