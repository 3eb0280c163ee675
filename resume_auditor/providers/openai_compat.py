"""Any server that speaks OpenAI's chat-completions format, by base URL.

llama.cpp's server, Ollama's /v1, vLLM, LM Studio, and the bundled local model
all answer here. The HTTP client is passed in so tests can substitute it.
"""

from __future__ import annotations

import json
import logging
import time
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from resume_auditor.providers.base import (
    ChatRequest,
    ChatResponse,
    ErrorKind,
    ProviderError,
    Usage,
)

logger = logging.getLogger(__name__)


def parse_retry_after(headers: httpx.Headers) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_message(body: Any) -> tuple[str, str]:
    """(message, code) from an OpenAI-style error body, tolerating other shapes."""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            msg = str(err.get("message") or err.get("detail") or "")
            code = str(err.get("code") or err.get("type") or "")
            return msg, code
        if isinstance(err, str):
            return err, ""
    return "", ""


def error_from_response(response: httpx.Response, provider: str) -> ProviderError:
    """Turn an HTTP error into a ProviderError a user can act on."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    detail, code = _error_message(body)
    detail_text = f" The server said: {detail}" if detail else ""
    retry_after = parse_retry_after(response.headers)
    if status in (401, 403):
        return ProviderError(
            ErrorKind.AUTH,
            f"{provider} rejected the API key (HTTP {status}). Check the key in Settings."
            + detail_text,
            status=status,
        )
    if status == 402 or code == "insufficient_quota":
        return ProviderError(
            ErrorKind.QUOTA,
            f"{provider} says the account is out of credits or quota (HTTP {status}). "
            "Add credits or raise the limit, then resume the run." + detail_text,
            status=status,
        )
    if status == 429:
        return ProviderError(
            ErrorKind.RATE_LIMIT,
            f"{provider} is rate limiting requests (HTTP 429); waiting before trying again."
            + detail_text,
            status=status,
            retry_after_s=retry_after,
        )
    if status == 404:
        return ProviderError(
            ErrorKind.NOT_FOUND,
            f"{provider} does not know this model or endpoint (HTTP 404). "
            "Check the model id and base URL." + detail_text,
            status=status,
        )
    if status in (400, 413, 422):
        lowered = detail.lower()
        too_long = "context" in lowered or "too long" in lowered
        if too_long or ("maximum" in lowered and "token" in lowered):
            return ProviderError(
                ErrorKind.CONTEXT,
                f"The prompt is longer than {provider}'s model accepts. "
                "Use shorter resumes or a model with a larger context." + detail_text,
                status=status,
            )
        if "content" in lowered and ("filter" in lowered or "policy" in lowered):
            return ProviderError(
                ErrorKind.REFUSED,
                f"{provider} refused the request under its content policy." + detail_text,
                status=status,
            )
        return ProviderError(
            ErrorKind.BAD_REQUEST,
            f"{provider} rejected the request (HTTP {status})." + detail_text,
            status=status,
        )
    if status in (503, 529):
        return ProviderError(
            ErrorKind.OVERLOADED,
            f"{provider} is overloaded (HTTP {status}); trying again shortly." + detail_text,
            status=status,
            retry_after_s=retry_after,
        )
    if status >= 500:
        return ProviderError(
            ErrorKind.SERVER,
            f"{provider} had a server error (HTTP {status}); trying again shortly." + detail_text,
            status=status,
            retry_after_s=retry_after,
        )
    return ProviderError(
        ErrorKind.BAD_REQUEST, f"{provider} answered HTTP {status}." + detail_text, status=status
    )


def transport_error(exc: httpx.HTTPError, provider: str, url: str) -> ProviderError:
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError(
            ErrorKind.TIMEOUT, f"{provider} did not answer in time ({type(exc).__name__})."
        )
    if isinstance(exc, httpx.ConnectError):
        text = str(exc)
        if "CERTIFICATE" in text.upper() or "SSL" in text.upper():
            return ProviderError(
                ErrorKind.CONNECTION,
                f"Could not make a secure connection to {url}: {text}. "
                "Check the address and the server's certificate.",
            )
        return ProviderError(
            ErrorKind.CONNECTION,
            f"Could not connect to {url}. Is the server running and the address right? ({text})",
        )
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return ProviderError(
            ErrorKind.CONNECTION, f"The connection to {provider} dropped before the answer ({exc})."
        )
    return ProviderError(ErrorKind.CONNECTION, f"Network error talking to {provider}: {exc}")


class OpenAICompatProvider:
    """Chat completions against `{base_url}/chat/completions`."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        name: str = "OpenAI-compatible server",
        timeout_s: float = 120.0,
        send_grammar: bool = False,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.name = name
        self._api_key = api_key
        self._own_client = client is None
        self._client = client or httpx.AsyncClient(timeout=httpx.Timeout(timeout_s, connect=10.0))
        self._send_grammar = send_grammar

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def build_body(self, request: ChatRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": request.messages(),
            "max_tokens": request.max_tokens,
            "stream": False,
        }
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.seed is not None:
            body["seed"] = request.seed
        if request.grammar and self._send_grammar:
            body["grammar"] = request.grammar
        elif request.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "strict": True, "schema": request.json_schema},
            }
        return body

    async def chat(self, request: ChatRequest) -> ChatResponse:
        url = f"{self.base_url}/chat/completions"
        body = self.build_body(request)
        started = time.monotonic()
        try:
            response = await self._client.post(url, headers=self._headers(), json=body)
        except httpx.HTTPError as exc:
            raise transport_error(exc, self.name, url) from exc
        latency = time.monotonic() - started
        if response.status_code >= 400:
            raise error_from_response(response, self.name)
        return parse_chat_response(response.content, self.name, latency)

    async def list_models(self) -> list[str]:
        url = f"{self.base_url}/models"
        try:
            response = await self._client.get(url, headers=self._headers())
        except httpx.HTTPError as exc:
            raise transport_error(exc, self.name, url) from exc
        if response.status_code >= 400:
            raise error_from_response(response, self.name)
        try:
            data = response.json()
        except ValueError as exc:
            raise ProviderError(
                ErrorKind.MALFORMED, f"{self.name} sent a model list that is not JSON."
            ) from exc
        items = data.get("data", []) if isinstance(data, dict) else []
        return sorted(str(m.get("id")) for m in items if isinstance(m, dict) and m.get("id"))

    async def aclose(self) -> None:
        if self._own_client:
            await self._client.aclose()


