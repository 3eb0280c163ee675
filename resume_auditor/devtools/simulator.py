"""A provider simulator: a real HTTP server on loopback that answers like a model API.

It speaks OpenAI's chat-completions wire format (`POST /v1/chat/completions`,
`GET /v1/models`) with scripted answers, and can inject faults: HTTP errors with
retry-after, slow answers, malformed or truncated bodies, dropped connections.
Tests and benchmarks point the app at it instead of a paid API.

    with Simulator(policy=longer_resume_policy) as sim:
        provider = OpenAICompatProvider(sim.base_url)

Run it by hand: python -m resume_auditor.devtools.simulator --port 8099
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Policy = Callable[[dict[str, Any]], str]


@dataclass
class Fault:
    """One injected failure, used by the next request that reaches the server."""

    status: int = 500
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    kind: str = "http"  # http | drop | truncate | malformed


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


def always(answer: str) -> Policy:
    return lambda _body: f"Scripted answer. <answer>{answer}</answer>"


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            data = {
                "object": "list",
                "data": [{"id": m, "object": "model"} for m in self.server.sim.models],
            }
            self._send(200, json.dumps(data).encode())
        else:
            self._send(404, b'{"error": {"message": "no such endpoint"}}')

    def do_POST(self) -> None:
        sim = self.server.sim
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, b'{"error": {"message": "no such endpoint"}}')
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send(400, b'{"error": {"message": "body is not JSON"}}')
            return
        fault = sim.next_fault()
        with sim.lock:
            sim.received += 1
            sim.bodies.append(body)
            if sim.api_key and self.headers.get("Authorization") != f"Bearer {sim.api_key}":
                fault = Fault(
                    401,
                    json.dumps(
                        {"error": {"message": "Incorrect API key", "code": "invalid_api_key"}}
                    ),
                )
        if fault is not None:
            if fault.delay_s:
                time.sleep(fault.delay_s)
            if fault.kind == "drop":
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if fault.kind in ("http",):
                self._send(
                    fault.status,
                    (fault.body or '{"error": {"message": "injected"}}').encode(),
                    fault.headers,
                )
                return
        if sim.latency_s:
            time.sleep(sim.latency_s() if callable(sim.latency_s) else sim.latency_s)
        text = sim.policy(body)
        prompt_tokens = sum(len(m.get("content", "")) for m in body.get("messages", [])) // 4
        completion_tokens = max(1, len(text) // 4)
        response = {
            "id": f"chatcmpl-sim-{sim.received}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "sim"),
            "system_fingerprint": "fp_sim",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        payload = json.dumps(response).encode()
        if fault is not None and fault.kind == "malformed":
            payload = b'{"choices": [oops'
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
        self._send(200, payload)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    sim: Simulator


class Simulator:
    def __init__(
        self,
        policy: Policy = longer_resume_policy,
        *,
        port: int = 0,
        models: tuple[str, ...] = ("sim-model",),
        latency_s: float | Callable[[], float] = 0.0,
        api_key: str | None = None,
    ) -> None:
        self.policy = policy
        self.models = models
        self.latency_s = latency_s
        self.api_key = api_key
        self.lock = threading.Lock()
        self.faults: deque[Fault] = deque()
        self.received = 0
        self.answered = 0
        self.bodies: list[dict[str, Any]] = []
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.sim = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, daemon=True, name="provider-simulator"
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def inject(self, *faults: Fault) -> None:
        with self.lock:
            self.faults.extend(faults)

    def next_fault(self) -> Fault | None:
        with self.lock:
            return self.faults.popleft() if self.faults else None

    def start(self) -> Simulator:
        self._thread.start()
        return self

    def stop(self) -> None:
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
    args = parser.parse_args()
    sim = Simulator(port=args.port, latency_s=args.latency).start()
    print(f"Simulator on {sim.base_url} (Ctrl-C to stop)")
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        sim.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
