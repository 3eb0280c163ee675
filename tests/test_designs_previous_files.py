"""Designs as units (issue 27): a file the app wrote before the move gives the same numbers.

`migration_data/pre-designs.audit.gz` was written, and its metrics computed, by the app
at 616c858 (README.md there), with D1-D4 and two runs. Each design moved into its own
folder must leave every estimate, interval, test and flag of that file unchanged.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from close_numbers import differences

from resume_auditor.settings.thresholds import shipped_thresholds
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.metrics import metrics_report

DATA = Path(__file__).resolve().parent / "migration_data"


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    path = tmp_path / "old.audit"
    path.write_bytes(gzip.decompress((DATA / "pre-designs.audit.gz").read_bytes()))
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 7
    return path


def _metric_objects(value: Any, where: str = "") -> dict[str, Any]:
    """Every metric object and flag list of a report, by where it sits."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        if "value" in value and "ci" in value and "title" in value:
            return {where: value}
        for k, v in value.items():
            if k == "flags":
                out[f"{where}/flags"] = v
            else:
                out.update(_metric_objects(v, f"{where}/{k}"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.update(_metric_objects(v, f"{where}[{i}]"))
    return out


@pytest.mark.parametrize("run", [1, 2])
def test_every_number_of_a_file_written_before_the_designs_moved_is_unchanged(
    old_file: Path, run: int
) -> None:
    with ResultFile(old_file) as result:
        got = metrics_report(result, run, thresholds=shipped_thresholds())
    got_json = json.loads(json.dumps(got, sort_keys=True))
    want = json.loads(
        gzip.decompress((DATA / f"pre-designs.metrics-run{run}.json.gz").read_bytes())
    )
    assert "designs" not in got_json  # no registry design ran in that file
    mine, theirs = _metric_objects(got_json), _metric_objects(want)
    assert len(theirs) > 100
    assert mine.keys() == theirs.keys()
    for where, metric in theirs.items():
        assert not differences(mine[where], metric, where)
    for key in ("counts", "notes", "thresholds", "error_agreement", "impact_ratio"):
        assert got_json[key] == want[key], key
