"""Acceptance: a full simulated audit with a sentinel key leaves no trace of the key.

The audit runs through the CLI for every remote provider, with the key in the
provider's environment variable, faults on the way (a rate limit, a server error
whose body echoes the key, a malformed answer), verbose logging at DEBUG, and
the metrics export. Then every byte it left behind is searched for the key: the
result file (every column, zlib blobs decompressed, and its -wal/-shm), every
file in the data folder (settings, model capabilities), the logs, and what the
CLI printed.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import sqlite3
import zlib
from pathlib import Path

import pytest

from resume_auditor.cli import main
from resume_auditor.devtools.simulator import Fault, Simulator
from resume_auditor.paths import data_dir
from resume_auditor.providers.registry import provider_info

WIRES = ("openai", "anthropic", "gemini", "openrouter", "azure", "openai-compatible")


def _texts_in_result_file(path: Path) -> list[str]:
    """Every value of every row of every table, blobs decompressed where they are zlib."""
    out: list[str] = []
    db = sqlite3.connect(path)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for row in db.execute(f'SELECT * FROM "{table}"'):  # noqa: S608  names from sqlite
                for value in row:
                    if isinstance(value, bytes):
                        out.append(value.decode("latin-1"))
                        with contextlib.suppress(zlib.error):
                            out.append(zlib.decompress(value).decode("utf-8", errors="replace"))
                    elif value is not None:
                        out.append(str(value))
    finally:
        db.close()
    return out


def _hits(sentinel: str, texts: list[str]) -> list[str]:
    return [t[:200] for t in texts if sentinel in t]


@pytest.mark.parametrize("pid", WIRES)
def test_a_full_audit_leaves_no_trace_of_the_key(
    pid: str,
    small_study: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sentinel = f"sk-SENTINEL{secrets.token_hex(16)}"
    monkeypatch.setenv(provider_info(pid).env_var, sentinel)
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "leak.audit"
    echo = f'{{"error": {{"message": "upstream saw key {sentinel}", "type": "server_error"}}}}'
    with Simulator(api_key=sentinel) as sim:
        sim.inject(
            Fault(kind="rate_limit", retry_after_s=0.05),
            Fault(503, echo, {"retry-after": "0"}),
            Fault(kind="malformed"),
        )
        code = main(
            [
                "-v",
                "audit",
                str(small_study),
                "--out",
                str(out),
                "--provider",
                pid,
                "--base-url",
                sim.url_for(pid),
                "--model",
                "sim-model",
            ]
        )
        assert code == 0, capsys.readouterr().err
        assert sim.answered == 10  # the key was really used: the simulator checks it
        assert sim.received == 13  # including the error whose body echoed the key
    assert main(["metrics", str(out), "--json"]) == 0
    printed = capsys.readouterr()

    texts = _texts_in_result_file(out)
    assert len(texts) > 50  # the file really was read
    for suffix in ("", "-wal", "-shm", ".partial"):
        sidecar = Path(str(out) + suffix)
        if sidecar.exists():
            texts.append(sidecar.read_bytes().decode("latin-1"))
    for path in data_dir().rglob("*"):
        if path.is_file():
            texts.append(path.read_bytes().decode("latin-1"))
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".toml", ".log", ".txt", ".csv", ".html"):
            texts.append(path.read_bytes().decode("latin-1"))
    texts.append(caplog.text)
    texts.extend(r.getMessage() for r in caplog.records)
    texts.extend([printed.out, printed.err])

    assert _hits(sentinel, texts) == []
