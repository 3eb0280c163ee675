"""Clean extracted text, and remember where each clean character came from.

Real resumes arrive with ligatures (ﬁ), mojibake from double encoding ("rÃ©sumÃ©",
"â€¢", "ï¼š"), icon-font glyphs in the private-use area, odd spaces, bullet glyphs
and words hyphenated at line ends. `clean_text` repairs all of that line by line
(ftfy does the mojibake), then joins hyphenated words and collapses blank runs.

`clean_with_origin` also returns, for each clean character, the index of the raw
character it came from. Loaders use it to carry spans found on the raw text (a
white-text run in a PDF, a hidden run in a DOCX) over to the clean text, exactly,
even when the same words also appear visibly elsewhere.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from array import array
from dataclasses import dataclass
from difflib import SequenceMatcher

import ftfy

_FTFY = ftfy.TextFixerConfig(uncurl_quotes=False, explain=False)
# Lines are split on every character Python treats as a line break.
_BREAK = re.compile(r"\r\n|[\r\n\f\v\x1c\x1d\x1e\x85\u2028\u2029]")
_SPACES = re.compile(r"[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")
_INVISIBLE = re.compile(r"[\u200b-\u200d\u2060\ufeff\u00ad\u180e]")
# Icon fonts (Font Awesome, Wingdings in Word, ...) map their glyphs to the
# private-use area: an envelope before an email, a phone before a number.
_PRIVATE = re.compile(r"[\ue000-\uf8ff]")
BULLET_GLYPHS = (
    "\u2022\u25cf\u25aa\u25a0\u25e6\u2023\u2043\u2219\u00b7\u27a2\u25ba\u25b6\u2713\u2714"
    "\u2756\u25c6\u25c7\u25cb\u2605\u2606\u2794\u2192\u2013\u2014\u204c\u204d\u2666*"
)
_BULLET = re.compile(rf"^[{re.escape(BULLET_GLYPHS)}](?:\s+|(?=[^\W\d_]))(?=\S)")
# Words written with a hyphen on purpose: kept when a line break falls after them.
_KEEP_HYPHEN_BEFORE = frozenset(
    [
        "self",
        "well",
        "cross",
        "full",
        "part",
        "long",
        "short",
        "high",
        "low",
        "non",
        "co",
        "multi",
        "mid",
        "post",
        "pre",
        "semi",
        "anti",
        "inter",
        "intra",
        "sub",
        "super",
        "under",
        "over",
        "end",
        "open",
        "real",
        "front",
        "back",
        "x",
        "e",
    ]
)
_KEEP_HYPHEN_AFTER = frozenset(
    [
        "based",
        "driven",
        "oriented",
        "facing",
        "level",
        "time",
        "term",
        "scale",
        "end",
        "source",
        "related",
        "focused",
        "specific",
        "friendly",
        "ready",
        "made",
        "aware",
        "minded",
        "critical",
        "native",
        "first",
        "ups",
        "up",
        "down",
        "on",
        "off",
        "in",
        "out",
        "to",
        "house",
        "wide",
        "year",
        "years",
        "month",
        "day",
        "week",
        "hand",
        "held",
    ]
)
_HYPHEN_END = re.compile(r"(?<![\w\-])([^\W\d_]+)[-\u00ad]$")
_LOWER_START = re.compile(r"^([^\W\d_]+)")
# Lines longer than this are mapped proportionally instead of by a character diff.
_DIFF_LIMIT = 4000


@dataclass(frozen=True)
class Cleaned:
    """Clean text plus `origin[i]`: the raw index clean character i came from.

    `origin` has one extra entry, the raw length, so a span's end maps too.
    It never decreases, which is what lets `span` use bisection.
    """

    text: str
    origin: array[int]

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        """The clean span covering raw characters start..end, trimmed of spaces."""
        lo = bisect.bisect_left(self.origin, start, 0, len(self.text))
        hi = bisect.bisect_left(self.origin, end, lo, len(self.text))
        while lo < hi and self.text[lo].isspace():
            lo += 1
        while hi > lo and self.text[hi - 1].isspace():
            hi -= 1
        return (lo, hi) if lo < hi else None


# A closing quote (UTF-8 E2 80 9D) shown as Windows-1252 loses its last byte, which
# cp1252 leaves undefined: browsers print nothing, pypdf reads NUL or nothing at all.
# A real "â€" + NBSP is a dagger; before a plain space, punctuation or the end of
# the line it is the closing quote.
_LOST_QUOTE = re.compile("\u00e2\u20ac(?:\x00|(?=[ .,;:!?)]|$))")
# Full-width forms (EF BC 81..BF) whose last byte cp1252 leaves undefined: what is
# left is "ï¼"; between digits it was a dash or slash of a date range.
_LOST_FULLWIDTH = re.compile("(?<=\\d)\u00ef\u00bc(?=\\d)|(\u00ef\u00bc)")
# "Â" left before a space or ASCII punctuation is a non-breaking space read twice.
_LOST_NBSP = re.compile("\u00c2(?=[ .,;:!?)\\]-]|$)")


def _leftover_mojibake(text: str) -> str:
    """What ftfy cannot repair because a byte of the sequence was lost on the way."""
    if "\u00ef\u00bc" in text:
        text = _LOST_FULLWIDTH.sub(lambda m: " " if m.group(1) else "-", text)
    if "\u00c2" in text:
        text = _LOST_NBSP.sub("", text)
    return text


_DRAWN_SOFT_HYPHEN = re.compile(r"(?<=[^\W\d_])\u00ad(?=[^\W\d_])")


def clean_line(line: str, drawn_hyphens: bool = False) -> str:
    """One line: mojibake, ligatures, wide forms, icon glyphs, odd spaces, bullets.

    `drawn_hyphens`: the line is a PDF's text layer, where a soft hyphen inside a line
    was drawn (LuaTeX maps its hyphen glyph to U+00AD: "multi\u00adaccount" shows
    "multi-account"), so it is a hyphen; elsewhere it is an invisible break point."""
    if drawn_hyphens:
        line = _DRAWN_SOFT_HYPHEN.sub("-", line)
    if line.isascii() and "&" not in line:
        fixed = line  # nothing for ftfy to do; skipping it keeps big files fast
    else:
        # A closing quote (UTF-8 E2 80 9D) shown as Windows-1252 loses its last byte,
        # which cp1252 leaves undefined: browsers print nothing, pypdf reads NUL.
        fixed = ftfy.fix_text(_LOST_QUOTE.sub("\u00e2\u20ac\x9d", line), _FTFY)
        fixed = _leftover_mojibake(unicodedata.normalize("NFC", fixed))
    fixed = _INVISIBLE.sub("", fixed)
    fixed = _PRIVATE.sub(" ", fixed)
    fixed = _SPACES.sub(" ", fixed).strip()
    if fixed and fixed[0] in BULLET_GLYPHS:
        bullet = _BULLET.match(fixed)
        if bullet:
            fixed = "- " + fixed[bullet.end() :]
    return fixed


def _line_origin(raw: str, new: str, offset: int) -> list[int]:
    if new == raw:
        return list(range(offset, offset + len(raw)))
    if not new:
        return []
    if len(raw) > _DIFF_LIMIT or len(new) > _DIFF_LIMIT:
        return [offset + (i * len(raw)) // len(new) for i in range(len(new))]
    out: list[int] = []
    matcher = SequenceMatcher(None, raw, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(range(offset + i1, offset + i2))
        else:
            top = max(0, i2 - i1 - 1)
            out.extend(offset + i1 + min(k, top) for k in range(j2 - j1))
    return out


def _joins(line: str, following: str) -> str | None:
    """How `line` (ending in a hyphen) joins `following`: "" drop it, "-" keep it, None not."""
    if not line.endswith(("-", "\u00ad")):
        return None
    head = _HYPHEN_END.search(line)
    tail = _LOWER_START.match(following)
    if head is None or tail is None or not tail.group(1)[0].islower():
        return None
    if line.endswith("\u00ad"):
        return ""
    before, after = head.group(1).lower(), tail.group(1).lower()
    if before in _KEEP_HYPHEN_BEFORE or after in _KEEP_HYPHEN_AFTER:
        return "-"
    return ""


def clean_with_origin(raw: str, drawn_hyphens: bool = False) -> Cleaned:
    """Clean `raw` and keep, for each clean character, where it came from (see
    `clean_line` for `drawn_hyphens`)."""
    lines: list[tuple[str, list[int], int]] = []  # (clean line, origins, raw index of its end)
    pos = 0
    for match in _BREAK.finditer(raw + "\n"):
        piece = raw[pos : match.start()]
        clean = clean_line(piece, drawn_hyphens)
        lines.append((clean, _line_origin(piece, clean, pos), min(match.start(), len(raw))))
        pos = match.end()

    merged: list[tuple[str, list[int], int]] = []
    i = 0
    while i < len(lines):
        text, origin, end = lines[i]
        while i + 1 < len(lines):
            how = _joins(text, lines[i + 1][0])
            if how is None:
                break
            nxt, nxt_origin, end = lines[i + 1]
            keep = len(text) - 1 + len(how)
            text = text[:keep] + nxt
            origin = origin[:keep] + nxt_origin
            i += 1
        merged.append((text, origin, end))
        i += 1

    out: list[str] = []
    origin_out = array("q")
    blank_run = 0
    last_end = 0
    for text, origin, end in merged:
        if not text:
            blank_run += 1
            continue
        if out:
            for _ in range(2 if blank_run else 1):
                out.append("\n")
                origin_out.append(last_end)
        blank_run = 0
        out.append(text)
        origin_out.extend(origin)
        last_end = end
    if out:
        out.append("\n")
        origin_out.append(last_end)
    origin_out.append(len(raw))
    return Cleaned("".join(out), origin_out)


def clean_text(text: str) -> str:
    """Normalise extracted text: mojibake, ligatures, bullets, hyphenation, blank runs."""
    return clean_with_origin(text).text
