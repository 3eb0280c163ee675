"""An audit held in memory (issue 27 item 3): the report and the Results rows read it
without a window, without running an audit and without any file being written."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from resume_auditor.report.document import build_document
from resume_auditor.report.html import render_html
from resume_auditor.report.panels import panel_rows
from resume_auditor.settings.thresholds import shipped_thresholds
from resume_auditor.store.errors import ResultFileError
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.store.schema import SCHEMA_VERSION
from resume_auditor.workflow.metrics import metrics_report

DATA = Path(__file__).resolve().parent / "migration_data"


@pytest.fixture(scope="module")
def old_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A schema-7 audit written by an older app (D1-D4, two runs)."""
    path = tmp_path_factory.mktemp("mem") / "old.audit"
    path.write_bytes(gzip.decompress((DATA / "pre-designs.audit.gz").read_bytes()))
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_copy_in_memory_reads_like_the_file_and_leaves_it_untouched(
    old_file: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing may appear here either (no ':memory:' file)
    before = _digest(old_file)
    with ResultFile.in_memory(old_file) as mem:
        assert mem.path == Path(":memory:")
        assert int(mem._db.execute("PRAGMA user_version").fetchone()[0]) == SCHEMA_VERSION
        got = metrics_report(mem, 1, thresholds=shipped_thresholds())
        mem.set_meta("touched", "yes")  # writes stay in memory
        assert mem.meta("touched") == "yes"
    with ResultFile(old_file, readonly=True) as result:
        want = metrics_report(result, 1, thresholds=shipped_thresholds())
        assert result.meta("touched") is None
    for report in (got, want):
        report.pop("result_file")
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    assert _digest(old_file) == before
    assert not list(tmp_path.iterdir())
    assert not list(old_file.parent.glob("*-wal")) and not list(old_file.parent.glob("*.lock"))


def test_the_report_and_the_results_rows_come_from_an_in_memory_audit(old_file: Path) -> None:
    with ResultFile.in_memory(old_file) as mem:
        metrics = metrics_report(mem, 2, thresholds=shipped_thresholds())
        html = render_html(build_document(mem, metrics))
    assert "Design D4" in html and "sim2" in html
    rows = {d: panel_rows(metrics, d) for d in ("d1", "d2", "d3", "d4")}
    assert all(rows.values())
    assert all(r.path[0] in (d, "impact_ratio") for d, rs in rows.items() for r in rs)


def test_an_empty_audit_in_memory_takes_writes_and_a_missing_source_is_said(
    tmp_path: Path,
) -> None:
    with ResultFile.in_memory() as mem:
        assert not mem.has_study()
        assert mem.cases() == []
    with pytest.raises(ResultFileError, match="There is no result file"):
        ResultFile.in_memory(tmp_path / "nowhere.audit")
    bad = tmp_path / "bad.audit"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(ResultFileError):
        ResultFile.in_memory(bad)
