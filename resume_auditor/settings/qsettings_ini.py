"""Read an INI file written by Qt's QSettings (IniFormat), without Qt.

The app kept its preferences in `settings.ini` through QSettings until the
settings moved to typed files (settings/app.py); that file is read once, here,
to migrate it. Qt's INI dialect is not configparser's: values are escaped C-style
(`\\x61` is "a", hex escapes run on while hex digits follow), `"..."` quotes a
value with `,` `;` or `=` in it, a comma outside quotes makes a list, `;` outside
quotes starts a comment, `[General]` holds the top-level keys, `\\` in a key is a
`/` (a group) and `%XX` / `%UXXXX` escape other characters, `@Invalid()` is an
empty list, `@ByteArray(...)` raw bytes, `@String(...)` a string with a NUL in it
and `@@` a leading `@`. This follows
QSettingsPrivate::iniUnescapedStringList and iniUnescapedKey (qsettings.cpp, Qt 6)
step by step. Values of other types (`@Variant(...)`, `@Rect(...)`, ...) are binary
or Qt-specific: they are returned as `Unsupported` for the caller to report.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

logger = logging.getLogger(__name__)

_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    '"': '"',
    "?": "?",
    "'": "'",
    "\\": "\\",
}
_HEX = "0123456789abcdefABCDEF"
_OCT = "01234567"


@dataclass(frozen=True)
class Unsupported:
    """A value of a Qt type this reader does not decode (kept as written)."""

    raw: str


Value = str | bytes | list[str] | None | Unsupported


def unescape_value(raw: str) -> str | list[str]:
    """One value as QSettings wrote it: a string, or a list when it has unquoted commas."""
    parts: list[str] = []
    current: list[str] = []  # one character each
    is_list = False
    in_quotes = False
    quoted = False  # the current item had quotes: its spaces are its own
    chop_limit = 0  # escaped characters are never chopped as trailing spaces
    i, n = 0, len(raw)

    def chop() -> None:
        text = "".join(current)
        keep = text[:chop_limit] + text[chop_limit:].rstrip(" \t")
        current[:] = list(keep)

    def skip_spaces(j: int) -> int:
        while j < n and raw[j] in " \t":
            j += 1
        return j

    i = skip_spaces(i)
    while i < n:
        ch = raw[i]
        if ch == "\\":
            i += 1
            if i >= n:
                break
            esc = raw[i]
            i += 1
            if esc in _ESCAPES:
                current.append(_ESCAPES[esc])
            elif esc == "x" and i < n and raw[i] in _HEX:
                value = 0
                while i < n and raw[i] in _HEX:
                    value = (value << 4) + int(raw[i], 16)
                    i += 1
                current.append(chr(value & 0xFFFF))
            elif esc in _OCT:
                value = int(esc, 8)
                while i < n and raw[i] in _OCT:
                    value = (value << 3) + int(raw[i], 8)
                    i += 1
                current.append(chr(value & 0xFFFF))
            chop_limit = len(current)
        elif ch == '"':
            i += 1
            quoted = True
            in_quotes = not in_quotes
            if not in_quotes:
                i = skip_spaces(i)
        elif ch == "," and not in_quotes:
            if not quoted:
                chop()
            is_list = True
            parts.append("".join(current))
            current, quoted, chop_limit = [], False, 0
            i = skip_spaces(i + 1)
        else:
            j = i + 1
            while j < n and raw[j] not in '\\",':
                j += 1
            current.extend(raw[i:j])
            i = j
    if not quoted:
        chop()
    if is_list:
        parts.append("".join(current))
        return parts
    return "".join(current)


def unescape_key(raw: str) -> str:
    """A key as QSettings wrote it: `\\` is a group's `/`, %XX and %UXXXX a character."""
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        ch = raw[i]
        if ch == "\\":
            out.append("/")
            i += 1
            continue
        if ch != "%" or i == n - 1:
            out.append(ch)
            i += 1
            continue
        first, digits = i + 1, 2
        if raw[i + 1] == "U":
            first, digits = i + 2, 4
        code = raw[first : first + digits]
        if len(code) == digits and all(c in _HEX for c in code):
            out.append(chr(int(code, 16)))
            i = first + digits
        else:
            out.append("%")
            i += 1
    return "".join(out)


def _typed(text: str) -> Value:
    if text.startswith("@@"):
        return text[1:]
    if text == "@Invalid()":
        return None
    if text.startswith("@ByteArray(") and text.endswith(")"):
        return text[len("@ByteArray(") : -1].encode("latin-1", errors="replace")
    if text.startswith("@String(") and text.endswith(")"):
        return text[len("@String(") : -1]
    if re.match(r"^@[A-Za-z]+\(", text) and text.endswith(")"):
        return Unsupported(text)
    return text


def _strip_comment(raw: str) -> str:
    """The value up to an unquoted, unescaped `;` (Qt's comment mark)."""
    in_quotes = False
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            i += 2
            continue
        if ch == '"':
            in_quotes = not in_quotes
        elif ch == ";" and not in_quotes:
            return raw[:i]
        i += 1
    return raw


def read_qsettings_ini(text: str) -> dict[str, Value]:
    """Every key of a QSettings INI file ("group/key" outside [General]) with its value."""
    out: dict[str, Value] = {}
    section = ""
    # an odd backslash at the end of a line continues the value on the next one
    lines = re.sub(r"(?<!\\)((?:\\\\)*)\\(?:\r\n?|\n\r?)", r"\1", text).splitlines()
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            name = unescape_key(stripped[1:-1].strip())
            section = "" if name.lower() == "general" else name
            continue
        key, eq, raw = line.partition("=")
        if not eq:
            logger.warning("a line of the old settings file has no '=': %r (ignored)", line)
            continue
        name = unescape_key(key.strip())
        full = f"{section}/{name}" if section else name
        value = unescape_value(_strip_comment(raw))
        if isinstance(value, list):
            items = [_typed(v) for v in value]
            out[full] = [v for v in items if isinstance(v, str)]
        else:
            out[full] = _typed(value)
    return out
