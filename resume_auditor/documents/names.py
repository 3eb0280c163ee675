"""The candidate's name: where it is at the top, and every later mention of it.

The name is the first line near the top that reads as a person's name: two to
four capitalised (or ALL-CAPS) words, initials and particles ("de", "van")
allowed, after dropping a title ("Dr."), trailing credentials (", MBA") and
anything after a separator ("Jane Doe | Data Analyst"). A "Name:" line counts
too. Failing that, the local part of the email ("jane.doe@") is looked for as
a capitalised pair in the text.

Mentions are then matched as whole words, capitalised or ALL-CAPS: the full
name (with or without middle names), the first initial with the last name, the
first and last names alone ("Jane's", "Ms. Doe"). A lone first or last name
directly followed by another capitalised word is someone or something else
("Jane Smith", "Brown University", "King County") and is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PARTICLES = frozenset(
    "de del della der di da dos du la le van von ter ten bin ibn al el st".split()  # noqa: SIM905
)
_TITLES = re.compile(r"^(?:mr|ms|mrs|miss|mx|dr|prof)\.?\s+", re.IGNORECASE)
_CREDENTIALS = re.compile(r",\s*(?:[A-Z][A-Za-z.]{1,8})(?:\s*,\s*[A-Z][A-Za-z.]{1,8})*\s*$")
_SEPARATORS = re.compile(r"\s+[|\u2022\u00b7\u2013\u2014\-]\s+|\s*\|\s*|\t|\s{3,}")
# Words that start lines near the top of a resume but are not names.
NOT_NAMES = frozenset(
    """
    resume résumé curriculum vitae cv summary profile experience education skills contact
    objective professional page references the and of for with at in to a an my personal
    information details portfolio about me career work history projects certifications
    analyst engineer manager developer designer scientist consultant specialist assistant
    associate director coordinator administrator officer intern teacher nurse accountant
    architect technician representative executive lead senior junior principal staff head
    chief president founder owner student graduate candidate data software business sales
    marketing product project operations finance financial research marketing customer
    service support registered certified full stack front end back web mobile cloud
    security network systems system quality human resources legal medical clinical
    """.split()  # noqa: SIM905  (a word list reads better as text)
)
# Names that are also common words: a capitalised one may just start a sentence.
COMMON_WORD_NAMES = frozenset(
    """
    will grant hope rose faith joy mark bill pat dean chase hunter miles king brown green
    white black young price page wood may june april summer autumn dawn frank grace sterling
    cash rich rush lane ford bond case crown street field hall hill park stone moore bell
    banks guy sky river august star max art gay major mason cook baker carpenter fisher
    """.split()  # noqa: SIM905  (a word list reads better as text)
)
_EMAIL_LOCAL = re.compile(r"([A-Za-z][A-Za-z'\-]+)[._\-]([A-Za-z][A-Za-z'\-]+)\d*@")


@dataclass(frozen=True)
class Name:
    tokens: tuple[str, ...]  # as written at the top ("Jane", "Q.", "Public")
    start: int  # where the name line's name starts in the text
    end: int
    confidence: float

    @property
    def first(self) -> str:
        for token in self.tokens[:-1]:
            if not _is_initial(token) and token.lower() not in _PARTICLES:
                return token
        return self.tokens[0]

    @property
    def last(self) -> str:
        return self.tokens[-1]

    @property
    def last_full(self) -> str:
        """The last name with the particles before it ("de la Cruz")."""
        parts = [self.tokens[-1]]
        for token in reversed(self.tokens[self.first_index + 1 : -1]):
            if token.lower() not in _PARTICLES:
                break
            parts.insert(0, token)
        return " ".join(parts)

    @property
    def first_index(self) -> int:
        return self.tokens.index(self.first)


def _is_initial(token: str) -> bool:
    return bool(re.fullmatch(r"[^\W\d_]\.?", token))


def _is_name_token(token: str) -> bool:
    if _is_initial(token):
        return token[0].isupper()
    if token.lower() in _PARTICLES:
        return True
    core = token.replace("'", "").replace("\u2019", "").replace("-", "")
    if len(core) < 2 or not core.isalpha():
        return False
    return token[0].isupper() and (token[1:].islower() or token.isupper() or _camel(token))


def _camel(token: str) -> bool:
    """McDonald, O'Neil, DeShawn, Garcia-Lopez: capitals only at part starts."""
    parts = re.split(r"['\u2019\-]", token)
    return all(p[:1].isupper() for p in parts if p) and not token.isupper()


