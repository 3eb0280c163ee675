"""The response cache: one SQLite file in the data folder, shared by every audit.

An identical request — same provider and server, same model, same settings, same
messages, same sample number — is answered from disk instead of being bought
again. The key includes the sample number (`rep`) so the second of three sampled
repeats is never served the first one's answer. Entries keep what the answer
needs to be read again (text, raw body, log-probabilities, notes) and when it was
first bought, so an answer served from here can say so.

The file may be used by several processes at once (WAL, a busy timeout); a
damaged cache is set aside and started afresh rather than stopping a run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resume_auditor.store.packing import pack, unpack

logger = logging.getLogger(__name__)

CACHE_FILE = "response-cache.sqlite"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS answer (
    key TEXT PRIMARY KEY,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    payload BLOB NOT NULL,
    created REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0
);
"""


@dataclass(frozen=True)
class CachedAnswer:
    """What a stored answer needs to be read again as if it had just arrived."""

    text: str
    raw: dict[str, Any]
    usage: tuple[int, int, int, int] = (0, 0, 0, 0)
    model_version: str = ""
    finish_reason: str = ""
    # [token, logprob, [[alt, logprob], ...]] per output token, or None
    logprobs: list[Any] | None = None
    notes: tuple[str, ...] = ()
    unsupported: tuple[str, ...] = ()
    created: float = field(default=0.0, compare=False)

    def to_payload(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "raw": self.raw,
            "usage": list(self.usage),
            "model_version": self.model_version,
            "finish_reason": self.finish_reason,
            "logprobs": self.logprobs,
            "notes": list(self.notes),
            "unsupported": list(self.unsupported),
        }

    @classmethod
    def from_payload(cls, data: dict[str, Any], created: float) -> CachedAnswer:
        usage = tuple(int(x) for x in data.get("usage", [0, 0, 0, 0]))
        return cls(
            text=str(data.get("text", "")),
            raw=dict(data.get("raw") or {}),
            usage=(usage + (0, 0, 0, 0))[:4],  # type: ignore[arg-type]
            model_version=str(data.get("model_version", "")),
            finish_reason=str(data.get("finish_reason", "")),
            logprobs=data.get("logprobs"),
            notes=tuple(data.get("notes", ())),
            unsupported=tuple(data.get("unsupported", ())),
            created=created,
        )


def request_key(provider: str, base_url: str, body: dict[str, Any], sample: int) -> str:
    """The cache key of a provider-neutral request body (model, messages, settings)."""
    canonical = json.dumps(
        {
            "provider": provider,
            "base_url": base_url.strip().rstrip("/"),
            "body": body,
            "sample": sample,
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Get and put answers by key. Not thread-safe: one per thread (the runner's)."""

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        max_age_days: float | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if path is None:
            from resume_auditor.paths import data_dir

            path = data_dir() / CACHE_FILE
        self.path = Path(path)
        self._max_age_s = None if max_age_days is None else max_age_days * 86400.0
        self._clock = clock
        self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        """Connect; a damaged cache (not a database, malformed) is set aside for a new one.

        Locked, busy or I/O errors are raised instead: the file is likely sound and in
        use by another program (the app and a CLI run share it), and moving it away
        would pull it, without its -wal, from under that program.
        """
        try:
            return self._connect()
        except sqlite3.OperationalError:
            raise
        except sqlite3.DatabaseError as exc:
            broken = self.path.with_name(self.path.name + f".broken-{int(self._clock())}")
            logger.warning("the response cache %s is damaged (%s); set aside", self.path, exc)
            for suffix in ("", "-wal", "-shm"):
                part = Path(str(self.path) + suffix)
                if part.exists():
                    part.replace(Path(str(broken) + suffix))
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10.0, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        return db

    def get(self, key: str) -> CachedAnswer | None:
        try:
            row = self._db.execute(
                "SELECT payload, created FROM answer WHERE key = ?", (key,)
            ).fetchone()
        except sqlite3.Error as exc:  # a cache must never stop a run
            logger.warning("response cache read failed: %s", exc)
            return None
        if row is None:
            return None
        if self._max_age_s is not None and self._clock() - row[1] > self._max_age_s:
            return None
        try:
            answer = CachedAnswer.from_payload(unpack(row[0]), float(row[1]))
        except (ValueError, TypeError) as exc:
            logger.warning("unreadable response cache entry %s: %s", key[:12], exc)
            return None
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("UPDATE answer SET hits = hits + 1 WHERE key = ?", (key,))
        return answer

    def put(self, key: str, provider: str, model: str, answer: CachedAnswer) -> None:
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO answer(key, provider, model, payload, created) "
                "VALUES (?, ?, ?, ?, ?)",
                (key, provider, model, pack(answer.to_payload()), self._clock()),
            )
        except sqlite3.Error as exc:
            logger.warning("response cache write failed: %s", exc)

    def stats(self) -> tuple[int, int]:
        """(entries, hits served so far)."""
        row = self._db.execute("SELECT count(*), coalesce(sum(hits), 0) FROM answer").fetchone()
        return int(row[0]), int(row[1])

    def clear(self) -> None:
        self._db.execute("DELETE FROM answer")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
