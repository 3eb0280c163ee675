"""One writer per audit file: an operating-system lock on a small file beside it.

Two programs writing one SQLite file in WAL mode is safe for SQLite itself, but
not for an audit: the last read-write connection to close checkpoints the
write-ahead log and deletes `-wal`/`-shm`, and when the other program's locks on
the database were lost (POSIX locks vanish when *any* descriptor of the file
closes in that process) it deletes them under a live writer. So exactly one
process may open an audit read-write: the app while an audit is open in it, or
one CLI command. Everything else (metrics, report, cases, variants list) opens
the file read-only (see `ResultFile(readonly=True)`), and a read-only SQLite
connection never checkpoints or deletes anything.

The lock is `flock` on POSIX (macOS, Linux; unlike `fcntl` locks it is not lost
when another descriptor of the file closes) and `msvcrt.locking` on Windows, on
`NAME.audit.lock`. The operating system releases it when the holder exits, even
on kill -9 or a power cut, so a stale lock never blocks the next writer. The
file records who holds it (program, process id, host, since when) so the second
writer's message can name the holder. On POSIX the holder deletes the lock file
as it lets go (still holding the lock, and a newcomer re-checks that the file it
locked is still the one on disk), so no lock files are left beside audits.

Within one process the lock is shared and counted: the app's UI thread, its
runner thread and its background readers each open their own connection.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from resume_auditor.store.errors import AuditInUse, ResultFileError

logger = logging.getLogger(__name__)

__all__ = ["LOCK_SUFFIX", "WriterLock", "describe_holder", "hold", "holder", "set_program"]

LOCK_SUFFIX = ".lock"
# Windows locks a byte range; lock one byte far past the holder's note, which the
# next writer reads to name the holder.
_WIN_LOCK_OFFSET = 1 << 30

_program = ""
_registry: dict[str, _Held] = {}
_registry_lock = threading.Lock()


def set_program(name: str) -> None:
    """Name this process in the lock ("the Resume Auditor app", "resume-auditor audit")."""
    global _program  # noqa: PLW0603 - one name per process, set once at start-up
    _program = name


def _program_name() -> str:
    return _program or f"{Path(sys.argv[0]).name or 'python'} (a Resume Auditor command)"


def lock_path(path: str | Path) -> Path:
    path = Path(path)
    return path.with_name(path.name + LOCK_SUFFIX)


def _key(path: str | Path) -> str:
    return os.path.normcase(os.path.realpath(path))


@dataclass
class _Held:
    fd: int
    lock_file: Path
    count: int


class WriterLock:
    """This process's claim to write one audit file; `release()` (or `with`) ends it."""

    def __init__(self, key: str, path: Path) -> None:
        self._key = key
        self.path = path
        self._released = False

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        _release(self._key)

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def hold(path: str | Path) -> WriterLock:
    """Claim the right to write `path` (it need not exist yet).

    Raises AuditInUse, naming the holder, when another process has it; the same
    process may hold it several times (each `WriterLock` released once).
    """
    path = Path(path)
    key = _key(path)
    with _registry_lock:
        held = _registry.get(key)
        if held is not None:
            held.count += 1
            return WriterLock(key, path)
        fd, lock_file = _acquire(path)
        _registry[key] = _Held(fd, lock_file, 1)
    return WriterLock(key, path)


def holds(path: str | Path) -> bool:
    """Whether this process holds the lock of `path`."""
    with _registry_lock:
        return _key(path) in _registry


def holder(path: str | Path) -> dict[str, Any] | None:
    """Who writes `path` now (another process), or None when nobody does.

    Tests the lock without keeping it; this process's own hold counts as nobody.
    """
    path = Path(path)
    with _registry_lock:
        if _key(path) in _registry:
            return None
        try:
            fd, _ = _acquire(path)
        except AuditInUse as exc:
            return exc.holder
        _let_go(fd, lock_path(path))
        return None


def describe_holder(info: dict[str, Any]) -> str:
    program = str(info.get("program") or "another program")
    bits = []
    if info.get("pid"):
        host = info.get("host")
        bits.append(
            f"process {info['pid']}"
            + (f" on {host}" if host and host != socket.gethostname() else "")
        )
    if info.get("since"):
        bits.append(f"since {info['since']}")
    return program + (f" ({', '.join(bits)})" if bits else "")


def _in_use(path: Path, info: dict[str, Any]) -> AuditInUse:
    return AuditInUse(
        f"{path.name} is being written by {describe_holder(info)}. Only one program may "
        "change an audit at a time: close it there (or wait for that command to finish) "
        "and try again. Read-only commands (metrics, report, cases, variants list) work "
        "while it is open.",
        info,
    )


def _acquire(path: Path) -> tuple[int, Path]:
    lock_file = lock_path(path)
    for _ in range(20):
        try:
            fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError as exc:
            raise ResultFileError(f"There is no folder {path.parent}.") from exc
        except OSError as exc:
            raise ResultFileError(
                f"Cannot write in {path.parent} ({exc.strerror or exc}); an audit needs a "
                "folder it can write to. Copy it somewhere writable, or use a read-only "
                "command."
            ) from exc
        if not _try_lock(fd):
            info = _read_note(fd)
            os.close(fd)
            raise _in_use(path, info)
        if _same_file(fd, lock_file):
            _write_note(fd)
            return fd, lock_file
        # The previous holder deleted the file as it let go; lock the new one.
        os.close(fd)
    raise ResultFileError(f"Could not lock {path.name}: its lock file keeps changing.")


def _release(key: str) -> None:
    with _registry_lock:
        held = _registry.get(key)
        if held is None:
            return
        held.count -= 1
        if held.count > 0:
            return
        del _registry[key]
    _let_go(held.fd, held.lock_file)


def _let_go(fd: int, lock_file: Path) -> None:
    if os.name != "nt":
        # Delete while still holding it: a process that opened the old file finds
        # it gone from the folder once it gets the lock, and starts again.
        with contextlib.suppress(OSError):
            lock_file.unlink()
    else:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
    _unlock(fd)
    os.close(fd)


def _same_file(fd: int, lock_file: Path) -> bool:
    if os.name == "nt":
        return True  # Windows cannot delete an open file: it is always the same one
    try:
        st = os.stat(lock_file)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def _write_note(fd: int) -> None:
    note = {
        "program": _program_name(),
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "since": time.strftime("%Y-%m-%d %H:%M", time.localtime()),
    }
    data = json.dumps(note).encode("utf-8")
    try:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, data)
    except OSError as exc:  # the note is a courtesy; the lock is what matters
        logger.debug("could not write the lock note: %s", exc)


def _read_note(fd: int) -> dict[str, Any]:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, 4096)
        note = json.loads(data.decode("utf-8")) if data else {}
    except (OSError, ValueError):
        return {}
    return note if isinstance(note, dict) else {}


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        os.lseek(fd, _WIN_LOCK_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, _WIN_LOCK_OFFSET, os.SEEK_SET)
        with contextlib.suppress(OSError):
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError as exc:  # a file system without flock: say so, never guess
            raise ResultFileError(
                f"This folder's file system cannot lock files ({exc.strerror or exc}); "
                "keep audits on a local disk."
            ) from exc
        return True

    def _unlock(fd: int) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
