"""HTTP and network failures turned into `ProviderError`s a user can act on.

Every wire format reads its own error body into an `ErrorInfo` (status, message,
code, type, param); `classify` then decides the kind the same way for all of
them, so "out of credits" or "rate limited" mean the same thing whichever vendor
said it. Anything the server echoes back is redacted before it is shown, stored
or logged: vendors quote (parts of) the key in some auth errors.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx

from resume_auditor.providers.base import ErrorKind, ProviderError
from resume_auditor.providers.redact import redact


@dataclass(frozen=True)
class ErrorInfo:
    """What a vendor's error body says, in one shape."""

    status: int
    message: str = ""
    code: str = ""  # e.g. insufficient_quota, context_length_exceeded, API_KEY_INVALID
    type: str = ""  # e.g. rate_limit_error, RESOURCE_EXHAUSTED
    param: str = ""  # the request field the server objects to, when it says
    retry_after_s: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def parse_duration(text: str) -> float | None:
    """Seconds in '6m0s', '1.5s', '20ms', '37s' (OpenAI reset headers, Gemini retryDelay)."""
    text = text.strip()
    if not text:
        return None
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text.replace(" ", ""):
        try:
            return max(0.0, float(text))
        except ValueError:
            return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(n) * scale[u] for n, u in parts)


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


def reset_hint(headers: httpx.Headers) -> float | None:
    """When no retry-after came: the reset time of an exhausted OpenAI-style limit."""
    waits = []
    for what in ("requests", "tokens"):
        remaining = headers.get(f"x-ratelimit-remaining-{what}")
        reset = headers.get(f"x-ratelimit-reset-{what}")
        if remaining is not None and reset and remaining.strip() == "0":
            seconds = parse_duration(reset)
            if seconds is not None:
                waits.append(seconds)
    return max(waits) if waits else None


def _has(text: str, *words: str) -> bool:
    return any(w in text for w in words)


_AUTH_CODES = {
    "invalid_api_key",
    "authentication_error",
    "permission_error",
    "api_key_invalid",
    "unauthenticated",
    "permission_denied",
    "invalid_authentication",
}
_QUOTA_CODES = {"insufficient_quota", "billing_error", "billing_not_active", "credits_exhausted"}


def classify(info: ErrorInfo, provider: str, *, secret: str | None = None) -> ProviderError:
    """Turn a vendor error into a ProviderError; `secret` is scrubbed from the text."""
    status = info.status
    detail = redact(info.message.strip(), secret)
    if len(detail) > 500:
        detail = detail[:500] + "…"
    said = f" The server said: {detail}" if detail else ""
    code = info.code.lower()
    etype = info.type.lower()
    low = detail.lower()

    def err(kind: ErrorKind, text: str, retry: float | None = None) -> ProviderError:
        return ProviderError(kind, text + said, status=status, retry_after_s=retry)

    if status in (401, 403) or code in _AUTH_CODES or etype in _AUTH_CODES:
        return err(
            ErrorKind.AUTH,
            f"{provider} rejected the API key (HTTP {status}). Check the key in Settings "
            "(or with `resume-auditor keys status`), and that this account may use the model.",
        )
    if (
        status == 402
        or code in _QUOTA_CODES
        or etype in _QUOTA_CODES
        or _has(low, "credit balance is too low", "insufficient credits", "out of credits")
        or info.extra.get("daily_quota")
    ):
        return err(
            ErrorKind.QUOTA,
            f"{provider} says the account is out of credits or quota (HTTP {status}). "
            "Add credits or raise the limit, then resume the run; nothing was lost.",
        )
    if status == 429 or etype in ("rate_limit_error", "resource_exhausted"):
        return err(
            ErrorKind.RATE_LIMIT,
            f"{provider} is rate limiting requests (HTTP {status}); waiting before trying again.",
            info.retry_after_s,
        )
    if status in (503, 529) or etype in ("overloaded_error", "unavailable"):
        return err(
            ErrorKind.OVERLOADED,
            f"{provider} is overloaded (HTTP {status}); trying again shortly.",
            info.retry_after_s,
        )
    if status == 404 or code in ("model_not_found", "not_found") or etype == "not_found_error":
        return err(
            ErrorKind.NOT_FOUND,
            f"{provider} does not know this model or address (HTTP {status}). "
            "Check the model id (see `resume-auditor models`) and the base URL.",
        )
    if (
        code in ("context_length_exceeded", "string_above_max_length")
        or etype == "request_too_large"
        or status == 413
        or _has(low, "context length", "context window", "too long", "too many tokens")
        or ("maximum" in low and "token" in low and _has(low, "exceed", "maximum context"))
        or ("exceeds the maximum" in low and "token" in low)
    ):
        return err(
            ErrorKind.CONTEXT,
            f"The prompt is longer than {provider}'s model accepts. "
            "Use shorter resumes or a model with a larger context.",
        )
    if (
        code in ("content_filter", "content_policy_violation", "responsibleaipolicyviolation")
        or ("content" in low and _has(low, "filter", "content policy", "content management"))
        or ("safety" in low and _has(low, "block", "filter"))
    ):
        return err(
            ErrorKind.REFUSED,
            f"{provider} refused the request under its content policy.",
        )
    if status >= 500:
        return err(
            ErrorKind.SERVER,
            f"{provider} had a server error (HTTP {status}); trying again shortly.",
            info.retry_after_s,
        )
    return err(ErrorKind.BAD_REQUEST, f"{provider} rejected the request (HTTP {status}).")


