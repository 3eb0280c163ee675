"""Anthropic's Messages API (`POST /v1/messages`), over httpx.

Differences that matter to an audit: `max_tokens` is required; the system
prompt is a top-level field; temperature runs 0–1 (a higher one is sent as 1,
and the answer says so); there is no seed and there are no log-probabilities
(the answer says so when they were asked for); structured output is
`output_config.format` on the models that have it; an overloaded API answers
529; usage counts cached prompt tokens separately, and we add them back so
`input_tokens` means the whole prompt, as it does for the other vendors.
"""

from __future__ import annotations

from typing import Any

import httpx

from resume_auditor.providers.base import (
    ChatRequest,
    ChatResponse,
    ErrorKind,
    ProviderError,
    Usage,
)
from resume_auditor.providers.errors import ErrorInfo, parse_retry_after
from resume_auditor.providers.wire import Plan, WireProvider, read_json

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
MAX_TEMPERATURE = 1.0


class AnthropicProvider(WireProvider):
    wire = "anthropic"
    provider_id = "anthropic"
    stream_format: str | None = "anthropic"
    default_base_url = DEFAULT_BASE_URL

    @classmethod
    def canonical_base_url(cls, base_url: str) -> str:
        return super().canonical_base_url(base_url).removesuffix("/v1")

    display_name = "Anthropic"

    def _chat_url(self, request: ChatRequest) -> str:
        return f"{self.base_url}/v1/messages"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "anthropic-version": API_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    def plan(self, request: ChatRequest) -> Plan:
        plan = super().plan(request)
        if plan.temperature and (request.temperature or 0.0) > MAX_TEMPERATURE:
            plan.notes.append(
                f"Anthropic accepts temperatures from 0 to 1; {request.temperature:g} was sent "
                "as 1."
            )
        return plan

    def build_body(self, request: ChatRequest, plan: Plan | None = None) -> dict[str, Any]:
        plan = plan or self.plan(request)
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": plan.max_tokens,
            "messages": [{"role": "user", "content": request.user}],
        }
        if request.system:
            body["system"] = request.system
        if plan.stream:
            body["stream"] = True
        if plan.temperature and request.temperature is not None:
            body["temperature"] = max(0.0, min(MAX_TEMPERATURE, request.temperature))
        if plan.structured and request.json_schema is not None:
            body["output_config"] = {
                "format": {"type": "json_schema", "schema": request.json_schema}
            }
        return body

    def _parse(self, content: bytes, latency_s: float) -> ChatResponse:
        data = read_json(content, self.name)
        try:
            blocks = data["content"]
            text = "".join(
                str(b.get("text", ""))
                for b in blocks
                if isinstance(b, dict) and b.get("type") == "text"
            )
            stop = str(data.get("stop_reason") or "")
            raw_usage = data.get("usage") or {}
            cache_read = int(raw_usage.get("cache_read_input_tokens") or 0)
            cache_write = int(raw_usage.get("cache_creation_input_tokens") or 0)
            usage = Usage(
                input_tokens=int(raw_usage.get("input_tokens") or 0) + cache_read + cache_write,
                output_tokens=int(raw_usage.get("output_tokens") or 0),
                cached_tokens=cache_read,
            )
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise ProviderError(
                ErrorKind.MALFORMED, f"{self.name} sent an answer in an unexpected shape ({exc!r})."
            ) from exc
        if stop == "refusal":
            raise ProviderError(
                ErrorKind.REFUSED,
                f"{self.name} refused to answer"
                + (f": {text.strip()[:300]}" if text.strip() else "."),
                status=200,
                raw=data,
            )
        return ChatResponse(
            text=text,
            raw=data,
            usage=usage,
            model_version=str(data.get("model") or ""),
            finish_reason=stop,
            latency_s=latency_s,
        )

    def _error_info(self, response: httpx.Response) -> ErrorInfo:
        try:
            body: Any = response.json()
        except ValueError:
            body = None
        message = etype = ""
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            message = str(body["error"].get("message") or "")
            etype = str(body["error"].get("type") or "")
        elif response.content:
            message = response.text[:300]
        return ErrorInfo(
            response.status_code,
            message,
            type=etype,
            retry_after_s=parse_retry_after(response.headers),
        )

    async def list_models(self) -> list[str]:
        ids: list[str] = []
        after: str | None = None
        for _ in range(50):  # pages of up to 1000; a bound, not an expectation
            params = {"limit": "1000"}
            if after:
                params["after_id"] = after
            response, _ = await self._send("GET", f"{self.base_url}/v1/models", params=params)
            if response.status_code >= 400:
                raise self.error(response)
            data = read_json(response.content, self.name)
            items = data.get("data", []) if isinstance(data, dict) else []
            ids.extend(str(m["id"]) for m in items if isinstance(m, dict) and m.get("id"))
            if not (isinstance(data, dict) and data.get("has_more") and data.get("last_id")):
                break
            after = str(data["last_id"])
        return sorted(set(ids))
