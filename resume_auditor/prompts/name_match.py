"""Which candidate a model's answer names, matched as a careful person matches names.

Real models re-spell the names they were shown: "Jacob O'Connell" for JACOB
OCONNELL, "Alex Chen" for ALEXANDER CHEN, "Rashuan" for RASHAUN, "Tuấn Lư" for TUAN
LU, "Gabriel Huerta" for GABRIELA HUERTA, or only a surname. A reader that wants
the name letter for letter drops those answers, and the names models re-spell are
not spread evenly over the groups an audit compares (issue 29), so the loss moves
the very rates the audit measures. A reader that guesses is worse still.

A mention is compared with every candidate on its parts (first name, surname) and
put in a tier:

0. the same name once case, accents, apostrophes, hyphens and spaces are set aside;
1. one part the same and the other a close spelling (Jaro-Winkler similarity from
   rapidfuzz, a well-kept library, rather than distance code of our own), a short
   form ("Alex" for Alexander) or an initial; both parts close; or one part alone
   ("Schmitt", "Tucker") written the same;
2. one part the same and the other different in a two-word name ("Helen Yang" for
   MEGAN YANG), or one part alone spelt close to a candidate's.

A mention names the one candidate in the best tier it reaches; two candidates in
that tier make it ambiguous (unreadable, with both names in the reason), and a
mention reaching no tier names nobody. `resolve` reads a whole list the way a
person does: names written exactly are settled first, so a re-spelt name can only
be one of the candidates not already named exactly elsewhere in the same answer,
and only when it is no further from that one than from those named elsewhere (else
it may be a repeat, and is not read).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import JaroWinkler

logger = logging.getLogger(__name__)

CLOSE = 0.85  # Jaro-Winkler similarity from which two spellings are one name re-spelt
SHORT_MIN = 3  # "Alex" for ALEXANDER, "Chris" for CHRISTOPHER; not "Al"
MAX_TOKENS = 4  # a name is at most this many words ("Mary Ann de la Cruz" is five: rare)

_WORD = re.compile(r"[^\W\d_]+(?:['’`.\-][^\W\d_]+)*\.?", re.UNICODE)


def fold(text: str) -> str:
    """Lower case without accents, apostrophes, hyphens or dots: "O'Connell" -> "oconnell"."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    bare = bare.replace("ß", "ss").replace("ø", "o").replace("đ", "d").replace("ł", "l")
    return re.sub(r"['’`.\-]", "", bare.casefold())


def words(text: str) -> list[str]:
    """The words of a text, folded ("Jean-Luc O'Neil" -> ["jeanluc", "oneil"])."""
    return [w for w in (fold(m.group(0)) for m in _WORD.finditer(text)) if w]


@dataclass(frozen=True)
class Match:
    """What one mention names: a candidate (index), or None with the reason in words."""

    index: int | None
    tier: int = -1  # 0 exact ... 2 weak; -1 when nobody
    reason: str = ""

    @property
    def exact(self) -> bool:
        return self.index is not None and self.tier == 0


def _close(a: str, b: str) -> bool:
    return JaroWinkler.normalized_similarity(a, b) >= CLOSE


def _part(said: str, real: str) -> str:
    """How one part of a name as written relates to the real one: same/initial/short/close/other."""
    if said == real:
        return "same"
    if len(said) == 1:
        return "initial" if real.startswith(said) else "other"
    if len(said) >= SHORT_MIN and real.startswith(said):
        return "short"
    return "close" if _close(said, real) else "other"


_TITLES = {"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sr", "sra", "herr", "frau"}

# (first name, surname) as written against the real ones that make a tier-1 match.
_STRONG = {
    ("same", "same"),
    ("initial", "same"),
    ("short", "same"),
    ("close", "same"),
    ("same", "close"),
    ("same", "short"),
    ("same", "initial"),
    ("close", "close"),
    ("short", "close"),
}


def _tier(said: list[str], real: list[str]) -> int | None:
    """The tier of a mention's words against one candidate's words; None when unrelated."""
    while len(said) > 1 and said[0] in _TITLES:
        said = said[1:]  # "Ms. Huerta", "Dr. Alex Chen"
    if not said or not real:
        return None
    if "".join(said) == "".join(real):
        return 0
    if len(said) == 1:
        one = said[0]
        if len(one) < 2:
            return None
        if one in (real[0], real[-1]):
            return 1
        if len(one) >= 4 and (_close(one, real[0]) or _close(one, real[-1])):
            return 2
        return None
    pair = (_part(said[0], real[0]), _part(said[-1], real[-1]))
    if pair in _STRONG:
        return 1
    if len(said) == 2:  # surname first: "Oconnell Walker", "Chen, Alex"
        swapped = (_part(said[1], real[0]), _part(said[0], real[-1]))
        if swapped == ("same", "same"):
            return 0
        if swapped in _STRONG:
            return 1
    # One part the same, the other not: only for a two-word name ("Helen Yang"), never
    # a longer phrase that merely starts or ends with a name ("Rashaun is strong").
    return 2 if "same" in pair and len(said) == 2 else None


