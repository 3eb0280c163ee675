"""Scrub API keys from anything that may be shown, logged or stored.

Vendors echo keys back in some errors ("Incorrect API key provided: sk-..."), and
proxies and gateways echo whole requests, headers included. They rarely echo the
key as it was sent: a JSON body escapes its dashes (`sk\\u002d...`) and slashes
(`\\/`), a URL encodes them (`%2D`), a header dump shows `Authorization: Basic`
in base64, and a long line is wrapped. So redaction looks for the exact key we
hold in each of those forms — raw, JSON-escaped, URL-encoded, HTML-escaped, hex,
base64 and base64url at any alignment, with line breaks anywhere in it — plus
anything shaped like a vendor key, so a message stays safe even when we do not
know which key produced it.
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Mapping
from typing import Any

MASK = "[redacted]"

# A dash as it may be written: itself, JSON-escaped, URL-encoded, HTML-escaped.
_DASH = r"(?:-|\\+u002[dD]|%2[dD]|&#45;|&#x2[dD];)"
# Shapes of vendor keys: OpenAI / OpenRouter / Anthropic "sk-...", Google "AIza...".
_KEY_SHAPES = re.compile(
    rf"(?:sk{_DASH}(?:[A-Za-z0-9_*.]|{_DASH}){{6,}}|AIza(?:[0-9A-Za-z_]|{_DASH}){{20,}}"
    r"|(?i:bearer)\s+[A-Za-z0-9_\-.~+/=]{8,})"
)

SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "api-key", "x-goog-api-key", "proxy-authorization"}
)
# Shorter secrets are not searched for in encoded forms: the pattern would match noise.
_MIN_ENCODED = 12
# What may sit between two characters of an echoed key: spaces and line breaks,
# raw or JSON-escaped (a wrapped or pretty-printed body).
_GAP = r"(?:\s|\\+[nrt])*"


def _hex(number: int, width: int) -> str:
    """`number` in hexadecimal, either case: 2d or 2D."""
    return "".join(f"[{d.lower()}{d.upper()}]" if d.isalpha() else d for d in f"{number:0{width}x}")


def _char(c: str) -> str:
    """A regex for one character as a server may have escaped it."""
    code = ord(c)
    forms = [
        re.escape(c),
        r"\\+u" + _hex(code, 4),  # JSON
        "%" + _hex(code, 2),  # URL
        f"&#{code};",
        "&#[xX]" + _hex(code, 1) + ";",  # HTML
    ]
    if not c.isalnum():
        forms.append(r"\\+" + re.escape(c))  # JSON's "\/", a shell's "\-"
    return "(?:" + "|".join(forms) + ")"


def _base64_cores(secret: bytes) -> list[str]:
    """The part of any base64 text that encodes `secret`, for each of the 3 alignments.

    Encoding prefix bytes + secret + suffix bytes always contains these characters,
    whatever the prefix and suffix (e.g. "Bearer " or "user:" before the key).
    """
    cores = []
    for pad in range(3):
        encoded = base64.b64encode(b"\0" * pad + secret).decode()
        start = (pad * 8 + 5) // 6  # characters that mix in the unknown prefix
        end = ((pad + len(secret)) * 8) // 6  # characters made only of known bits
        core = encoded[start:end]
        if len(core) >= _MIN_ENCODED:
            cores.append(core)
    return cores


def _forms(secret: str) -> list[str]:
    """Every text form of `secret` to look for (before escaping and line breaks)."""
    forms = [secret]
    raw = secret.encode()
    if len(secret) >= _MIN_ENCODED:
        forms.append(raw.hex())
        forms.append(raw.hex().upper())
        for core in _base64_cores(raw):
            forms.append(core)
            forms.append(core.replace("+", "-").replace("/", "_"))  # base64url
    return list(dict.fromkeys(forms))


@functools.lru_cache(maxsize=32)
def _secret_pattern(secret: str) -> re.Pattern[str]:
    parts = []
    for form in _forms(secret):
        chars = [_char(c) for c in form]
        parts.append(_GAP.join(chars))
    return re.compile("|".join(parts))


def redact(text: str, secret: str | None = None, *, shapes: bool = True) -> str:
    """`text` without `secret` (if given, in any of its encodings) and without key shapes.

    `shapes=False` removes only the secret: for a model's answer, whose words
    ("task-oriented") must not be changed by a guess at what a key looks like.
    """
    if secret and len(secret) >= 4:
        text = text.replace(secret, MASK)
        text = _secret_pattern(secret).sub(MASK, text)
    return _KEY_SHAPES.sub(MASK, text) if shapes else text


def redact_json(value: Any, secret: str | None = None, *, shapes: bool = True) -> Any:
    """A copy of a parsed JSON value with every string redacted (keys and values)."""
    if isinstance(value, str):
        return redact(value, secret, shapes=shapes)
    if isinstance(value, dict):
        return {
            redact(str(k), secret, shapes=shapes): redact_json(v, secret, shapes=shapes)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact_json(v, secret, shapes=shapes) for v in value]
    return value


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """A copy of request headers safe to log or store: credentials masked."""
    return {k: (MASK if k.lower() in SECRET_HEADERS else v) for k, v in headers.items()}
