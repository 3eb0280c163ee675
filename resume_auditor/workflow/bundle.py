"""The reproducible bundle: one zip an auditor can read, re-open and recompute.

Contents (docs/report.md describes each file):

    manifest.json            format, app and schema version, every file's SHA-256
    README.txt               what is here, for a person
    settings/study.json      the audit's settings (resume paths replaced)
    inputs/                  the job, the *templated* resumes, their fingerprints
    prompts/<preset>.txt     each prompt used, verbatim
    metrics/run-<id>.json    `metrics_report` of every run, as exported
    metrics/comparison.json  every model compared on the same cases (two runs or more)
    data/*.csv               test cases, answers and metrics as tables
    tables/<table>.jsonl     the result file's rows, to rebuild it exactly (answers with
                             any real identity detail they repeat masked)

The tables are the result file itself, row for row, with the ids kept, so an
imported bundle gives the same numbers by construction; `import_bundle` checks
that it does. What identifies a real candidate is left out: original resume
bytes, text and file names, and what the app found in them (the templated text
stands in). Keys never enter a result file, so none can reach a bundle.

The tables are read and written as rows through store/tablerows.py (no part of
ResultFile copies whole tables); a new table needs a line in TABLE_POLICY (a test
fails until it has one), so nothing new leaves the file unexamined.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import logging
import os
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from resume_auditor import __version__
from resume_auditor.report.atomic import write_atomic
from resume_auditor.report.inputs import anonymised_settings, canonical_json, input_files
from resume_auditor.report.inputs import resume_inputs as templated_resumes
from resume_auditor.report.privacy import IdentityMask, identity_mask, mask_json, templated
from resume_auditor.report.spreadsheet import csv_bytes
from resume_auditor.report.tables import cases_frame, judgments_frame, metrics_frame
from resume_auditor.stats.thresholds import Thresholds, thresholds_from_mapping
from resume_auditor.store import writelock
from resume_auditor.store.backup import install_new, remove_partial
from resume_auditor.store.errors import ResultFileError
from resume_auditor.store.resultfile import ResultFile, pack, unpack
from resume_auditor.store.schema import SCHEMA_VERSION
from resume_auditor.store.tablerows import TableReader, TableWriter
from resume_auditor.workflow.compare import compare_runs
from resume_auditor.workflow.metrics import metrics_report

logger = logging.getLogger(__name__)

FORMAT = "resume-auditor.bundle/1"
MANIFEST = "manifest.json"
# Fields of a metrics report that name the file or app rather than measure anything.
VOLATILE = ("result_file", "app_version")

# What leaves the result file, table by table. "copy": every column as stored;
# a dict: only the columns named, each kept ("keep") or rewritten by the exporter.
# Tables not listed here are left out (and a test fails until they are listed).
TABLE_POLICY: dict[str, str | dict[str, str]] = {
    "meta": "copy",
    "study": {
        "id": "keep",
        "name": "keep",
        "source_path": "null",  # a local path: may name the user's folders
        "toml": "empty",  # the study file's text may list resume file names
        "config_json": "settings",
        "created_at": "keep",
    },
    "job": {
        "id": "keep",
        "title": "keep",
        "text": "keep",
        "source_name": "keep",
        "source_bytes": "null",  # the original file: its text is in `text`
    },
    "qualification": "copy",
    "resume": {
        "id": "keep",
        "filename": "resume_label",  # file names often carry the candidate's name
        "sha256": "keep",  # a fingerprint of the original file, not its content
        "bytes": "null",  # the original file
        "text": "templated",  # identity slots replaced by placeholders
        "pages": "keep",
        "status": "keep",
        "message": "resume_message",  # may quote the file name
        "template_json": "templated_slots",
        "findings_json": "empty_list",  # findings quote the resume's own text
    },
    "variant": "copy",  # what the model saw: synthetic names
    "test_case": "copy",  # every design's cases (schema 6; `pair` and `case_set` before)
    "run": "copy",
    "request": "copy",  # bodies as sent: variants and the job
    "response": "copy",  # raw answers as received
    "batch": "copy",
    "response_history": "copy",
    # Qualification texts (docs/generator.md): their text holds the source's identity in
    # its slots, so it leaves as placeholders, like the resumes.
    "qual_text": {
        "id": "keep",
        "resume_id": "keep",
        "kind": "keep",
        "k": "keep",
        "text": "qual_templated",
        "slots_json": "qual_templated_slots",
        "changes_json": "keep",
        "removed_json": "keep",
        "origin": "keep",
        "generator": "keep",
        "verified": "keep",
        "checks_json": "keep",
        "attempts": "keep",
        "status": "keep",
        "provenance_json": "keep",
        "created_at": "keep",
    },
}


# Columns holding the model's own words: a justification may repeat a real detail the
# model saw, so they leave with every identity slot the finder knows masked
# (report/privacy.py, IdentityMask). Labels are untouched: the numbers recompute.
QUOTED_COLUMNS: dict[str, tuple[str, ...]] = {
    "response": ("raw", "text", "justification", "parsed_json"),
    "response_history": ("raw", "text", "parsed_json"),
}


class BundleError(ValueError):
    """A bundle that cannot be written or read; the message says what to do."""


# -- writing ---------------------------------------------------------------------------


class _Entries:
    """Write zip entries and remember each one's SHA-256 and size for the manifest."""

    def __init__(self, zf: zipfile.ZipFile) -> None:
        self.zf = zf
        self.files: dict[str, dict[str, Any]] = {}

    def add(self, name: str, data: bytes) -> None:
        self.zf.writestr(name, data)
        self.files[name] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}

    @contextlib.contextmanager
    def stream(self, name: str) -> Iterator[Any]:
        digest = hashlib.sha256()
        size = 0
        info = zipfile.ZipInfo(name, date_time=datetime.now().timetuple()[:6])
        info.compress_type = zipfile.ZIP_DEFLATED
        with self.zf.open(info, "w", force_zip64=True) as raw:

            def write(data: bytes) -> None:
                nonlocal size
                digest.update(data)
                size += len(data)
                raw.write(data)

            yield write
        self.files[name] = {"sha256": digest.hexdigest(), "bytes": size}


