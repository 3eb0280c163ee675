"""A provider simulator: a real HTTP server on loopback that answers like a model API.

One server speaks three wire formats, chosen by the request path:

    POST /v1/chat/completions                    OpenAI (and any OpenAI-compatible server)
    POST /api/v1/chat/completions                OpenRouter (OpenAI shape, its own errors)
    POST /openai/v1/chat/completions             Azure OpenAI (v1 API; `api-key` header)
    POST /openai/deployments/{d}/chat/completions Azure OpenAI (dated API)
    POST /v1/messages                            Anthropic Messages
    POST /v1beta/models/{m}:generateContent      Google Gemini
    POST /v1beta/models/{m}:streamGenerateContent?alt=sse   Gemini, streamed
    GET  .../models                              the model list, in each vendor's shape

with scripted answers (a `policy` sees every request in one neutral shape: model,
messages, max_tokens) and injectable faults, each rendered the way that vendor
renders it: rate limits with the vendor's retry hint, out-of-quota, overload
(529 for Anthropic, 503 otherwise), unknown model, context too long, refusals,
content filters, slow answers, hangs, malformed or truncated bodies and dropped
connections. A request that asks to stream (`"stream": true`, Gemini's
streamGenerateContent) is answered in that vendor's server-sent events, in
pieces after its latency (the time to the first token), and the stream faults
act on it mid-answer (`stall_mid`, `drop_mid`, `trickle`). A configurable rate
limit in requests/min and tokens/min answers 429 the vendor's way once exceeded.
Tests, benchmarks and the screenshot script point the app at it instead of a paid
API.

    with Simulator(policy=longer_resume_policy) as sim:
        provider = OpenAICompatProvider(sim.base_url)
        anthropic = AnthropicProvider(sim.url_for("anthropic"), api_key="x")

Run it by hand: PYTHONPATH=tests python -m devtools.simulator --port 8099
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import re
import select
import socket
import ssl
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from devtools import simulator_batch

Policy = Callable[[dict[str, Any]], str]
VENDORS = ("openai", "openrouter", "azure", "anthropic", "gemini")
LABELS = ("first", "second", "ABSTAIN", "Yes", "No")


@dataclass
class Fault:
    """One injected failure, used by the next request that reaches the server.

    kind:
      http        answer `status` with `body` (or the vendor's own error body) and `headers`
      rate_limit  429 with the vendor's retry hint (`retry_after_s`)
      quota       out of credits/quota, the vendor's way (never worth retrying)
      overloaded  529 (Anthropic) or 503
      not_found   unknown model
      context     prompt too long
      refuse      a 200 answer in which the model refuses (or is blocked)
      filter      a 400 content-filter rejection (Azure style)
      upstream    OpenRouter's 200-with-an-error-inside
      slow        wait `delay_s`, then answer normally
      hang        say nothing for `delay_s` (or until the simulator stops), then hang up
      stall       the model makes (and bills) the answer, but it never reaches the client:
                  nothing for `delay_s`, then hang up (a connection dead mid-answer)
      drop        close the connection without an answer
      truncate    send half of a normal answer, then close
      stall_mid   (streamed) send the first pieces, then nothing for `delay_s`, then hang
                  up; the answer is billed. Unstreamed: like stall.
      drop_mid    (streamed) send the first pieces, then close the connection abruptly;
                  the answer is billed. Unstreamed: half the body, then close.
      trickle     a live but slow answer: (streamed) each piece `delay_s` after the last;
                  unstreamed, the whole answer after that many times `delay_s`
      malformed   a 200 whose body is not JSON
      echo        a normal 200 answer that also echoes the API key, encoded as `body`
                  names (see `echo_key`): a proxy or gateway that reflects the request
    """

    status: int = 500
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    kind: str = "http"
    retry_after_s: float = 1.0


@dataclass(frozen=True)
class Received:
    """One request as the server saw it (headers included: tests check authentication)."""

    vendor: str
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None


def _resumes(user: str) -> tuple[str, str]:
    m = re.search(r"Resume 1:\s*(.*?)\s*Resume 2:\s*(.*?)\s*Job description:", user, re.S)
    if not m:
        return "", ""
    return m.group(1), m.group(2)


def longer_resume_policy(body: dict[str, Any]) -> str:
    """Pick the longer resume; abstain when they are the same length within 4%.

    On D1 pairs this is a perfectly valid screener: a less-qualified copy is
    shorter, and name swaps barely change the length.
    """
    user = body["messages"][-1]["content"]
    first, second = _resumes(user)
    if abs(len(first) - len(second)) <= 0.04 * max(len(first), len(second), 1):
        return "Both candidates meet the same requirements. <answer>ABSTAIN</answer>"
    if len(first) > len(second):
        return "Resume 1 covers more of the required qualifications. <answer>first</answer>"
    return "Resume 2 covers more of the required qualifications. <answer>second</answer>"


ECHO_ENCODINGS = (
    "raw",
    "base64",
    "base64url",
    "json",
    "url",
    "wrapped",
    "hex",
    "url2",
    "upper",
    "tail",
)
# How long a tail of the key "tail" echoes (a log line cut short, "...<tail>").
ECHO_TAIL = 14


def echo_key(key: str, how: str) -> str:
    """`key` as servers echo it: raw, in a base64 "Bearer" header, JSON-escaped, URL-encoded,
    wrapped over lines, in hex, URL-encoded twice (a gateway behind a proxy), upper-cased
    (a normalised log line), or only its last ECHO_TAIL characters. For leak tests:
    redaction must catch every form."""
    import base64
    from urllib.parse import quote

    if how == "base64":
        return base64.b64encode(f"Bearer {key}".encode()).decode()
    if how == "base64url":
        return base64.urlsafe_b64encode(f"user:{key}".encode()).decode().rstrip("=")
    if how == "json":
        return "".join(f"\\u{ord(c):04x}" if c in "-_" else c for c in key).replace("/", "\\/")
    if how == "url":
        return "".join(f"%{b:02X}" for b in key.encode())
    if how == "wrapped":
        return "\n".join(key[i : i + 7] for i in range(0, len(key), 7))
    if how == "hex":
        return key.encode().hex()
    if how == "url2":
        return quote("".join(f"%{b:02X}" for b in key.encode()), safe="")
    if how == "upper":
        return key.upper()
    if how == "tail":
        return "..." + key[-ECHO_TAIL:]
    return key


def always(answer: str) -> Policy:
    return lambda _body: f"Scripted answer. <answer>{answer}</answer>"


# -- one neutral view of a request, whatever its wire format ---------------------------


def neutral_body(vendor: str, body: dict[str, Any], model: str = "") -> dict[str, Any]:
    """{"model", "messages": [system?, user], "max_tokens", "temperature", "logprobs"}."""
    if vendor == "anthropic":
        messages = []
        if body.get("system"):
            system = body["system"]
            if isinstance(system, list):
                system = "".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
            messages.append({"role": "system", "content": str(system)})
        for m in body.get("messages", []):
            content = m.get("content", "")
            if isinstance(content, list):
                content = "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
            messages.append({"role": m.get("role", "user"), "content": str(content)})
        return {
            "model": body.get("model", ""),
            "messages": messages,
            "max_tokens": body.get("max_tokens"),
            "temperature": body.get("temperature"),
            "top_logprobs": None,
        }
    if vendor == "gemini":
        config = body.get("generationConfig") or {}
        messages = []
        system = body.get("systemInstruction")
        if isinstance(system, dict):
            text = "".join(str(p.get("text", "")) for p in system.get("parts", []))
            messages.append({"role": "system", "content": text})
        for c in body.get("contents", []):
            text = "".join(str(p.get("text", "")) for p in c.get("parts", []))
            messages.append({"role": c.get("role", "user"), "content": text})
        return {
            "model": model,
            "messages": messages,
            "max_tokens": config.get("maxOutputTokens"),
            "temperature": config.get("temperature"),
            "top_logprobs": config.get("logprobs") if config.get("responseLogprobs") else None,
        }
    return {
        "model": body.get("model", model),
        "messages": body.get("messages", []),
        "max_tokens": body.get("max_completion_tokens", body.get("max_tokens")),
        "temperature": body.get("temperature"),
        "top_logprobs": (body.get("top_logprobs") or 1) if body.get("logprobs") else None,
    }


def _tokens(text: str) -> list[str]:
    return re.findall(r"\s*\S+", text) or [text]


def fake_logprobs(text: str, n: int) -> list[tuple[str, float, list[tuple[str, float]]]]:
    """Deterministic per-token log-probabilities: the chosen token first, then labels."""
    out = []
    for token in _tokens(text):
        chosen = -0.05
        alts = [(token, chosen)]
        for i, label in enumerate(x for x in LABELS if x != token.strip()):
            alts.append((label, -2.5 - i))
        out.append((token, chosen, alts[: max(1, n)]))
    return out


# -- vendor-shaped bodies ----------------------------------------------------------------


def error_body(vendor: str, status: int, message: str, code: str = "", etype: str = "") -> bytes:
    if vendor == "anthropic":
        etype = etype or {
            400: "invalid_request_error",
            401: "authentication_error",
            403: "permission_error",
            404: "not_found_error",
            413: "request_too_large",
            429: "rate_limit_error",
            529: "overloaded_error",
        }.get(status, "api_error")
        return json.dumps({"type": "error", "error": {"type": etype, "message": message}}).encode()
    if vendor == "gemini":
        etype = etype or {
            400: "INVALID_ARGUMENT",
            403: "PERMISSION_DENIED",
            404: "NOT_FOUND",
            429: "RESOURCE_EXHAUSTED",
            503: "UNAVAILABLE",
        }.get(status, "INTERNAL")
        return json.dumps({"error": {"code": status, "message": message, "status": etype}}).encode()
    if vendor == "openrouter":
        return json.dumps({"error": {"code": status, "message": message}}).encode()
    err: dict[str, Any] = {"message": message, "type": etype or "invalid_request_error"}
    if code:
        err["code"] = code
    return json.dumps({"error": err}).encode()


STREAM_PIECES = 4  # pieces of text a streamed answer comes in


def _pieces(text: str, n: int = STREAM_PIECES) -> list[str]:
    """`text` in up to n consecutive pieces (the first may be empty for an empty answer)."""
    size = max(1, math.ceil(len(text) / n))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _sse(data: dict[str, Any] | str, event: str | None = None) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


def stream_frames(vendor: str, data: dict[str, Any], *, include_usage: bool) -> list[bytes]:
    """The server-sent events in which `vendor` streams the answer `data` (its unstreamed
    body), one frame per write."""
    if vendor == "anthropic":
        text = "".join(b.get("text", "") for b in data["content"])
        usage = dict(data["usage"])
        start = {**data, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
        frames = [
            _sse({"type": "message_start", "message": start}, "message_start"),
            _sse(
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
                "content_block_start",
            ),
            _sse({"type": "ping"}, "ping"),
        ]
        for piece in _pieces(text):
            delta = {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": piece},
            }
            frames.append(_sse(delta, "content_block_delta"))
        frames.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
        end = {
            "type": "message_delta",
            "delta": {"stop_reason": data["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        }
        frames.append(_sse(end, "message_delta"))
        frames.append(_sse({"type": "message_stop"}, "message_stop"))
        return frames
    if vendor == "gemini":
        cand = data["candidates"][0]
        parts = cand["content"]["parts"]
        thoughts = [p for p in parts if p.get("thought")]
        text = "".join(p["text"] for p in parts if not p.get("thought"))
        head = {k: v for k, v in data.items() if k not in ("candidates", "usageMetadata")}
        pieces = _pieces(text)
        frames = []
        for i, piece in enumerate(pieces):
            piece_parts = [*thoughts, {"text": piece}] if i == 0 else [{"text": piece}]
            chunk: dict[str, Any] = {
                **head,
                "candidates": [{"content": {"role": "model", "parts": piece_parts}, "index": 0}],
            }
            if i == len(pieces) - 1:
                chunk["candidates"][0]["finishReason"] = cand["finishReason"]
                chunk["usageMetadata"] = data["usageMetadata"]
            frames.append(_sse(chunk))
        return frames
    # OpenAI chat completions (OpenAI, Azure, OpenRouter, OpenAI-compatible servers)
    choice = data["choices"][0]
    head = {k: v for k, v in data.items() if k not in ("choices", "usage", "object")}
    head["object"] = "chat.completion.chunk"
    frames = [b": OPENROUTER PROCESSING\n\n"] if vendor == "openrouter" else []
    first = {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
    frames.append(_sse({**head, "choices": [first]}))
    pieces = _pieces(str(choice["message"].get("content") or ""))
    tokens = (choice.get("logprobs") or {}).get("content")
    for i, piece in enumerate(pieces):
        part: dict[str, Any] = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
        if tokens is not None:  # each chunk carries its share of the tokens
            share = math.ceil(len(tokens) / len(pieces))
            part["logprobs"] = {"content": tokens[i * share : (i + 1) * share]}
        frames.append(_sse({**head, "choices": [part]}))
    last = {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}
    frames.append(_sse({**head, "choices": [last]}))
    if include_usage or vendor == "openrouter":  # OpenRouter always sends it
        frames.append(_sse({**head, "choices": [], "usage": data["usage"]}))
    frames.append(_sse("[DONE]"))
    return frames


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    _body: dict[str, Any] | None = None

    def log_message(self, *args: object) -> None:  # quiet
        pass

    # -- plumbing ------------------------------------------------------------------------

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(2)

    def _route(self) -> tuple[str, str, str] | None:
        """(vendor, what, model) for this path; what is chat | models."""
        path = urlsplit(self.path).path.rstrip("/")
        m = re.search(r"/v1beta/models/([^:/]+):(?:stream)?[gG]enerateContent$", path)
        if m:
            return "gemini", "chat", m.group(1)
        if path.endswith("/v1beta/models"):
            return "gemini", "models", ""
        if path.endswith("/v1/messages"):
            return "anthropic", "chat", ""
        m = re.search(r"/openai/deployments/([^/]+)/chat/completions$", path)
        if m:
            return "azure", "chat", m.group(1)
        if path.endswith("/chat/completions"):
            vendor = "openrouter" if path.startswith("/api/") else "openai"
            if path.startswith("/openai/"):
                vendor = "azure"
            return vendor, "chat", ""
        if path.endswith("/models"):
            if path.startswith("/api/"):
                return "openrouter", "models", ""
            if self.headers.get("anthropic-version"):
                return "anthropic", "models", ""
            return ("azure" if path.startswith("/openai/") else "openai"), "models", ""
        return None

    def _auth_ok(self, vendor: str) -> bool:
        key = self.server.sim.api_key
        if not key:
            return True
        if vendor == "anthropic":
            return self.headers.get("x-api-key") == key
        if vendor == "gemini":
            return self.headers.get("x-goog-api-key") == key
        if vendor == "azure":
            return self.headers.get("api-key") == key
        return self.headers.get("Authorization") == f"Bearer {key}"

    def _auth_error(self, vendor: str) -> tuple[int, bytes]:
        if vendor == "anthropic":
            return 401, error_body(vendor, 401, "invalid x-api-key")
        if vendor == "gemini":
            body = {
                "error": {
                    "code": 400,
                    "message": "API key not valid. Please pass a valid API key.",
                    "status": "INVALID_ARGUMENT",
                    "details": [
                        {
                            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                            "reason": "API_KEY_INVALID",
                            "domain": "googleapis.com",
                        }
                    ],
                }
            }
            return 400, json.dumps(body).encode()
        if vendor == "azure":
            return 401, error_body(
                vendor, 401, "Access denied due to invalid subscription key.", "401"
            )
        sent = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        shown = f"{sent[:3]}***{sent[-4:]}" if len(sent) > 8 else "***"
        return 401, error_body(
            vendor, 401, f"Incorrect API key provided: {shown}.", "invalid_api_key"
        )

    # -- GET: model lists ------------------------------------------------------------------

    def do_GET(self) -> None:
        sim = self.server.sim
        if simulator_batch.route(urlsplit(self.path).path.rstrip("/")) is not None:
            simulator_batch.handle(self, "GET", b"")
            return
        route = self._route()
        if route is None or route[1] != "models":
            self._send(404, b'{"error": {"message": "no such endpoint"}}')
            return
        vendor = route[0]
        with sim.lock:
            sim.requests.append(
                Received(vendor, "GET", self.path, dict(self.headers.items()), None)
            )
        if vendor != "openrouter" and not self._auth_ok(vendor):
            self._send(*self._auth_error(vendor))
            return
        query = parse_qs(urlsplit(self.path).query)
        models = list(sim.models)
        if vendor == "anthropic":
            limit = int(query.get("limit", ["20"])[0])
            after = query.get("after_id", [None])[0]
            start = models.index(after) + 1 if after in models else 0
            page = models[start : start + limit]
            data: dict[str, Any] = {
                "data": [{"id": m, "type": "model", "display_name": m} for m in page],
                "has_more": start + limit < len(models),
                "first_id": page[0] if page else None,
                "last_id": page[-1] if page else None,
            }
        elif vendor == "gemini":
            size = int(query.get("pageSize", ["50"])[0])
            start = int(query.get("pageToken", ["0"])[0] or 0)
            page = models[start : start + size]
            data = {
                "models": [
                    {
                        "name": f"models/{m}",
                        "supportedGenerationMethods": (
                            ["embedContent"] if "embedding" in m else ["generateContent"]
                        ),
                    }
                    for m in page
                ]
            }
            if start + size < len(models):
                data["nextPageToken"] = str(start + size)
        elif vendor == "openrouter":
            data = {
                "data": [
                    {
                        "id": m,
                        "supported_parameters": ["max_tokens", "temperature", "seed"]
                        + (["logprobs", "top_logprobs"] if sim.gives_logprobs(m) else []),
                    }
                    for m in models
                ]
            }
        else:
            data = {"object": "list", "data": [{"id": m, "object": "model"} for m in models]}
        self._send(200, json.dumps(data).encode())

    # -- POST: chat ------------------------------------------------------------------------

    def do_POST(self) -> None:
        sim = self.server.sim
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if simulator_batch.route(urlsplit(self.path).path.rstrip("/")) is not None:
            simulator_batch.handle(self, "POST", raw)
            return
        route = self._route()
        if route is None or route[1] != "chat":
            self._send(404, b'{"error": {"message": "no such endpoint"}}')
            return
        vendor, _, path_model = route
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, error_body(vendor, 400, "body is not JSON"))
            return
        self._body = body if isinstance(body, dict) else None
        with sim.lock:
            sim.in_flight += 1
        try:
            self._chat(vendor, path_model, body)
        finally:
            with sim.lock:
                sim.in_flight -= 1

    def _chat(self, vendor: str, path_model: str, body: dict[str, Any]) -> None:
        sim = self.server.sim
        fault = sim.next_fault()
        if fault is None and sim.random_fault is not None:
            fault = sim.random_fault()
        with sim.lock:
            sim.received += 1
            if sim.keep_requests:
                sim.bodies.append(body)
                sim.requests.append(
                    Received(vendor, "POST", self.path, dict(self.headers.items()), body)
                )
        if not self._auth_ok(vendor):
            self._send(*self._auth_error(vendor))
            return
        request = neutral_body(vendor, body, path_model)
        with sim.lock:
            fingerprint = sim.fingerprint(request)
            sim.sent[fingerprint] += 1
            if sim.timeline is not None:
                how = "send" if sim.sent[fingerprint] == 1 else "resend"
                sim.timeline.append((time.monotonic(), how, fault.kind if fault else ""))
        if fault is not None and self._fault(vendor, fault, request):
            return
        refusal = self._refuse_settings(vendor, request, body)
        if refusal is not None:
            self._send(*refusal)
            return
        limited = sim.admit(request)
        if limited is not None:
            self._send(*self._rate_limited(vendor, limited))
            return
        if sim.latency_s:
            time.sleep(sim.latency_s() if callable(sim.latency_s) else sim.latency_s)
        if self._client_gone():
            # Like vLLM, llama.cpp and Ollama: a client that hung up is not answered.
            with sim.lock:
                sim.abandoned += 1
            if sim.bill_abandoned:
                sim.count_paid(request)  # made and billed; nobody there to receive it
            self._drop()
            return
        text = sim.policy(request)
        if fault is not None and fault.kind == "echo":
            text += " (request seen with " + echo_key(sim.api_key or "", fault.body or "") + ")"
        if self._streamed(vendor, body):
            self._stream(vendor, request, body, text, fault)
            return
        if fault is not None and fault.kind == "trickle":
            sim.stopping.wait(fault.delay_s * STREAM_PIECES)
        if fault is not None and fault.kind == "drop_mid":
            fault = Fault(kind="truncate")
            sim.count_paid(request)
        payload = self._answer(vendor, request, text)
        if fault is not None and fault.kind == "malformed":
            self._send(200, b'{"choices": [oops')
            return
        if fault is not None and fault.kind == "truncate":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.close_connection = True
            return
        with sim.lock:
            sim.answered += 1
            if sim.timeline is not None:
                sim.timeline.append((time.monotonic(), "answer", ""))
        self._send(200, payload, sim.limit_headers(vendor))
        sim.count_paid(request)

    def _client_gone(self) -> bool:
        """True when the client closed the connection while its answer was being made."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            return bool(self.connection.recv(1, socket.MSG_PEEK) == b"")
        except (OSError, ValueError):  # TLS sockets cannot peek; assume still there
            return False

    def _fault(self, vendor: str, fault: Fault, request: dict[str, Any]) -> bool:
        """Act out `fault`; True if the request is finished."""
        sim = self.server.sim
        kind = fault.kind
        if kind == "stall_mid" and not self._streamed(vendor, self._body or {}):
            kind = "stall"
        if kind in ("hang", "stall"):
            if kind == "stall":
                sim.count_paid(request)
            sim.stopping.wait(fault.delay_s or 30.0)
            self._drop()
            return True
        if kind in ("stall_mid", "drop_mid", "trickle"):
            return False  # acted out while answering (`delay_s` is theirs, not a wait before)
        if fault.delay_s:
            sim.stopping.wait(fault.delay_s)
        if kind in ("slow", "malformed", "truncate", "echo"):
            return False
        if kind == "drop":
            self._drop()
            return True
        if kind == "http":
            payload = fault.body.encode() if fault.body is not None else None
            self._send(
                fault.status,
                payload or error_body(vendor, fault.status, "injected failure"),
                fault.headers,
            )
            return True
        if kind == "rate_limit":
            self._send(*self._rate_limited(vendor, fault.retry_after_s))
            return True
        status, payload, headers = self._canned(vendor, kind, request)
        self._send(status, payload, {**headers, **fault.headers})
        return True

    def _canned(
        self, vendor: str, kind: str, request: dict[str, Any]
    ) -> tuple[int, bytes, dict[str, str]]:
        model = request.get("model", "")
        if kind == "quota":
            if vendor == "openrouter":
                return 402, error_body(vendor, 402, "Insufficient credits."), {}
            if vendor == "anthropic":
                msg = "Your credit balance is too low to access the Anthropic API."
                return 400, error_body(vendor, 400, msg), {}
            if vendor == "gemini":
                body = {
                    "error": {
                        "code": 429,
                        "message": "You exceeded your current quota.",
                        "status": "RESOURCE_EXHAUSTED",
                        "details": [
                            {
                                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                                "violations": [
                                    {"quotaId": "GenerateRequestsPerDayPerProjectPerModel"}
                                ],
                            },
                            {
                                "@type": "type.googleapis.com/google.rpc.RetryInfo",
                                "retryDelay": "3600s",
                            },
                        ],
                    }
                }
                return 429, json.dumps(body).encode(), {}
            msg = "You exceeded your current quota, please check your plan and billing details."
            return 429, error_body(vendor, 429, msg, "insufficient_quota", "insufficient_quota"), {}
        if kind == "overloaded":
            if vendor == "anthropic":
                return 529, error_body(vendor, 529, "Overloaded"), {}
            return 503, error_body(vendor, 503, "The model is overloaded."), {"retry-after": "1"}
        if kind == "not_found":
            if vendor == "anthropic":
                return 404, error_body(vendor, 404, f"model: {model}"), {}
            if vendor == "gemini":
                msg = f"models/{model} is not found for API version v1beta."
                return 404, error_body(vendor, 404, msg), {}
            msg = f"The model `{model}` does not exist or you do not have access to it."
            return 404, error_body(vendor, 404, msg, "model_not_found"), {}
        if kind == "context":
            if vendor == "anthropic":
                return 400, error_body(vendor, 400, "prompt is too long: 210000 > 200000"), {}
            if vendor == "gemini":
                msg = "The input token count (1200000) exceeds the maximum number of tokens"
                return 400, error_body(vendor, 400, msg + " allowed (1048576)."), {}
            msg = "This model's maximum context length is 8192 tokens."
            return 400, error_body(vendor, 400, msg, "context_length_exceeded"), {}
        if kind == "filter":
            msg = (
                "The response was filtered due to the prompt triggering content management policy."
            )
            return 400, error_body(vendor, 400, msg, "content_filter"), {}
        if kind == "upstream":
            body = {"error": {"code": 502, "message": "Upstream provider error"}}
            return 200, json.dumps(body).encode(), {}
        if kind == "refuse":
            self.server.sim.count_paid(request)  # a refusal is an answer, and billed
            return 200, self._refusal(vendor, request), {}
        raise ValueError(f"unknown fault kind {kind!r}")

    def _refusal(self, vendor: str, request: dict[str, Any]) -> bytes:
        model = request.get("model", "sim")
        if vendor == "anthropic":
            data: dict[str, Any] = {
                "id": "msg_sim_refusal",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": "refusal",
                "usage": {"input_tokens": 10, "output_tokens": 0},
            }
        elif vendor == "gemini":
            data = {
                "promptFeedback": {"blockReason": "SAFETY"},
                "usageMetadata": {"promptTokenCount": 10},
                "modelVersion": model,
            }
        else:
            finish = "content_filter" if vendor == "azure" else "stop"
            message: dict[str, Any] = {"role": "assistant", "content": None}
            if vendor != "azure":
                message["refusal"] = "I can't help with ranking people."
            data = {
                "id": "chatcmpl-sim-refusal",
                "object": "chat.completion",
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 0},
            }
        return json.dumps(data).encode()

    def _refuse_settings(
        self, vendor: str, request: dict[str, Any], body: dict[str, Any]
    ) -> tuple[int, bytes] | None:
        """An error for settings this simulated model does not take (reasoning, no logprobs)."""
        sim = self.server.sim
        model = str(request.get("model", ""))
        if vendor == "anthropic":
            extra = [k for k in ("seed", "logprobs", "top_logprobs") if k in body]
            if extra:
                return 400, error_body(vendor, 400, f"{extra[0]}: Extra inputs are not permitted")
            return None
        reasoning = model in sim.reasoning_models
        if reasoning and vendor != "gemini":
            temp = request.get("temperature")
            if temp is not None and temp != 1:
                msg = (
                    f"Unsupported value: 'temperature' does not support {temp} with this "
                    "model. Only the default (1) value is supported."
                )
                return 400, error_body(vendor, 400, msg, "unsupported_value")
        wants = request.get("top_logprobs")
        silent = sim.unsupported_logprobs == "ignore"
        if wants and silent and not reasoning and not sim.gives_logprobs(model):
            request["top_logprobs"] = None
            return None
        if request.get("top_logprobs") and (reasoning or not sim.gives_logprobs(model)):
            if vendor == "gemini":
                return 400, error_body(vendor, 400, f"Logprobs is not enabled for models/{model}")
            if vendor == "openrouter":  # no upstream can honour require_parameters
                msg = "No endpoints found that can handle the requested parameters."
                return 404, error_body(vendor, 404, msg)
            msg = "This model does not support the 'logprobs' parameter."
            payload = json.loads(error_body(vendor, 400, msg, "unsupported_parameter"))
            payload["error"]["param"] = "logprobs"
            return 400, json.dumps(payload).encode()
        return None

    def _rate_limited(self, vendor: str, wait_s: float) -> tuple[int, bytes, dict[str, str]]:
        with self.server.sim.lock:
            self.server.sim.rate_limited += 1
            if self.server.sim.timeline is not None:
                self.server.sim.timeline.append((time.monotonic(), "429", ""))
        seconds = f"{wait_s:g}"
        if vendor == "gemini":
            body = {
                "error": {
                    "code": 429,
                    "message": "Resource has been exhausted (e.g. check quota).",
                    "status": "RESOURCE_EXHAUSTED",
                    "details": [
                        {
                            "@type": "type.googleapis.com/google.rpc.RetryInfo",
                            "retryDelay": f"{seconds}s",
                        }
                    ],
                }
            }
            return 429, json.dumps(body).encode(), {}
        if vendor == "azure":
            headers = {"retry-after-ms": str(int(wait_s * 1000))}
            msg = "Requests to the deployment have exceeded the rate limit."
            return 429, error_body(vendor, 429, msg, "429"), headers
        if vendor == "anthropic":
            return (
                429,
                error_body(vendor, 429, "Number of requests has exceeded your rate limit."),
                {"retry-after": str(math.ceil(wait_s))},
            )
        headers = {
            "retry-after": seconds,
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": f"{seconds}s",
        }
        msg = "Rate limit reached for requests."
        return 429, error_body(vendor, 429, msg, "rate_limit_exceeded", "requests"), headers

    # -- streamed answers ------------------------------------------------------------------

    def _streamed(self, vendor: str, body: dict[str, Any]) -> bool:
        if vendor == "gemini":
            return ":streamGenerateContent" in urlsplit(self.path).path
        return bool(body.get("stream"))

    def _stream(
        self,
        vendor: str,
        request: dict[str, Any],
        body: dict[str, Any],
        text: str,
        fault: Fault | None,
    ) -> None:
        """Answer in the vendor's server-sent events, acting out a stream fault if any.

        The latency already waited stands for the time to the first token; the pieces
        then follow at once (or `delay_s` apart for `trickle`).
        """
        sim = self.server.sim
        data = self._answer_data(vendor, request, text)
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        frames = stream_frames(vendor, data, include_usage=include_usage)
        kind = fault.kind if fault is not None else ""
        if kind == "malformed":  # a piece that is not JSON, then the end (as unstreamed:
            frames = [frames[0], b'data: {"choices": [oops\n\n']  # not counted answered)
        if kind == "truncate":  # half the answer, then the connection closes
            kind = "drop_mid"
        cut = max(1, len(frames) // 2)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for k, v in sim.limit_headers(vendor).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            for i, frame in enumerate(frames):
                if i == cut and kind in ("stall_mid", "drop_mid"):
                    sim.count_paid(request)  # made (and billed); it never arrives whole
                    if kind == "stall_mid":
                        sim.stopping.wait(fault.delay_s if fault and fault.delay_s else 30.0)
                    self._drop()
                    return
                if i and kind == "trickle" and fault is not None:
                    sim.stopping.wait(fault.delay_s)
                self.wfile.write(f"{len(frame):x}\r\n".encode() + frame + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            if kind == "malformed":
                return
        except OSError:  # the client hung up mid-answer: made and billed all the same
            with sim.lock:
                sim.abandoned += 1
            sim.count_paid(request)
            self.close_connection = True
            return
        with sim.lock:
            sim.answered += 1
            if sim.timeline is not None:
                sim.timeline.append((time.monotonic(), "answer", ""))
        sim.count_paid(request)

    def _answer(self, vendor: str, request: dict[str, Any], text: str) -> bytes:
        return json.dumps(self._answer_data(vendor, request, text)).encode()

    def _answer_data(self, vendor: str, request: dict[str, Any], text: str) -> dict[str, Any]:
        sim = self.server.sim
        with sim.lock:
            n = sim.received
        model = str(request.get("model") or "sim")
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in request["messages"]) // 4
        completion_tokens = max(1, len(text) // 4)
        reasoning = model in sim.reasoning_models
        thoughts = 64 if reasoning else 0
        top_n = request.get("top_logprobs")
        lp = fake_logprobs(text, int(top_n)) if top_n and sim.gives_logprobs(model) else None
        if vendor == "anthropic":
            data: dict[str, Any] = {
                "id": f"msg_sim_{n}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {
                    "input_tokens": prompt_tokens,
                    "output_tokens": completion_tokens,
                    "cache_read_input_tokens": 0,
                    "cache_creation_input_tokens": 0,
                },
            }
        elif vendor == "gemini":
            parts: list[dict[str, Any]] = []
            if reasoning:
                parts.append({"text": "Let me compare the two resumes...", "thought": True})
            parts.append({"text": text})
            cand: dict[str, Any] = {
                "content": {"role": "model", "parts": parts},
                "finishReason": "STOP",
                "index": 0,
            }
            if lp is not None:
                cand["logprobsResult"] = {
                    "chosenCandidates": [{"token": t, "logProbability": v} for t, v, _ in lp],
                    "topCandidates": [
                        {"candidates": [{"token": a, "logProbability": b} for a, b in alts]}
                        for _, _, alts in lp
                    ],
                }
            data = {
                "candidates": [cand],
                "usageMetadata": {
                    "promptTokenCount": prompt_tokens,
                    "candidatesTokenCount": completion_tokens,
                    "thoughtsTokenCount": thoughts,
                    "totalTokenCount": prompt_tokens + completion_tokens + thoughts,
                },
                "modelVersion": f"{model}-001",
                "responseId": f"sim-{n}",
            }
        else:
            choice: dict[str, Any] = {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
            if lp is not None:
                choice["logprobs"] = {
                    "content": [
                        {
                            "token": t,
                            "logprob": v,
                            "top_logprobs": [{"token": a, "logprob": b} for a, b in alts],
                        }
                        for t, v, alts in lp
                    ]
                }
            usage: dict[str, Any] = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens + thoughts,
                "total_tokens": prompt_tokens + completion_tokens + thoughts,
                "prompt_tokens_details": {"cached_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": thoughts},
            }
            data = {
                "id": f"chatcmpl-sim-{n}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "system_fingerprint": "fp_sim",
                "choices": [choice],
                "usage": usage,
            }
            if vendor == "openrouter":
                data["provider"] = "SimUpstream"
                usage["cost"] = 0.0
        return data


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # The listen backlog: socketserver's default of 5 resets connections when hundreds
    # of requests arrive at once (3,000/min), which no hosted API does.
    request_queue_size = 4096
    sim: Simulator

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (killed, timed out) is expected here, not an error."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class Simulator:
    """The server; a context manager. Counters and records are safe to read from tests."""

    def __init__(
        self,
        policy: Policy = longer_resume_policy,
        *,
        port: int = 0,
        models: tuple[str, ...] = ("sim-model",),
        latency_s: float | Callable[[], float] = 0.0,
        api_key: str | None = None,
        rpm: int | None = None,
        tpm: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        logprobs: bool | Collection[str] = True,
        unsupported_logprobs: str = "error",
        reasoning_models: Collection[str] = (),
        ssl_context: ssl.SSLContext | None = None,
        random_fault: Callable[[], Fault | None] | None = None,
        keep_requests: bool = True,
        limit_headers: bool = True,
        batch_delay_s: float = 0.0,
        batch_error_every: int = 0,
        batch_expire: bool = False,
        bucket: bool = False,
        bill_abandoned: bool = False,
        bucket_full: bool = True,
        timeline: bool = False,
    ) -> None:
        """
        rpm, tpm: answer 429 (with the vendor's retry hint) past this many requests or
            tokens (prompt/4 + max_tokens, as Azure counts) in any 60 s window.
        clock: the time source for those windows (tests pass a fake one).
        logprobs: which models give log-probabilities (True: all, False: none).
        unsupported_logprobs: "error" (a 400, as OpenAI and Gemini do) or "ignore"
            (answer without them, as some local servers do).
        reasoning_models: models that refuse temperature and log-probabilities
            (OpenAI style) and spend reasoning tokens.
        ssl_context: serve https with this server context (for TLS-failure tests).
        random_fault: called for each chat request with no injected fault; the
            Fault it returns (or None) is acted out (benchmarks draw from it).
        keep_requests: keep every request in `bodies` and `requests` (turn off for
            long benchmarks; counters are kept either way).
        limit_headers: with rpm/tpm, send the vendor's rate-limit headers
            (x-ratelimit-*, anthropic-ratelimit-*) on every answer, as they do.
        batch_delay_s, batch_error_every, batch_expire: the batch APIs (see
            simulator_batch.py): answer a batch this long after it was created,
            fail every n-th line, or let batches expire unanswered.
        bucket: count rpm/tpm as token buckets (full at the start, refilled evenly
            over a minute, as OpenAI describes its limits) instead of a sliding 60 s
            window; the headers then say what is left in the bucket and how long
            until it is full again. `bucket_full=False` starts them empty (a
            provider whose allowance another client has just used up).
        bill_abandoned: finish and bill a request whose client hung up (as hosted
            APIs do) instead of dropping it the way local servers do; it still
            counts in `abandoned`.
        timeline: keep `(monotonic time, what, fault kind or "")` in `timeline` for
            every chat request (what: "send" the first time its body comes, "resend"
            after), every 429 ("429") and every answer delivered whole ("answer"):
            benchmarks read where a run's time went.

        `paid` counts each answered request by the hash of its model and messages
        (sync and batch): a request bought twice shows a count of 2; `sent` counts
        every chat request received the same way (429s and faults included), and
        `in_flight` the ones being worked on now. A client that hangs up before its
        answer is ready is not answered (`abandoned`).
        """
        self.policy = policy
        self.models = models
        self.latency_s = latency_s
        self.api_key = api_key
        self.rpm = rpm
        self.tpm = tpm
        self.clock = clock
        self.logprobs = logprobs
        self.unsupported_logprobs = unsupported_logprobs
        self.reasoning_models = frozenset(reasoning_models)
        self.random_fault = random_fault
        self.keep_requests = keep_requests
        self.send_limit_headers = limit_headers
        self.batch_delay_s = batch_delay_s
        self.batch_error_every = batch_error_every
        self.batch_expire = batch_expire
        self.batch_store = simulator_batch.BatchStore()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.faults: deque[Fault] = deque()
        self.received = 0
        self.answered = 0
        self.rate_limited = 0
        self.abandoned = 0
        self.paid: Counter[str] = Counter()
        self.sent: Counter[str] = Counter()
        self.in_flight = 0
        self.timeline: list[tuple[float, str, str]] | None = [] if timeline else None
        self.bucket = bucket
        self.bill_abandoned = bill_abandoned
        # what is left, per limit (bucket mode); absent: full
        self._buckets: dict[str, float] = {} if bucket_full else {"requests": 0, "tokens": 0}
        self._bucket_at = clock()
        self.bodies: list[dict[str, Any]] = []
        self.requests: list[Received] = []
        self._window: deque[tuple[float, int]] = deque()
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.sim = self
        self._tls = ssl_context is not None
        if ssl_context is not None:
            self._server.socket = ssl_context.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # stop() returns within 50 ms
            daemon=True,
            name="provider-simulator",
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def root_url(self) -> str:
        return f"{'https' if self._tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (…/v1)."""
        return f"{self.root_url}/v1"

    def url_for(self, provider: str) -> str:
        """The base URL to give the provider `provider` (a registry id) to reach this server."""
        return {
            "openai": f"{self.root_url}/v1",
            "openai-compatible": f"{self.root_url}/v1",
            "openrouter": f"{self.root_url}/api/v1",
            "azure": self.root_url,
            "anthropic": self.root_url,
            "gemini": self.root_url,
        }[provider]

    def gives_logprobs(self, model: str) -> bool:
        if isinstance(self.logprobs, bool):
            return self.logprobs and model not in self.reasoning_models
        return model in self.logprobs

    @staticmethod
    def fingerprint(request: dict[str, Any]) -> str:
        """What identifies a request for `paid`: its model and messages."""
        key = json.dumps([request.get("model", ""), request.get("messages", [])], sort_keys=True)
        return hashlib.sha256(key.encode()).hexdigest()[:32]

    def count_paid(self, request: dict[str, Any]) -> None:
        with self.lock:
            self.paid[self.fingerprint(request)] += 1

    def limit_headers(self, vendor: str) -> dict[str, str]:
        """The rate-limit headers a vendor sends with an answer (empty without limits)."""
        if not self.send_limit_headers or (self.rpm is None and self.tpm is None):
            return {}
        resets: dict[str, float] = {}
        with self.lock:
            now = self.clock()
            if self.bucket:
                self._refill(now)
                spent_now = {
                    name: (limit or 0) - self._buckets.get(name, float(limit or 0))
                    for name, limit in (("requests", self.rpm), ("tokens", self.tpm))
                }
                used, tokens = int(spent_now["requests"]), int(spent_now["tokens"])
                # OpenAI's reset: until the bucket is full again
                resets = {
                    name: spent_now[name] * 60.0 / limit
                    for name, limit in (("requests", self.rpm), ("tokens", self.tpm))
                    if limit
                }
                reset = 0.0
            else:
                while self._window and now - self._window[0][0] >= 60.0:
                    self._window.popleft()
                used = len(self._window)
                tokens = sum(t for _, t in self._window)
                reset = 60.0 - (now - self._window[0][0]) if self._window else 0.0
        headers: dict[str, str] = {}
        for what, limit, spent in (("requests", self.rpm, used), ("tokens", self.tpm, tokens)):
            if limit is None:
                continue
            reset = resets.get(what, reset)
            if vendor == "anthropic":
                when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + reset))
                headers[f"anthropic-ratelimit-{what}-limit"] = str(limit)
                headers[f"anthropic-ratelimit-{what}-remaining"] = str(max(0, limit - spent))
                headers[f"anthropic-ratelimit-{what}-reset"] = when
            elif vendor != "gemini":
                headers[f"x-ratelimit-limit-{what}"] = str(limit)
                headers[f"x-ratelimit-remaining-{what}"] = str(max(0, limit - spent))
                headers[f"x-ratelimit-reset-{what}"] = f"{reset:.3f}s"
        return headers

    def inject(self, *faults: Fault) -> None:
        with self.lock:
            self.faults.extend(faults)

    def next_fault(self) -> Fault | None:
        with self.lock:
            return self.faults.popleft() if self.faults else None

    def _refill(self, now: float) -> None:
        """Bucket mode: top the buckets up for the time since the last look (lock held)."""
        elapsed = max(0.0, now - self._bucket_at)
        self._bucket_at = now
        for name, limit in (("requests", self.rpm), ("tokens", self.tpm)):
            if limit is not None:
                left = self._buckets.get(name, float(limit))
                self._buckets[name] = min(float(limit), left + elapsed * limit / 60.0)

    def _admit_bucket(self, tokens: int) -> float | None:
        """Bucket mode of `admit` (lock held)."""
        self._refill(self.clock())
        if self.tpm is not None and tokens > self.tpm:
            return 60.0  # never fits
        wait = 0.0
        for name, limit, need in (("requests", self.rpm, 1), ("tokens", self.tpm, tokens)):
            if limit is not None and self._buckets[name] < need:
                wait = max(wait, (need - self._buckets[name]) * 60.0 / limit)
        if wait > 0:
            return max(0.001, wait)
        if self.rpm is not None:
            self._buckets["requests"] -= 1
        if self.tpm is not None:
            self._buckets["tokens"] -= tokens
        return None

    def admit(self, request: dict[str, Any]) -> float | None:
        """Count `request` against the limits; None if admitted, else seconds to wait."""
        if self.rpm is None and self.tpm is None:
            return None
        chars = sum(len(str(m.get("content", ""))) for m in request.get("messages", []))
        tokens = chars // 4 + int(request.get("max_tokens") or 0)
        if self.bucket:
            with self.lock:
                return self._admit_bucket(tokens)
        with self.lock:
            now = self.clock()
            while self._window and now - self._window[0][0] >= 60.0:
                self._window.popleft()
            over_rpm = self.rpm is not None and len(self._window) + 1 > self.rpm
            used = sum(t for _, t in self._window)
            over_tpm = self.tpm is not None and used + tokens > self.tpm
            if over_rpm or over_tpm:
                if not self._window:  # a single request above the token limit
                    return 60.0
                if over_tpm and not over_rpm:
                    # wait until enough of the window has gone to fit this request
                    freed = used
                    for stamp, t in self._window:
                        freed -= t
                        if freed + tokens <= (self.tpm or 0):
                            return max(0.001, 60.0 - (now - stamp))
                return max(0.001, 60.0 - (now - self._window[0][0]))
            self._window.append((now, tokens))
            return None

    def start(self) -> Simulator:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description="Run the provider simulator on loopback.")
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--rpm", type=int, help="requests per minute before answering 429")
    parser.add_argument("--tpm", type=int, help="tokens per minute before answering 429")
    parser.add_argument("--bucket", action="store_true", help="limits as token buckets")
    # -- answer styles (devtools/simulator_styles.py) --
    parser.add_argument(
        "--answer-styles",
        help="answer in these styles, comma-separated, or 'all' (json, markdown, final_line, "
        "brackets, think, ...); default: the requested <answer> tags",
    )
    args = parser.parse_args()
    policy: Policy = longer_resume_policy
    if args.answer_styles:
        from devtools.simulator_styles import PAIRWISE_STYLES, StyledPolicy

        wanted = args.answer_styles.strip().lower()
        styles = PAIRWISE_STYLES if wanted == "all" else tuple(s.strip() for s in wanted.split(","))
        try:
            policy = StyledPolicy(styles=styles)
        except ValueError as exc:
            parser.error(str(exc))
    # -- end of answer styles --
    sim = Simulator(
        policy,
        port=args.port,
        latency_s=args.latency,
        rpm=args.rpm,
        tpm=args.tpm,
        bucket=args.bucket,
    ).start()
    print(f"Simulator on {sim.root_url}: OpenAI {sim.base_url}, Anthropic and Gemini at the root")
    print("(Ctrl-C to stop)")
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        sim.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
