"""The two batch APIs: OpenAI Batch and Anthropic Message Batches.

Both take many requests at once, answer within a day (most within an hour) and
charge half price. OpenAI wants a JSONL file uploaded to /v1/files, then a batch
made from it, and hands back output and error files; Anthropic takes the requests
in one JSON body and hands back JSONL results. Each request carries our own
`custom_id` ("r<request id>"), which is how answers find their request again.

The request bodies are built and the answers read by the provider itself, through
its public batch interface (providers/base.py `BatchProvider`: `batch_body`,
`batch_answer`, `batch_error`, `batch_call`, `batch_download`, `batch_upload`), so
a batched answer is exactly what the same request would have given synchronously,
notes and refused settings included. Nothing here touches a provider's private
attributes (tests/test_batch_public.py).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from resume_auditor.providers.anthropic import AnthropicProvider
from resume_auditor.providers.base import (
    BatchProvider,
    ChatRequest,
    ChatResponse,
    ErrorKind,
    Provider,
    ProviderError,
)
from resume_auditor.providers.openai import OpenAIProvider

logger = logging.getLogger(__name__)

BATCH_PROVIDERS = ("openai", "anthropic")


@dataclass(frozen=True)
class BatchPoll:
    """Where a batch stands at the provider."""

    ended: bool  # no more answers will come (finished, expired, cancelled or failed)
    status: str  # the provider's word for it
    done: int  # requests answered so far
    total: int
    failed: bool = False  # the whole batch failed (nothing to collect)
    message: str = ""


Result = tuple[str, ChatResponse | ProviderError]


class BatchBackend(Protocol):
    name: str
    max_requests: int
    max_bytes: int

    def line_size(self, custom_id: str, request: ChatRequest) -> int: ...

    async def submit(self, items: Sequence[tuple[str, ChatRequest]], key: str) -> str: ...

    async def find(self, key: str) -> str | None: ...

    async def poll(self, remote_id: str) -> BatchPoll: ...

    async def results(self, remote_id: str, requests: dict[str, ChatRequest]) -> list[Result]: ...


def _inner(provider: Provider) -> Provider:
    return getattr(provider, "inner", provider)


def backend_for(provider: Provider) -> BatchBackend:
    """The batch API of this provider; a plain error when it has none."""
    inner = _inner(provider)
    if isinstance(inner, OpenAIProvider) and inner.provider_id == "openai":
        return OpenAIBatch(inner)
    if isinstance(inner, AnthropicProvider) and inner.provider_id == "anthropic":
        return AnthropicBatch(inner)
    raise ProviderError(
        ErrorKind.BAD_REQUEST,
        "Batch mode works with OpenAI and Anthropic only. Run without --batch for this provider.",
    )


class _Base:
    def __init__(self, provider: BatchProvider) -> None:
        self.provider = provider
        self.name = provider.name

    async def _call(
        self, method: str, url: str, *, body: Any = None, params: dict[str, str] | None = None
    ) -> Any:
        return await self.provider.batch_call(method, url, body=body, params=params)

    async def _raw(self, url: str) -> bytes:
        return await self.provider.batch_download(url)

    def _answer(self, request: ChatRequest, body: dict[str, Any]) -> ChatResponse | ProviderError:
        """A result body read exactly as a synchronous answer would be."""
        try:
            return self.provider.batch_answer(request, body)
        except ProviderError as exc:
            return exc

    def _error(self, status: int, body: Any) -> ProviderError:
        return self.provider.batch_error(status, body)


class OpenAIBatch(_Base):
    max_requests = 50_000
    max_bytes = 190 * 1024 * 1024  # the limit is 200 MB per file

    def _line(self, custom_id: str, request: ChatRequest) -> bytes:
        body = self.provider.batch_body(request)
        line = {
            "custom_id": custom_id,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": body,
        }
        return (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")

    def line_size(self, custom_id: str, request: ChatRequest) -> int:
        return len(self._line(custom_id, request))

    async def submit(self, items: Sequence[tuple[str, ChatRequest]], key: str) -> str:
        content = b"".join(self._line(cid, req) for cid, req in items)
        uploaded = await self.provider.batch_upload(
            f"{self.provider.base_url}/files",
            filename=f"{key}.jsonl",
            content=content,
            content_type="application/jsonl",
            fields={"purpose": "batch"},
        )
        file_id = str(uploaded["id"])
        batch = await self._call(
            "POST",
            f"{self.provider.base_url}/batches",
            body={
                "input_file_id": file_id,
                "endpoint": "/v1/chat/completions",
                "completion_window": "24h",
                "metadata": {"resume_auditor": key},
            },
        )
        return str(batch["id"])

    async def find(self, key: str) -> str | None:
        """A batch submitted under `key` whose id we did not get to record (a crash)."""
        data = await self._call("GET", f"{self.provider.base_url}/batches", params={"limit": "100"})
        for batch in data.get("data", []) if isinstance(data, dict) else []:
            if (batch.get("metadata") or {}).get("resume_auditor") == key:
                return str(batch["id"])
        return None

    async def poll(self, remote_id: str) -> BatchPoll:
        data = await self._call("GET", f"{self.provider.base_url}/batches/{remote_id}")
        status = str(data.get("status", ""))
        counts = data.get("request_counts") or {}
        done = int(counts.get("completed") or 0) + int(counts.get("failed") or 0)
        ended = status in ("completed", "expired", "cancelled", "failed")
        message = ""
        if status == "failed":
            errors = (data.get("errors") or {}).get("data") or []
            message = "; ".join(str(e.get("message", "")) for e in errors[:3]) or "the batch failed"
        return BatchPoll(
            ended, status, done, int(counts.get("total") or 0), status == "failed", message
        )

    async def results(self, remote_id: str, requests: dict[str, ChatRequest]) -> list[Result]:
        data = await self._call("GET", f"{self.provider.base_url}/batches/{remote_id}")
        out: list[Result] = []
        for field in ("output_file_id", "error_file_id"):
            file_id = data.get(field)
            if not file_id:
                continue
            content = await self._raw(f"{self.provider.base_url}/files/{file_id}/content")
            for raw_line in content.decode("utf-8").splitlines():
                if not raw_line.strip():
                    continue
                line = json.loads(raw_line)
                cid = str(line.get("custom_id", ""))
                if cid not in requests:
                    continue
                response = line.get("response") or {}
                status = int(response.get("status_code") or 0)
                if status == 200:
                    out.append((cid, self._answer(requests[cid], response.get("body") or {})))
                elif line.get("error"):
                    err = line["error"]
                    out.append(
                        (
                            cid,
                            ProviderError(
                                ErrorKind.SERVER, f"{self.name}: {err.get('message', err)}"
                            ),
                        )
                    )
                else:
                    out.append((cid, self._error(status or 500, response.get("body") or {})))
        return out


class AnthropicBatch(_Base):
    max_requests = 100_000
    max_bytes = 240 * 1024 * 1024  # the limit is 256 MB per batch

    def _params(self, request: ChatRequest) -> dict[str, Any]:
        return self.provider.batch_body(request)

    def line_size(self, custom_id: str, request: ChatRequest) -> int:
        item = {"custom_id": custom_id, "params": self._params(request)}
        return len(json.dumps(item, ensure_ascii=False).encode("utf-8")) + 2

    async def submit(self, items: Sequence[tuple[str, ChatRequest]], key: str) -> str:
        body = {"requests": [{"custom_id": cid, "params": self._params(req)} for cid, req in items]}
        data = await self._call("POST", f"{self.provider.base_url}/v1/messages/batches", body=body)
        return str(data["id"])

    async def find(self, key: str) -> str | None:
        return None  # Anthropic batches carry no metadata to find them by

    async def poll(self, remote_id: str) -> BatchPoll:
        data = await self._call("GET", f"{self.provider.base_url}/v1/messages/batches/{remote_id}")
        status = str(data.get("processing_status", ""))
        counts = data.get("request_counts") or {}
        done = sum(int(counts.get(k) or 0) for k in ("succeeded", "errored", "canceled", "expired"))
        total = done + int(counts.get("processing") or 0)
        return BatchPoll(status == "ended", status, done, total)

    async def results(self, remote_id: str, requests: dict[str, ChatRequest]) -> list[Result]:
        data = await self._call("GET", f"{self.provider.base_url}/v1/messages/batches/{remote_id}")
        url = data.get("results_url") or (
            f"{self.provider.base_url}/v1/messages/batches/{remote_id}/results"
        )
        if url.startswith("/"):
            url = self.provider.base_url + url
        content = await self._raw(str(url))
        out: list[Result] = []
        for raw_line in content.decode("utf-8").splitlines():
            if not raw_line.strip():
                continue
            line = json.loads(raw_line)
            cid = str(line.get("custom_id", ""))
            if cid not in requests:
                continue
            result = line.get("result") or {}
            kind = result.get("type")
            if kind == "succeeded":
                out.append((cid, self._answer(requests[cid], result.get("message") or {})))
            elif kind == "errored":
                inner = (result.get("error") or {}).get("error") or result.get("error") or {}
                out.append(
                    (
                        cid,
                        self._error(
                            500 if inner.get("type") == "api_error" else 400, {"error": inner}
                        ),
                    )
                )
            else:
                out.append(
                    (
                        cid,
                        ProviderError(
                            ErrorKind.SERVER, f"{self.name}: the request was {kind} in the batch."
                        ),
                    )
                )
        return out