_INVERTED = re.compile(
    r"([^\W\d_][\w'\u2019\-]*)\s*,\s*([^\W\d_][\w'\u2019\-]*(?:\s+[^\W\d_]\.?)?)"
)
_SUFFIXES = frozenset("jr sr ii iii iv esq phd md mba cpa rn pe jd dds".split())  # noqa: SIM905


def _tokens_ok(tokens: list[str]) -> bool:
    if not 2 <= len(tokens) <= 4:
        return False
    if not all(_is_name_token(t) for t in tokens):
        return False
    if tokens[0].lower() in _PARTICLES or tokens[-1].lower() in _PARTICLES:
        return False
    if _is_initial(tokens[-1]) or all(_is_initial(t) for t in tokens[:-1]) and len(tokens) > 2:
        return False
    return not any(t.strip(".").lower() in NOT_NAMES for t in tokens)


def _inverted(segment: str) -> tuple[str, ...] | None:
    """("Lena", "MORALES") for "MORALES, Lena": a surname in capitals, then the given name."""
    match = _INVERTED.fullmatch(segment.strip())
    if match is None:
        return None
    last, given = match.group(1), match.group(2).split()
    if not last.isupper() or given[0].isupper() or given[0].lower().strip(".") in _SUFFIXES:
        return None
    from resume_auditor.documents.contact import STATE_NAMES, US_STATES

    if given[0].upper() in US_STATES or re.fullmatch(STATE_NAMES, match.group(2)):
        return None  # "DAYTON, OH", "AUSTIN, Texas": a place
    tokens = (*given, last)
    return tokens if _tokens_ok(list(tokens)) else None


def parse_name_line(line: str) -> tuple[int, int, tuple[str, ...]] | None:
    """(start, end in line, name tokens in natural order) if `line` reads as a name."""
    match = re.match(r"\s*(?:#{1,6}\s+)?\**\s*(?:name\s*:\s*)?", line, re.IGNORECASE)
    offset = match.end() if match else 0
    rest = line[offset:]
    title = _TITLES.match(rest)
    if title and len(rest) > title.end():
        offset += title.end()
        rest = rest[title.end() :]
    segment = _SEPARATORS.split(rest, maxsplit=1)[0].rstrip("*_ ")
    inverted = _inverted(segment)
    if inverted is not None:
        start = offset + rest.index(segment.strip())
        return start, start + len(segment.strip()), inverted
    segment = _CREDENTIALS.sub("", segment).strip().rstrip(",")
    if not segment or re.search(r"[\d@/:()]", segment):
        return None
    tokens = segment.split()
    if not _tokens_ok(tokens):
        return None
    start = offset + rest.index(tokens[0])
    return start, start + len(segment), tuple(tokens)


def find_name(text: str, max_lines: int = 12) -> Name | None:
    """The candidate's name near the top of `text` (or from the email), else None."""
    pos = 0
    seen = 0
    for line in text.split("\n"):
        if line.strip():
            seen += 1
            if seen > max_lines:
                break
            found = parse_name_line(line)
            if found is not None:
                start, end, tokens = found
                confidence = 0.95 if seen <= 3 else 0.85
                return Name(tokens, pos + start, pos + end, confidence)
        pos += len(line) + 1
    labelled = re.search(r"^\s*name\s*:\s*(.+)$", text[:5000], re.IGNORECASE | re.MULTILINE)
    if labelled:
        found = parse_name_line(labelled.group(0))
        if found is not None:
            start, end, tokens = found
            return Name(tokens, labelled.start() + start, labelled.start() + end, 0.9)
    return _name_from_email(text)


