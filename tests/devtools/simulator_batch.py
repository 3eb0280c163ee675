"""The provider simulator's batch APIs: OpenAI Batch (files + batches) and Anthropic
Message Batches, with the shapes the real services use (provider-apis.md).

A batch is answered `batch_delay_s` after it was created, on the first look after
that (a status poll or a results download), line by line with the simulator's
policy; each line is paid once, when it is answered. `batch_error_every` makes
every n-th line fail; `batch_expire` lets batches expire unanswered, as a batch
left longer than its completion window does.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from devtools.simulator import _Handler


@dataclass
class SimBatch:
    id: str
    vendor: str  # openai | anthropic
    lines: list[dict[str, Any]]  # OpenAI: {"custom_id", "body"}; Anthropic: {"custom_id", "params"}
    created: float
    metadata: dict[str, Any] = field(default_factory=dict)
    input_file_id: str = ""
    status: str = "in_progress"
    results: list[dict[str, Any]] = field(default_factory=list)
    output_file_id: str | None = None
    error_file_id: str | None = None
    cancelled: bool = False


class BatchStore:
    """Uploaded files and batches; thread-safe."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, SimBatch] = {}
        self.created = 0  # batches created
        self.lines_answered = 0
        self._next = 0

    def new_id(self, prefix: str) -> str:
        with self.lock:
            self._next += 1
            return f"{prefix}{self._next:06d}"


_OPENAI_BATCH = re.compile(r"/v1/batches(?:/([^/]+))?(/cancel)?$")
_OPENAI_FILE = re.compile(r"/v1/files(?:/([^/]+))?(/content)?$")
_ANTHROPIC_BATCH = re.compile(r"/v1/messages/batches(?:/([^/]+))?(/results|/cancel)?$")


def route(path: str) -> tuple[str, str, str | None, str] | None:
    """(vendor, what, id, action) for a batch or file path, else None."""
    m = _ANTHROPIC_BATCH.search(path)
    if m:
        return "anthropic", "batch", m.group(1), (m.group(2) or "").strip("/")
    m = _OPENAI_BATCH.search(path)
    if m:
        return "openai", "batch", m.group(1), (m.group(2) or "").strip("/")
    m = _OPENAI_FILE.search(path)
    if m:
        return "openai", "file", m.group(1), (m.group(2) or "").strip("/")
    return None


