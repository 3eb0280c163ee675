"""How bodies are stored: compact JSON (zlib), and the time stamps every row carries."""

from __future__ import annotations

import json
import zlib
from datetime import UTC, datetime
from typing import Any


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def pack(obj: Any) -> bytes:
    """Compact storage for request bodies and raw responses (JSON, zlib)."""
    return zlib.compress(json.dumps(obj, ensure_ascii=False, sort_keys=True).encode("utf-8"), 6)


def unpack(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob).decode("utf-8"))
