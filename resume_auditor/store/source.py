"""Where a worker thread reads an audit from: its file, or a copy of one held in memory.

A SQLite connection belongs to the thread that opened it, so code that reads an audit
in the background (the Results page: metrics, pair rows, the answers behind a number)
cannot be handed the UI thread's `ResultFile`. It is handed a source instead: on the
thread that asks, `opener()` captures what the worker needs (a path, or the bytes of
an audit held in memory); on the worker, calling what it returned opens that
thread's own `ResultFile`. The app reads its audit file (`FileSource`, one connection
per worker as before); tests and previews read an audit held in memory
(`MemorySource`): each worker gets its own copy of it as it was when asked, and no
connection is ever shared between threads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from resume_auditor.store.resultfile import ResultFile

logger = logging.getLogger(__name__)

Opener = Callable[[], ResultFile]


class AuditSource(Protocol):
    """An audit a worker can open on its own thread."""

    @property
    def path(self) -> Path:
        """Where the audit is (`:memory:` for one held in memory): for keys and messages."""
        ...

    def opener(self, *, readonly: bool = False) -> Opener:
        """Call on the asking thread; call what it returns on the worker (and close it)."""
        ...


@dataclass(frozen=True)
class FileSource:
    """The audit file: each worker opens its own connection to it."""

    path: Path

    def opener(self, *, readonly: bool = False) -> Opener:
        path = self.path
        return lambda: ResultFile(path, readonly=readonly)


class MemorySource:
    """An audit held in memory (`ResultFile.in_memory`), owned by the thread that made it.

    `opener()` serializes it on that thread; the worker builds its own in-memory copy
    from those bytes, so a write the owner makes later is seen by the next opener and
    never by a worker already reading. `readonly` changes nothing: a copy's writes
    are its own and are dropped as it closes.
    """

    def __init__(self, result: ResultFile) -> None:
        self.result = result

    @property
    def path(self) -> Path:
        return self.result.path

    def opener(self, *, readonly: bool = False) -> Opener:
        data = self.result.snapshot()
        return lambda: ResultFile.from_snapshot(data)


__all__ = ["AuditSource", "FileSource", "MemorySource", "Opener"]
