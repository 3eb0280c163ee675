from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from resume_auditor.domain.case import Case, CaseKind, Order, Truth, Variant, VariantKind
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.store.resultfile import RequestSpec, ResultFile, ResultFileError
from resume_auditor.store.schema import SCHEMA_VERSION
from resume_auditor.workflow.design_tables import pair_table


def _filled(path: Path) -> tuple[ResultFile, int]:
    rf = ResultFile(path, create=True)
    with rf.transaction():
        rf.save_study("s", "format = 1", {"a": 1}, None)
        rf.save_job(Job("Analyst", "text", [Qualification("SQL", QualKind.REQUIRED)]), None, None)
        rid = rf.add_resume("r.pdf", b"%PDF-1.4 x", "Jane Doe\nSQL", 1, "ok")
        va = rf.add_variant(Variant(rid, VariantKind.BASE, "A text", "black_woman", "A"))
        vb = rf.add_variant(Variant(rid, VariantKind.LESS, "B", "black_woman", "B", k=1))
        rf.add_case(Case.pair("D1", CaseKind.UNEQUAL, va, vb, Truth.A, rid, k=1))
    run = rf.add_run("local", "", "m", "d1-baseline", {"t": 0})
    return rf, run


def _d1(order: Order, body: dict[str, object]) -> RequestSpec:
    """A request about pair 1 (variants 1 and 2) in `order`."""
    shown = (1, 2) if order is Order.AB else (2, 1)
    return RequestSpec(
        f"pair:1:{order.value}", "pairwise_abstain", body, shown, case_id=1, order=order.value
    )


def test_new_file_has_current_schema(tmp_path: Path) -> None:
    rf, _ = _filled(tmp_path / "a.audit")
    version = sqlite3.connect(tmp_path / "a.audit").execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION
    assert rf.job().required[0].text == "SQL"
    assert rf.resume_bytes(1) == b"%PDF-1.4 x"
    rf.close()


def test_refuses_missing_foreign_and_newer_files(tmp_path: Path) -> None:
    with pytest.raises(ResultFileError, match="no result file"):
        ResultFile(tmp_path / "missing.audit")
    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(ResultFileError, match="not a result file"):
        ResultFile(other)
    newer = tmp_path / "newer.audit"
    _filled(newer)[0].close()
    con = sqlite3.connect(newer)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    with pytest.raises(ResultFileError, match="newer"):
        ResultFile(newer)
    garbage = tmp_path / "garbage.audit"
    garbage.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(ResultFileError):
        ResultFile(garbage)


def test_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    rf, _ = _filled(tmp_path / "a.audit")
    with pytest.raises(RuntimeError), rf.transaction():
        rf.add_resume("x.pdf", None, "t", 1, "ok")
        raise RuntimeError("boom")
    assert [r.filename for r in rf.resumes()] == ["r.pdf"]
    rf.close()


def test_requests_queue_once_and_response_commits_with_status(tmp_path: Path) -> None:
    rf, run = _filled(tmp_path / "a.audit")
    body = {"model": "m", "user": "u"}
    assert rf.add_request_specs(run, [_d1(Order.AB, body), _d1(Order.BA, body)]) == 2
    assert rf.add_request_specs(run, [_d1(Order.AB, body)]) == 0  # already queued
    pending = rf.open_requests(run)
    assert [p.order for p in pending] == [Order.AB, Order.BA]
    rf.mark_sent(pending[0].id)
    rf.record_response(
        pending[0].id,
        {"raw": 1},
        "txt <answer>first</answer>",
        "first",
        "txt",
        (10, 5, 0, 0),
        "m v1",
        0.1,
    )
    rf.record_failure(pending[1].id, "timeout", "slow")
    progress = rf.progress(run)
    assert (progress.total, progress.done, progress.failed, progress.pending) == (2, 1, 1, 0)
    assert progress.input_tokens == 10
    assert rf.raw_response(pending[0].id) == {"raw": 1}
    # the failed one is open again; the answered one never is
    assert [p.id for p in rf.open_requests(run)] == [pending[1].id]
    frame = pair_table(rf, rf.answers(run, design="D1"))
    assert list(frame["label"]) == ["first"]
    assert frame.iloc[0]["truth"] == "a"
    rf.close()


def test_a_response_is_never_recorded_twice_as_done(tmp_path: Path) -> None:
    rf, run = _filled(tmp_path / "a.audit")
    rf.add_request_specs(run, [_d1(Order.AB, {"model": "m", "user": "u"})])
    rid = rf.open_requests(run)[0].id
    rf.record_response(rid, {}, "t", "abstain", "", (1, 1, 0, 0), "", 0.0)
    rf.mark_sent(rid)  # a late duplicate send must not reopen it
    rf.record_failure(rid, "server", "x")
    assert rf.progress(run).done == 1
    assert rf.open_requests(run) == []
    rf.close()


def test_an_older_file_is_migrated_in_place(tmp_path: Path) -> None:
    from resume_auditor.store.schema import MIGRATIONS

    old = tmp_path / "v1.audit"
    con = sqlite3.connect(old)
    con.executescript(f"BEGIN; {MIGRATIONS[0]}; PRAGMA user_version = 1; COMMIT;")
    con.execute(
        "INSERT INTO resume(filename, sha256, text, status) VALUES ('r.pdf', 'x', 'Jane', 'ok')"
    )
    con.commit()
    con.close()
    with ResultFile(old) as rf:
        assert rf.resume_findings(1) == []
        assert rf.resumes()[0].filename == "r.pdf"
    version = sqlite3.connect(old).execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION
