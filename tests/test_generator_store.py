"""The qual_text table (schema 4): round trip, review status, deletion."""

from __future__ import annotations

from pathlib import Path

from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.identity import Persona, Slot, SlotKind, Template
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.domain.qualtext import Check, QualOrigin, QualStatus, QualText
from resume_auditor.store.resultfile import ResultFile


def _file(tmp_path: Path) -> tuple[ResultFile, int]:
    rf = ResultFile(tmp_path / "q.audit", create=True)
    with rf.transaction():
        rf.save_study("s", "format = 1", {}, None)
        rf.save_job(Job("Analyst", "t", [Qualification("SQL", QualKind.REQUIRED)]), None, None)
        rid = rf.add_resume("r.txt", None, "Jane Doe\nSQL", 1, "ok")
    return rf, rid


def test_round_trip_keeps_slots_checks_and_provenance(tmp_path: Path) -> None:
    rf, rid = _file(tmp_path)
    text = "Jane Doe\nShe knows SQL and Tableau."
    template = Template(
        text,
        [
            Slot(0, 8, SlotKind.FULL_NAME, "Jane Doe"),
            Slot(9, 12, SlotKind.PRONOUN_SUBJECT, "She", 0.8),
        ],
    )
    q = QualText(
        rid,
        VariantKind.MORE,
        1,
        template,
        changes=("Tableau",),
        origin=QualOrigin.GENERATOR,
        generator="openai:gpt-x",
        verified=False,
        checks=(Check("length", True, "+3%"), Check("judge", False, "missing Tableau")),
        attempts=3,
        provenance={"requests": [4, 5], "preset": "gen-more"},
    )
    qid = rf.add_qual_text(q)
    back = rf.qual_texts(rid)
    assert len(back) == 1 and back[0].id == qid
    got = back[0]
    assert got.template.slots == template.slots and got.template.text == text
    assert got.checks == q.checks and got.changes == ("Tableau",)
    assert got.provenance == {"requests": [4, 5], "preset": "gen-more"}
    assert not got.verified and not got.usable()
    persona = Persona("Ann", "Lee", "man")
    assert got.template.fill(persona) == "Ann Lee\nHe knows SQL and Tableau."
    assert rf.qual_texts(rid + 1) == []
    rf.close()


def test_status_returns_previous_and_delete_by_origin(tmp_path: Path) -> None:
    rf, rid = _file(tmp_path)
    base = QualText(rid, VariantKind.BASE, 0, Template("Jane Doe\nSQL"))
    gen = QualText(
        rid, VariantKind.LESS, 1, Template("Jane Doe"), origin=QualOrigin.GENERATOR, verified=False
    )
    b_id, g_id = rf.add_qual_text(base), rf.add_qual_text(gen)
    assert rf.set_qual_status(g_id, QualStatus.ACCEPTED) is QualStatus.PENDING
    got = rf.qual_text(g_id)
    assert got is not None and got.usable()
    assert rf.set_qual_status(g_id, QualStatus.REJECTED) is QualStatus.ACCEPTED
    assert rf.set_qual_status(999, QualStatus.REJECTED) is None
    assert rf.delete_qual_texts(rid, origin=QualOrigin.GENERATOR) == 1
    assert [q.id for q in rf.qual_texts()] == [b_id]
    rf.delete_resume(rid)  # its texts go with it
    assert rf.qual_texts() == []
    rf.close()


def test_generation_runs_stay_out_of_the_audit_and_survive_clearing_cases(tmp_path: Path) -> None:
    from resume_auditor.store.resultfile import RequestSpec

    rf, rid = _file(tmp_path)
    audit = rf.add_run("local", "", "m", "d1-baseline", {})
    gen = rf.add_run("local", "", "g", "gen-more", {}, purpose="generation")
    assert [r.id for r in rf.runs()] == [audit]
    assert rf.latest_run() is not None and rf.latest_run().id == audit  # type: ignore[union-attr]
    assert [r.id for r in rf.runs(purpose="generation")] == [gen]
    assert {r.id for r in rf.runs(purpose=None)} == {audit, gen}
    with rf.transaction():
        rf.add_request_specs(gen, [RequestSpec("gen:1", "generate", {"user": "x"})])
    req = rf.open_requests(gen)[0]
    rf.record_response(
        req.id, {}, "a text", "text", "", (1, 1, 0, 0), "g", 0.1,
        parsed={}, source="api", cost_usd=0.0, notes=(), unsupported=(),
    )  # fmt: skip
    assert rf.answered_count() == 0  # a generator's answer does not freeze the cases
    rf.clear_cases()
    assert [r.id for r in rf.runs(purpose=None)] == [gen]
    assert rf.response_record(req.id) is not None  # the paid answer is kept
    rf.close()
