"""The result file: one audit in one SQLite file.

It holds the study, the job, the resumes (original bytes and text), variants,
pairs, every request as sent and every raw response. A response is committed
before it is counted, so a crash loses nothing and a finished audit re-run sends
nothing.

SQLite connections belong to the thread that opened them: the UI thread and the
runner thread each open their own `ResultFile` on the same path (WAL mode lets a
reader and the writer work at once).

One process at a time writes an audit (store/writelock.py): a read-write
`ResultFile` holds the file's writer lock while it is open, and a second process
asking for it gets `AuditInUse`, naming the holder. `ResultFile(path,
readonly=True)` takes no lock: it reads one consistent snapshot (a read
transaction held until close) and, being read-only, never checkpoints the
write-ahead log nor deletes `-wal`/`-shm` as it closes, so it is safe beside a
live writer in another process. docs/result-file.md says more.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from resume_auditor.domain.case import Case, CaseKind, Order, Truth, Variant, VariantKind
from resume_auditor.domain.job import Job, Qualification, QualKind, QualType
from resume_auditor.store import writelock
from resume_auditor.store.backup import backup_path, install_new, remove_partial
from resume_auditor.store.errors import AuditDamaged, AuditInUse, ResultFileError
from resume_auditor.store.packing import now_iso, pack, unpack
from resume_auditor.store.qualtexts import QualTextTables
from resume_auditor.store.requests import RequestSpec, RequestTables
from resume_auditor.store.schema import MIGRATIONS, SCHEMA_VERSION

__all__ = [
    "APP_FILE_ID",
    "AuditDamaged",
    "AuditInUse",
    "JUDGMENT_COLUMNS",
    "PendingRequest",
    "Progress",
    "RequestSpec",
    "ResultFile",
    "ResultFileError",
    "ResumeRecord",
    "RunRecord",
    "now_iso",
    "pack",
    "unpack",
]

APP_FILE_ID = "resume-auditor result file"


@dataclass(frozen=True)
class ResumeRecord:
    id: int
    filename: str
    sha256: str
    text: str
    pages: int
    status: str
    message: str


@dataclass(frozen=True)
class RunRecord:
    id: int
    provider: str
    base_url: str
    model: str
    prompt_id: str
    params: dict[str, Any]
    created_at: str
    # "audit" (the model under test) or "generation" (a generator model writing
    # qualification variants, docs/generator.md): not a run of the audit's numbers.
    purpose: str = "audit"


@dataclass(frozen=True)
class PendingRequest:
    """A request that still needs an answer. D1 pair requests have `pair_id` and
    `order`; requests of other designs have None there and say what they show in
    `variants` (presentation order) and how to read the answer in `kind`."""

    id: int
    pair_id: int | None
    order: Order | None
    rep: int
    body: dict[str, Any]
    attempts: int
    kind: str = "pairwise_abstain"
    preset: str = ""
    ukey: str = ""
    variants: tuple[int, ...] = ()
    context: dict[str, Any] = field(default_factory=dict)
    cell: str = ""
    status: str = "pending"


@dataclass(frozen=True)
class Progress:
    total: int
    done: int
    failed: int
    pending: int
    invalid: int
    input_tokens: int
    output_tokens: int
    # What the answers cost this audit (None when some answer's price is unknown),
    # prompt tokens the provider served from its prompt cache, answers served from
    # the shared response cache (free), refusals, and requests an early stop skipped.
    cost_usd: float | None = 0.0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    cache_hits: int = 0
    refused: int = 0
    skipped: int = 0
    batched: int = 0

    @property
    def finished(self) -> bool:
        return self.total > 0 and self.done + self.skipped == self.total


class ResultFile(RequestTables, QualTextTables):
    """Open (creating if asked) a result file and read or write it."""

    def __init__(self, path: str | Path, *, create: bool = False, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._lock: writelock.WriterLock | None = None
        if readonly and create:
            raise ValueError("a read-only result file cannot be created")
        if not create and not self.path.exists():
            raise ResultFileError(f"There is no result file at {self.path}.")
        if not readonly:
            self._lock = writelock.hold(self.path)  # raises AuditInUse, naming the holder
        try:
            if readonly:
                self._db = self._open_readonly()
            else:
                self._db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA foreign_keys=ON")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._migrate(create)
        except sqlite3.OperationalError as exc:  # locked, busy, I/O, cannot open: not damage
            self._release_lock()
            raise ResultFileError(f"Could not open {self.path} ({exc}).") from exc
        except sqlite3.DatabaseError as exc:  # not a database, malformed
            self._release_lock()
            raise damaged(self.path, exc) from exc
        except BaseException:
            self._release_lock()
            raise

    def _open_readonly(self) -> sqlite3.Connection:
        """A read-only connection pinned to one snapshot of the file.

        An older file is brought up to date first, through a short read-write open,
        when no other process is writing it; otherwise the writer (this same app,
        newer or not) is the one to update it.
        """
        db = _connect_readonly(self.path)
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if 0 < version < SCHEMA_VERSION:
                db.close()
                try:
                    ResultFile(self.path).close()
                except AuditInUse as exc:
                    raise ResultFileError(
                        f"{self.path.name} was written by an older Resume Auditor and needs "
                        f"updating, which only its writer can do. {exc}"
                    ) from exc
                db = _connect_readonly(self.path)
            db.execute("BEGIN")  # the snapshot starts at the first read and lasts until close
            self._db = db
            self._check_version(create=False)
        except BaseException:
            db.close()
            raise
        return db

    # -- life cycle --------------------------------------------------------------

    def _check_version(self, create: bool) -> int:
        version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
        if version == 0:
            tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables and not create:
                raise ResultFileError(f"{self.path} is an SQLite file, but not a result file.")
            if tables:
                raise ResultFileError(
                    f"{self.path} already holds another database; not touching it."
                )
        if version > SCHEMA_VERSION:
            raise ResultFileError(
                f"{self.path} was written by a newer Resume Auditor (schema {version}; "
                f"this app knows {SCHEMA_VERSION}). Update the app to open it."
            )
        if self.readonly and version < SCHEMA_VERSION:
            raise ResultFileError(f"{self.path} holds no audit yet.")
        return version

    def _migrate(self, create: bool) -> None:
        version = self._check_version(create)
        for number in range(version, SCHEMA_VERSION):
            # executescript commits first; the script carries its own transaction.
            try:
                self._db.executescript(
                    f"BEGIN; {MIGRATIONS[number]}; PRAGMA user_version = {number + 1}; COMMIT;"
                )
            except sqlite3.Error:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        if version == 0:
            with self.transaction():
                self._set_meta("file", APP_FILE_ID)
                self._set_meta("created_at", now_iso())

    def close(self) -> None:
        try:
            self._db.close()
        finally:
            self._release_lock()

    def _release_lock(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> ResultFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """All or nothing: a failure inside leaves the file as it was."""
        if self._db.in_transaction:
            yield self._db
            return
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        else:
            self._db.execute("COMMIT")

    def _set_meta(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction():
            self._set_meta(key, value)

    # -- study, job, resumes ------------------------------------------------------

    def has_study(self) -> bool:
        return bool(self._db.execute("SELECT count(*) FROM study").fetchone()[0] > 0)

    def save_study(
        self, name: str, toml_text: str, config: dict[str, Any], source_path: str | None
    ) -> None:
        self._db.execute(
            "INSERT INTO study(id, name, source_path, toml, config_json, created_at) "
            "VALUES (1, ?, ?, ?, ?, ?)",
            (name, source_path, toml_text, json.dumps(config, sort_keys=True), now_iso()),
        )

    def save_config(self, config: dict[str, Any], name: str | None = None) -> None:
        """Replace the audit's settings (the GUI edits them; the study file's text stays)."""
        with self.transaction():
            self._db.execute(
                "UPDATE study SET config_json = ?, name = coalesce(?, name) WHERE id = 1",
                (json.dumps(config, sort_keys=True), name),
            )

    def config(self) -> dict[str, Any]:
        """The audit's settings in study-file shape (see domain.study.study_to_dict)."""
        data: dict[str, Any] = self.study()["config"]
        return data

    def study(self) -> dict[str, Any]:
        row = self._db.execute(
            "SELECT name, source_path, toml, config_json, created_at FROM study WHERE id = 1"
        ).fetchone()
        if row is None:
            raise ResultFileError(f"{self.path} holds no study yet.")
        return {
            "name": row[0],
            "source_path": row[1],
            "toml": row[2],
            "config": json.loads(row[3]),
            "created_at": row[4],
        }

    def save_job(self, job: Job, source_name: str | None, source_bytes: bytes | None) -> None:
        self._db.execute(
            "INSERT INTO job(id, title, text, source_name, source_bytes) VALUES (1, ?, ?, ?, ?)",
            (job.title, job.text, source_name, source_bytes),
        )
        self._db.executemany(
            "INSERT INTO qualification(position, kind, qtype, text) VALUES (?, ?, ?, ?)",
            [(i, q.kind.value, q.qtype.value, q.text) for i, q in enumerate(job.qualifications)],
        )

    def has_job(self) -> bool:
        return bool(self._db.execute("SELECT count(*) FROM job").fetchone()[0])

    def replace_job(self, job: Job, source_name: str | None, source_bytes: bytes | None) -> None:
        """Set the job and its checklist, replacing what was there."""
        with self.transaction():
            self._db.execute("DELETE FROM qualification")
            self._db.execute("DELETE FROM job")
            self.save_job(job, source_name, source_bytes)

    def job(self) -> Job:
        row = self._db.execute("SELECT title, text FROM job WHERE id = 1").fetchone()
        if row is None:
            raise ResultFileError(f"{self.path} holds no job description yet.")
        quals = [
            Qualification(text=t, kind=QualKind(k), qtype=QualType(qt))
            for k, qt, t in self._db.execute(
                "SELECT kind, qtype, text FROM qualification ORDER BY position"
            )
        ]
        return Job(title=row[0], text=row[1], qualifications=quals)

    def add_resume(
        self,
        filename: str,
        data: bytes | None,
        text: str,
        pages: int,
        status: str,
        message: str = "",
        template: dict[str, Any] | None = None,
        findings: list[dict[str, Any]] | None = None,
    ) -> int:
        digest = hashlib.sha256(data if data is not None else text.encode("utf-8")).hexdigest()
        cur = self._db.execute(
            "INSERT INTO resume(filename, sha256, bytes, text, pages, status, message, "
            "template_json, findings_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                filename,
                digest,
                data,
                text,
                pages,
                status,
                message,
                None if template is None else json.dumps(template),
                json.dumps(findings or []),
            ),
        )
        return int(cur.lastrowid or 0)

    def resumes(self) -> list[ResumeRecord]:
        return [
            ResumeRecord(*row)
            for row in self._db.execute(
                "SELECT id, filename, sha256, text, pages, status, message FROM resume ORDER BY id"
            )
        ]

    def delete_resume(self, resume_id: int) -> None:
        """Remove a resume; refused while test cases built from it exist."""
        used = self._db.execute(
            "SELECT count(*) FROM variant WHERE resume_id = ?", (resume_id,)
        ).fetchone()[0]
        if used:
            raise ResultFileError(
                "Test cases are built from this resume. Clear the test cases first."
            )
        with self.transaction() as db:
            db.execute("DELETE FROM qual_text WHERE resume_id = ?", (resume_id,))
            db.execute("DELETE FROM resume WHERE id = ?", (resume_id,))

    def resume_findings(self, resume_id: int) -> list[dict[str, Any]]:
        row = self._db.execute(
            "SELECT findings_json FROM resume WHERE id = ?", (resume_id,)
        ).fetchone()
        return [] if row is None else list(json.loads(row[0]))

    def set_template(self, resume_id: int, template: dict[str, Any]) -> None:
        self._db.execute(
            "UPDATE resume SET template_json = ? WHERE id = ?", (json.dumps(template), resume_id)
        )

    def resume_bytes(self, resume_id: int) -> bytes | None:
        row = self._db.execute("SELECT bytes FROM resume WHERE id = ?", (resume_id,)).fetchone()
        return None if row is None else row[0]

    def resume_template(self, resume_id: int) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT template_json FROM resume WHERE id = ?", (resume_id,)
        ).fetchone()
        return None if row is None or row[0] is None else json.loads(row[0])

    # -- variants and pairs -------------------------------------------------------

    def add_variant(self, v: Variant) -> int:
        cur = self._db.execute(
            "INSERT INTO variant(resume_id, kind, grp, name, k, changes_json, removed_json, text) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                v.resume_id,
                v.kind.value,
                v.group,
                v.name,
                v.k,
                json.dumps(v.changes),
                json.dumps(v.removed_lines),
                v.text,
            ),
        )
        v.id = int(cur.lastrowid or 0)
        return v.id

    def variants(self) -> list[Variant]:
        return [
            Variant(
                id=row[0],
                resume_id=row[1],
                kind=VariantKind(row[2]),
                group=row[3],
                name=row[4],
                k=row[5],
                changes=json.loads(row[6]),
                removed_lines=json.loads(row[7]),
                text=row[8],
            )
            for row in self._db.execute(
                "SELECT id, resume_id, kind, grp, name, k, changes_json, removed_json, text "
                "FROM variant ORDER BY id"
            )
        ]

    def variant_labels(self) -> dict[int, tuple[str, str, str]]:
        """id -> (name, group, kind) without the texts: what a big table needs."""
        return {
            int(r[0]): (r[1] or "", r[2] or "", r[3])
            for r in self._db.execute("SELECT id, name, grp, kind FROM variant")
        }

    def verdicts_since(
        self, run_id: int, since: str = ""
    ) -> list[tuple[int, int, str, int, str, str, str]]:
        """Answers received at or after `since` (ISO time), oldest first:
        (request_id, pair_id, ord, rep, label, justification, received_at).

        Lets a live view pick up only what is new instead of re-reading everything.
        """
        return [
            (int(r[0]), int(r[1]), r[2], int(r[3]), r[4], r[5], r[6])
            for r in self._db.execute(
                "SELECT request.id, request.pair_id, request.ord, request.rep, response.label, "
                "response.justification, response.received_at FROM response "
                "JOIN request ON request.id = response.request_id "
                "WHERE request.run_id = ? AND response.received_at >= ? "
                "AND request.pair_id IS NOT NULL "
                "ORDER BY response.received_at",
                (run_id, since),
            )
        ]

    def variant_text(self, variant_id: int) -> str:
        row = self._db.execute("SELECT text FROM variant WHERE id = ?", (variant_id,)).fetchone()
        return "" if row is None else str(row[0])

    def add_pair(self, c: Case) -> int:
        pair_type, gap = self._pair_type(c)
        cur = self._db.execute(
            "INSERT INTO pair(design, kind, variant_a, variant_b, truth, cluster, k, differs, "
            "group_a, group_b, signal, pair_type, gap) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                c.design,
                c.kind.value,
                c.variant_a,
                c.variant_b,
                c.truth.value,
                c.cluster,
                c.k,
                c.differs,
                c.group_a,
                c.group_b,
                c.signal,
                pair_type,
                gap,
            ),
        )
        c.id = int(cur.lastrowid or 0)
        return c.id

    def _pair_type(self, c: Case) -> tuple[str, int]:
        """(pair type, true gap) of a pair from its variants' kinds, as migration 5 does.

        (c+, c-) differs by 2k qualifications although it was built with k.
        """
        if c.kind is not CaseKind.UNEQUAL:
            return "", 0
        kinds = {
            str(row[0])
            for row in self._db.execute(
                "SELECT kind FROM variant WHERE id IN (?, ?)", (c.variant_a, c.variant_b)
            )
        }
        if {"more", "less"} <= kinds:
            return "more_less", 2 * c.k
        if "more" in kinds:
            return "more_base", c.k
        if "less" in kinds:
            return "base_less", c.k
        return "", c.k

    def set_variant_details(
        self, variant_id: int, *, qual_type: str, change_location: str, generator: str
    ) -> None:
        """What the D1 breakdowns read about a variant (docs/designs.md)."""
        self._db.execute(
            "UPDATE variant SET qual_type = ?, change_location = ?, generator = ? WHERE id = ?",
            (qual_type, change_location, generator, variant_id),
        )

    def variant_details(self) -> dict[int, tuple[str, str, str]]:
        """id -> (qual_type, change_location, generator); '' where not known."""
        return {
            int(r[0]): (r[1], r[2], r[3])
            for r in self._db.execute(
                "SELECT id, qual_type, change_location, generator FROM variant"
            )
        }

    def pair_count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM pair").fetchone()[0])

    def pairs(self) -> list[Case]:
        return [
            Case(
                id=row[0],
                design=row[1],
                kind=CaseKind(row[2]),
                variant_a=row[3],
                variant_b=row[4],
                truth=Truth(row[5]),
                cluster=row[6],
                k=row[7],
                differs=row[8],
                group_a=row[9],
                group_b=row[10],
                signal=row[11],
            )
            for row in self._db.execute(
                "SELECT id, design, kind, variant_a, variant_b, truth, cluster, k, differs, "
                "group_a, group_b, signal FROM pair ORDER BY id"
            )
        ]

    def answered_by_run(self) -> dict[int, int]:
        """Answers per run id (runs with none are left out)."""
        return {
            int(run_id): int(n)
            for run_id, n in self._db.execute(
                "SELECT request.run_id, count(*) FROM response JOIN request "
                "ON request.id = response.request_id GROUP BY request.run_id"
            )
        }

    def answered_count(self) -> int:
        """Answers of the audit's runs (a generator model's answers are not counted)."""
        return int(
            self._db.execute(
                "SELECT count(*) FROM response JOIN request ON request.id = response.request_id "
                "JOIN run ON run.id = request.run_id WHERE run.purpose = 'audit'"
            ).fetchone()[0]
        )

    def clear_cases(self) -> None:
        """Delete variants, pairs and their unanswered requests, to build them again.

        Refused once any answer exists: those answers belong to these cases, and an
        audit's numbers must always trace back to the cases that produced them.
        """
        if self.answered_count():
            raise ResultFileError(
                "This audit already has answers from a model, so its test cases are fixed. "
                "Save a copy as a new audit to change them."
            )
        waiting = self._db.execute(
            "SELECT count(*) FROM batch WHERE state IN ('submitted', 'ended') "
            "AND run_id IN (SELECT id FROM run WHERE purpose = 'audit')"
        ).fetchone()[0]
        if waiting:
            raise ResultFileError(
                "A batch of this audit's requests is still with the provider (and paid for). "
                "Collect it by running the audit, or save a copy as a new audit."
            )
        # Generation runs (their paid answers) stay: they wrote qualification texts, not cases.
        audit_runs = "SELECT id FROM run WHERE purpose = 'audit'"
        audit_requests = f"SELECT id FROM request WHERE run_id IN ({audit_runs})"
        with self.transaction():
            self._db.execute(f"DELETE FROM response_history WHERE request_id IN ({audit_requests})")
            for table in ("request", "batch"):
                self._db.execute(f"DELETE FROM {table} WHERE run_id IN ({audit_runs})")  # noqa: S608
            self._db.execute("DELETE FROM run WHERE purpose = 'audit'")
            for table in ("case_set", "pair"):
                self._db.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names
            self._db.execute("DELETE FROM variant")

    def copy_to(self, path: str | Path) -> None:
        """A consistent copy of this file (SQLite's online backup), e.g. 'Save a copy as'.

        A new file is written beside the target and moved in place when complete; an
        existing target is overwritten through SQLite (which respects its readers),
        and only when no other program writes it. The file itself is refused.
        """
        target = Path(path)
        if target.exists() and target.resolve() == self.path.resolve():
            raise ResultFileError("That is this audit's own file; choose another name.")
        with writelock.hold(target):
            if target.exists():
                dest = sqlite3.connect(target, timeout=10.0)
                try:
                    self._db.backup(dest)
                except sqlite3.DatabaseError as exc:
                    raise ResultFileError(
                        f"{target} exists and is not a result file this app can overwrite "
                        f"({exc}); choose another name."
                    ) from exc
                finally:
                    dest.close()
                return
            partial = target.with_name(target.name + ".partial")
            remove_partial(partial)
            try:
                dest = sqlite3.connect(partial)
                try:
                    self._db.backup(dest)
                    dest.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
                finally:
                    dest.close()
                install_new(partial, target)
            finally:
                remove_partial(partial)

    # -- runs and requests --------------------------------------------------------

    def find_run(
        self, provider: str, base_url: str, model: str, prompt_id: str, params: dict[str, Any]
    ) -> int | None:
        row = self._db.execute(
            "SELECT id FROM run WHERE provider = ? AND base_url = ? AND model = ? "
            "AND prompt_id = ? AND params_json = ? ORDER BY id DESC LIMIT 1",
            (provider, base_url, model, prompt_id, json.dumps(params, sort_keys=True)),
        ).fetchone()
        return None if row is None else int(row[0])

    def add_run(
        self,
        provider: str,
        base_url: str,
        model: str,
        prompt_id: str,
        params: dict[str, Any],
        *,
        purpose: str = "audit",
    ) -> int:
        cur = self._db.execute(
            "INSERT INTO run(provider, base_url, model, prompt_id, params_json, created_at, "
            "purpose) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                provider,
                base_url,
                model,
                prompt_id,
                json.dumps(params, sort_keys=True),
                now_iso(),
                purpose,
            ),
        )
        return int(cur.lastrowid or 0)

    def runs(self, *, purpose: str | None = "audit") -> list[RunRecord]:
        """The audit's runs of the model under test; `purpose="generation"` the generator
        runs (docs/generator.md), None every run (to find one by id)."""
        where, params = ("", ()) if purpose is None else ("WHERE purpose = ?", (purpose,))
        return [
            RunRecord(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7])
            for r in self._db.execute(
                "SELECT id, provider, base_url, model, prompt_id, params_json, created_at, "
                f"purpose FROM run {where} ORDER BY id",
                params,
            )
        ]

    def latest_run(self) -> RunRecord | None:
        runs = self.runs()
        return runs[-1] if runs else None

    def add_requests(
        self, run_id: int, items: Iterable[tuple[int, Order, int, dict[str, Any]]]
    ) -> int:
        """Queue D1 requests (pair, order, repeat, body); ones already queued are kept.

        The pairwise kind of the run's preset is assumed; `add_request_specs` queues
        requests of any kind.
        """
        pairs = {
            int(r[0]): (int(r[1]), int(r[2]))
            for r in self._db.execute("SELECT id, variant_a, variant_b FROM pair")
        }
        row = self._db.execute("SELECT prompt_id FROM run WHERE id = ?", (run_id,)).fetchone()
        preset = "" if row is None else str(row[0])
        specs = []
        for pair_id, order, rep, body in items:
            a, b = pairs.get(pair_id, (0, 0))
            specs.append(
                RequestSpec(
                    ukey=f"pair:{pair_id}:{order.value}",
                    kind="pairwise_abstain",
                    body=body,
                    variants=(a, b) if order is Order.AB else (b, a),
                    rep=rep,
                    preset=preset,
                    pair_id=pair_id,
                    order=order.value,
                )
            )
        return self.add_request_specs(run_id, specs)

    def open_requests(
        self,
        run_id: int,
        include_failed: bool = True,
        *,
        after_id: int = 0,
        limit: int | None = None,
        batch_id: int | None = None,
    ) -> list[PendingRequest]:
        """Requests that still need an answer (pending, sent but unanswered, failed),
        by id; `after_id` and `limit` read them a page at a time (a run of 100,000
        requests never holds every body in memory). Requests waiting in a provider
        batch are not open: the batch answers them (`batch_id` lists one batch's)."""
        statuses = ("pending", "sent", "failed") if include_failed else ("pending", "sent")
        marks = ",".join("?" * len(statuses))
        page = "" if limit is None else f" LIMIT {int(limit)}"
        in_batch = "batch_id IS NULL" if batch_id is None else f"batch_id = {int(batch_id)}"
        return [
            PendingRequest(
                id=r[0],
                pair_id=r[1],
                order=Order(r[2]) if r[2] in ("ab", "ba") else None,
                rep=r[3],
                body=unpack(r[4]),
                attempts=r[5],
                kind=r[6],
                preset=r[7],
                ukey=r[8],
                variants=tuple(json.loads(r[9])),
                context=json.loads(r[10]),
                cell=r[11],
                status=r[12],
            )
            for r in self._db.execute(
                f"SELECT id, pair_id, ord, rep, body, attempts, kind, preset, ukey, "
                f"variants_json, context_json, cell, status FROM request "
                f"WHERE run_id = ? AND status IN ({marks}) AND id > ? AND {in_batch} "
                f"ORDER BY id{page}",
                (run_id, *statuses, after_id),
            )
        ]

    def open_count(self, run_id: int) -> int:
        return int(
            self._db.execute(
                "SELECT count(*) FROM request WHERE run_id = ? AND batch_id IS NULL "
                "AND status IN ('pending', 'sent', 'failed')",
                (run_id,),
            ).fetchone()[0]
        )

    def mark_sent(self, request_id: int) -> None:
        """Recorded before the request goes out, so a crash shows it was in flight."""
        self._db.execute(
            "UPDATE request SET status = 'sent', attempts = attempts + 1, sent_at = ? "
            "WHERE id = ? AND status != 'done'",
            (now_iso(), request_id),
        )

    def record_failure(self, request_id: int, kind: str, message: str) -> None:
        self._db.execute(
            "UPDATE request SET status = 'failed', error_kind = ?, error = ? "
            "WHERE id = ? AND status != 'done'",
            (kind, message, request_id),
        )

    def progress(self, run_id: int) -> Progress:
        row = self._db.execute(
            "SELECT count(*), "
            "coalesce(sum(status = 'done'), 0), coalesce(sum(status = 'failed'), 0), "
            "coalesce(sum(status IN ('pending', 'sent')), 0), "
            "coalesce(sum(status = 'skipped'), 0), "
            "coalesce(sum(batch_id IS NOT NULL AND status != 'done'), 0) "
            "FROM request WHERE run_id = ?",
            (run_id,),
        ).fetchone()
        usage = self._db.execute(
            "SELECT coalesce(sum(label = 'invalid'), 0), coalesce(sum(input_tokens), 0), "
            "coalesce(sum(output_tokens), 0), coalesce(sum(cost_usd), 0), "
            "coalesce(sum(cost_usd IS NULL), 0), coalesce(sum(cached_tokens), 0), "
            "coalesce(sum(reasoning_tokens), 0), coalesce(sum(source = 'cache'), 0), "
            "coalesce(sum(json_extract(parsed_json, '$.refused') IS NOT NULL), 0) "
            "FROM response JOIN request ON request.id = response.request_id "
            "WHERE request.run_id = ?",
            (run_id,),
        ).fetchone()
        # Answers a re-ask replaced were paid for too.
        history = self._db.execute(
            "SELECT coalesce(sum(cost_usd), 0), coalesce(sum(cost_usd IS NULL), 0), "
            "coalesce(sum(response_history.input_tokens), 0), "
            "coalesce(sum(response_history.output_tokens), 0) FROM response_history "
            "JOIN request ON request.id = response_history.request_id WHERE request.run_id = ?",
            (run_id,),
        ).fetchone()
        unpriced = usage[4] + history[1]
        return Progress(
            total=row[0],
            done=row[1],
            failed=row[2],
            pending=row[3],
            invalid=usage[0],
            input_tokens=usage[1] + history[2],
            output_tokens=usage[2] + history[3],
            cost_usd=None if unpriced else float(usage[3] + history[0]),
            cached_tokens=usage[5],
            reasoning_tokens=usage[6],
            cache_hits=usage[7],
            refused=usage[8],
            skipped=row[4],
            batched=row[5],
        )

    def failures(self, run_id: int) -> list[tuple[int, str, str]]:
        return [
            (r[0], r[1] or "", r[2] or "")
            for r in self._db.execute(
                "SELECT id, error_kind, error FROM request WHERE run_id = ? AND status = 'failed'",
                (run_id,),
            )
        ]

    def raw_response(self, request_id: int) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT raw FROM response WHERE request_id = ?", (request_id,)
        ).fetchone()
        return None if row is None else dict(unpack(row[0]))

    def request_body(self, request_id: int) -> dict[str, Any] | None:
        row = self._db.execute("SELECT body FROM request WHERE id = ?", (request_id,)).fetchone()
        return None if row is None else dict(unpack(row[0]))

    # -- tidy tables for statistics and the UI -------------------------------------

    def judgments(self, run_id: int | None = None) -> pd.DataFrame:
        """One row per answered request, joined with its pair: the input to the statistics."""
        if run_id is None:
            latest = self.latest_run()
            if latest is None:
                return pd.DataFrame(columns=JUDGMENT_COLUMNS)
            run_id = latest.id
        query = (
            "SELECT request.id AS request_id, request.run_id, pair.id AS pair_id, pair.design, "
            "pair.kind, pair.truth, pair.cluster, pair.k, pair.group_a, pair.group_b, "
            "pair.signal, pair.differs, request.ord AS ord, request.rep AS rep, "
            "response.label, response.justification, pair.pair_type, pair.gap, "
            "va.kind AS kind_a, vb.kind AS kind_b, va.qual_type AS qual_a, "
            "vb.qual_type AS qual_b, va.change_location AS loc_a, vb.change_location AS loc_b, "
            "va.generator AS gen_a, vb.generator AS gen_b "
            "FROM request JOIN response ON response.request_id = request.id "
            "JOIN pair ON pair.id = request.pair_id "
            "JOIN variant va ON va.id = pair.variant_a JOIN variant vb ON vb.id = pair.variant_b "
            "WHERE request.run_id = ? ORDER BY request.id"
        )
        frame = pd.read_sql_query(query, self._db, params=(run_id,))
        _changed_details(frame)
        return frame[JUDGMENT_COLUMNS]