def _encode(value: Any) -> Any:
    """A column value as JSON: stored JSON blobs readable, other bytes as base64."""
    if isinstance(value, bytes):
        try:
            return {"$zjson": unpack(value)}
        except (zlib.error, UnicodeDecodeError, ValueError):
            return {"$base64": base64.b64encode(value).decode("ascii")}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and len(value) == 1:
        if "$zjson" in value:
            return pack(value["$zjson"])
        if "$base64" in value:
            return base64.b64decode(value["$base64"])
    return value


def _scrubbers(result: ResultFile) -> dict[str, Any]:
    """Per-row rewrites the policy names, from the audit's own templates and labels."""
    resumes = {r.id: r for r in templated_resumes(result)}
    records = {r.id: r for r in result.resumes()}
    settings = json.dumps(
        anonymised_settings(result.config(), list(resumes.values())), sort_keys=True
    )

    def resume_label(row: dict[str, Any]) -> str:
        r = resumes.get(row["id"])
        suffix = Path(str(row.get("filename") or "")).suffix.lower()[:8]
        return (r.path.rsplit("/", 1)[-1].removesuffix(".txt") if r else "resume") + suffix

    def message(row: dict[str, Any]) -> str:
        text = str(row.get("message") or "")
        original = records.get(row["id"])
        label = resume_label(row)
        if original is not None:
            for name in (original.filename, Path(original.filename).stem):
                if name:
                    text = text.replace(name, label)
        return text

    return {
        "null": lambda row, col: None,
        "empty": lambda row, col: "",
        "empty_list": lambda row, col: "[]",
        "settings": lambda row, col: settings,
        "resume_label": lambda row, col: resume_label(row),
        "resume_message": lambda row, col: message(row),
        "templated": lambda row, col: (
            resumes[row["id"]].templated_text if row["id"] in resumes else ""
        ),
        "templated_slots": lambda row, col: (
            json.dumps({"slots": resumes[row["id"]].slots}) if row["id"] in resumes else None
        ),
        "qual_templated": lambda row, col: _qual_templated(row)[0],
        "qual_templated_slots": lambda row, col: json.dumps(_qual_templated(row)[1]),
    }