class Candidates:
    """The candidates an answer may name, by their names as shown."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = [str(n) for n in names]
        self._words = [words(n) for n in self.names]

    def __len__(self) -> int:
        return len(self.names)

    def tiers(self, mention: str, among: Sequence[int] | None = None) -> dict[int, int]:
        """{candidate index: tier} for each candidate the mention could be."""
        said = words(mention)
        pool = range(len(self.names)) if among is None else among
        out: dict[int, int] = {}
        for i in pool:
            tier = _tier(said, self._words[i])
            if tier is not None:
                out[i] = tier
        return out

    def match(self, mention: str, among: Sequence[int] | None = None) -> Match:
        """The one candidate a mention names, or None with why not."""
        shown = mention.strip()
        if not words(shown):
            return Match(None, reason=f"{shown or 'an empty item'!r} names no one")
        found = self.tiers(shown, among)
        if not found:
            return Match(None, reason=f"{shown!r} is none of the candidates")
        top = min(found.values())
        best = [i for i, t in found.items() if t == top]
        if len(best) > 1:
            who = " or ".join(self.names[i] for i in best)
            return Match(None, reason=f"{shown!r} could be {who}")
        return Match(best[0], top)

    def find(self, text: str, among: Sequence[int] | None = None) -> Match:
        """The candidate named in an item of an answer ("ESTHER WU - Senior engineer at ...",
        "Assistant Store Manager - LILIANA ZAVALA", "Resume 3 - Jacob O'Conell").

        The item's head (before a dash, colon, bracket or comma) is read as a name
        first; failing that, a later part that is a full name (two words or more,
        re-spelt at most: tier 1); failing that, a candidate's full name written
        exactly anywhere in the item, when exactly one candidate's is.
        """
        parts = _parts(text)
        head = parts[0] if parts else ""
        first = (
            self.match(head, among)
            if head
            else Match(None, reason=f"{text.strip() or 'an empty item'!r} names no one")
        )
        if first.index is not None or "could be" in first.reason:
            return first
        later = [self.match(p, among) for p in parts[1:] if len(p.split()) >= 2]
        named = {m.index for m in later if m.index is not None and m.tier <= 1}
        if len(named) == 1:
            return next(m for m in later if m.index in named)
        folded = " ".join(words(text))
        pool = range(len(self.names)) if among is None else among
        hits = {
            i
            for i in pool
            if self._words[i]
            and re.search(rf"(?<!\w){re.escape(' '.join(self._words[i]))}(?!\w)", folded)
        }
        if len(hits) == 1:
            return Match(hits.pop(), 0)
        if len(hits) > 1 or len(named) > 1:
            who = " and ".join(self.names[i] for i in sorted(hits or named))
            return Match(None, reason=f"{text.strip()[:80]!r} names {who}")
        return first

    def resolve(self, mentions: Sequence[str]) -> list[Match]:
        """Each mention of a list read against the others: a candidate written exactly
        anywhere in the list is not what a re-spelt mention elsewhere means."""
        first = [self.find(m) for m in mentions]
        exact = {m.index for m in first if m.exact}
        free = [i for i in range(len(self.names)) if i not in exact]
        out = []
        for mention, m in zip(mentions, first, strict=True):
            if m.exact or m.index is None and not free:
                out.append(m)
                continue
            again = self.find(mention, free)
            head = _head(mention)
            overall = self.tiers(head) if head else {}
            best = min(overall.values(), default=None)
            if again.index is not None and best is not None and again.tier > best:
                # Closer to someone named exactly elsewhere than to anyone left: a repeat
                # of that one as much as the one left, so not read.
                taken = " or ".join(self.names[i] for i, t in overall.items() if t == best)
                again = Match(None, reason=f"{head!r} is closest to {taken}, named elsewhere")
            elif again.index is None and m.index is not None:
                who = self.names[m.index]
                again = Match(None, reason=f"{head!r} is {who} re-spelt, named elsewhere")
            out.append(again)
        return out


_HEAD_END = re.compile(
    r"\s+[-–—]+\s+|\s*[:(\[|]|,\s|\s+(?:is|has|was|with|who|because|as|for|-)\s", re.I
)


# "Singh, Anil" or "Singh, Anil: relevant skills": a surname, a comma, one first name.
_INVERTED = re.compile(
    r"^([^\W\d_][\w'’.\-]*),\s+([^\W\d_][\w'’.\-]*)\.?(?=\s*$|\s*[:(\[|]|\s+[-–—]+\s)"
)


def _parts(text: str) -> list[str]:
    """The head of an item (see _head), then its other parts between separators, each
    at most MAX_TOKENS words ("" for a head too long to be a name)."""
    cleaned = re.sub(r"[*_`#>\"“”]+", " ", text).strip()
    cleaned = re.sub(r"^\W+", "", cleaned)
    rest = [p.strip(" .;)]") for p in _HEAD_END.split(cleaned)[1:]]
    return [_head(text)] + [p for p in rest if p and len(p.split()) <= MAX_TOKENS]


def _head(text: str) -> str:
    """The start of an item, where the name stands: markdown and list marks stripped,
    cut at the first dash, colon, bracket or comma, at most MAX_TOKENS words."""
    cleaned = re.sub(r"[*_`#>\"“”]+", " ", text).strip()
    cleaned = re.sub(r"^\W+", "", cleaned)
    inverted = _INVERTED.match(cleaned)
    if inverted:
        return f"{inverted.group(1)} {inverted.group(2)}"
    head = _HEAD_END.split(cleaned, maxsplit=1)[0].strip(" .;")
    parts = head.split()
    return " ".join(parts[:MAX_TOKENS]) if len(parts) <= MAX_TOKENS else ""
