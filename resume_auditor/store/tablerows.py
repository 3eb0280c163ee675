"""An audit file's tables as plain rows, and a new file built from such rows: what
the reproducible bundle (workflow/bundle.py) carries.

A bundle is the result file itself, table by table and row for row with the ids
kept, so an imported bundle gives the same numbers by construction. No part of
`ResultFile` copies whole tables, and none should: this module is the one place
that does, so SQL stays inside the store. What leaves the file, and how each column
is scrubbed, is the bundle's policy, not this module's.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from resume_auditor.store import schema
from resume_auditor.store.errors import ResultFileError


def _tables(db: sqlite3.Connection) -> list[str]:
    return [
        r[0]
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        )
    ]


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]


class TableReader:
    """Every table of one audit file, read as it is stored (a read-only connection;
    give it a consistent copy, e.g. `ResultFile.copy_to`, of an audit being written)."""

    def __init__(self, path: Path) -> None:
        uri = path.resolve().as_uri() + "?mode=ro"
        self._db = sqlite3.connect(uri, uri=True, isolation_level=None)

    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def tables(self) -> list[str]:
        """Every table, by name."""
        return _tables(self._db)

    def columns(self, table: str) -> list[str]:
        return _columns(self._db, table)

    def rows(self, table: str) -> Iterator[tuple[Any, ...]]:
        """The table's rows as stored, values in `columns(table)` order."""
        yield from self._db.execute(f'SELECT * FROM "{table}"')  # noqa: S608 - names from sqlite

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> TableReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TableWriter:
    """A new audit file at schema `version` (an older one is brought up to date when it
    is next opened), filled table by table in one transaction: `with` it, and a failure
    inside leaves nothing half loaded. SQLite's errors come out as ResultFileError."""

    def __init__(self, path: Path, version: int) -> None:
        if not 1 <= version <= schema.SCHEMA_VERSION:
            raise ValueError(f"no schema {version}")
        self._db = sqlite3.connect(path, isolation_level=None)
        try:
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(
                "BEGIN; "
                + "; ".join(schema.MIGRATIONS[:version])
                + f"; PRAGMA user_version = {version}; COMMIT;"
            )
        except sqlite3.Error as exc:
            self._db.close()
            raise ResultFileError(f"Could not create {path} ({exc}).") from exc
        except BaseException:
            self._db.close()
            raise

    def tables(self) -> list[str]:
        return _tables(self._db)

    def columns(self, table: str) -> list[str]:
        return _columns(self._db, table)

    def in_load_order(self, tables: Sequence[str]) -> list[str]:
        """`tables` with the ones they reference first (foreign keys)."""
        parents = {
            t: {r[2] for r in self._db.execute(f'PRAGMA foreign_key_list("{t}")')} - {t}
            for t in tables
        }
        out: list[str] = []
        while len(out) < len(tables):
            ready = [
                t
                for t in tables
                if t not in out and parents[t] <= set(out) | (parents[t] - set(tables))
            ]
            if not ready:  # a cycle: keep the rest in name order
                ready = [t for t in tables if t not in out]
            out.extend(sorted(ready))
        return out

    def insert(self, table: str, keys: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
        """Rows of `table`, each giving the columns `keys` in order. The `meta` rows
        replace the new file's own (its identity rows are already there)."""
        names = ", ".join(f'"{k}"' for k in keys)
        marks = ", ".join("?" * len(keys))
        verb = "INSERT OR REPLACE" if table == "meta" else "INSERT"
        try:
            self._db.executemany(f'{verb} INTO "{table}" ({names}) VALUES ({marks})', rows)
        except sqlite3.Error as exc:
            raise ResultFileError(f"{table}: {exc}") from exc

    def __enter__(self) -> TableWriter:
        self._db.execute("BEGIN")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if exc_type is None:
                try:
                    self._db.execute("COMMIT")
                except sqlite3.Error as error:  # a foreign key broken at commit, a full disk
                    self._db.execute("ROLLBACK")
                    raise ResultFileError(str(error)) from error
            elif self._db.in_transaction:
                self._db.execute("ROLLBACK")
        finally:
            self._db.close()
