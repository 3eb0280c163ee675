"""The one writer of the per-user settings files: locked, atomic, and never lossy.

Every settings file in the data folder is written here and nowhere else, because
the app and a CLI command may run at once on the same computer and each writes
what it learnt (a rate limit, a model's refusals, an answer speed). Three rules:

- A write happens under an operating-system lock on `NAME.lock` beside the file
  (`filelock`: `flock` on POSIX, `msvcrt.locking` on Windows, released by the OS
  when the holder dies), and re-reads the file inside the lock before changing it,
  so a second program's entries are merged, not overwritten.
- A write goes to a temporary file in the same folder, flushed to disk, then
  renamed over the old one (`os.replace`): a crash or a full disk leaves the old
  file or the new one, never half of one, and a reader never needs the lock.
- A file that cannot be read (damaged, or hand-edited into something invalid) is
  never silently dropped: it is renamed `NAME.damaged` (numbered if one is already
  there), the defaults are used, and the user is told (a warning in the log and a
  notice the app and the CLI show: `take_notices`).

Every write, rename or removal of a settings file happens in this module
(`write_atomic`, `set_aside`, `keep_as`); the other modules of the package say
what to write.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

logger = logging.getLogger(__name__)

LOCK_SUFFIX = ".lock"
DAMAGED_SUFFIX = ".damaged"
# Writers hold the lock for one small read-modify-write (milliseconds); ten seconds
# means the other program is stuck, and a setting not saved is better than a hang.
LOCK_TIMEOUT_S = 10.0


class SettingsBusy(OSError):
    """Another program held a settings file's lock for longer than LOCK_TIMEOUT_S."""


_locks: dict[str, FileLock] = {}
_locks_guard = threading.Lock()
_notices: list[str] = []
_notices_guard = threading.Lock()


def tell_user(message: str) -> None:
    """Log `message` and keep it for the app or the CLI to show (take_notices)."""
    logger.warning("%s", message)
    with _notices_guard:
        if message not in _notices:
            _notices.append(message)


def take_notices() -> list[str]:
    """What the settings had to tell the user since the last call (then forgotten)."""
    with _notices_guard:
        out = list(_notices)
        _notices.clear()
    return out


def _lock_for(path: Path) -> FileLock:
    # One FileLock object per file: it is re-entrant per thread (counted), and each
    # thread gets its own descriptor, so threads exclude each other as processes do.
    key = os.path.normcase(os.path.abspath(path))
    with _locks_guard:
        lock = _locks.get(key)
        if lock is None:
            lock = _locks[key] = FileLock(key + LOCK_SUFFIX, timeout=LOCK_TIMEOUT_S)
        return lock


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the write lock of the settings file `path` (blocking up to LOCK_TIMEOUT_S)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = _lock_for(path)
    try:
        lock.acquire()
    except Timeout as exc:
        raise SettingsBusy(
            f"another Resume Auditor program kept {path.name} locked for {LOCK_TIMEOUT_S:g} s"
        ) from exc
    try:
        yield
    finally:
        lock.release()


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` (UTF-8) so that it is either the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.partial")
    try:
        with open(tmp, "x", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def keep_as(path: Path, suffix: str) -> Path | None:
    """Rename `path` to NAME + suffix (replacing an older copy of that name); None if absent.

    Call under the lock that serialises the change (`locked`). For a file the user
    replaced on purpose (thresholds back to the shipped ones) or one migrated into a
    new file (settings.ini).
    """
    kept = path.with_name(path.name + suffix)
    try:
        os.replace(path, kept)
    except FileNotFoundError:
        return None
    return kept


def set_aside(path: Path, problem: str, what: str) -> Path | None:
    """Rename a damaged `path` to NAME.damaged (or .damaged.1, ...) and tell the user.

    Call under `locked(path)`. Returns where the file went, or None if it could not
    be moved (then it is left in place and nothing will be written over it).
    """
    target = path.with_name(path.name + DAMAGED_SUFFIX)
    n = 0
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}{DAMAGED_SUFFIX}.{n}")
    try:
        os.replace(path, target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        tell_user(
            f"Your settings file {path} ({what}) cannot be read ({problem}) nor moved aside "
            f"({exc.strerror or exc}); the defaults are used and the file is left untouched."
        )
        return None
    tell_user(
        f"Your settings file {path.name} ({what}) could not be read: {problem}. It was kept "
        f"as {target} and the defaults are used from now on; fix that copy and put it back "
        "under its old name to use it again."
    )
    return target
