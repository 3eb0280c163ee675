"""Write a file so that it is either complete or not there at all.

Every export is written under a temporary name in the target folder and renamed
into place when complete: a full disk, a crash or a bad input never leaves a
half-written report that looks like a real one.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomic(path: str | Path, write: Callable[[BinaryIO], None]) -> Path:
    """Call `write(file)` on a temporary file next to `path`, then rename it to `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # open(..., "xb") rather than mkstemp: the file gets the user's usual permissions.
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.partial")
    try:
        with open(tmp, "xb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    def write(fh: BinaryIO) -> None:
        fh.write(data)

    return write_atomic(path, write)