def _multipart(handler: _Handler, raw: bytes) -> dict[str, tuple[str, bytes]]:
    """name -> (filename, content) of a multipart/form-data body."""
    ctype = handler.headers.get("Content-Type", "")
    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {ctype}\r\n\r\n".encode() + raw)
    out: dict[str, tuple[str, bytes]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            payload = part.get_payload(decode=True)
            out[str(name)] = (
                part.get_filename() or "",
                payload if isinstance(payload, bytes) else b"",
            )
    return out


def handle(handler: _Handler, method: str, raw: bytes) -> None:
    """Answer one batch or file request."""
    sim = handler.server.sim
    found = route(handler.path.split("?")[0].rstrip("/"))
    assert found is not None
    vendor, what, ident, action = found
    if not handler._auth_ok(vendor):  # noqa: SLF001 - the same simulator
        handler._send(*handler._auth_error(vendor))  # noqa: SLF001
        return
    store = sim.batch_store
    if what == "file":
        _files(handler, method, raw, ident, action)
        return
    if method == "POST" and ident is None:
        _create(handler, vendor, raw)
        return
    if method == "GET" and ident is None:
        with store.lock:
            items = [b for b in store.batches.values() if b.vendor == vendor]
        for batch in items:
            _settle(handler, batch)
        data = [_describe(b, sim.root_url) for b in items][::-1]
        body = {"object": "list", "data": data, "has_more": False}
        if vendor == "anthropic":
            body = {"data": data, "has_more": False}
        handler._send(200, json.dumps(body).encode())  # noqa: SLF001
        return
    with store.lock:
        found_batch = store.batches.get(ident or "")
    if found_batch is None or found_batch.vendor != vendor:
        _not_found(handler, vendor, f"no batch {ident}")
        return
    batch = found_batch
    if action == "cancel" and method == "POST":
        with store.lock:
            if batch.status in ("in_progress", "validating"):
                batch.cancelled = True
        _settle(handler, batch)
        handler._send(200, json.dumps(_describe(batch, sim.root_url)).encode())  # noqa: SLF001
        return
    _settle(handler, batch)
    if action == "results":
        if batch.status != "ended":
            _not_found(handler, vendor, "results are not ready")
            return
        lines = "\n".join(json.dumps(r) for r in batch.results) + "\n"
        handler._send(200, lines.encode(), {"Content-Type": "application/x-jsonl"})  # noqa: SLF001
        return
    handler._send(200, json.dumps(_describe(batch, sim.root_url)).encode())  # noqa: SLF001


def _not_found(handler: _Handler, vendor: str, message: str) -> None:
    from devtools.simulator import error_body

    handler._send(404, error_body(vendor, 404, message))  # noqa: SLF001


def _files(handler: _Handler, method: str, raw: bytes, ident: str | None, action: str) -> None:
    store = handler.server.sim.batch_store
    if method == "POST" and ident is None:
        parts = _multipart(handler, raw)
        if "file" not in parts or parts.get("purpose", ("", b""))[1].decode() != "batch":
            from devtools.simulator import error_body

            handler._send(400, error_body("openai", 400, "expected purpose=batch and a file"))  # noqa: SLF001
            return
        file_id = store.new_id("file-")
        with store.lock:
            store.files[file_id] = parts["file"][1]
        body = {
            "id": file_id,
            "object": "file",
            "bytes": len(parts["file"][1]),
            "created_at": int(time.time()),
            "filename": parts["file"][0],
            "purpose": "batch",
        }
        handler._send(200, json.dumps(body).encode())  # noqa: SLF001
        return
    with store.lock:
        content = store.files.get(ident or "")
    if content is None:
        _not_found(handler, "openai", f"no file {ident}")
        return
    if action == "content":
        handler._send(200, content, {"Content-Type": "application/jsonl"})  # noqa: SLF001
    else:
        body = {"id": ident, "object": "file", "bytes": len(content), "purpose": "batch"}
        handler._send(200, json.dumps(body).encode())  # noqa: SLF001


def _create(handler: _Handler, vendor: str, raw: bytes) -> None:
    from devtools.simulator import error_body

    sim = handler.server.sim
    store = sim.batch_store
    try:
        body = json.loads(raw)
    except ValueError:
        handler._send(400, error_body(vendor, 400, "body is not JSON"))  # noqa: SLF001
        return
    if vendor == "anthropic":
        lines = list(body.get("requests") or [])
        meta: dict[str, Any] = {}
        file_id = ""
    else:
        file_id = str(body.get("input_file_id", ""))
        with store.lock:
            content = store.files.get(file_id)
        if content is None:
            handler._send(400, error_body(vendor, 400, f"no input file {file_id}"))  # noqa: SLF001
            return
        lines = [json.loads(x) for x in content.decode().splitlines() if x.strip()]
        meta = dict(body.get("metadata") or {})
    ids = [str(x.get("custom_id", "")) for x in lines]
    if not lines or len(set(ids)) != len(ids) or not all(ids):
        msg = "every request needs a unique custom_id"
        handler._send(400, error_body(vendor, 400, msg))  # noqa: SLF001
        return
    batch = SimBatch(
        id=store.new_id("msgbatch_" if vendor == "anthropic" else "batch_"),
        vendor=vendor,
        lines=lines,
        created=sim.clock(),
        metadata=meta,
        input_file_id=file_id,
    )
    with store.lock:
        store.batches[batch.id] = batch
        store.created += 1
    handler._send(200, json.dumps(_describe(batch, sim.root_url)).encode())  # noqa: SLF001


def _settle(handler: _Handler, batch: SimBatch) -> None:
    """Answer a batch whose time has come (once)."""
    from devtools.simulator import neutral_body

    sim = handler.server.sim
    store = sim.batch_store
    with store.lock:
        if batch.status not in ("in_progress", "validating"):
            return
        due = sim.clock() - batch.created >= sim.batch_delay_s
        if not (due or batch.cancelled):
            return
        batch.status = "processing"  # claimed: nobody else answers it
    results = []
    for i, line in enumerate(batch.lines):
        custom_id = str(line["custom_id"])
        if batch.cancelled or sim.batch_expire:
            results.append(_unanswered(batch.vendor, custom_id, batch.cancelled))
            continue
        wire = line.get("params") if batch.vendor == "anthropic" else line.get("body")
        request = neutral_body(batch.vendor, dict(wire or {}))
        if sim.batch_error_every and (i + 1) % sim.batch_error_every == 0:
            results.append(_errored(batch.vendor, custom_id))
            continue
        text = sim.policy(request)
        answer = json.loads(handler._answer(batch.vendor, request, text))  # noqa: SLF001
        sim.count_paid(request)
        with store.lock:
            store.lines_answered += 1
        if batch.vendor == "anthropic":
            results.append(
                {"custom_id": custom_id, "result": {"type": "succeeded", "message": answer}}
            )
        else:
            results.append(
                {
                    "id": f"batch_req_{i}",
                    "custom_id": custom_id,
                    "response": {"status_code": 200, "request_id": f"req_{i}", "body": answer},
                    "error": None,
                }
            )
    with store.lock:
        batch.results = results
        if batch.vendor == "anthropic":
            batch.status = "ended"
            return
        ok = [r for r in results if (r.get("response") or {}).get("status_code") == 200]
        bad = [r for r in results if r not in ok]
        if ok:
            batch.output_file_id = store.new_id("file-")
            store.files[batch.output_file_id] = "".join(json.dumps(r) + "\n" for r in ok).encode()
        if bad:
            batch.error_file_id = store.new_id("file-")
            store.files[batch.error_file_id] = "".join(json.dumps(r) + "\n" for r in bad).encode()
        batch.status = (
            "cancelled" if batch.cancelled else "expired" if sim.batch_expire else "completed"
        )


def _unanswered(vendor: str, custom_id: str, cancelled: bool) -> dict[str, Any]:
    if vendor == "anthropic":
        return {"custom_id": custom_id, "result": {"type": "canceled" if cancelled else "expired"}}
    code = "batch_cancelled" if cancelled else "batch_expired"
    message = (
        "This request was cancelled."
        if cancelled
        else "This request could not be executed before the completion window expired."
    )
    return {
        "id": f"batch_req_{custom_id}",
        "custom_id": custom_id,
        "response": None,
        "error": {"code": code, "message": message},
    }


def _errored(vendor: str, custom_id: str) -> dict[str, Any]:
    if vendor == "anthropic":
        return {
            "custom_id": custom_id,
            "result": {
                "type": "errored",
                "error": {
                    "type": "error",
                    "error": {"type": "api_error", "message": "Internal server error"},
                },
            },
        }
    return {
        "id": f"batch_req_{custom_id}",
        "custom_id": custom_id,
        "response": {
            "status_code": 500,
            "request_id": "req_err",
            "body": {"error": {"message": "The server had an error.", "type": "server_error"}},
        },
        "error": None,
    }


def _describe(batch: SimBatch, root: str = "") -> dict[str, Any]:
    if batch.vendor == "anthropic":
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if batch.status == "ended":
            for r in batch.results:
                kind = r["result"]["type"]
                counts[kind if kind != "succeeded" else "succeeded"] += 1
        else:
            counts["processing"] = len(batch.lines)
        ended = batch.status == "ended"
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended"
            if ended
            else ("canceling" if batch.cancelled else "in_progress"),
            "request_counts": counts,
            "ended_at": "2026-11-22T12:00:00Z" if ended else None,
            "created_at": "2026-11-22T11:00:00Z",
            "expires_at": "2026-11-23T11:00:00Z",
            "cancel_initiated_at": None,
            "results_url": f"{root}/v1/messages/batches/{batch.id}/results" if ended else None,
        }
    done = batch.status in ("completed", "expired", "cancelled")
    failed = sum(
        1
        for r in batch.results
        if r.get("response", {}) is None or (r.get("response") or {}).get("status_code") != 200
    )
    return {
        "id": batch.id,
        "object": "batch",
        "endpoint": "/v1/chat/completions",
        "input_file_id": batch.input_file_id,
        "completion_window": "24h",
        "status": batch.status if batch.status != "processing" else "in_progress",
        "output_file_id": batch.output_file_id,
        "error_file_id": batch.error_file_id,
        "created_at": int(batch.created),
        "request_counts": {
            "total": len(batch.lines),
            "completed": len(batch.results) - failed if done else 0,
            "failed": failed if done else 0,
        },
        "metadata": batch.metadata,
    }
