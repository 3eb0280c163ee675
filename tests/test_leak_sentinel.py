"""Acceptance: a full simulated audit with a sentinel key leaves no trace of the key.

Also: a key typed into the server address (`https://user:KEY@host/v1?api-key=KEY`,
after `#`, or as a segment of its path, which is refused), and a server that echoes
the key encoded (base64, base64url, JSON-escaped, URL-encoded once or twice, wrapped
over lines, hex, upper-cased, or only its tail) in errors and in answers. There every output
is searched, decoded every way the key could have been encoded: stderr and stdout,
the .audit file's bytes and rows, the HTML report, the XLSX, the CSV files and the
bundle (its zip members, and the audit file inside it).

The audit runs through the CLI for every remote provider, with the key in the
provider's environment variable, faults on the way (a rate limit, a server error
whose body echoes the key, a malformed answer), verbose logging at DEBUG, and
the metrics export. Then every byte it left behind is searched for the key: the
result file (every column, zlib blobs decompressed, and its -wal/-shm), every
file in the data folder (settings, model capabilities), the logs, and what the
CLI printed.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import io
import itertools
import logging
import re
import secrets
import sqlite3
import zipfile
import zlib
from pathlib import Path
from urllib.parse import unquote

import pytest
from devtools.simulator import ECHO_ENCODINGS, Fault, Simulator

from resume_auditor.cli import main
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


# -- keys in addresses, and keys echoed in encodings ----------------------------------------

_B64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{16,}={0,2}")
_HEX_RUN = re.compile(r"(?:[0-9a-fA-F]{2}){12,}")


def _decodings(text: str) -> list[str]:
    """`text` as it is, and decoded every way a key may have been encoded in it."""
    joined = re.sub(r"\s+|\\[nrt]", "", text)
    unescaped = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), joined)
    unescaped = re.sub(r"\\+(/)", r"\1", unescaped)
    twice = unquote(unquote(joined))
    out = [text, joined, unescaped, unquote(joined), twice, unquote(unquote(unescaped))]
    for run in _B64_RUN.findall(text) + _B64_RUN.findall(joined):
        for alphabet, skip in itertools.product((b"+/", b"-_"), range(4)):
            with contextlib.suppress(binascii.Error, ValueError):
                part = run[skip:].rstrip("=")
                part = part[: len(part) - len(part) % 4] if len(part) % 4 == 1 else part
                padded = part + "=" * (-len(part) % 4)
                out.append(base64.b64decode(padded, altchars=alphabet).decode("latin-1"))
    for run in _HEX_RUN.findall(joined):
        with contextlib.suppress(ValueError):
            out.append(bytes.fromhex(run).decode("latin-1"))
    return out


def _leaks(sentinel: str, texts: list[str]) -> list[str]:
    """The texts in which the sentinel appears, in any encoding and either case, whole
    or any PARTIAL_MIN characters of it (the shortest piece the redactor promises)."""
    from resume_auditor.providers.redact import PARTIAL_MIN

    core = sentinel.removeprefix("sk-").lower()  # without "sk-": encodings change its dash
    pieces = {core[i : i + PARTIAL_MIN] for i in range(len(core) - PARTIAL_MIN + 1)}
    leaked = []
    for t in texts:
        decoded = [d.lower() for d in _decodings(t)]
        if any(p in d for d in decoded for p in pieces):
            leaked.append(t[:200])
    return leaked


def _zip_texts(data: bytes) -> list[str]:
    out = []
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for name in archive.namelist():
            member = archive.read(name)
            out.append(member.decode("latin-1"))
            if zipfile.is_zipfile(io.BytesIO(member)):
                out.extend(_zip_texts(member))
    return out


def _everything(out: Path, reports: Path, printed: tuple[str, str], caplog_text: str) -> list[str]:
    """Every text the audit and its report left: files (decompressed), logs, output."""
    texts = _texts_in_result_file(out)
    assert len(texts) > 50
    for suffix in ("", "-wal", "-shm", ".partial"):
        sidecar = Path(str(out) + suffix)
        if sidecar.exists():
            texts.append(sidecar.read_bytes().decode("latin-1"))
    written = [p for p in reports.rglob("*") if p.is_file()]
    kinds = {p.suffix for p in written}
    assert {".html", ".xlsx", ".csv", ".zip"} <= kinds, kinds
    for path in written:
        data = path.read_bytes()
        texts.append(data.decode("latin-1"))
        if zipfile.is_zipfile(path):  # XLSX and the bundle
            texts.extend(_zip_texts(data))
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    if name.endswith(".audit"):
                        inner = reports / "inner.audit"
                        inner.write_bytes(archive.read(name))
                        texts.extend(_texts_in_result_file(inner))
                        inner.unlink()
    for path in data_dir().rglob("*"):
        if path.is_file():
            texts.append(path.read_bytes().decode("latin-1"))
    texts.extend([*printed, caplog_text])
    return texts


def _report(out: Path, reports: Path) -> None:
    reports.mkdir()
    code = main(
        [
            "report",
            str(out),
            "--html",
            str(reports / "r.html"),
            "--xlsx",
            str(reports / "r.xlsx"),
            "--csv",
            str(reports / "csv"),
            "--bundle",
            str(reports / "b.zip"),
        ]
    )
    assert code == 0


def _with_credentials(url: str, key: str, how: str = "userinfo") -> str:
    scheme, rest = url.split("://", 1)
    if how == "fragment":
        return f"{url}#{key}"
    if how == "fragment_param":
        return f"{url}#api_key={key}"
    if how == "query_value":
        return f"{url}?x={key}"
    return f"{scheme}://user:{key}@{rest}?api-key={key}"


@pytest.mark.parametrize(
    ("pid", "where", "how"),
    [
        ("openai-compatible", "study", "userinfo"),
        ("azure", "cli", "userinfo"),
        ("openai", "study", "userinfo"),
        ("anthropic", "cli", "userinfo"),
        ("openai-compatible", "cli", "fragment"),
        ("openrouter", "study", "fragment_param"),
        ("gemini", "cli", "query_value"),
        ("azure", "cli", "query_value_hex"),
        ("openai-compatible", "study", "fragment_hex"),
    ],
)
def test_a_key_in_the_base_url_is_used_but_never_stored_or_printed(
    pid: str,
    where: str,
    how: str,
    small_study: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from resume_auditor.providers import keys as keys_module

    # Azure's shape: 32 hexadecimal digits, no prefix
    sentinel = (
        secrets.token_hex(16) if how.endswith("_hex") else f"sk-SENTINEL{secrets.token_hex(16)}"
    )
    how = how.removesuffix("_hex")
    monkeypatch.delenv(provider_info(pid).env_var, raising=False)
    # a session of its own: the key taken from the address must not outlive the test
    monkeypatch.setattr(keys_module, "_default", keys_module.KeyStore(environ={}))
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "url.audit"
    with Simulator(api_key=sentinel) as sim:
        url = _with_credentials(sim.url_for(pid), sentinel, how)
        args = ["-v", "audit", str(small_study), "--out", str(out), "--model", "sim-model"]
        if where == "study":
            text = small_study.read_text().replace(
                'provider = "local"', f'provider = "{pid}"\nbase_url = "{url}"'
            )
            small_study.write_text(text)
        else:
            args += ["--provider", pid, "--base-url", url]
        code = main(args)
        assert code == 0, capsys.readouterr().err
        assert sim.answered == 10  # the key taken from the address was really used
    _report(out, tmp_path / "reports")
    printed = capsys.readouterr()
    assert "held a key: it was taken out of the address" in printed.err
    texts = _everything(out, tmp_path / "reports", (printed.out, printed.err), caplog.text)
    assert _leaks(sentinel, texts) == []
    assert not any("user:" in t and "@127.0.0.1" in t for t in texts)


@pytest.mark.parametrize(
    ("where", "shape"), [("cli", "sk"), ("study", "sk"), ("cli", "hex"), ("study", "hex")]
)
def test_a_key_in_the_path_of_the_base_url_is_refused_before_anything_is_written(
    where: str,
    shape: str,
    small_study: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`http://host/sk-.../v1`: the server reads the key from the path, so it cannot be
    moved to a header; the address is refused, naming the setting, and nothing is kept.
    `hex` is Azure's key shape: 32 hexadecimal digits with no prefix."""
    sentinel = secrets.token_hex(16) if shape == "hex" else f"sk-SENTINEL{secrets.token_hex(16)}"
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "path.audit"
    url = f"http://127.0.0.1:9/{sentinel}/v1"
    args = ["-v", "audit", str(small_study), "--out", str(out), "--model", "m"]
    if where == "study":
        text = small_study.read_text().replace(
            'provider = "local"', f'provider = "openai-compatible"\nbase_url = "{url}"'
        )
        small_study.write_text(text)
    else:
        args += ["--provider", "openai-compatible", "--base-url", url]
    assert main(args) == 2
    printed = capsys.readouterr()
    assert "looks like a key in its path" in printed.err
    assert ("--base-url" if where == "cli" else "model.base_url") in printed.err
    assert not out.exists()
    texts = [printed.out, printed.err, caplog.text]
    texts += [p.read_bytes().decode("latin-1") for p in data_dir().rglob("*") if p.is_file()]
    assert _leaks(sentinel, texts) == []


