"""What the store raises: messages a user can act on, never a stack trace."""

from __future__ import annotations

import sqlite3
from typing import Any

# What SQLite itself raises when a file cannot be read or written, and its version: for
# code outside the store (the app's error dialog) that must recognise or name it
# without talking to SQLite itself.
StoreDatabaseError = sqlite3.DatabaseError
SQLITE_VERSION = sqlite3.sqlite_version


class ResultFileError(Exception):
    """A result file we cannot open or use; the message says why."""


class AuditInUse(ResultFileError):
    """Another program is writing this audit file; the message names it.

    `holder` is what the lock file says about it (program, pid, host, since).
    """

    def __init__(self, message: str, holder: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.holder = dict(holder or {})


class AuditDamaged(ResultFileError):
    """The file is not a readable result file any more (a damaged SQLite file).

    `path` is the damaged file; `backup` the last good copy kept beside it, when
    there is one (store/backup.py).
    """

    def __init__(self, message: str, path: str, backup: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.backup = backup
