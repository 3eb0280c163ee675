"""The request model in the result file: D1 rows migrate, any kind queues once,
nothing paid is ever dropped."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from resume_auditor.domain.case import Case
from resume_auditor.store.packing import pack
from resume_auditor.store.requests import ANSWER_COLUMNS
from resume_auditor.store.resultfile import RequestSpec, ResultFile, ResultFileError
from resume_auditor.store.schema import MIGRATIONS, SCHEMA_VERSION
from resume_auditor.workflow.design_tables import pair_table


def _v2_file(path: Path) -> None:
    con = sqlite3.connect(path)
    for number, script in enumerate(MIGRATIONS[:2]):
        con.executescript(f"BEGIN; {script}; PRAGMA user_version = {number + 1}; COMMIT;")
    con.executescript(
        """
        INSERT INTO resume(filename, sha256, text, status) VALUES ('r.pdf', 'x', 'Jane', 'ok');
        INSERT INTO variant(resume_id, kind, text) VALUES (1, 'base', 'A'), (1, 'less', 'B');
        INSERT INTO pair(design, kind, variant_a, variant_b, truth, cluster)
            VALUES ('D1', 'unequal', 1, 2, 'a', 1);
        INSERT INTO run(provider, base_url, model, prompt_id, params_json, created_at)
            VALUES ('local', '', 'm', 'd1-baseline', '{}', 't');
        """
    )
    body, raw = pack({"model": "m", "user": "u"}), pack({"id": 1})
    con.executemany(
        "INSERT INTO request(run_id, pair_id, ord, rep, body, body_sha256, status) "
        "VALUES (1, 1, ?, 0, ?, ?, ?)",
        [("ab", body, "h", "done"), ("ba", body, "h2", "pending")],
    )
    con.execute(
        "INSERT INTO response(request_id, raw, text, label, input_tokens, received_at) "
        "VALUES (1, ?, 't', 'first', 12, '2026-01-01')",
        (raw,),
    )
    con.commit()
    con.close()


def test_a_version_2_file_with_answers_migrates_and_reads_as_before(tmp_path: Path) -> None:
    path = tmp_path / "v2.audit"
    _v2_file(path)
    with ResultFile(path) as rf:
        progress = rf.progress(1)
        assert (progress.total, progress.done, progress.pending) == (2, 1, 1)
        assert progress.input_tokens == 12 and progress.cost_usd == 0.0  # local: free
        frame = pair_table(rf, rf.answers(1, design="D1"))
        assert list(frame["label"]) == ["first"] and frame.iloc[0]["truth"] == "a"
        (pending,) = rf.open_requests(1)
        assert (pending.kind, pending.ukey, pending.variants) == (
            "pairwise_abstain",
            "pair:1:ba",
            (2, 1),
        )
        assert pending.preset == "d1-baseline"
        assert rf._db.execute("PRAGMA foreign_key_check").fetchall() == []  # noqa: SLF001
    version = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION


def _file(path: Path) -> tuple[ResultFile, int]:
    rf = ResultFile(path, create=True)
    with rf.transaction():
        rf.save_study("s", "format = 1", {}, None)
    return rf, rf.add_run("openai", "", "gpt-4o-mini", "d3-yes-no", {})


def test_requests_of_any_kind_queue_once_and_answers_keep_their_parsed_result(
    tmp_path: Path,
) -> None:
    rf, run = _file(tmp_path / "a.audit")
    pool = rf.add_case(Case("D3", "pool", [1, 2, 3], cluster=7, meta={"round": 1}))
    specs = [
        RequestSpec("d3:1", "yes_no", {"model": "m", "user": "u1"}, (1,), case_id=pool),
        RequestSpec("d4:rank", "ranking", {"model": "m", "user": "u2"}, (3, 1, 2), cell="c"),
    ]
    assert rf.add_request_specs(run, specs) == 2
    assert rf.add_request_specs(run, specs) == 0
    first, second = rf.open_requests(run)
    rf.record_response(
        first.id,
        {"raw": 1},
        "Yes",
        "yes",
        "",
        (100, 1, 40, 0),
        "v",
        0.2,
        parsed={"score": 0.93},
        cost_usd=0.0001,
        notes=("a note",),
    )
    frame = rf.answers(run)
    assert list(frame["kind"]) == ["yes_no"] and frame.iloc[0]["parsed"] == {"score": 0.93}
    assert frame.iloc[0]["case_id"] == pool and frame.iloc[0]["variants"] == [1]
    assert (frame.iloc[0]["design"], frame.iloc[0]["case_meta"]) == ("D3", {"round": 1})
    assert list(frame.columns) == ANSWER_COLUMNS  # one shape for every design
    rf.record_response(second.id, {}, "A", "ranked", "", (1, 1, 0, 0), "", 0, parsed={})
    no_case = rf.answers(run).iloc[1]  # a request that names no case still reads
    assert list(rf.answers(run).columns) == ANSWER_COLUMNS and pd.isna(no_case["case_id"])
    assert rf.cases()[0].meta == {"round": 1}
    assert rf.answers(run, design="D1").empty  # D1 readers see pairs only
    assert pair_table(rf, rf.answers(run)).empty
    assert rf.verdicts_since(run) == []
    progress = rf.progress(run)
    assert progress.cached_tokens == 40 and progress.cost_usd == pytest.approx(0.0001)
    assert second.variants == (3, 1, 2) and second.cell == "c"
    rf.close()


def test_a_replaced_answer_moves_to_the_history_and_still_counts_as_spend(tmp_path: Path) -> None:
    rf, run = _file(tmp_path / "h.audit")
    rf.add_request_specs(run, [RequestSpec("k", "yes_no", {"model": "m", "user": "u"})])
    (req,) = rf.open_requests(run)
    rf.record_response(req.id, {"n": 1}, "hm", "invalid", "", (10, 5, 0, 0), "", 0, cost_usd=0.5)
    rf.record_response(req.id, {"n": 2}, "Yes", "yes", "", (10, 1, 0, 0), "", 0, cost_usd=0.25)
    assert [h["raw"] for h in rf.response_history(req.id)] == [{"n": 1}]
    progress = rf.progress(run)
    assert progress.done == 1 and progress.invalid == 0
    assert progress.cost_usd == pytest.approx(0.75) and progress.input_tokens == 20
    rf.close()


def test_batches_hold_their_requests_and_a_running_one_protects_the_cases(
    tmp_path: Path,
) -> None:
    rf, run = _file(tmp_path / "b.audit")
    specs = [RequestSpec(f"k{i}", "yes_no", {"model": "m", "user": f"u{i}"}) for i in range(3)]
    rf.add_request_specs(run, specs)
    ids = [r.id for r in rf.open_requests(run)]
    batch = rf.add_batch(run, "openai", ids[:2])
    assert [r.id for r in rf.open_requests(run)] == ids[2:]
    assert [r.id for r in rf.open_requests(run, batch_id=batch)] == ids[:2]
    assert rf.progress(run).batched == 2
    rf.set_batch(batch, state="submitted", remote_id="batch_1")
    with pytest.raises(ResultFileError, match="still with the provider"):
        rf.clear_cases()
    rf.record_failure(ids[0], "server", "line failed")
    assert rf.release_batch(batch, "no answer") == 1
    failures = dict((i, msg) for i, _, msg in rf.failures(run))
    assert failures == {ids[0]: "line failed", ids[1]: "no answer"}
    assert len(rf.open_requests(run)) == 3
    rf.set_batch(batch, state="collected")
    rf.clear_cases()
    assert rf.batches(run) == []
    rf.close()
