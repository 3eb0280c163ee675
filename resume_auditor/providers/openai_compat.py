"""OpenAI's chat-completions wire format, and any server that speaks it, by base URL.

llama.cpp's server, Ollama's /v1, vLLM, LM Studio and the bundled local model
all answer here; `providers/openai.py`, `openrouter.py` and `azure.py` add their
own address, authentication and quirks on top. The HTTP client is passed in so
tests can substitute it.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

from resume_auditor.providers.base import (
    ChatRequest,
    ChatResponse,
    ErrorKind,
    ProviderError,
    TokenLogprob,
    Usage,
)
from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.providers.errors import (
    ErrorInfo,
    classify,
    error_from_response,
    openai_error_info,
    parse_retry_after,
    transport_error,
)
from resume_auditor.providers.wire import Plan, WireProvider, read_json

__all__ = [
    "OpenAICompatProvider",
    "error_from_response",
    "parse_chat_response",
    "parse_logprobs",
    "parse_retry_after",
    "transport_error",
]

logger = logging.getLogger(__name__)


class OpenAICompatProvider(WireProvider):
    """Chat completions against `{base_url}/chat/completions`."""

    wire = "compatible"  # any model family: settings are learnt from the server's answers
    stream_format: str | None = "openai"
    provider_id = "openai-compatible"
    # Most servers of this family still read `max_tokens`; OpenAI itself wants
    # `max_completion_tokens` (see OpenAIProvider).
    max_tokens_field = "max_tokens"

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        name: str = "OpenAI-compatible server",
        timeout_s: float = 120.0,
        send_grammar: bool = False,
        capabilities: CapabilityCache | None = None,
    ) -> None:
        super().__init__(
            base_url,
            api_key=api_key,
            client=client,
            name=name,
            timeout_s=timeout_s,
            capabilities=capabilities,
        )
        self._send_grammar = send_grammar

    def _chat_url(self, request: ChatRequest) -> str:
        return f"{self.base_url}/chat/completions"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def build_body(self, request: ChatRequest, plan: Plan | None = None) -> dict[str, Any]:
        plan = plan or self.plan(request)
        body: dict[str, Any] = {
            "model": request.model,
            "messages": request.messages(),
            self.max_tokens_field: plan.max_tokens,
            "stream": plan.stream,
        }
        if plan.stream:  # the whole request's token counts, in a last chunk
            body["stream_options"] = {"include_usage": True}
        if plan.temperature and request.temperature is not None:
            body["temperature"] = request.temperature
        if plan.seed and request.seed is not None:
            body["seed"] = request.seed
        if plan.logprobs and request.top_logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = max(0, min(request.top_logprobs, self.max_top_logprobs))
        if request.grammar and self._send_grammar:
            body["grammar"] = request.grammar
        elif plan.structured and request.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "strict": True, "schema": request.json_schema},
            }
        return body

    def _parse(self, content: bytes, latency_s: float) -> ChatResponse:
        return parse_chat_response(content, self.name, latency_s, secret=self._api_key)

    def _error_info(self, response: httpx.Response) -> ErrorInfo:
        return openai_error_info(response)

    async def list_models(self) -> list[str]:
        url = f"{self.base_url}/models"
        response, _ = await self._send("GET", url)
        if response.status_code >= 400:
            raise self.error(response)
        data = read_json(response.content, self.name)
        return sorted(set(_model_ids(data)))


def _model_ids(data: Any) -> list[str]:
    items = data.get("data", data.get("models", [])) if isinstance(data, dict) else []
    if not isinstance(items, list):
        return []
    ids = []
    for item in items:
        if isinstance(item, dict):
            value = item.get("id") or item.get("model") or item.get("name")
            if value:
                ids.append(str(value))
    return ids


def parse_logprobs(choice: dict[str, Any]) -> tuple[TokenLogprob, ...] | None:
    """`choices[0].logprobs.content` in OpenAI's shape, normalised; None if absent."""
    block = choice.get("logprobs")
    if not isinstance(block, dict):
        return None
    content = block.get("content")
    if not isinstance(content, list) or not content:
        return None
    out = []
    for item in content:
        if not isinstance(item, dict) or "logprob" not in item:
            continue
        top = tuple(
            (str(alt.get("token", "")), float(alt["logprob"]))
            for alt in item.get("top_logprobs") or []
            if isinstance(alt, dict) and isinstance(alt.get("logprob"), int | float)
        )
        out.append(TokenLogprob(str(item.get("token", "")), float(item["logprob"]), top))
    return tuple(out) or None


def parse_chat_response(
    content: bytes, provider: str, latency_s: float = 0.0, *, secret: str | None = None
) -> ChatResponse:
    """Read an OpenAI chat-completions body; a malformed one is a ProviderError."""
    data = read_json(content, provider)
    if isinstance(data, dict) and isinstance(data.get("error"), dict) and "choices" not in data:
        # OpenRouter (and some proxies) report upstream failures inside a 200.
        err = data["error"]
        status = err.get("code")
        info = ErrorInfo(
            status=status if isinstance(status, int) and status >= 400 else 502,
            message=str(err.get("message") or ""),
            code=str(err.get("code") or ""),
            type=str(err.get("type") or ""),
        )
        raise classify(info, provider, secret=secret)
    try:
        choice = data["choices"][0]
        message = choice.get("message") or {}
        text = message.get("content")
        finish = str(choice.get("finish_reason") or "")
        if isinstance(choice.get("error"), dict):
            err = choice["error"]
            raise classify(
                ErrorInfo(502, str(err.get("message") or ""), str(err.get("code") or "")),
                provider,
                secret=secret,
            )
        if text is None or (finish == "content_filter" and not text):
            refusal = message.get("refusal")
            if refusal or finish == "content_filter":
                reason = refusal or "the answer was withheld by the content filter"
                raise ProviderError(
                    ErrorKind.REFUSED, f"{provider} refused: {reason}", status=200, raw=data
                )
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
        logprobs = parse_logprobs(choice)
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
        raise ProviderError(
            ErrorKind.MALFORMED, f"{provider} sent an answer in an unexpected shape ({exc!r})."
        ) from exc
    version = [data.get("model"), data.get("system_fingerprint")]
    if data.get("provider"):  # OpenRouter names the upstream that answered
        version.append(f"via {data['provider']}")
    return ChatResponse(
        text=str(text),
        raw=data,
        usage=usage,
        model_version=" ".join(str(v) for v in version if v),
        finish_reason=finish,
        latency_s=latency_s,
        logprobs=logprobs,
    )
