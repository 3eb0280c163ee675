"""What every HTTP wire format shares: sending, timing, and refused settings.

A concrete provider (OpenAI chat completions, Anthropic Messages, Gemini
generateContent) says how to build a body for a `Plan`, how to read an answer
and how to read an error. This base class sends it, turns network failures into
plain errors, and when the server refuses an optional setting (a reasoning model
and `temperature`, a model without log-probabilities) drops that setting, tries
again at once, remembers the finding and tells the user on the answer.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from resume_auditor.providers.base import (
    ChatRequest,
    ChatResponse,
    ErrorKind,
    ProviderError,
)
from resume_auditor.providers.capabilities import (
    FEATURES,
    LOGPROBS,
    REASONING_HEADROOM_TOKENS,
    SEED,
    STRUCTURED,
    TEMPERATURE,
    CapabilityCache,
    ModelTraits,
    default_cache,
    model_key,
    model_traits,
    rejected_feature,
)
from resume_auditor.providers.errors import ErrorInfo, classify, transport_error
from resume_auditor.providers.streaming import PULSE, READERS, Pulse

logger = logging.getLogger(__name__)

_NOTES = {
    TEMPERATURE: "{model} does not accept a temperature setting; it answered at its own "
    "default, so repeated answers may differ.",
    SEED: "{model} does not accept a seed; repeated answers may differ.",
    LOGPROBS: "{model} does not give token log-probabilities; scores come from the answer "
    "text instead.",
    STRUCTURED: "{model} does not accept a JSON schema for its answer; the answer is read "
    "from free text.",
}


@dataclass
class Plan:
    """The optional settings one attempt sends, and what was dropped on the way."""

    temperature: bool
    seed: bool
    logprobs: bool
    structured: bool
    max_tokens: int
    reasoning: bool = False
    stream: bool = False  # ask for a streamed answer (providers/streaming.py)
    dropped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def sent(self) -> set[str]:
        on = {
            TEMPERATURE: self.temperature,
            SEED: self.seed,
            LOGPROBS: self.logprobs,
            STRUCTURED: self.structured,
        }
        return {f for f, v in on.items() if v}

    def drop(self, feature: str) -> None:
        setattr(self, "structured" if feature == STRUCTURED else feature, False)
        if feature not in self.dropped:
            self.dropped.append(feature)


def _about_streaming(info: ErrorInfo) -> bool:
    text = f"{info.message} {info.param or ''} {info.code}".lower()
    return re.search(r"\bstream(?:_options|ing)?\b", text) is not None


def _has_usage(body: dict[str, Any]) -> bool:
    """Did an assembled streamed body bring its token counts (any vendor's shape)?"""
    return any(isinstance(body.get(k), dict) for k in ("usage", "usageMetadata")) or (
        "error" in body
    )


def read_json(content: bytes, provider: str) -> Any:
    try:
        return json.loads(content)
    except ValueError as exc:
        raise ProviderError(
            ErrorKind.MALFORMED,
            f"{provider} sent an answer that is not valid JSON (perhaps cut off); trying again.",
        ) from exc


class WireProvider:
    """Shared machinery; subclasses implement the vendor's wire format."""

    wire = "openai"  # which family of model ids `model_traits` applies
    # The vendor's streamed format (providers/streaming.py READERS), or None: never streamed.
    stream_format: str | None = None
    # Whether the vendor documents log-probabilities in its streamed chunks (OpenAI).
    streams_logprobs = False
    provider_id = "openai-compatible"  # the registry id, for capability memory
    max_top_logprobs = 20
    default_base_url = ""

    @classmethod
    def canonical_base_url(cls, base_url: str) -> str:
        """The base URL as this provider uses it (defaults filled in, suffixes trimmed)."""
        return (base_url.strip() or cls.default_base_url).rstrip("/")

    display_name = "The model server"  # what messages call it, unless given a name

    def __init__(
        self,
        base_url: str = "",
        *,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        name: str | None = None,
        timeout_s: float = 120.0,
        capabilities: CapabilityCache | None = None,
    ) -> None:
        self.base_url = self.canonical_base_url(base_url)
        self.name = name or self.display_name
        self._api_key = api_key or None
        self._own_client = client is None
        self._client = client or httpx.AsyncClient(timeout=httpx.Timeout(timeout_s, connect=10.0))
        self._caps = capabilities if capabilities is not None else default_cache()
        # models this server will not stream for us (refused it, or streamed no usage)
        self._no_stream: set[str] = set()

    # -- to implement ----------------------------------------------------------------

    def _chat_url(self, request: ChatRequest) -> str:
        raise NotImplementedError

    def _stream_url(self, request: ChatRequest) -> str:
        """Where a streamed answer is asked for (the same address, for most vendors)."""
        return self._chat_url(request)

    def _headers(self) -> dict[str, str]:
        raise NotImplementedError

    def build_body(self, request: ChatRequest, plan: Plan | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def _parse(self, content: bytes, latency_s: float) -> ChatResponse:
        raise NotImplementedError

    def _error_info(self, response: httpx.Response) -> ErrorInfo:
        raise NotImplementedError

    async def list_models(self) -> list[str]:
        raise NotImplementedError

    # -- shared ------------------------------------------------------------------------

    @classmethod
    def traits_for(cls, model: str) -> ModelTraits:
        """What is known ahead about `model` on this wire format."""
        return model_traits(cls.wire, model)

    def traits(self, model: str) -> ModelTraits:
        return self.traits_for(model)

    def key(self, model: str) -> str:
        return model_key(self.provider_id, self.base_url, model)

    def known(self, model: str, feature: str) -> bool | None:
        """What is known about `model` and `feature`: True, False, or None (not yet)."""
        if feature in self.traits(model).refuses:
            return False
        return self._caps.get(self.key(model), feature)

    def plan(self, request: ChatRequest) -> Plan:
        traits = self.traits(request.model)
        plan = Plan(
            temperature=request.temperature is not None,
            seed=request.seed is not None,
            logprobs=bool(request.top_logprobs),
            structured=request.json_schema is not None,
            max_tokens=request.max_tokens,
            reasoning=traits.reasoning,
        )
        for feature in plan.sent():
            if self.known(request.model, feature) is False:
                plan.drop(feature)
        if traits.reasoning:
            plan.max_tokens = request.max_tokens + REASONING_HEADROOM_TOKENS
            plan.notes.append(
                f"{request.model} reasons before it answers: its token limit was raised by "
                f"{REASONING_HEADROOM_TOKENS} so the hidden reasoning does not crowd out the "
                "answer (you pay only for tokens it uses)."
            )
        return plan

    def _headers_for_log(self) -> dict[str, str]:
        from resume_auditor.providers.redact import redact_headers

        return redact_headers(self._headers())

    async def _send(
        self, method: str, url: str, *, body: Any = None, params: dict[str, str] | None = None
    ) -> tuple[httpx.Response, float]:
        logger.debug("%s %s headers=%s", method, url, self._headers_for_log())
        started = time.monotonic()
        try:
            response = await self._client.request(
                method, url, headers=self._headers(), json=body, params=params
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise transport_error(exc, self.name, url) from exc
        return response, time.monotonic() - started

    def error(self, response: httpx.Response) -> ProviderError:
        return classify(self._error_info(response), self.name, secret=self._api_key)

    def streams(self, request: ChatRequest, plan: Plan) -> bool:
        """Ask for a streamed answer? When someone watches for signs of life (the runner
        sets a `Pulse`), the vendor streams (with log-probabilities, when they are
        asked for), and this model has not refused streaming or streamed without its
        token counts or log-probabilities."""
        return (
            self.stream_format is not None
            and PULSE.get() is not None
            and (not plan.logprobs or self.streams_logprobs)
            and request.model not in self._no_stream
        )

    async def _send_streamed(
        self, url: str, body: Any, pulse: Pulse
    ) -> tuple[httpx.Response, dict[str, Any] | None, float]:
        """POST and read a streamed answer, beating `pulse` on every line that arrives.

        (the response, the assembled body or None when the server did not stream: an
        error status, or a server that ignores `stream` and answers in one body; its
        latency). A stream cut short raises a retryable ProviderError.
        """
        assert self.stream_format is not None
        logger.debug("POST %s (streamed) headers=%s", url, self._headers_for_log())
        started = time.monotonic()
        try:
            async with self._client.stream(
                "POST", url, headers=self._headers(), json=body
            ) as response:
                pulse.beat()  # the status line and headers arrived
                kind = response.headers.get("content-type", "")
                if response.status_code >= 400 or "event-stream" not in kind:
                    await response.aread()
                    return response, None, time.monotonic() - started
                pulse.streamed = True
                reader = READERS[self.stream_format](self.name, self._api_key)
                async for line in response.aiter_lines():
                    pulse.beat()
                    reader.feed_line(line)
                    if reader.done:
                        break
                data = reader.close()
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise transport_error(exc, self.name, url) from exc
        return response, data, time.monotonic() - started

    async def chat(self, request: ChatRequest) -> ChatResponse:
        plan = self.plan(request)
        key = self.key(request.model)
        pulse = PULSE.get()
        for _ in range(len(FEATURES) + 2):
            plan.stream = pulse is not None and self.streams(request, plan)
            body = self.build_body(request, plan)
            streamed: dict[str, Any] | None = None
            if plan.stream:
                assert pulse is not None
                url = self._stream_url(request)
                response, streamed, latency = await self._send_streamed(url, body, pulse)
            else:
                url = self._chat_url(request)
                response, latency = await self._send("POST", url, body=body)
            if response.status_code >= 400:
                info = self._error_info(response)
                if plan.stream and info.status in (400, 404, 422) and _about_streaming(info):
                    # A server (an older Azure API version, a small local server) that
                    # will not stream, or not with usage: nothing was made; ask again.
                    logger.info("%s refuses streaming; asking without it", request.model)
                    self._no_stream.add(request.model)
                    continue
                feature = None
                if response.status_code in (400, 404, 422):
                    feature = self.refused_feature(info, plan)
                if feature is None:
                    raise classify(info, self.name, secret=self._api_key)
                logger.info("%s refuses %s; trying again without it", request.model, feature)
                self._caps.set(key, feature, False)
                plan.drop(feature)
                continue
            learn = True
            if streamed is None:
                answer = self._parse(response.content, latency)
            else:
                answer = self._parse(json.dumps(streamed).encode(), latency)
                if plan.logprobs and not answer.logprobs:
                    # Said nothing about the model (a server may drop them from streams
                    # only): not remembered as lacking them; asked plainly from now on.
                    learn = False
                    self._no_stream.add(request.model)
                if not _has_usage(streamed):
                    # Token counts are the audit's cost: this model is asked without
                    # streaming from now on, where they come whole; this answer's are
                    # estimated by the runner, and marked so.
                    self._no_stream.add(request.model)
                    plan.notes.append(
                        f"{self.name} streamed this answer without its token counts; later "
                        "requests to this model are not streamed."
                    )
                    answer = dataclasses.replace(answer, usage_reported=False)
            return self._finish(request, plan, answer, learn_logprobs=learn)
        raise ProviderError(
            ErrorKind.BAD_REQUEST, f"{self.name} kept rejecting the request's settings."
        )

    def refused_feature(self, info: ErrorInfo, plan: Plan) -> str | None:
        """The optional setting a 4xx answer objects to (None: a real error)."""
        if info.status == 404:
            return None
        return rejected_feature(info.message, info.param, plan.sent())

    def _finish(
        self,
        request: ChatRequest,
        plan: Plan,
        answer: ChatResponse,
        *,
        learn_logprobs: bool = True,
    ) -> ChatResponse:
        key = self.key(request.model)
        notes = list(plan.notes)
        logprobs = answer.logprobs
        if plan.logprobs:
            got = bool(logprobs)
            # An empty answer has no tokens to score: it proves nothing either way.
            if learn_logprobs and (got or answer.text.strip()):
                self._caps.set(key, LOGPROBS, got)
            if not got:
                plan.drop(LOGPROBS)
                logprobs = None
        elif not request.top_logprobs:
            logprobs = None
        if plan.structured:
            self._caps.set(key, STRUCTURED, True)
        if answer.usage.reasoning_tokens and not plan.reasoning:
            notes.append(
                f"{request.model} spent {answer.usage.reasoning_tokens} tokens reasoning "
                "before it answered."
            )
        if not answer.text.strip() and answer.finish_reason.lower() in ("length", "max_tokens"):
            notes.append(
                f"{request.model} used its whole token limit ({plan.max_tokens}) before giving "
                "an answer; raise max_tokens for this model."
            )
        notes.extend(_NOTES[f].format(model=request.model) for f in plan.dropped)
        from resume_auditor.providers.redact import redact, redact_json

        return dataclasses.replace(
            answer,
            # a proxy or gateway may echo the request, key included: never stored
            text=redact(answer.text, self._api_key, shapes=False),
            raw=redact_json(answer.raw, self._api_key, shapes=False),
            logprobs=logprobs,
            unsupported=tuple(plan.dropped),
            notes=tuple(dict.fromkeys([*answer.notes, *notes])),
        )

    # -- batch interface (base.BatchProvider) ---------------------------------------

    def batch_body(self, request: ChatRequest) -> dict[str, Any]:
        return self.build_body(request, self.plan(request))

    def batch_answer(self, request: ChatRequest, body: Any) -> ChatResponse:
        # The plan is made afresh, as for the line that was sent: the notes and the
        # capability memory come out as for a synchronous answer.
        plan = self.plan(request)
        answer = self._parse(json.dumps(body).encode(), 0.0)
        return self._finish(request, plan, answer)

    def batch_error(self, status: int, body: Any) -> ProviderError:
        err = body.get("error", body) if isinstance(body, dict) else {}
        if not isinstance(err, dict):
            err = {"message": str(err)}
        info = ErrorInfo(
            status=status,
            message=str(err.get("message") or ""),
            code=str(err.get("code") or ""),
            type=str(err.get("type") or ""),
        )
        return classify(info, self.name, secret=self._api_key)

    async def batch_call(
        self, method: str, url: str, *, body: Any = None, params: dict[str, str] | None = None
    ) -> Any:
        response, _ = await self._send(method, url, body=body, params=params)
        if response.status_code >= 400:
            raise self.error(response)
        return read_json(response.content, self.name)

    async def batch_download(self, url: str) -> bytes:
        response, _ = await self._send("GET", url)
        if response.status_code >= 400:
            raise self.error(response)
        return response.content

    async def batch_upload(
        self, url: str, *, filename: str, content: bytes, content_type: str, fields: dict[str, str]
    ) -> Any:
        # httpx sets the multipart content type with its boundary; ours would break it.
        headers = {k: v for k, v in self._headers().items() if k.lower() != "content-type"}
        logger.debug("POST %s (upload %s) headers=%s", url, filename, self._headers_for_log())
        try:
            response = await self._client.post(
                url, headers=headers, data=fields, files={"file": (filename, content, content_type)}
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise transport_error(exc, self.name, url) from exc
        if response.status_code >= 400:
            raise self.error(response)
        return read_json(response.content, self.name)

    async def aclose(self) -> None:
        if self._own_client:
            await self._client.aclose()
