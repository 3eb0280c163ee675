"""The result file: one audit in one SQLite file.

It holds the study, the job, the resumes (original bytes and text), variants,
test cases of every design, every request as sent and every raw response. A response is committed
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
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resume_auditor.domain.case import Case, CaseKind, Order, Truth, Variant, VariantKind
from resume_auditor.domain.job import Job, Qualification, QualKind, QualType
from resume_auditor.store import writelock
from resume_auditor.store.backup import backup_path, install_new, remove_partial
from resume_auditor.store.errors import AuditDamaged, AuditInUse, ResultFileError
from resume_auditor.store.packing import now_iso, pack, unpack
from resume_auditor.store.qualtexts import QualTextTables
from resume_auditor.store.requests import RequestSpec, RequestTables
from resume_auditor.store.schema import MIGRATIONS, REBUILDS, SCHEMA_VERSION

logger = logging.getLogger(__name__)

__all__ = [
    "APP_FILE_ID",
    "AuditDamaged",
    "AuditInUse",
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
    """A request that still needs an answer: its case (`case_id`, of `design`), what
    it shows in `variants` (presentation order), the order of a pairwise request
    (`order`, None otherwise) and how to read the answer (`kind`)."""

    id: int
    case_id: int | None
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
    design: str = ""

    @property
    def pair_id(self) -> int | None:
        """The D1 pair asked about (the D1 views key their rows by it); None otherwise."""
        return self.case_id if self.design == "D1" else None


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
    # answers whose token counts, and so cost, are estimates (the provider sent none:
    # parsed.tokens_estimated, runner/answering.py)
    estimated_usage: int = 0

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
        # the -wal/-shm a read-only open creates, which it alone may tidy away
        self._made_sidecars = readonly and not any(p.exists() for p in self._sidecars())
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

    @classmethod
    def in_memory(cls, source: str | Path | None = None) -> ResultFile:
        """An audit held in memory only: a copy of the audit file `source` brought up to
        this app's schema, or a new empty one. No file is written, no lock is taken.

        For what must read an audit without touching a file: tests of the report and the
        UI (a built audit copied in milliseconds instead of run again), previews.
        """
        self = cls.__new__(cls)
        self.path = Path(":memory:")
        self.readonly = False
        self._lock = None
        self._made_sidecars = False
        db = sqlite3.connect(":memory:", isolation_level=None)
        if source is not None:
            if not Path(source).exists():
                db.close()
                raise ResultFileError(f"There is no result file at {source}.")
            src = _connect_readonly(Path(source))
            try:
                src.backup(db)
            except sqlite3.DatabaseError as exc:
                db.close()
                raise damaged(Path(source), exc) from exc
            finally:
                src.close()
        db.execute("PRAGMA foreign_keys=ON")
        self._db = db
        try:
            self._migrate(create=source is None)
        except BaseException:
            db.close()
            raise
        return self

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
            rebuild = number + 1 in REBUILDS
            if rebuild:  # a no-op inside a transaction, so before it starts
                self._db.execute("PRAGMA foreign_keys=OFF")
            # executescript commits first; the script carries its own transaction.
            try:
                self._db.executescript(
                    f"BEGIN; {MIGRATIONS[number]}; PRAGMA user_version = {number + 1};"
                )
                # what the rebuild wrote: requests naming their cases (a problem the
                # file already had elsewhere is not this migration's to refuse)
                broken = (
                    self._db.execute("PRAGMA foreign_key_check(request)").fetchall()
                    if rebuild
                    else []
                )
                if broken:
                    raise ResultFileError(
                        f"{self.path} could not be updated to this app's format: "
                        f"{len(broken)} row(s) would lose what they refer to. The file is "
                        "unchanged; please report this."
                    )
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            finally:
                if rebuild:
                    self._db.execute("PRAGMA foreign_keys=ON")
        if version == 0:
            with self.transaction():
                self._set_meta("file", APP_FILE_ID)
                self._set_meta("created_at", now_iso())

    def close(self) -> None:
        try:
            self._db.close()
        finally:
            self._release_lock()
        if self._made_sidecars:
            self._tidy_sidecars()

    def _sidecars(self) -> list[Path]:
        return [Path(f"{self.path}-wal"), Path(f"{self.path}-shm")]

    def _tidy_sidecars(self) -> None:
        """Remove the empty -wal/-shm that opening a WAL file read-only leaves beside it.

        SQLite creates them for any reader and only a read-write connection, the last
        one to close, deletes them. So when nobody writes the audit (no lock held, in
        this process or another), a read-write connection is opened and closed under
        the writer lock; with a writer or another reader still there, SQLite itself
        keeps them, and the writer tidies them as it closes.
        """
        if writelock.holds(self.path) or not any(p.exists() for p in self._sidecars()):
            return
        try:
            lock = writelock.hold(self.path)
        except AuditInUse:
            return
        try:
            db = sqlite3.connect(self.path, timeout=0.0, isolation_level=None)
            try:
                db.execute("PRAGMA user_version").fetchone()
            finally:
                db.close()
        except sqlite3.Error as exc:  # busy, a read-only folder: leave them
            logger.debug("could not tidy -wal/-shm beside %s: %s", self.path, exc)
        finally:
            lock.release()

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
        (request_id, case_id, ord, rep, label, justification, received_at) of D1 pairs.

        Lets a live view pick up only what is new instead of re-reading everything.
        """
        return [
            (int(r[0]), int(r[1]), r[2], int(r[3]), r[4], r[5], r[6])
            for r in self._db.execute(
                "SELECT request.id, request.case_id, request.ord, request.rep, response.label, "
                "response.justification, response.received_at FROM response "
                "JOIN request ON request.id = response.request_id "
                "JOIN test_case ON test_case.id = request.case_id "
                "WHERE request.run_id = ? AND response.received_at >= ? "
                "AND test_case.design = 'D1' "
                "ORDER BY response.received_at",
                (run_id, since),
            )
        ]

    def variant_text(self, variant_id: int) -> str:
        row = self._db.execute("SELECT text FROM variant WHERE id = ?", (variant_id,)).fetchone()
        return "" if row is None else str(row[0])

    def add_case(self, c: Case) -> int:
        """Store a test case of any design (its variants stored first); sets `c.id`.

        A D1 unequal pair's type and true gap come from its variants' kinds, as
        migration 5 derived them, so the two can never disagree.
        """
        if c.design == "D1" and c.kind == CaseKind.UNEQUAL:
            c.pair_type, c.gap = self._pair_type(c)
        cur = self._db.execute(
            "INSERT INTO test_case(design, kind, cluster, variants_json, meta_json, truth, k, "
            "gap, pair_type, differs, group_a, group_b, signal, construction) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                c.design,
                str(c.kind),
                c.cluster,
                json.dumps(list(c.variants)),
                json.dumps(c.meta),
                None if c.truth is None else c.truth.value,
                c.k,
                c.gap,
                c.pair_type,
                c.differs,
                c.group_a,
                c.group_b,
                c.signal,
                c.construction,
            ),
        )
        c.id = int(cur.lastrowid or 0)
        return c.id

    def _pair_type(self, c: Case) -> tuple[str, int]:
        """(pair type, true gap) of an unequal pair from its variants' kinds.

        (c+, c-) differs by 2k qualifications although it was built with k.
        """
        marks = ",".join("?" * len(c.variants))
        kinds = {
            str(row[0])
            for row in self._db.execute(
                f"SELECT kind FROM variant WHERE id IN ({marks})", tuple(c.variants)
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

    def variant_details(self) -> dict[int, tuple[str, str, str, str]]:
        """id -> (kind, qual_type, change_location, generator); '' where not known.

        What the D1 breakdowns read (stats.inputs.d1_judgments), without the texts.
        """
        return {
            int(r[0]): (r[1], r[2], r[3], r[4])
            for r in self._db.execute(
                "SELECT id, kind, qual_type, change_location, generator FROM variant"
            )
        }

    def case_count(self, design: str | None = None) -> int:
        """How many test cases (of one design), without reading them (the app asks often)."""
        where, params = ("", ()) if design is None else (" WHERE design = ?", (design,))
        return int(self._db.execute(f"SELECT count(*) FROM test_case{where}", params).fetchone()[0])

    def case_kinds(self) -> dict[tuple[str, str], int]:
        """(design, kind) -> how many test cases, without reading them."""
        return {
            (str(d), str(k)): int(n)
            for d, k, n in self._db.execute(
                "SELECT design, kind, count(*) FROM test_case GROUP BY design, kind"
            )
        }

    def cases(self, design: str | None = None) -> list[Case]:
        """Every test case (of one design), by id: one shape for D1-D4."""
        where, params = ("", ()) if design is None else (" WHERE design = ?", (design,))
        return [
            Case(
                id=r[0],
                design=r[1],
                kind=CaseKind(r[2]) if r[1] == "D1" else r[2],
                cluster=r[3],
                variants=json.loads(r[4]),
                meta=json.loads(r[5]),
                truth=None if r[6] is None else Truth(r[6]),
                k=r[7],
                gap=r[8],
                pair_type=r[9],
                differs=r[10],
                group_a=r[11],
                group_b=r[12],
                signal=r[13],
                construction=r[14],
            )
            for r in self._db.execute(
                "SELECT id, design, kind, cluster, variants_json, meta_json, truth, k, gap, "
                "pair_type, differs, group_a, group_b, signal, construction "
                f"FROM test_case{where} ORDER BY id",
                params,
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
            self._db.execute("DELETE FROM test_case")
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
                case_id=r[1],
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
                design=r[13] or "",
            )
            for r in self._db.execute(
                f"SELECT request.id, case_id, ord, rep, body, attempts, request.kind, preset, "
                f"ukey, request.variants_json, context_json, cell, status, test_case.design "
                f"FROM request LEFT JOIN test_case ON test_case.id = request.case_id "
                f"WHERE run_id = ? AND status IN ({marks}) AND request.id > ? AND {in_batch} "
                f"ORDER BY request.id{page}",
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
            "coalesce(sum(json_extract(parsed_json, '$.refused') IS NOT NULL), 0), "
            "coalesce(sum(json_extract(parsed_json, '$.tokens_estimated') IS NOT NULL), 0) "
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
            estimated_usage=usage[9],
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
