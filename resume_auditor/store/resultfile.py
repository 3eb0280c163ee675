"""The result file: one audit in one SQLite file.

It holds the study, the job, the resumes (original bytes and text), variants,
test cases of every design, every request as sent and every raw response. A response is committed
before it is counted, so a crash loses nothing and a finished audit re-run sends
nothing.

This module opens, locks, copies and closes the file; what it holds is read and
written by its parts, one module per concern (store/tables.py lists them), whose
narrow interfaces are in store/parts.py.

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

import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from resume_auditor.store import schema, writelock
from resume_auditor.store.backup import backup_path, install_new, remove_partial
from resume_auditor.store.cases import CaseTables
from resume_auditor.store.errors import AuditDamaged, AuditInUse, ResultFileError
from resume_auditor.store.packing import now_iso, pack, unpack
from resume_auditor.store.qualtexts import QualTextTables
from resume_auditor.store.requests import PendingRequest, RequestSpec, RequestTables
from resume_auditor.store.resumes import ResumeRecord, ResumeTables
from resume_auditor.store.runs import Progress, RunRecord, RunTables
from resume_auditor.store.study import StudyTables

if TYPE_CHECKING:
    from resume_auditor.store import parts

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


class ResultFile(StudyTables, ResumeTables, CaseTables, RunTables, RequestTables, QualTextTables):
    """Open (creating if asked) a result file and read or write it.

    It opens, locks and closes the file, and is each of its parts (store/tables.py):
    what needs only some of them names their Protocols (store/parts.py).
    """

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

    def snapshot(self) -> bytes:
        """The whole audit as it is now, as bytes (SQLite's serialization of the
        database): what another thread turns into its own copy (`from_snapshot`), since
        a connection, and so an audit held in memory, belongs to the thread that made it.

        A copy of a file in WAL mode keeps WAL's mark in its header (bytes 18 and 19
        are 2), which an in-memory database cannot open ("unable to open database
        file"): the copy is marked as a rollback-journal database (1), which is all
        those two bytes say; no page changes.
        """
        data = bytearray(self._db.serialize())
        if len(data) >= 20 and data[18] == 2:
            data[18] = data[19] = 1
        return bytes(data)

    @classmethod
    def from_snapshot(cls, data: bytes) -> ResultFile:
        """An audit held in memory, copied from `snapshot()` bytes: nothing shared with
        the audit they came from, no file, no lock."""
        self = cls.__new__(cls)
        self.path = Path(":memory:")
        self.readonly = False
        self._lock = None
        self._made_sidecars = False
        db = sqlite3.connect(":memory:", isolation_level=None)
        try:
            db.deserialize(data)
            db.execute("PRAGMA foreign_keys=ON")
            self._db = db
            self._migrate(create=False)  # already this app's schema: only checked
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
            if 0 < version < schema.SCHEMA_VERSION:
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
            schema.check_version(db, self.path, create=False, readonly=True)
        except BaseException:
            db.close()
            raise
        return db

    # -- life cycle --------------------------------------------------------------

    def _migrate(self, create: bool) -> None:
        if schema.migrate(self._db, self.path, create=create) == 0:
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


if TYPE_CHECKING:  # mypy checks here that the file is every part of store/parts.py

    def _is_every_part(
        r: ResultFile,
    ) -> tuple[
        parts.AuditReader,
        parts.StudyStore,
        parts.ResumeStore,
        parts.CaseStore,
        parts.RunStore,
        parts.RequestStore,
        parts.QualTextStore,
        parts.Transactional,
    ]:
        return (r, r, r, r, r, r, r, r)
