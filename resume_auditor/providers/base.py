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
class ChatResponse:
    text: str
    raw: dict[str, Any]
    usage: Usage = field(default_factory=Usage)
    model_version: str = ""
    finish_reason: str = ""
    latency_s: float = 0.0


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
    CONNECTION = "connection"  # refused, offline, DNS, TLS
    MALFORMED = "malformed"  # a body we cannot read


RETRYABLE = {
    ErrorKind.RATE_LIMIT,
    ErrorKind.OVERLOADED,
    ErrorKind.SERVER,
    ErrorKind.TIMEOUT,
    ErrorKind.CONNECTION,
    ErrorKind.MALFORMED,
}


class ProviderError(Exception):
    """A failed request, in plain words, with whether trying again may help."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after_s = retry_after_s

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE

    def __str__(self) -> str:
        return self.message


class Provider(Protocol):
    """The interface the runner uses; one implementation per wire format."""

    name: str

    async def chat(self, request: ChatRequest) -> ChatResponse: ...

    async def list_models(self) -> list[str]: ...

    async def aclose(self) -> None: ...
