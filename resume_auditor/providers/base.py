"""What every provider takes and returns, and the errors it may raise."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol


@dataclass(frozen=True)
class ChatRequest:
    """One system + user turn to one model."""

    model: str
    system: str
    user: str
    temperature: float | None = 0.0
    max_tokens: int = 256
    seed: int | None = None
    # Constrained output where the server supports it. `grammar` is a GBNF
    # grammar (llama.cpp); `json_schema` a JSON schema (OpenAI-style servers).
    grammar: str | None = None
    json_schema: dict[str, Any] | None = None
    # Opt-in token log-probabilities: how many alternatives to return for each
    # output token (clamped to what the vendor allows). None asks for none. A
    # model that cannot give them answers anyway, with `ChatResponse.logprobs`
    # None and "logprobs" in `ChatResponse.unsupported`.
    top_logprobs: int | None = None

    def messages(self) -> list[dict[str, str]]:
        out = []
        if self.system:
            out.append({"role": "system", "content": self.system})
        out.append({"role": "user", "content": self.user})
        return out


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass(frozen=True)
class TokenLogprob:
    """One output token, its natural-log probability, and the top alternatives.

    `top` holds (token, logprob) pairs, most likely first, as the server sent
    them (it usually includes the chosen token itself). Tokens are the model's
    own pieces, so "Yes", " Yes" and "yes" are different entries.
    """

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class ChatResponse:
    text: str
    raw: dict[str, Any]
    usage: Usage = field(default_factory=Usage)
    model_version: str = ""
    finish_reason: str = ""
    latency_s: float = 0.0
    # One entry per output token, in order, when log-probabilities were asked
    # for and the model gave them; None otherwise (see docs/providers.md).
    logprobs: tuple[TokenLogprob, ...] | None = None
    # Settings that were asked for but not applied because this model refuses
    # them: any of "temperature", "seed", "logprobs", "structured_output".
    unsupported: tuple[str, ...] = ()
    # Plain sentences for the user about how this answer was obtained (a
    # setting the model refused, a raised token limit for a reasoning model).
    notes: tuple[str, ...] = ()
    # False when the answer came without the provider's token counts (a stream that
    # ended without its usage chunk): `usage` is then zeros, and the runner estimates
    # them (runner/answering.py) and marks the answer and its cost as estimated.
    usage_reported: bool = True


class ErrorKind(StrEnum):
    AUTH = "auth"  # wrong or missing key
    QUOTA = "quota"  # out of credits: never retried
    RATE_LIMIT = "rate_limit"
    OVERLOADED = "overloaded"
    SERVER = "server"  # 5xx
    NOT_FOUND = "not_found"  # model or endpoint
    CONTEXT = "context"  # prompt too long
    REFUSED = "refused"  # content filtered or refused
    BAD_REQUEST = "bad_request"
    TIMEOUT = "timeout"
    CONNECTION = "connection"  # refused, offline, DNS
    MALFORMED = "malformed"  # a body we cannot read, or one cut off
    TLS = "tls"  # the secure connection failed: retrying will not fix a certificate
    CRASHED = "crashed"  # the model's own process died (the bundled model): a restart dies again


RETRYABLE = {
    ErrorKind.RATE_LIMIT,
    ErrorKind.OVERLOADED,
    ErrorKind.SERVER,
    ErrorKind.TIMEOUT,
    ErrorKind.CONNECTION,
    ErrorKind.MALFORMED,
}

# Errors no retry and no other request can get past: a wrong key, no credit, an
# unknown model, a certificate the computer does not trust, a local model whose
# process dies on a signal (an illegal instruction dies again on every restart).
FATAL = {ErrorKind.AUTH, ErrorKind.QUOTA, ErrorKind.NOT_FOUND, ErrorKind.TLS, ErrorKind.CRASHED}


class ProviderError(Exception):
    """A failed request, in plain words, with whether trying again may help."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after_s: float | None = None,
        raw: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after_s = retry_after_s
        # The body the server sent, when it was a readable answer that we
        # still cannot use (a refusal, a filtered completion): it may have
        # been paid for, so the runner can keep it as evidence.
        self.raw = raw

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE

    @property
    def fatal(self) -> bool:
        """Every other request of the run would fail the same way: stop the run."""
        return self.kind in FATAL

    def __str__(self) -> str:
        return self.message


class Provider(Protocol):
    """The interface the runner uses; one implementation per wire format."""

    name: str

    async def chat(self, request: ChatRequest) -> ChatResponse: ...

    async def list_models(self) -> list[str]: ...

    async def aclose(self) -> None: ...


class BatchProvider(Protocol):
    """What batch code (runner/batch_backends.py) may use of a provider, and nothing more.

    A vendor's batch API is a few HTTP calls around the same request bodies and
    answers as synchronous calls, so the provider lends batch code exactly that:
    the body a request is sent with, the reading of an answer body (with the same
    notes, refused-setting memory and redaction as a synchronous answer), the
    reading of an error body, and authenticated HTTP to its own server. Batch code
    never reaches into a provider's private attributes; tests/test_batch_public.py
    checks it.
    """

    name: str
    base_url: str

    def batch_body(self, request: ChatRequest) -> dict[str, Any]:
        """The request body this request would be sent with now (settings the model
        is known to refuse already left out)."""
        ...

    def batch_answer(self, request: ChatRequest, body: Any) -> ChatResponse:
        """A batched answer body read as the same synchronous answer would be;
        raises ProviderError for a body that is no usable answer."""
        ...

    def batch_error(self, status: int, body: Any) -> ProviderError:
        """A batched error body (vendor JSON, HTTP-like status) as a plain error."""
        ...

    async def batch_call(
        self, method: str, url: str, *, body: Any = None, params: dict[str, str] | None = None
    ) -> Any:
        """One authenticated JSON call to the provider's server; the decoded JSON
        answer, or ProviderError on a transport failure or an error status."""
        ...

    async def batch_download(self, url: str) -> bytes:
        """An authenticated GET of a file (batch results); ProviderError on failure."""
        ...

    async def batch_upload(
        self, url: str, *, filename: str, content: bytes, content_type: str, fields: dict[str, str]
    ) -> Any:
        """An authenticated multipart upload of one file (a batch's input lines);
        the decoded JSON answer, or ProviderError."""
        ...
