"""Migration 5: pair type and true gap, and the variant details the D1 breakdowns read.

The old file is written the way the app wrote it before migration 5 (schema 4,
pairs inserted with the old columns), then opened by this app.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from resume_auditor.domain.case import Case, CaseKind, Truth, Variant, VariantKind
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.store import schema
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.store.schema import MIGRATIONS, SCHEMA_VERSION

OLD_PAIR = (
    "INSERT INTO pair(design, kind, variant_a, variant_b, truth, cluster, k, differs, "
    "group_a, group_b, signal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _schema4_file(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:
        m.setattr(schema, "MIGRATIONS", MIGRATIONS[:4])
        m.setattr(schema, "SCHEMA_VERSION", 4)
        rf = ResultFile(path, create=True)
        with rf.transaction():
            rf.save_study("s", "format = 1", {"a": 1}, None)
            rf.save_job(Job("Analyst", "t", [Qualification("SQL", QualKind.REQUIRED)]), None, None)
            rid = rf.add_resume("r.pdf", b"%PDF-1.4 x", "Jane Doe\nSQL", 1, "ok")
            base = rf.add_variant(Variant(rid, VariantKind.BASE, "base", "black_woman", "A"))
            less = rf.add_variant(Variant(rid, VariantKind.LESS, "less", "white_man", "B", k=1))
            more = rf.add_variant(Variant(rid, VariantKind.MORE, "more", "white_man", "C", k=1))
            twin = rf.add_variant(Variant(rid, VariantKind.BASE, "base", "white_man", "D"))
            db = rf._db
            for a, b, truth in ((base, less, "a"), (less, more, "b"), (more, base, "a")):
                db.execute(OLD_PAIR, ("D1", "unequal", a, b, truth, rid, 1, "", None, None, "name"))
            db.execute(OLD_PAIR, ("D1", "equal", base, twin, "equal", rid, 0, "", None, None, "n"))
        rf.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 4


def test_old_pairs_get_their_type_and_true_gap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.audit"
    _schema4_file(path, monkeypatch)
    rf = ResultFile(path)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    rows = rf._db.execute("SELECT kind, k, pair_type, gap FROM test_case ORDER BY id").fetchall()
    assert rows == [
        ("unequal", 1, "base_less", 1),
        ("unequal", 1, "more_less", 2),  # built with k = 1, differs by 2
        ("unequal", 1, "more_base", 1),
        ("equal", 0, "", 0),
    ]
    rf.close()


def test_new_pairs_and_judgments_carry_type_gap_and_details(tmp_path: Path) -> None:
    rf = ResultFile(tmp_path / "new.audit", create=True)
    with rf.transaction():
        rf.save_study("s", "format = 1", {"a": 1}, None)
        rid = rf.add_resume("r.pdf", b"%PDF-1.4 x", "Jane Doe\nSQL", 1, "ok")
        more = rf.add_variant(Variant(rid, VariantKind.MORE, "m", "white_man", "M", k=2))
        less = rf.add_variant(Variant(rid, VariantKind.LESS, "l", "white_man", "L", k=2))
        rf.set_variant_details(more, qual_type="hard_skill", change_location="body", generator="g")
        rf.set_variant_details(less, qual_type="education", change_location="summary", generator="")
        pid = rf.add_case(Case.pair("D1", CaseKind.UNEQUAL, more, less, Truth.A, rid, k=2))
    assert rf._db.execute(
        "SELECT pair_type, gap FROM test_case WHERE id = ?", (pid,)
    ).fetchone() == ("more_less", 4)
    assert rf.cases("D1")[0].pair_type == "more_less" and rf.cases("D1")[0].gap == 4
    assert rf.variant_details()[more] == ("more", "hard_skill", "body", "g")
    rf.close()