def parse_chat_response(content: bytes, provider: str, latency_s: float = 0.0) -> ChatResponse:
    """Read an OpenAI chat-completions body; a malformed one is a ProviderError."""
    try:
        data = json.loads(content)
    except ValueError as exc:
        raise ProviderError(
            ErrorKind.MALFORMED,
            f"{provider} sent an answer that is not valid JSON (perhaps cut off); trying again.",
        ) from exc
    try:
        choice = data["choices"][0]
        message = choice.get("message") or {}
        text = message.get("content")
        if text is None:
            refusal = message.get("refusal")
            if refusal:
                raise ProviderError(ErrorKind.REFUSED, f"{provider} refused: {refusal}")
            text = ""
        usage_raw = data.get("usage") or {}
        details = usage_raw.get("prompt_tokens_details") or {}
        out_details = usage_raw.get("completion_tokens_details") or {}
        usage = Usage(
            input_tokens=int(usage_raw.get("prompt_tokens") or 0),
            output_tokens=int(usage_raw.get("completion_tokens") or 0),
            cached_tokens=int(details.get("cached_tokens") or 0),
            reasoning_tokens=int(out_details.get("reasoning_tokens") or 0),
        )
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ProviderError(
            ErrorKind.MALFORMED, f"{provider} sent an answer in an unexpected shape ({exc!r})."
        ) from exc
    return ChatResponse(
        text=str(text),
        raw=data,
        usage=usage,
        model_version=" ".join(
            str(v) for v in (data.get("model"), data.get("system_fingerprint")) if v
        ),
        finish_reason=str(choice.get("finish_reason") or ""),
        latency_s=latency_s,
    )
