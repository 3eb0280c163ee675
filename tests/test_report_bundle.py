"""The reproducible bundle: it re-opens as a new audit and recomputes every number."""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
import zipfile
import zlib
from pathlib import Path

import pytest
from devtools.simulator import Fault, Simulator
from report_fixtures import biased_policy, copy_audit, original_identities, run_audit

from resume_auditor.cli import _bundle_to_audit, main
from resume_auditor.providers.registry import provider_info
from resume_auditor.store.resultfile import ResultFile, ResultFileError
from resume_auditor.workflow.bundle import (
    TABLE_POLICY,
    BundleError,
    comparable,
    export_bundle,
    import_bundle,
    is_bundle,
)
from resume_auditor.workflow.compare import compare_runs
from resume_auditor.workflow.design_tables import pair_table
from resume_auditor.workflow.metrics import metrics_report


@pytest.fixture(scope="module")
def audit(sample_audit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file of the sample study with two runs: bundles are written from files."""
    return copy_audit(sample_audit, tmp_path_factory.mktemp("audit") / "sample.audit")


@pytest.fixture(scope="module")
def bundle(audit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "audit-bundle.zip"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESUME_AUDITOR_DATA_DIR", str(out.parent / "data"))
        assert main(["report", str(audit), "--bundle", str(out)]) == 0
    return out


def _entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _rewrite(source: Path, target: Path, changes: dict[str, bytes], fix_hashes: bool) -> None:
    entries = _entries(source)
    entries.update(changes)
    if fix_hashes:
        import hashlib

        manifest = json.loads(entries["manifest.json"])
        for name in changes:
            if name != "manifest.json":
                manifest["files"][name] = {
                    "sha256": hashlib.sha256(changes[name]).hexdigest(),
                    "bytes": len(changes[name]),
                }
        entries["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)


def test_reopens_and_recomputes_every_number(
    audit: Path, bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy.audit"
    assert main(["import", str(bundle), "--out", str(copy)]) == 0
    assert "recomputed identically" in capsys.readouterr().err
    with ResultFile(audit) as original, ResultFile(copy) as imported:
        runs = [r.id for r in original.runs()]
        assert runs == [r.id for r in imported.runs()] == [1, 2]
        for run_id in runs:
            before = comparable(metrics_report(original, run_id))
            after = comparable(metrics_report(imported, run_id))
            assert after == before  # every number, every flag, every note
            assert before["d1"]["metrics"]["criterion_validity"]["n"] > 0
            assert before["error_agreement"]  # the two runs are compared in both
            pd_before = pair_table(original, original.answers(run_id, design="D1"))
            pd_after = pair_table(imported, imported.answers(run_id, design="D1"))
            assert pd_after.equals(pd_before)
        assert [p.id for p in imported.cases("D1")] == [p.id for p in original.cases("D1")]
        assert imported.variants() == original.variants()
        text = imported.resumes()[0].text
        assert "[FULL_NAME]" in text and "[EMAIL]" in text
        assert imported.resume_bytes(imported.resumes()[0].id) is None
        assert imported.meta("imported_from") == bundle.name
    # An imported audit is an audit like any other: it reports the same numbers.
    capsys.readouterr()
    assert main(["metrics", str(copy), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    compared = printed.pop("comparison")  # the audit's two models side by side
    with ResultFile(audit) as original:
        assert comparable(printed) == comparable(metrics_report(original, power=True))
        assert compared == json.loads(json.dumps(compare_runs(original)))
    assert "metrics/comparison.json" in _entries(bundle)


def test_what_the_bundle_holds(bundle: Path, audit: Path) -> None:
    entries = _entries(bundle)
    manifest = json.loads(entries["manifest.json"])
    assert manifest["format"] == "resume-auditor.bundle/1"
    assert set(manifest["files"]) == set(entries) - {"manifest.json"}
    for name in (
        "README.txt",
        "settings/study.json",
        "inputs/job.txt",
        "inputs/resumes.json",
        "inputs/resumes/resume-01.txt",
        "prompts/d1-baseline.txt",
        "metrics/run-1.json",
        "metrics/run-2.json",
        "data/cases.csv",
        "data/judgments.csv",
        "tables/request.jsonl",
        "tables/response.jsonl",
    ):
        assert name in entries, name
    assert manifest["left_out"] == []
    response = json.loads(entries["tables/response.jsonl"].splitlines()[0])
    assert "choices" in response["raw"]["$zjson"]  # raw responses, readable
    prompt = entries["prompts/d1-baseline.txt"].decode()
    assert "{resume_1}" in prompt and "<answer>" in prompt
    # Real identities stay out. (Phone numbers and cities are kept in D1's variants, which
    # is what the model saw, so they are in the requests; names and emails never are.)
    everything = b"\n".join(entries.values()).decode("utf-8", errors="replace")
    for identity in original_identities(audit):
        if not identity.startswith("("):
            assert identity not in everything, identity
    resumes = json.loads(entries["inputs/resumes.json"])
    with ResultFile(audit) as result:
        assert [r["source_sha256"] for r in resumes] == [r.sha256 for r in result.resumes()]


def test_every_table_has_a_policy(tmp_path: Path) -> None:
    """A new table or column must be looked at before it can leave the file."""
    with ResultFile(tmp_path / "fresh.audit", create=True):
        pass
    db = sqlite3.connect(tmp_path / "fresh.audit")
    tables = [
        r[0]
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    assert set(tables) <= set(TABLE_POLICY), set(tables) - set(TABLE_POLICY)
    for table, policy in TABLE_POLICY.items():
        if isinstance(policy, dict) and table in tables:
            columns = {r[1] for r in db.execute(f'PRAGMA table_info("{table}")')}
            assert columns == set(policy), (table, columns ^ set(policy))
    db.close()


def test_damaged_or_changed_bundles_are_refused(bundle: Path, tmp_path: Path) -> None:
    target = tmp_path / "x.audit"
    changed = tmp_path / "changed.zip"
    lines = _entries(bundle)["tables/response.jsonl"].splitlines()
    _rewrite(bundle, changed, {"tables/response.jsonl": b"\n".join(lines[1:])}, fix_hashes=False)
    with pytest.raises(BundleError, match="changed"):
        import_bundle(changed, target)
    assert not target.exists() and not list(tmp_path.glob(".x.audit*"))

    newer = tmp_path / "newer.zip"
    manifest = json.loads(_entries(bundle)["manifest.json"])
    manifest["schema_version"] = 999
    _rewrite(bundle, newer, {"manifest.json": json.dumps(manifest).encode()}, fix_hashes=False)
    with pytest.raises(BundleError, match="newer Resume Auditor"):
        import_bundle(newer, target)

    text = tmp_path / "notes.zip"
    text.write_text("not a zip")
    with pytest.raises(BundleError, match="not a zip"):
        import_bundle(text, target)
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(BundleError, match="not a Resume Auditor bundle"):
        import_bundle(plain, target)
    assert not is_bundle(plain) and not is_bundle(text) and is_bundle(bundle)
    with pytest.raises(BundleError, match="There is no file"):
        import_bundle(tmp_path / "missing.zip", target)
    existing = tmp_path / "taken.audit"
    existing.write_text("")
    with pytest.raises(BundleError, match="already exists"):
        import_bundle(bundle, existing)
    assert not target.exists()


def test_rows_the_file_cannot_take_are_refused_and_nothing_is_left(
    bundle: Path, tmp_path: Path
) -> None:
    """Rows that pass the manifest's check but not the file's own rules (here an answer
    to a request that is not in the bundle; then the same request twice) stop the
    import with a plain message, and no half-loaded audit is left behind."""
    target = tmp_path / "x.audit"
    lines = _entries(bundle)["tables/response.jsonl"].splitlines()
    orphan = json.loads(lines[0]) | {"request_id": 10**9}
    for name, rows in (
        ("orphan.zip", [*lines, json.dumps(orphan).encode()]),
        ("twice.zip", [*lines, lines[0]]),
    ):
        broken = tmp_path / name
        _rewrite(bundle, broken, {"tables/response.jsonl": b"\n".join(rows)}, fix_hashes=True)
        with pytest.raises(BundleError, match="cannot be loaded"):
            import_bundle(broken, target)
        assert not target.exists() and not list(tmp_path.glob(".x.audit*"))
        assert not list(tmp_path.glob("x.audit*"))


def test_numbers_that_differ_are_reported(
    bundle: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check can fail: a bundle whose stored numbers were edited (hashes made to match)."""
    report = json.loads(_entries(bundle)["metrics/run-2.json"])
    report["d1"]["metrics"]["criterion_validity"]["value"] = 0.123
    edited = tmp_path / "edited.zip"
    _rewrite(bundle, edited, {"metrics/run-2.json": json.dumps(report).encode()}, fix_hashes=True)
    copy = tmp_path / "copy.audit"
    assert main(["import", str(edited), "--out", str(copy)]) == 1
    err = capsys.readouterr().err
    assert "run 2: d1.metrics.criterion_validity.value: 0.123 in the bundle" in err
    assert copy.exists()  # the data is still the bundle's, and the reader was told


def test_gui_opens_a_bundle_as_a_new_audit(
    bundle: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = Path(_bundle_to_audit(str(bundle)))
    second = Path(_bundle_to_audit(str(bundle)))
    assert first.name == "audit-bundle.audit" and second.name == "audit-bundle-2.audit"
    with ResultFile(first) as a, ResultFile(second) as b:
        assert comparable(metrics_report(a)) == comparable(metrics_report(b))


def test_no_key_reaches_the_bundle_or_the_reports(
    small_study: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sentinel = f"sk-SENTINEL{secrets.token_hex(16)}"
    monkeypatch.setenv(provider_info("openai-compatible").env_var, sentinel)
    out = tmp_path / "keyed.audit"
    echo = f'{{"error": {{"message": "upstream saw key {sentinel}", "type": "server_error"}}}}'
    with Simulator(biased_policy, api_key=sentinel) as sim:
        sim.inject(Fault(503, echo, {"retry-after": "0"}))
        run_audit(small_study, out, sim)
        assert sim.answered == 10
    made = tmp_path / "made"
    code = main(
        [
            "report",
            str(out),
            "--html",
            str(made / "r.html"),
            "--xlsx",
            str(made / "r.xlsx"),
            "--csv",
            str(made / "csv"),
            "--bundle",
            str(made / "b.zip"),
        ]
    )
    assert code == 0
    texts = []
    for path in made.rglob("*"):
        if path.suffix in (".zip", ".xlsx"):
            for data in _entries(path).values():
                texts.append(data)
                with contextlib.suppress(zlib.error):
                    texts.append(zlib.decompress(data))
        elif path.is_file():
            texts.append(path.read_bytes())
    assert texts and not [t[:80] for t in texts if sentinel.encode() in t]
    imported = import_bundle(made / "b.zip", tmp_path / "again.audit")
    assert imported.identical, imported.differences


def test_export_is_all_or_nothing(
    audit: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "b.zip"
    with pytest.raises(ResultFileError):
        export_bundle(tmp_path / "missing.audit", target)

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("resume_auditor.workflow.bundle._dump_tables", disk_full)
    with pytest.raises(OSError, match="No space"):
        export_bundle(audit, target)
    assert not target.exists() and not list(tmp_path.glob(".b.zip*"))
    monkeypatch.undo()
    export_bundle(audit, target)
    assert is_bundle(target) and not list(tmp_path.glob(".b.zip*"))
