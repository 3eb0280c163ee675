"""Google's Gemini API (`models/{model}:generateContent`), over httpx.

Differences that matter to an audit: the key goes in `x-goog-api-key` (never
in the URL, where it would reach logs); a wrong key is HTTP 400 with reason
API_KEY_INVALID; a rate limit says when to come back in the body (`retryDelay`),
and a used-up daily quota looks like a rate limit but will not clear for hours,
so it is reported as out of quota; log-probabilities exist on some models only
(the server says "not enabled" on the others); thinking models (2.5 and later)
spend part of `maxOutputTokens` thinking, and their thought parts are skipped.
"""

from __future__ import annotations

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
from resume_auditor.providers.errors import ErrorInfo, parse_duration, parse_retry_after
from resume_auditor.providers.wire import Plan, WireProvider, read_json

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
API = "v1beta"
# Finish reasons that mean the answer was withheld, not given.
BLOCKED = {
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "LANGUAGE",
}


def model_path(model: str) -> str:
    return model if model.startswith(("models/", "tunedModels/")) else f"models/{model}"


class GeminiProvider(WireProvider):
    wire = "gemini"
    provider_id = "gemini"
    stream_format: str | None = "gemini"
    max_top_logprobs = 19  # the documented range is [0, 20)
    default_base_url = DEFAULT_BASE_URL

    @classmethod
    def canonical_base_url(cls, base_url: str) -> str:
        base = super().canonical_base_url(base_url)
        for suffix in ("/v1beta", "/v1"):
            base = base.removesuffix(suffix)
        return base

    display_name = "Google Gemini"

    def _chat_url(self, request: ChatRequest) -> str:
        return f"{self.base_url}/{API}/{model_path(request.model)}:generateContent"

    def _stream_url(self, request: ChatRequest) -> str:
        return f"{self.base_url}/{API}/{model_path(request.model)}:streamGenerateContent?alt=sse"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["x-goog-api-key"] = self._api_key
        return headers

    def build_body(self, request: ChatRequest, plan: Plan | None = None) -> dict[str, Any]:
        plan = plan or self.plan(request)
        config: dict[str, Any] = {"maxOutputTokens": plan.max_tokens}
        if plan.temperature and request.temperature is not None:
            config["temperature"] = request.temperature
        if plan.seed and request.seed is not None:
            config["seed"] = request.seed
        if plan.logprobs and request.top_logprobs:
            config["responseLogprobs"] = True
            config["logprobs"] = max(1, min(request.top_logprobs, self.max_top_logprobs))
        if plan.structured and request.json_schema is not None:
            config["responseMimeType"] = "application/json"
            config["responseJsonSchema"] = request.json_schema
        body: dict[str, Any] = {
            "contents": [{"role": "user", "parts": [{"text": request.user}]}],
            "generationConfig": config,
        }
        if request.system:
            body["systemInstruction"] = {"parts": [{"text": request.system}]}
        return body

    def _parse(self, content: bytes, latency_s: float) -> ChatResponse:
        data = read_json(content, self.name)
        if not isinstance(data, dict):
            raise ProviderError(ErrorKind.MALFORMED, f"{self.name} sent an unexpected answer.")
        candidates = data.get("candidates")
        if not candidates:
            block = (data.get("promptFeedback") or {}).get("blockReason")
            if block:
                raise ProviderError(
                    ErrorKind.REFUSED,
                    f"{self.name} blocked the prompt ({block}).",
                    status=200,
                    raw=data,
                )
            raise ProviderError(ErrorKind.MALFORMED, f"{self.name} sent an answer with no text.")
        try:
            cand = candidates[0]
            parts = (cand.get("content") or {}).get("parts") or []
            text = "".join(
                str(p.get("text", ""))
                for p in parts
                if isinstance(p, dict) and not p.get("thought")
            )
            finish = str(cand.get("finishReason") or "")
            meta = data.get("usageMetadata") or {}
            thoughts = int(meta.get("thoughtsTokenCount") or 0)
            usage = Usage(
                input_tokens=int(meta.get("promptTokenCount") or 0),
                # Thinking is billed as output; count it, and say how much was thinking.
                output_tokens=int(meta.get("candidatesTokenCount") or 0) + thoughts,
                cached_tokens=int(meta.get("cachedContentTokenCount") or 0),
                reasoning_tokens=thoughts,
            )
            logprobs = _logprobs(cand.get("logprobsResult"))
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            raise ProviderError(
                ErrorKind.MALFORMED, f"{self.name} sent an answer in an unexpected shape ({exc!r})."
            ) from exc
        if finish in BLOCKED and not text.strip():
            raise ProviderError(
                ErrorKind.REFUSED,
                f"{self.name} withheld the answer ({finish}).",
                status=200,
                raw=data,
            )
        return ChatResponse(
            text=text,
            raw=data,
            usage=usage,
            model_version=str(data.get("modelVersion") or ""),
            finish_reason=finish,
            latency_s=latency_s,
            logprobs=logprobs,
        )

    def _error_info(self, response: httpx.Response) -> ErrorInfo:
        try:
            body: Any = response.json()
        except ValueError:
            body = None
        if isinstance(body, list) and body:  # some Google front ends wrap it in a list
            body = body[0]
        message = status_name = reason = ""
        retry = parse_retry_after(response.headers)
        daily = False
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            err = body["error"]
            message = str(err.get("message") or "")
            status_name = str(err.get("status") or "")
            for detail in err.get("details") or []:
                if not isinstance(detail, dict):
                    continue
                kind = str(detail.get("@type", ""))
                if kind.endswith("RetryInfo") and detail.get("retryDelay"):
                    retry = parse_duration(str(detail["retryDelay"]))
                elif kind.endswith("ErrorInfo") and detail.get("reason"):
                    reason = str(detail["reason"])
                elif kind.endswith("QuotaFailure"):
                    for violation in detail.get("violations") or []:
                        quota = str((violation or {}).get("quotaId", ""))
                        if "PerDay" in quota:
                            daily = True
        elif response.content:
            message = response.text[:300]
        return ErrorInfo(
            response.status_code,
            message,
            code=reason,
            type=status_name,
            retry_after_s=retry,
            extra={"daily_quota": daily},
        )

    async def list_models(self) -> list[str]:
        ids: list[str] = []
        token: str | None = None
        for _ in range(50):  # pages; a bound, not an expectation
            params = {"pageSize": "1000"}
            if token:
                params["pageToken"] = token
            response, _ = await self._send("GET", f"{self.base_url}/{API}/models", params=params)
            if response.status_code >= 400:
                raise self.error(response)
            data = read_json(response.content, self.name)
            for m in data.get("models", []) if isinstance(data, dict) else []:
                if not isinstance(m, dict) or not m.get("name"):
                    continue
                if "generateContent" in (m.get("supportedGenerationMethods") or []):
                    ids.append(str(m["name"]).removeprefix("models/"))
            token = data.get("nextPageToken") if isinstance(data, dict) else None
            if not token:
                break
        return sorted(set(ids))


def _logprobs(result: Any) -> tuple[TokenLogprob, ...] | None:
    """Gemini's `logprobsResult` in the shared shape; None if absent."""
    if not isinstance(result, dict):
        return None
    chosen = result.get("chosenCandidates") or []
    tops = result.get("topCandidates") or []
    out = []
    for i, pick in enumerate(chosen):
        if not isinstance(pick, dict):
            continue
        alts = tops[i].get("candidates", []) if i < len(tops) and isinstance(tops[i], dict) else []
        top = tuple(
            (str(a.get("token", "")), float(a.get("logProbability", 0.0)))
            for a in alts
            if isinstance(a, dict)
        )
        logprob = float(pick.get("logProbability", 0.0))
        out.append(TokenLogprob(str(pick.get("token", "")), logprob, top))
    return tuple(out) or None
