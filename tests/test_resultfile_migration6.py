"""Migration 6: one table for every design's cases, on a file the old app wrote.

The fixture (tests/migration_data/README.md) was written by the app at schema 5
with every design and two runs; its metrics were computed by that app. Opened
here, it must keep every request, answer, replaced answer and batch, keep the
pairs' ids, and give every number exactly as before.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from close_numbers import differences

from resume_auditor.domain.study import ModelSpec
from resume_auditor.settings.thresholds import shipped_thresholds
from resume_auditor.store.resultfile import ResultFile, ResultFileError
from resume_auditor.store.schema import SCHEMA_VERSION
from resume_auditor.workflow.metrics import metrics_report
from resume_auditor.workflow.prepare import queue_run

DATA = Path(__file__).resolve().parent / "migration_data"


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    path = tmp_path / "old.audit"
    path.write_bytes(gzip.decompress((DATA / "schema5.audit.gz").read_bytes()))
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 5
    return path


def _rows(path: Path, query: str) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(path)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def test_every_request_answer_and_batch_survives_and_pairs_keep_their_ids(old_file: Path) -> None:
    kept = (
        "SELECT id, run_id, kind, preset, ord, variants_json, cell, rep, body, body_sha256, "
        "status, attempts, error_kind, error, sent_at, done_at, batch_id FROM request ORDER BY id"
    )
    requests = _rows(old_file, kept)
    responses = _rows(old_file, "SELECT * FROM response ORDER BY request_id")
    history = _rows(old_file, "SELECT * FROM response_history ORDER BY id")
    batches = _rows(old_file, "SELECT * FROM batch ORDER BY id")
    pairs = _rows(
        old_file,
        "SELECT id, design, kind, json_array(variant_a, variant_b), truth, cluster, k, gap, "
        "pair_type, differs, group_a, group_b, signal FROM pair ORDER BY id",
    )
    sets = _rows(
        old_file, "SELECT id, design, kind, cluster, variants_json, meta_json FROM case_set"
    )
    old_case = dict(_rows(old_file, "SELECT id, coalesce(pair_id, -set_id) FROM request"))
    assert history and batches and pairs and {s[1] for s in sets} == {"D2", "D3", "D4"}

    ResultFile(old_file).close()

    assert _rows(old_file, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert _rows(old_file, "PRAGMA integrity_check") == [("ok",)]
    assert _rows(old_file, "PRAGMA foreign_key_check") == []
    assert _rows(old_file, kept) == requests
    assert _rows(old_file, "SELECT * FROM response ORDER BY request_id") == responses
    assert _rows(old_file, "SELECT * FROM response_history ORDER BY id") == history
    assert _rows(old_file, "SELECT * FROM batch ORDER BY id") == batches
    tables = {r[0] for r in _rows(old_file, "SELECT name FROM sqlite_master WHERE type='table'")}
    assert not {"pair", "case_set"} & tables
    assert (
        _rows(
            old_file,
            "SELECT id, design, kind, variants_json, truth, cluster, k, gap, pair_type, "
            "differs, group_a, group_b, signal FROM test_case WHERE design = 'D1' ORDER BY id",
        )
        == pairs
    )
    # Sets are numbered after the pairs, in their old order, with what they held.
    new_sets = _rows(
        old_file,
        "SELECT id, design, kind, cluster, variants_json, meta_json FROM test_case "
        "WHERE design != 'D1' ORDER BY id",
    )
    offset = max(p[0] for p in pairs)
    assert [(s[0] + offset, *s[1:]) for s in sorted(sets)] == new_sets
    # Every request names the case it named before (a set through its new id).
    case_of = dict(_rows(old_file, "SELECT id, case_id FROM request"))
    assert case_of == {rid: (old if old > 0 else -old + offset) for rid, old in old_case.items()}


def test_every_number_is_the_same_as_the_old_app_computed(old_file: Path) -> None:
    with ResultFile(old_file) as result:
        for run in (1, 2):
            got = metrics_report(result, run, thresholds=shipped_thresholds())
            for key in ("result_file", "app_version"):
                got.pop(key)
            got = json.loads(json.dumps(got, sort_keys=True))
            got.pop("missing")  # answers lost by group (issue 29): new, none lost here
            want = json.loads(
                gzip.decompress((DATA / f"schema5.metrics-run{run}.json.gz").read_bytes())
            )
            # Schema 7 tells how each unequal pair was built; these files' pairs were all
            # made by lexical deletion, so the new breakdown is the overall figure again.
            by_construction = got["d1"]["breakdowns"].pop("criterion_validity_by_construction")
            assert list(by_construction) == ["lexical"]
            overall = got["d1"]["metrics"]["criterion_validity"]
            assert by_construction["lexical"]["value"] == overall["value"]
            assert by_construction["lexical"]["n"] == overall["n"]
            # Issue 25 replaced the fairness tests (a permutation test per design with a
            # step-down, tests that cannot reach their share of alpha left out): their
            # p-values, family sizes and shares are new by design and checked against
            # enumeration in test_stats_permutation.py. Every estimate, interval, count
            # and flag must still be what the old app computed.
            assert not differences(_without_tests(got), _without_tests(want)), f"run {run}"
            assert _flags(got) == _flags(want), f"run {run}"


TEST_KEYS = {"p", "p_adjusted", "p_holm", "family_size", "share", "untestable"}


def _without_tests(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_tests(v) for k, v in value.items() if k not in TEST_KEYS}
    if isinstance(value, list):
        return [_without_tests(v) for v in value]
    return value


def _flags(value: Any, where: str = "") -> dict[str, Any]:
    """Every flag of the report by where it sits."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            if k in ("flag", "flags"):
                out[f"{where}/{k}"] = v
            else:
                out.update(_flags(v, f"{where}/{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.update(_flags(v, f"{where}[{i}]"))
    return out


def test_queuing_a_migrated_run_again_adds_nothing(old_file: Path) -> None:
    """The ukeys that carried a set's id follow its new id, so nothing is asked twice."""
    with ResultFile(old_file) as result:
        runs = result.runs()
        d3 = result.answers(runs[0].id, design="D3")
    assert len(d3) and all(
        c["cluster"] == case for c, case in zip(d3["context"], d3["case_id"], strict=True)
    )
    assert all(
        k.startswith(f"d3:pool:{c}:") for k, c in zip(d3["ukey"], d3["case_id"], strict=True)
    )
    for run in runs:
        params = run.params
        model = ModelSpec(
            run.provider,
            run.base_url,
            run.model,
            params["temperature"],
            params["max_tokens"],
            params["seed"],
        )
        assert queue_run(old_file, model, run.prompt_id) == (run.id, 0)


def test_a_read_only_open_brings_an_old_file_up_to_date(old_file: Path) -> None:
    with ResultFile(old_file, readonly=True) as result:
        assert result.case_count("D1") > 0
        assert {c.design for c in result.cases()} == {"D1", "D2", "D3", "D4"}


def test_a_new_audit_gives_the_numbers_the_old_app_gave(tmp_path: Path) -> None:
    """The real path today (study -> cases -> requests -> simulator -> metrics) on the
    fixture's study: every D1-D4 number equals the schema-5 app's."""
    spec = importlib.util.spec_from_file_location("make_schema5", DATA / "make_schema5.py")
    assert spec is not None and spec.loader is not None
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    # the schema-5 app had no qualifications block (schema 7): without it, the same cases
    maker.STUDY = maker.STUDY.replace(
        'signals = ["name", "explicit"]', 'signals = ["name", "explicit"]\nsummary_block = "never"'
    )
    sample = Path(__file__).resolve().parent.parent / "resources" / "sample"
    maker.build(tmp_path, sample)
    for run in (1, 2):
        name = f"schema5.metrics-run{run}.json.gz"
        got, want = (json.loads(gzip.decompress((d / name).read_bytes())) for d in (tmp_path, DATA))
        for report in (got, want):  # where and when the simulator ran
            report["run"].pop("base_url")
            report["run"].pop("created_at")
            report["study"].pop("created_at")
            # The maker runs with --no-cache, which now asks identical prompts of a run
            # each time (issue 25) where the old app sent one and shared its answer: the
            # same answers, four more requests' tokens.
            report["counts"].pop("input_tokens")
            report["counts"].pop("output_tokens")
        got.pop("power", None)  # simulated power, new in issue 25
        got.pop("missing")  # answers lost by group, new in issue 29
        got.pop("comparison")  # the two runs' models side by side, new in issue 28
        by_construction = got["d1"]["breakdowns"].pop("criterion_validity_by_construction")
        assert list(by_construction) == ["lexical"]  # the only way without a model, then
        # the fairness tests' p-values are issue 25's (see the test above)
        assert not differences(_without_tests(got), _without_tests(want)), f"run {run}"
        assert _flags(got) == _flags(want), f"run {run}"


def test_a_migration_that_would_lose_a_reference_leaves_the_file_as_it_was(
    old_file: Path,
) -> None:
    """A request naming a pair that is not there cannot be given its case: the file
    stays at schema 5, unchanged, and the message says so."""
    con = sqlite3.connect(old_file)
    con.execute("PRAGMA foreign_keys=OFF")
    con.execute("UPDATE request SET pair_id = 9999 WHERE id = 1")
    con.commit()
    con.close()
    before = old_file.read_bytes()
    with pytest.raises(ResultFileError, match="could not be updated"):
        ResultFile(old_file)
    assert _rows(old_file, "PRAGMA user_version") == [(5,)]
    assert _rows(old_file, "SELECT count(*) FROM pair") != [(0,)]
    assert _rows(old_file, "SELECT pair_id FROM request WHERE id = 1") == [(9999,)]
    assert len(before) == len(old_file.read_bytes())
