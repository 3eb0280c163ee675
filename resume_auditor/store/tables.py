"""What every part of the result file works on: its one SQLite connection.

The result file is split by concern (docs/result-file.md, "Parts"): the audit's
settings (study.py), its resumes (resumes.py), variants and test cases (cases.py),
runs and their progress (runs.py), requests and answers (requests.py) and
qualification texts (qualtexts.py), each a class of its own over the same
connection, and the schema with its migrations (schema.py). `ResultFile` alone
opens, locks and closes the file and is every part at once; code that needs only
one part names that part's Protocol (store/parts.py), so it can be given an audit
held in memory, or a stand-in, instead.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path


class Tables:
    """The shared connection, the file's name (for messages) and all-or-nothing writes;
    `ResultFile` provides them."""

    _db: sqlite3.Connection
    path: Path

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        raise NotImplementedError