def _connect_readonly(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri() + "?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=10.0, isolation_level=None)


def damaged(path: Path, exc: BaseException) -> AuditDamaged:
    """The message for a file SQLite cannot read, naming the last good backup if any."""
    backup = backup_path(path)
    message = f"{path} is not a Resume Auditor result file or is damaged ({exc})."
    if backup.exists():
        message += (
            f" The last good copy of it is {backup.name}: open the audit in the app to "
            f"restore it, or run: resume-auditor restore {path}"
        )
        return AuditDamaged(message, str(path), str(backup))
    return AuditDamaged(message, str(path))


def _changed_details(frame: pd.DataFrame) -> None:
    """Per unequal pair, what changed: the changed variant's (or both's) details.

    Columns qual_type, change_location, generator; empty (None) when not recorded,
    so the D1 breakdowns leave such pairs out rather than count them as a value.
    """
    for column, a, b in (
        ("qual_type", "qual_a", "qual_b"),
        ("change_location", "loc_a", "loc_b"),
        ("generator", "gen_a", "gen_b"),
    ):
        values: list[str | None] = []
        for kind, ka, kb, va, vb in zip(
            frame["kind"], frame["kind_a"], frame["kind_b"], frame[a], frame[b], strict=True
        ):
            if kind != "unequal":
                values.append(None)
                continue
            changed = [v for k, v in ((ka, va), (kb, vb)) if k in ("more", "less")]
            known = sorted({v for v in changed if v})
            if column == "change_location" and len(known) > 1:
                values.append("both")
            else:
                values.append("+".join(known) or None)
        frame[column] = values


JUDGMENT_COLUMNS = [
    "request_id",
    "run_id",
    "pair_id",
    "design",
    "kind",
    "truth",
    "cluster",
    "k",
    "group_a",
    "group_b",
    "signal",
    "differs",
    "ord",
    "rep",
    "label",
    "justification",
    "pair_type",
    "gap",
    "qual_type",
    "change_location",
    "generator",
]
