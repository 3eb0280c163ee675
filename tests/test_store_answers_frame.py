"""A run's answers read fast and exactly as before (issue 28, the comparison in under a second).

`answers()` reads its rows with the cursor and decodes each repeated JSON text once
rather than through pandas.read_sql_query and one json.loads a cell. The frame must be
the same, dtype for dtype and value for value, as the plain pandas reading gives: it is
checked here against that reading on an audit of every design answered over HTTP, for
each design, a kind, the failed requests (none: an empty frame) and an unknown run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

JSON_COLUMNS = ("variants", "context", "parsed", "case_variants", "case_meta")


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from results_fixtures import make_all_designs_audit

    return make_all_designs_audit(tmp_path_factory.mktemp("frame"))


def _plain(result: object, run_id: int, **kw: object) -> pd.DataFrame:
    """The same rows read the plain pandas way, one json.loads a cell."""
    from resume_auditor.store.requests import ANSWER_COLUMNS

    query, params = result._answer_query(run_id, **kw)  # type: ignore[attr-defined]
    frame = pd.read_sql_query(query, result._db, params=params)  # type: ignore[attr-defined]
    for column in JSON_COLUMNS:
        frame[column] = [
            json.loads(v) if isinstance(v, str) else None for v in frame.pop(column + "_json")
        ]
    return frame[ANSWER_COLUMNS]


@pytest.mark.parametrize(
    "kw",
    [
        {"design": None, "kind": None, "failed": False},
        {"design": "D1", "kind": None, "failed": False},
        {"design": "D3", "kind": None, "failed": False},
        {"design": "D4", "kind": None, "failed": False},
        {"design": "D5", "kind": None, "failed": False},
        {"design": None, "kind": "pairwise", "failed": False},
        {"design": None, "kind": None, "failed": True},
    ],
)
def test_the_answers_frame_is_the_plain_pandas_reading(audit: Path, kw: dict[str, object]) -> None:
    from resume_auditor.store.resultfile import ResultFile

    with ResultFile(audit, readonly=True) as result:
        for run_id in [r.id for r in result.runs()] + [999]:
            fast = result._answer_frame(run_id, **kw)  # type: ignore[arg-type]
            plain = _plain(result, run_id, **kw)
            pd.testing.assert_frame_equal(fast, plain, check_exact=True)
            for column in JSON_COLUMNS:
                assert fast[column].tolist() == plain[column].tolist()


def test_a_repeated_json_text_is_decoded_once() -> None:
    from resume_auditor.store.requests import _decoded

    out = _decoded(['{"a": [1]}', None, '{"a": [1]}', "[2]", float("nan")])
    assert out == [{"a": [1]}, None, {"a": [1]}, [2], None]
    assert out[0] is out[2]


@pytest.mark.parametrize(
    "columns",
    [
        ["ukey", "rep", "label", "parsed", "design", "cluster", "case_id"],
        ["request_id", "case_variants", "truth", "received_at", "context"],
        ["case_meta"],
        ["cost_usd", "source", "preset", "cell", "variants", "kind", "run_id", "ord"],
    ],
)
def test_some_columns_are_those_of_the_whole_frame(audit: Path, columns: list[str]) -> None:
    """A reader asking for a few columns gets them as the whole frame has them, in its order,
    for each design's rows and every run."""
    from resume_auditor.store.requests import ANSWER_COLUMNS
    from resume_auditor.store.resultfile import ResultFile

    with ResultFile(audit, readonly=True) as result:
        for run_id in [r.id for r in result.runs()] + [999]:
            for design in (None, "D1", "D3", "D5"):
                some = result.answers(run_id, design=design, columns=set(columns))
                whole = result.answers(run_id, design=design)
                assert list(some.columns) == [c for c in ANSWER_COLUMNS if c in columns]
                pd.testing.assert_frame_equal(some, whole[list(some.columns)], check_exact=True)
        with pytest.raises(ValueError, match="no column 'answer'"):
            result.answers(1, columns={"label", "answer"})
