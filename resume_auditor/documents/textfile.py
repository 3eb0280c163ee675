"""Decode a plain-text file whose encoding nobody wrote down.

Order of trust: a byte-order mark; valid UTF-8 (almost never an accident for
non-ASCII text); cp1252 when it reads as ordinary Western text (Windows "smart
quotes" and accented names are the commonest legacy bytes in English resumes,
and statistical detectors often mistake them for cp1250); then
charset-normalizer's detection for other legacy encodings (cp1251, Shift-JIS,
mac-roman...); latin-1, which never fails, as the last resort.
"""

from __future__ import annotations

import codecs
import logging
import unicodedata

logger = logging.getLogger(__name__)

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


# Non-ASCII characters that ordinary Western text in cp1252 is made of.
_WESTERN = frozenset(
    [chr(c) for c in range(0xC0, 0x100) if c not in (0xD7, 0xF7)]
    + list("\u2018\u2019\u201c\u201d\u2013\u2014\u2022\u2026\u20ac\u2122\u00a9\u00ae\u00b0")
    + list("\u00a3\u00a7\u00b7\u00bd\u00bc\u00be\u00a0\u00b4\u00ab\u00bb\u0152\u0153")
)


def _plausible_western(text: str) -> bool:
    """cp1252 text that reads as Western: few non-ASCII letters, all of them usual ones."""
    letters = 0
    foreign = 0
    for ch in text:
        if ch.isascii():
            letters += ch.isalpha()
            continue
        if ch not in _WESTERN:
            return False
        if unicodedata.category(ch).startswith("L"):
            letters += 1
            foreign += 1
    return foreign <= 0.4 * letters


def looks_binary(data: bytes) -> bool:
    """True for bytes that are not text at all (an image or archive renamed .txt)."""
    sample = data[:4096]
    if any(sample.startswith(bom) for bom, _ in _BOMS):
        return False
    if b"\x00" in sample:
        # UTF-16 without a BOM has a NUL in every other byte of ASCII text.
        evens, odds = sample[0::2], sample[1::2]
        return not (evens.count(0) > len(evens) * 0.4 or odds.count(0) > len(odds) * 0.4)
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13))
    return controls > len(sample) * 0.05


def decode_text(data: bytes) -> tuple[str, str]:
    """(text, encoding name) for the bytes of a text file."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(name), name
            except UnicodeDecodeError:
                break
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if b"\x00" in data[:4096]:
        for name in ("utf-16-le", "utf-16-be"):
            try:
                text = data.decode(name)
            except UnicodeDecodeError:
                continue
            if text.isprintable() or all(c.isprintable() or c in "\r\n\t" for c in text[:2000]):
                return text, name
    try:
        western = data.decode("cp1252")
    except UnicodeDecodeError:
        western = None
    if western is not None and _plausible_western(western):
        return western, "cp1252"
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is not None and best.encoding not in ("utf_8", "ascii"):
        logger.info("detected encoding %s (%s)", best.encoding, best.language)
        return str(best), best.encoding
    if western is not None:
        return western, "cp1252"
    return data.decode("latin-1"), "latin-1"