def _qual_templated(row: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """A qualification text with its identity slots as placeholders (each slot's
    `original` becomes the placeholder, so the row still reads back as a template)."""
    text = str(row.get("text") or "")
    masked, spans = templated(text, json.loads(row.get("slots_json") or "[]"))
    return masked, [{**s, "original": masked[s["start"] : s["end"]]} for s in spans]


def _masked(value: Any, mask: IdentityMask) -> Any:
    """A quoted column's value with identity details masked (packed JSON stays packed)."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, bytes):
        try:
            return pack(mask_json(unpack(value), mask))
        except (zlib.error, UnicodeDecodeError, ValueError):
            return value
    return value


def _dump_tables(
    entries: _Entries, db: TableReader, result: ResultFile
) -> tuple[dict[str, int], list[str]]:
    scrub = _scrubbers(result)
    mask = identity_mask(result)
    counts: dict[str, int] = {}
    left_out: list[str] = []
    for table in db.tables():
        policy = TABLE_POLICY.get(table)
        if policy is None:
            left_out.append(table)
            logger.warning("bundle: table %s has no export policy; left out", table)
            continue
        columns = db.columns(table)
        if isinstance(policy, dict):
            dropped = [c for c in columns if c not in policy]
            if dropped:
                logger.warning("bundle: %s columns without a policy left out: %s", table, dropped)
        n = 0
        with entries.stream(f"tables/{table}.jsonl") as write:
            for values in db.rows(table):
                row = dict(zip(columns, values, strict=True))
                if isinstance(policy, dict):
                    out = {}
                    for column, action in policy.items():
                        if column not in row:
                            continue
                        out[column] = (
                            row[column] if action == "keep" else scrub[action](row, column)
                        )
                    row = out
                for column in QUOTED_COLUMNS.get(table, ()):
                    row[column] = _masked(row.get(column), mask)
                line = json.dumps({k: _encode(v) for k, v in row.items()}, ensure_ascii=False)
                write(line.encode("utf-8") + b"\n")
                n += 1
        counts[table] = n
    return counts, left_out


README = """Resume Auditor bundle
=====================

Everything needed to check an audit's numbers, without the candidates' identities.

  manifest.json          app and schema versions; SHA-256 and size of every file here
  settings/study.json    the audit's settings
  inputs/job.txt         the job description; inputs/job.json its checklist
  inputs/resumes/*.txt   the source resumes, templated: identity details the app found
                         (name, pronouns, contact details, college) are shown as
                         placeholders such as [FULL_NAME]; inputs/resumes.json lists each
                         with the SHA-256 of its original file
  prompts/*.txt          each prompt, verbatim
  metrics/run-N.json     every number of run N (docs/metrics-json.md)
  metrics/comparison.json  the models of the audit compared on the same test cases
                         (when it holds two runs or more; docs/metrics-json.md)
  data/*.csv             test cases, answers and metrics as tables (free-text cells that
                         begin with = + - @ carry a leading apostrophe)
  tables/*.jsonl         the result file's rows: requests as sent and raw responses
                         ("$zjson": stored JSON, "$base64": other bytes); a real
                         candidate's details repeated in an answer are masked

Re-open: resume-auditor import THIS.zip --out copy.audit   (or open it in the app)
It rebuilds the audit file and recomputes every number, and says if any differs.

Not included: the original resume files, their names and text, what the app found in
them, and any API key.
"""


def export_bundle(
    result_path: str | Path, out: str | Path, *, thresholds: Thresholds | None = None
) -> Path:
    """Write the bundle of the audit at `result_path` to `out` (all or nothing)."""
    result_path, out = Path(result_path), Path(out)
    with tempfile.TemporaryDirectory(prefix="resume-auditor-bundle-") as tmp:
        snapshot = Path(tmp) / "snapshot.audit"
        with ResultFile(result_path, readonly=True) as live:
            live.copy_to(snapshot)  # one consistent moment, even while a run writes
        with ResultFile(snapshot) as result:
            metrics = {
                run.id: metrics_report(result, run.id, thresholds=thresholds, power=True)
                for run in result.runs()
            }
            comparison = compare_runs(result)
            with TableReader(snapshot) as db:
                schema = db.schema_version()

                def write(fh: IO[bytes]) -> None:
                    with zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
                        entries = _Entries(zf)
                        entries.add("README.txt", README.encode("utf-8"))
                        for name, data in sorted(input_files(result).items()):
                            entries.add(name, data)
                        for run_id, report in metrics.items():
                            shown = dict(report, result_file=result_path.name)
                            entries.add(f"metrics/run-{run_id}.json", canonical_json(shown))
                        if comparison is not None:
                            entries.add("metrics/comparison.json", canonical_json(comparison))
                        entries.add("data/cases.csv", csv_bytes(cases_frame(result)))
                        entries.add("data/judgments.csv", csv_bytes(judgments_frame(result)))
                        for run_id, report in metrics.items():
                            entries.add(
                                f"data/metrics-run-{run_id}.csv", csv_bytes(metrics_frame(report))
                            )
                        counts, left_out = _dump_tables(entries, db, result)
                        manifest = {
                            "format": FORMAT,
                            "app_version": __version__,
                            "schema_version": schema,
                            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
                            "source": result_path.name,
                            "study": result.study()["name"],
                            "runs": [
                                {
                                    "id": r.id,
                                    "provider": r.provider,
                                    "model": r.model,
                                    "prompt": r.prompt_id,
                                }
                                for r in result.runs()
                            ],
                            "tables": counts,
                            "left_out": left_out,
                            "files": entries.files,
                        }
                        zf.writestr(MANIFEST, canonical_json(manifest))

                write_atomic(out, write)
    return out


# -- reading ---------------------------------------------------------------------------


@dataclass
class ImportedBundle:
    path: Path
    runs: list[int]
    same_app: bool
    differences: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.differences


def is_bundle(path: str | Path) -> bool:
    """A zip that carries a Resume Auditor manifest (for File > Open and `gui FILE`)."""
    try:
        with zipfile.ZipFile(path) as zf:
            fmt = json.loads(zf.read(MANIFEST)).get("format", "")
            return isinstance(fmt, str) and fmt.startswith("resume-auditor.bundle/")
    except (OSError, KeyError, zipfile.BadZipFile, ValueError, AttributeError):
        return False


def _manifest(zf: zipfile.ZipFile, name: str) -> dict[str, Any]:
    try:
        manifest = json.loads(zf.read(MANIFEST))
    except KeyError:
        raise BundleError(f"{name} is a zip file but not a Resume Auditor bundle.") from None
    except ValueError as exc:
        raise BundleError(f"{name}: its manifest is damaged ({exc}).") from exc
    if not isinstance(manifest, dict):
        raise BundleError(f"{name}: its manifest is damaged (not a JSON object).")
    fmt = manifest.get("format")
    if fmt != FORMAT:
        raise BundleError(
            f"{name} is a bundle in format {fmt!r}; this app reads {FORMAT}. "
            "Open it with the Resume Auditor version that made it."
        )
    return manifest


def _check_files(zf: zipfile.ZipFile, manifest: dict[str, Any], name: str) -> None:
    """Every listed file present, the size and SHA-256 the manifest says."""
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        raise BundleError(f"{name}: its manifest lists no files.")
    infos = {i.filename: i for i in zf.infolist()}
    for path, meta in files.items():
        info = infos.get(path)
        if info is None:
            raise BundleError(f"{name} is incomplete: {path} is missing.")
        if info.file_size != meta.get("bytes"):
            raise BundleError(f"{name} is damaged: {path} has the wrong size.")
        digest = hashlib.sha256()
        with zf.open(info) as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
        if digest.hexdigest() != meta.get("sha256"):
            raise BundleError(
                f"{name} is damaged or was changed: {path} does not match its SHA-256 in the "
                "manifest."
            )


def _rows(zf: zipfile.ZipFile, member: str) -> Iterator[dict[str, Any]]:
    with zf.open(member) as fh:
        for line in io.TextIOWrapper(fh, encoding="utf-8"):
            if line.strip():
                yield json.loads(line)


def _build(zf: zipfile.ZipFile, manifest: dict[str, Any], partial: Path, notes: list[str]) -> None:
    """Create the audit file at the bundle's schema version and fill it."""
    version = manifest.get("schema_version")
    if not isinstance(version, int) or not 1 <= version <= SCHEMA_VERSION:
        raise BundleError(
            f"The bundle was made by a newer Resume Auditor (result file schema {version}; this "
            f"app knows {SCHEMA_VERSION}). Update the app to open it."
        )
    try:
        with TableWriter(partial, version) as db:
            present = db.tables()
            in_bundle = {
                n.removeprefix("tables/").removesuffix(".jsonl")
                for n in manifest["files"]
                if n.startswith("tables/") and n.endswith(".jsonl")
            }
            unknown = sorted(in_bundle - set(present))
            if unknown:
                raise BundleError(
                    f"The bundle holds tables this app does not know: {', '.join(unknown)}."
                )
            for table in db.in_load_order([t for t in present if t in in_bundle]):
                columns = set(db.columns(table))
                batch: list[tuple[Any, ...]] = []
                keys: tuple[str, ...] | None = None
                for row in _rows(zf, f"tables/{table}.jsonl"):
                    extra = set(row) - columns
                    if extra:
                        notes.append(
                            f"Ignored unknown columns of {table}: {', '.join(sorted(extra))}."
                        )
                        row = {k: v for k, v in row.items() if k in columns}
                    row_keys = tuple(row)
                    if keys is not None and row_keys != keys and batch:
                        db.insert(table, keys, batch)
                        batch = []
                    keys = row_keys
                    batch.append(tuple(_decode(row[k]) for k in row_keys))
                    if len(batch) >= 2000:
                        db.insert(table, keys, batch)
                        batch = []
                if batch and keys is not None:
                    db.insert(table, keys, batch)
    except ResultFileError as exc:
        raise BundleError(
            f"The bundle's data cannot be loaded ({exc}); it may be damaged."
        ) from exc


def _stored_thresholds(report: dict[str, Any]) -> Thresholds:
    return thresholds_from_mapping(
        {t["key"]: {"value": t["value"], "source": t["source"]} for t in report["thresholds"]}
    )


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            where = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                out.append(f"{where}: only in the {'bundle' if key in a else 'recomputed'} numbers")
            else:
                out += _differences(a[key], b[key], where)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in _differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [f"{path}: {a!r} in the bundle, {b!r} now"]


def comparable(report: Mapping[str, Any]) -> dict[str, Any]:
    """A metrics report as JSON gives it back, without the fields naming the file or app."""
    data: dict[str, Any] = json.loads(json.dumps(report))
    return {k: v for k, v in data.items() if k not in VOLATILE}


def import_bundle(bundle: str | Path, target: str | Path) -> ImportedBundle:
    """Rebuild the audit in `bundle` as the new audit file `target`, and recompute its numbers.

    Raises BundleError (nothing written) for a file that is not a bundle, is damaged,
    or comes from a newer app. Numbers that come out different are returned in
    `differences`, not raised: the file is still the bundle's data, and the reader
    must know.
    """
    bundle, target = Path(bundle), Path(target)
    if not bundle.exists():
        raise BundleError(f"There is no file at {bundle}.")
    target.parent.mkdir(parents=True, exist_ok=True)
    with writelock.hold(target):  # nobody else creates `target` meanwhile
        return _import(bundle, target)


def _import(bundle: Path, target: Path) -> ImportedBundle:
    if target.exists():
        raise BundleError(f"{target} already exists; choose another name for the imported audit.")
    try:
        zf = zipfile.ZipFile(bundle)
    except FileNotFoundError:
        raise BundleError(f"There is no file at {bundle}.") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise BundleError(f"{bundle.name} is not a bundle (not a zip file: {exc}).") from exc
    notes: list[str] = []
    with zf:
        manifest = _manifest(zf, bundle.name)
        _check_files(zf, manifest, bundle.name)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
        os.close(fd)
        partial = Path(tmp)
        partial.unlink()
        try:
            _build(zf, manifest, partial, notes)
            stored = {
                int(n.removeprefix("metrics/run-").removesuffix(".json")): json.loads(zf.read(n))
                for n in manifest["files"]
                if n.startswith("metrics/run-") and n.endswith(".json")
            }
            differences: list[str] = []
            with ResultFile(partial) as result:  # migrates an older bundle forward
                result.set_meta("imported_from", bundle.name)
                result.set_meta("imported_at", datetime.now(UTC).isoformat(timespec="seconds"))
                for run_id, report in sorted(stored.items()):
                    now = metrics_report(
                        result,
                        run_id,
                        thresholds=_stored_thresholds(report),
                        power="power" in report,
                    )
                    differences += [
                        f"run {run_id}: {d}"
                        for d in _differences(comparable(report), comparable(now))
                    ]
                if "metrics/comparison.json" in manifest["files"]:
                    said = json.loads(zf.read("metrics/comparison.json"))
                    again = json.loads(json.dumps(compare_runs(result)))
                    differences += [
                        f"comparison: {d}" for d in _differences(said, again, "comparison")
                    ]
            install_new(partial, target)
        finally:
            remove_partial(partial)
    same_app = manifest.get("app_version") == __version__
    if differences and not same_app:
        notes.append(
            f"The bundle was made by Resume Auditor {manifest.get('app_version')}; this is "
            f"{__version__}, which may compute some numbers differently."
        )
    return ImportedBundle(target, sorted(stored), same_app, differences, notes)
