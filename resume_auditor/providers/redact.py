"""Scrub API keys from anything that may be shown, logged or stored.

Vendors echo keys back in some errors ("Incorrect API key provided: sk-..."), and
proxies and gateways echo whole requests, headers included. They rarely echo the
key as it was sent: a JSON body escapes its dashes (`sk\\u002d...`) and slashes
(`\\/`), a URL encodes them (`%2D`), a header dump shows `Authorization: Basic`
in base64, and a long line is wrapped. So redaction looks for the exact key we
hold in each of those forms — raw, JSON-escaped, URL-encoded, HTML-escaped, hex,
base64 and base64url at any alignment, with line breaks anywhere in it — plus
anything shaped like a vendor key or a random key (a long high-entropy run of
letters and digits: an Azure key is 32 hexadecimal digits and has no prefix), so
a message stays safe even when we do not know which key produced it. A model's
answer is only searched for the key we hold (`shapes=False`).

Servers also echo a key encoded more than once (a gateway URL-encodes what a
proxy had already URL-encoded: `%252D`; `&amp;#45;`), upper-cased (a log line
normalised to capitals), or only in part (the last characters of the key after
an ellipsis, a line cut short). So every escape may be nested, letters match in
either case, and any run of `PARTIAL_MIN` (12) or more consecutive characters of
the key, anywhere in it, is masked — the shortest piece caught. Vendors' own
hints (`sk-...wxyz`, the last 4) are shorter than that and say nothing usable.
Base64 and hex of a *part* of the key, or of an upper-cased key, are not searched.
"""

from __future__ import annotations

import base64
import functools
import html
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

MASK = "[redacted]"

# A dash as it may be written: itself, JSON-escaped, URL-encoded, HTML-escaped.
_DASH = r"(?:-|\\+u002[dD]|%2[dD]|&#45;|&#x2[dD];)"
# Shapes of vendor keys: OpenAI / OpenRouter / Anthropic "sk-...", Google "AIza...".
_KEY_SHAPES = re.compile(
    rf"(?:sk{_DASH}(?:[A-Za-z0-9_*.]|{_DASH}){{6,}}|AIza(?:[0-9A-Za-z_]|{_DASH}){{20,}}"
    r"|(?i:bearer)\s+[A-Za-z0-9_\-.~+/=]{8,})"
)

# A run of letters and digits long enough to be a key with no vendor prefix: masked
# when it is credential-shaped (`domain.study.credential_shaped`: 20+ mixing cases and
# digits, 32+ hexadecimal such as an Azure key, 24+ base36, spread-out characters).
_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{20,}(?![A-Za-z0-9])")

SECRET_HEADERS = frozenset(
    {"authorization", "x-api-key", "api-key", "x-goog-api-key", "proxy-authorization"}
)
# Shorter secrets are not searched for in encoded forms: the pattern would match noise.
_MIN_ENCODED = 12
# The shortest run of consecutive characters of the key that is masked on its own
# (a partial echo). 12 characters of a random key are ~70 bits: no answer or message
# contains them by chance. Keys shorter than PARTIAL_KEY are only masked whole.
PARTIAL_MIN = 12
PARTIAL_KEY = 16
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
        "%(?:25)*" + _hex(code, 2),  # URL, encoded once or more (%2D, %252D, ...)
        f"&(?:amp;)*#{code};",
        "&(?:amp;)*#[xX]" + _hex(code, 1) + ";",  # HTML, escaped once or more
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
    # Either case: an upper-cased echo (hex and base64 forms differ only in case of
    # their letters already; a base64 core matching another case is still the key's).
    return re.compile("|".join(parts), re.IGNORECASE)


@functools.lru_cache(maxsize=32)
def _partial_patterns(secret: str) -> tuple[re.Pattern[str], tuple[re.Pattern[str], ...]] | None:
    """Any PARTIAL_MIN consecutive characters of `secret` (escaped or not, either case),
    a named group per starting place; and each character after a gap, to follow a run."""
    if len(secret) < PARTIAL_KEY:
        return None
    chars = [_char(c) for c in secret]
    windows = [
        f"(?P<w{i}>{_GAP.join(chars[i : i + PARTIAL_MIN])})"
        for i in range(len(secret) - PARTIAL_MIN + 1)
    ]
    following = tuple(re.compile(_GAP + c, re.IGNORECASE) for c in chars)
    return re.compile("|".join(windows), re.IGNORECASE), following


_JSON_U = re.compile(r"\\+u([0-9a-fA-F]{4})")
_JSON_GAP = re.compile(r"\\+[nrt]")
_BACKSLASHED = re.compile(r"\\+(\W)")


def _plain(text: str) -> str:
    """`text` with every escape undone (nested ones too), gaps removed, lower-cased.

    Only a quick test of whether the slow search can find anything: a run of
    PARTIAL_MIN characters of the key always holds two of its aligned 4-character
    blocks, and they show in this form whatever escapes the run went through.
    """
    text = _JSON_U.sub(lambda m: chr(int(m.group(1), 16)), text)
    text = _BACKSLASHED.sub(r"\1", _JSON_GAP.sub("", text))
    for _ in range(4):
        decoded = html.unescape(unquote(text))
        if decoded == text:
            break
        text = decoded
    return "".join(text.split()).lower()


@functools.lru_cache(maxsize=32)
def _blocks(secret: str) -> tuple[str, ...]:
    lowered = secret.lower()
    return tuple(lowered[i : i + 4] for i in range(0, len(lowered) - 3, 4))


def _mask_partial(text: str, secret: str) -> str:
    """Mask runs of the key's characters; a run is followed to its end, however long."""
    patterns = _partial_patterns(secret)
    if patterns is None:
        return text
    plain = _plain(text)
    if not any(block in plain for block in _blocks(secret)):
        return text
    windows, following = patterns
    out = []
    at = 0
    while (found := windows.search(text, at)) is not None:
        end = found.end()
        nxt = int(str(found.lastgroup)[1:]) + PARTIAL_MIN
        while nxt < len(secret) and (more := following[nxt].match(text, end)) is not None:
            end = more.end()
            nxt += 1
        out.append(text[at : found.start()])
        out.append(MASK)
        at = end
    out.append(text[at:])
    return "".join(out)


def redact(text: str, secret: str | None = None, *, shapes: bool = True) -> str:
    """`text` without `secret` (if given, in any of its encodings, whole or any part of at
    least PARTIAL_MIN characters) and without key shapes.

    `shapes=False` removes only the secret: for a model's answer, whose words
    ("task-oriented") must not be changed by a guess at what a key looks like.
    """
    if secret and len(secret) >= 4:
        text = text.replace(secret, MASK)
        text = _secret_pattern(secret).sub(MASK, text)
        text = _mask_partial(text, secret)
    if not shapes:
        return text
    return _RUN.sub(_mask_shaped, _KEY_SHAPES.sub(MASK, text))


def _mask_shaped(found: re.Match[str]) -> str:
    from resume_auditor.domain.study import credential_shaped

    return MASK if credential_shaped(found.group()) else found.group()


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
