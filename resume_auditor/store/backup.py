"""The last good copy of an audit, and putting new files in place safely.

One backup per audit, `NAME.audit.backup` beside it, replaced (rotated) only by a
newer copy that passed SQLite's integrity check, so a damaged file never
overwrites the good copy. It is made with SQLite's online backup API (a
consistent copy even while answers are being written) by the process that holds
the audit's writer lock, at two moments:

- before a run starts: a run is the long stretch of writing (and the one that
  costs money), and by then the job, resumes and cases, the work of hours, are in
  the file; the copy keeps them and every answer so far;
- when the app closes an audit (another one opened, or the app quits): that copy
  holds the session's answers too.

A copy is made again only if the audit was written since the last one. Opening a
file does not make one: a backup made on open would copy a file that
may have been damaged by something outside the app since, which is what a
backup is for.

`install_new` moves a finished file into place only when nothing is there yet,
so no code path replaces a file another program may have open.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from pathlib import Path

from resume_auditor.store import writelock
from resume_auditor.store.errors import ResultFileError

logger = logging.getLogger(__name__)

__all__ = [
    "BACKUP_SUFFIX",
    "backup_path",
    "check_integrity",
    "install_new",
    "make_backup",
    "remove_partial",
    "restore_backup",
]

BACKUP_SUFFIX = ".backup"
_SIDECARS = ("-wal", "-shm", "-journal")


def backup_path(path: str | Path) -> Path:
    path = Path(path)
    return path.with_name(path.name + BACKUP_SUFFIX)


def check_integrity(db: sqlite3.Connection) -> str:
    """ "" when SQLite finds the file sound, else what it found (first lines)."""
    rows = [str(r[0]) for r in db.execute("PRAGMA quick_check").fetchmany(5)]
    return "" if rows == ["ok"] else "; ".join(rows)


def make_backup(path: str | Path) -> Path | None:
    """Copy the audit at `path` to its backup if it is sound; the backup, or None.

    The caller must hold the audit's writer lock (the app with the audit open, or
    a CLI command that writes it). Never raises for a file it cannot copy: the
    old backup stays, and the reason is logged.
    """
    path = Path(path)
    if not writelock.holds(path):
        raise ResultFileError(f"Only the program writing {path.name} may back it up.")
    target = backup_path(path)
    if _unchanged_since(path, target):
        return target  # viewing an audit does not copy it again
    partial = target.with_name(target.name + ".partial")
    _remove_with_sidecars(partial)
    started = time.time_ns()
    try:
        # Read-write, which the writer lock allows: when the audit was just closed (the
        # app quitting), this is the last connection, and SQLite removes the -wal/-shm
        # as it closes; a read-only one would make them again and leave them behind.
        source = sqlite3.connect(path, timeout=10.0)
        try:
            problem = check_integrity(source)
            if problem:
                logger.warning("%s is damaged (%s): the old backup is kept", path, problem)
                return None
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            finally:
                copy.close()
        finally:
            source.close()
        # Dated when the copy began: a write during the copy makes the next one happen.
        os.utime(partial, ns=(started, started))
        os.replace(partial, target)  # only this process (the writer) touches the backup
    except (sqlite3.Error, OSError) as exc:
        logger.warning("could not back up %s: %s", path, exc)
        _remove_with_sidecars(partial)
        return None
    logger.info("backed up %s to %s", path, target)
    return target


def _unchanged_since(path: Path, target: Path) -> bool:
    """Whether nothing was written to `path` (file or log) after `target` was made."""
    try:
        made = target.stat().st_mtime_ns
    except OSError:
        return False
    written = 0
    for suffix in ("", "-wal"):
        try:
            written = max(written, Path(str(path) + suffix).stat().st_mtime_ns)
        except OSError:
            continue
    return 0 < written < made


def backup_time(path: str | Path) -> str | None:
    """When the backup of `path` was made (local time), or None when there is none."""
    target = backup_path(path)
    try:
        stamp = target.stat().st_mtime
    except OSError:
        return None
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def restore_backup(path: str | Path) -> Path:
    """Put the last good copy back in place of a damaged audit; the damaged file's new name.

    The damaged file is kept (renamed `NAME.audit.damaged-DATE`), never deleted:
    it may still hold answers the backup lacks, for someone with the right tools.
    Refused while another program writes the audit.
    """
    path = Path(path)
    source = backup_path(path)
    if not source.exists():
        raise ResultFileError(f"There is no backup of {path.name} ({source.name}).")
    with writelock.hold(path):
        try:
            db = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
            try:
                problem = check_integrity(db)
            finally:
                db.close()
        except sqlite3.DatabaseError as exc:
            problem = str(exc)
        if problem:
            raise ResultFileError(f"The backup {source.name} is damaged too ({problem}).")
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = path.with_name(f"{path.name}.damaged-{stamp}")
        if path.exists():
            for suffix in ("", *_SIDECARS):
                old = Path(str(path) + suffix)
                if old.exists():
                    os.replace(old, Path(str(aside) + suffix))
        partial = path.with_name(path.name + ".restoring")
        _remove_with_sidecars(partial)
        src = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)
                dst.execute("PRAGMA journal_mode=DELETE")
            finally:
                dst.close()
        finally:
            src.close()
        install_new(partial, path)
    logger.warning("restored %s from %s; the damaged file is %s", path, source, aside)
    return aside


def install_new(partial: Path, target: Path) -> None:
    """Move the finished file `partial` to `target`, which must not exist.

    The caller holds `target`'s writer lock. Left-over `-wal`/`-shm` of an earlier
    file of that name (deleted by hand) are removed first: SQLite would otherwise
    apply that old log to the new file.
    """
    if target.exists():
        raise ResultFileError(f"{target} already exists; not replacing it.")
    settle(partial)
    for suffix in _SIDECARS:
        stray = Path(str(partial) + suffix)
        if stray.exists():
            raise ResultFileError(f"{partial.name} is still open; not moving it.")
        orphan = Path(str(target) + suffix)
        if orphan.exists():
            logger.warning("removing %s, left without its audit file", orphan)
            orphan.unlink()
    try:
        os.link(partial, target)  # fails, rather than replaces, if target appeared
    except FileExistsError as exc:
        raise ResultFileError(f"{target} already exists; not replacing it.") from exc
    except OSError:  # a file system without hard links
        if target.exists():
            raise ResultFileError(f"{target} already exists; not replacing it.") from None
        os.rename(partial, target)
        return
    partial.unlink()


def settle(path: Path) -> None:
    """Fold `path`'s write-ahead log into the file, so it is one file to move."""
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA journal_mode=DELETE")
    finally:
        db.close()


def remove_partial(partial: Path) -> bool:
    """Delete a half-built file (and its sidecars); whether there was one.

    The caller holds the writer lock of the file it was being built for, so no
    other program is building it. A lock file a killed builder left is tidied too.
    """
    if writelock.holder(partial) is not None:
        raise ResultFileError(f"{partial.name} is being written by another program.")
    return _remove_with_sidecars(partial)


def _remove_with_sidecars(path: Path) -> bool:
    found = False
    for suffix in ("", *_SIDECARS):
        file = Path(str(path) + suffix)
        if file.exists():
            found = True
            file.unlink()
    return found