def openai_error_info(response: httpx.Response) -> ErrorInfo:
    """Read an OpenAI-style error body ({"error": {"message", "code", "type", "param"}})."""
    try:
        body: Any = response.json()
    except ValueError:
        body = None
    message = code = etype = param = ""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            message = str(err.get("message") or err.get("detail") or "")
            code = str(err.get("code") or "")
            etype = str(err.get("type") or "")
            param = str(err.get("param") or "")
            inner = err.get("innererror")
            if isinstance(inner, dict) and inner.get("code"):  # Azure's content filter
                code = code or str(inner["code"])
        elif isinstance(err, str):
            message = err
    elif not response.content:
        message = ""
    else:
        message = response.text[:300]
    retry = parse_retry_after(response.headers)
    if retry is None and response.status_code == 429:
        retry = reset_hint(response.headers)
    return ErrorInfo(response.status_code, message, code, etype, param, retry)


def error_from_response(
    response: httpx.Response, provider: str, *, secret: str | None = None
) -> ProviderError:
    """Turn an OpenAI-style HTTP error into a ProviderError a user can act on."""
    return classify(openai_error_info(response), provider, secret=secret)


def _host(url: str) -> str:
    try:
        return urlsplit(url).hostname or url
    except ValueError:
        return url


def transport_error(exc: Exception, provider: str, url: str) -> ProviderError:
    """A failure below HTTP (no answer, no connection, no trust) in plain words."""
    text = str(exc)
    upper = text.upper()
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError(
            ErrorKind.TIMEOUT,
            f"{provider} did not answer in time ({type(exc).__name__}); trying again.",
        )
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return ProviderError(
            ErrorKind.BAD_REQUEST,
            f"{url!r} is not a usable address: it should start with http:// or https://.",
        )
    if "CERTIFICATE" in upper or "SSL" in upper or "TLS" in upper:
        return ProviderError(
            ErrorKind.TLS,
            f"Could not make a secure connection to {_host(url)}: {text}. The server's "
            "certificate is not trusted by this computer, or the address uses https:// for a "
            "server that only speaks http:// (or the reverse). Check the address; on a company "
            "network, ask IT whether a proxy replaces certificates.",
        )
    if isinstance(exc, httpx.ConnectError):
        if _has(
            text.lower(),
            "name or service not known",
            "nodename nor servname",
            "getaddrinfo",
            "temporary failure in name resolution",
            "no address associated",
        ):
            return ProviderError(
                ErrorKind.CONNECTION,
                f"Could not find {_host(url)}. Is this computer online, and is the address right?",
            )
        if _has(text.lower(), "network is unreachable", "no route to host"):
            return ProviderError(
                ErrorKind.CONNECTION,
                f"No network route to {_host(url)}: this computer seems to be offline.",
            )
        return ProviderError(
            ErrorKind.CONNECTION,
            f"Could not connect to {url}. Is the server running and the address right? ({text})",
        )
    if isinstance(exc, httpx.RemoteProtocolError) and _has(
        text.lower(), "incomplete", "complete message body"
    ):
        return ProviderError(
            ErrorKind.MALFORMED, f"{provider}'s answer was cut off in transit; trying again."
        )
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return ProviderError(
            ErrorKind.CONNECTION,
            f"The connection to {provider} dropped before the answer "
            f"({text or type(exc).__name__}); trying again.",
        )
    return ProviderError(ErrorKind.CONNECTION, f"Network error talking to {provider}: {text}")