def _name_from_email(text: str) -> Name | None:
    local = _EMAIL_LOCAL.search(text)
    if local is None:
        return None
    first, last = local.group(1), local.group(2)
    pattern = re.compile(
        rf"(?<![\w@.]){re.escape(first)}\s+(?:[A-Z]\.\s+)?{re.escape(last)}(?![\w@])",
        re.IGNORECASE,
    )
    for match in pattern.finditer(text):
        if match.group(0)[:1].isupper():
            tokens = tuple(match.group(0).split())
            return Name(tokens, match.start(), match.end(), 0.75)
    return None


def _word(token: str) -> str:
    return rf"(?<![\w@.]){re.escape(token)}(?![\w@])"


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    part: str  # "full" | "first" | "last" | "first_initial" | "initials"
    confidence: float


def _capitalised(found: str) -> bool:
    return found[:1].isupper()


def mentions(text: str, name: Name) -> list[Mention]:
    """Every mention of the candidate's name, most specific first."""
    out: list[Mention] = []
    first, last = name.first, name.last
    middles = name.tokens[name.first_index + 1 : -1]
    fulls = [name.tokens[name.first_index :], (first, last)]
    if middles:
        fulls.insert(1, (first, *middles, last))
    for tokens in fulls:
        pattern = r"(?<![\w@.])" + r"\s+".join(re.escape(t) for t in tokens) + r"(?![\w@])"
        for m in re.finditer(pattern, text, re.IGNORECASE):
            if _capitalised(m.group(0)):
                out.append(Mention(m.start(), m.end(), "full", 0.95))
    initial = re.compile(
        rf"(?<![\w@.])({re.escape(first[0])}\.?)\s+({re.escape(last)})(?![\w@])",
    )
    for m in initial.finditer(text):
        out.append(Mention(m.start(1), m.end(1), "first_initial", 0.85))
        out.append(Mention(m.start(2), m.end(2), "last", 0.85))
    out.extend(_initials(text, name))
    if name.last_full != last:
        pattern = (
            r"(?<![\w@.])" + r"\s+".join(map(re.escape, name.last_full.split())) + r"(?![\w@])"
        )
        for m in re.finditer(pattern, text, re.IGNORECASE):
            if m.group(0).split()[-1][:1].isupper():
                out.append(Mention(m.start(), m.end(), "last", 0.8))
    for token, part in ((first, "first"), (last, "last")):
        token = token.rstrip(".")
        if len(token) < 2:
            continue
        common = token.lower() in COMMON_WORD_NAMES
        for m in re.finditer(_word(token), text, re.IGNORECASE):
            if not _capitalised(m.group(0)):
                continue
            after = text[m.end() : m.end() + 40]
            if _followed_by_other_name(after, name):
                continue
            if re.match(r",\s*[A-Z]{2}\b", after):
                continue  # "Jackson, MS": a place
            out.append(Mention(m.start(), m.end(), part, 0.6 if common else 0.8))
    return out


def _followed_by_other_name(after: str, name: Name) -> bool:
    """True if a capitalised word not of the candidate's name follows ("Hall of Fame")."""
    if re.match(r"[ \t]+(?:of|de|for|and|&)[ \t]+[A-Z]", after):
        return True
    nxt = re.match(r"[ \t]+([^\W\d_][\w'\u2019\-]*)", after)
    if nxt is None:
        return False
    word = nxt.group(1)
    if not word[:1].isupper():
        return False
    own = {t.lower().rstrip(".") for t in name.tokens}
    return word.lower() not in own


def _initials(text: str, name: Name) -> list[Mention]:
    """A monogram line at the top ("JD", "J.D.") standing for the name."""
    letters = [name.first[0].upper(), name.last[0].upper()]
    pattern = re.compile(
        rf"^[ \t]*({letters[0]}\.?\s?{letters[1]}\.?)[ \t]*$",
        re.MULTILINE,
    )
    out = []
    for m in pattern.finditer(text[:400]):
        out.append(Mention(m.start(1), m.end(1), "initials", 0.7))
    return out
