"""Designs as units (issue 27): a file the app wrote before the move gives the same numbers.

`migration_data/pre-designs.audit.gz` was written, and its metrics computed, by the app
at 616c858 (README.md there), with D1-D4 and two runs. Each design moved into its own
folder must leave every estimate, interval, test and flag of that file unchanged.
"""

from __future__ import annotations

import gzip
import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

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


def _same(mine: Any, theirs: Any) -> bool:
    """Equal, numbers to 1e-9 relative: the same arithmetic summed in another order by
    a later numpy or pandas (-2.9999999999999964 for -3.0, numpy 2.4 and pandas 3.1) is
    the same number; a moved design's changed estimate, interval or flag is not."""
    if isinstance(mine, float) or isinstance(theirs, float):
        if mine is None or theirs is None or isinstance(mine, str) or isinstance(theirs, str):
            return bool(mine == theirs)
        return math.isclose(float(mine), float(theirs), rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(mine, dict) and isinstance(theirs, dict):
        return mine.keys() == theirs.keys() and all(_same(mine[k], theirs[k]) for k in mine)
    if isinstance(mine, list) and isinstance(theirs, list):
        return len(mine) == len(theirs) and all(
            _same(a, b) for a, b in zip(mine, theirs, strict=True)
        )
    return bool(mine == theirs)


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
        assert _same(mine[where], metric), (where, mine[where], metric)
    for key in ("counts", "notes", "thresholds", "error_agreement", "impact_ratio"):
        assert got_json[key] == want[key], key