@pytest.mark.parametrize(
    "url",
    [
        "htp:/127.0.0.1",
        "127.0.0.1:8080/v1",
        "http:///v1",
        "ftp://127.0.0.1/v1",
    ],
)
def test_an_address_that_cannot_work_is_an_error_before_anything_is_queued(
    url: str, small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bad.audit"
    code = main(
        ["audit", str(small_study), "--out", str(out)]
        + ["--provider", "openai-compatible", "--base-url", url, "--model", "m"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "--base-url" in err and "cannot be used" in err
    assert not out.exists()


def test_a_base_url_with_two_different_credentials_is_refused(
    small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = "http://user:one-secret@127.0.0.1:9/v1?api-key=another-secret"
    code = main(
        ["audit", str(small_study), "--out", str(tmp_path / "x.audit")]
        + ["--provider", "openai-compatible", "--base-url", url]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "more than one credential" in err
    assert "one-secret" not in err and "another-secret" not in err
    assert not (tmp_path / "x.audit").exists()


@pytest.mark.parametrize(
    ("encoding", "pid"), list(zip(ECHO_ENCODINGS, itertools.cycle(WIRES), strict=False))
)
def test_a_key_echoed_in_any_encoding_leaves_no_trace(
    encoding: str,
    pid: str,
    small_study: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from devtools.simulator import echo_key

    sentinel = f"sk-SENTINEL_{secrets.token_hex(16)}"
    monkeypatch.setenv(provider_info(pid).env_var, sentinel)
    caplog.set_level(logging.DEBUG)
    out = tmp_path / "echo.audit"
    shown = echo_key(sentinel, encoding)
    retried = f'{{"error": {{"message": "upstream saw {shown}", "type": "server_error"}}}}'
    fatal = f'{{"error": {{"message": "bad request from {shown}", "type": "invalid"}}}}'
    with Simulator(api_key=sentinel) as sim:
        sim.inject(
            Fault(503, retried, {"retry-after": "0"}),
            Fault(kind="echo", body=encoding),
            Fault(kind="echo", body=encoding),
            Fault(400, fatal),  # not retried: stored as the request's error
        )
        code = main(
            ["-v", "audit", str(small_study), "--out", str(out)]
            + ["--provider", pid, "--base-url", sim.url_for(pid), "--model", "sim-model"]
        )
        assert code == 1, capsys.readouterr().err  # the 400 left one request failed
        assert sim.answered == 9
    _report(out, tmp_path / "reports")
    printed = capsys.readouterr()
    texts = _everything(out, tmp_path / "reports", (printed.out, printed.err), caplog.text)
    assert any("[redacted]" in t for t in texts)  # the echoes were there, and masked
    assert _leaks(sentinel, texts) == []


def test_a_provider_is_never_made_with_credentials_in_its_address() -> None:
    from resume_auditor.providers.base import ProviderError
    from resume_auditor.providers.registry import make_provider

    sentinel = f"sk-SENTINEL{secrets.token_hex(8)}"
    for url in (f"http://u:{sentinel}@h/v1", f"http://h/v1?token={sentinel}"):
        with pytest.raises(ProviderError) as caught:
            make_provider("openai-compatible", base_url=url)
        assert sentinel not in caught.value.message and "http://h/v1" in caught.value.message
