"""Scrub API keys from anything that may be shown, logged or stored.

Vendors echo keys back in some errors ("Incorrect API key provided: sk-...").
Redaction removes the exact key we hold plus anything shaped like a vendor key,
so a message stays safe even when we do not know which key produced it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

MASK = "[redacted]"

# Shapes of vendor keys: OpenAI / OpenRouter / Anthropic "sk-...", Google "AIza...".
_KEY_SHAPES = re.compile(
    r"(?:sk-[A-Za-z0-9_\-*.]{6,}|AIza[0-9A-Za-z_\-]{20,}|(?i:bearer)\s+[A-Za-z0-9_\-.~+/=]{8,})"
)

SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "api-key", "x-goog-api-key", "proxy-authorization"}
)


def redact(text: str, secret: str | None = None) -> str:
    """`text` without `secret` (if given) and without anything shaped like an API key."""
    if secret and len(secret) >= 4:
        text = text.replace(secret, MASK)
    return _KEY_SHAPES.sub(MASK, text)


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """A copy of request headers safe to log or store: credentials masked."""
    return {k: (MASK if k.lower() in SECRET_HEADERS else v) for k, v in headers.items()}
