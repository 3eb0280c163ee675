"""Contact details: email, phone, links, street address, and the city in the header.

Each finder returns (start, end, confidence) spans. They are written to miss a
detail rather than take a date range ("2019 - 2021"), a version ("Python 3.11"),
a framework ("Node.js", "ASP.NET") or a number of customers for one. Street
addresses are read by pyap (a library made for it) with our pattern beside it.
"""

from __future__ import annotations

import logging
import re
import sys
from typing import Any

from resume_auditor.documents.sections import heading_of

logger = logging.getLogger(__name__)

Span = tuple[int, int, float]

EMAIL = re.compile(r"(?<![\w.+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}")
_TLDS = (
    "com|org|net|io|dev|me|co|ai|app|page|site|info|xyz|tech|us|uk|ca|de|fr|nl|es|it|in|au|"
    "eu|online|blog|design|codes|studio|website|portfolio|pro|cc|ly|to|edu|gov"
)
_URL = re.compile(
    r"(?<![\w@.\-/])"
    r"(?:(?P<scheme>https?://[ \t]*\n?[ \t]*)|(?P<www>www\.))?"  # a scheme the line broke
    r"(?P<host>(?:[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?\.)+(?P<tld>[A-Za-z]{2,24}))"
    r"(?P<path>/[^\s,;|()<>\"']*)?",
)
_PHONE = re.compile(r"(?<![\w+.\-/])(\+?\(?\d[\d \t().\-\u2010-\u2013]{5,22}\d)(?![\w.\-/]?\d)")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_PHONE_CONTEXT = re.compile(r"(phone|tel|mobile|cell|call|whatsapp|\u260e|\u2706)\W*$", re.I)
_STREET_TYPES = (
    "Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|"
    "Terrace|Ter|Circle|Cir|Parkway|Pkwy|Highway|Hwy|Square|Sq|Trail|Trl|Loop|Row|Alley|"
    "Crescent|Close|Grove|Gardens|Pike|Plaza|Run"
)
US_STATES = frozenset(
    """
    AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH
    NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY PR
    AB BC MB NB NL NS NT NU ON PE QC SK YT
    """.split()  # noqa: SIM905  (a word list reads better as text)
)
STATE_NAMES = (
    "Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|"
    "Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|"
    "Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|"
    "New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|"
    "Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|"
    "Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming|Ontario|Quebec|"
    "British Columbia|Alberta"
)
_CITY = r"[A-Z\u00c0-\u00de][\w.'\u2019\-]*(?: [A-Z\u00c0-\u00de][\w.'\u2019\-]*){0,3}"
_REGION = rf"(?:[A-Z]{{2}}|{STATE_NAMES})"
_ZIP = r"(?:\d{5}(?:-\d{4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d)"
_ADDRESS = re.compile(
    rf"(?<![\w\-])\d{{1,6}}[A-Za-z]?(?: [A-Z0-9][\w'.\-]*){{1,5}}? (?:{_STREET_TYPES})\b\.?"
    rf"(?:,? (?:Apt|Apartment|Suite|Ste|Unit|#|No\.)\.? ?[\w\-]+)?"
    rf"(?P<town>,? {_CITY},? {_REGION}(?: {_ZIP})?\b|,? {_CITY} {_ZIP}\b)?"
    r"|(?P<box>(?<!\w)P\.? ?O\.? Box \d+\b)",
)
# Countries as addresses end with them (a header line "Mapo-gu, Seoul, Republic of Korea").
COUNTRIES = (
    "USA|U\\.S\\.A\\.|United States(?: of America)?|Canada|Mexico|Brazil|Argentina|Chile|"
    "Colombia|Peru|UK|U\\.K\\.|United Kingdom|England|Scotland|Wales|Ireland|France|Germany|"
    "Deutschland|Spain|España|Portugal|Italy|Italia|Netherlands|Belgium|Switzerland|Austria|"
    "Sweden|Norway|Denmark|Finland|Poland|Czech Republic|Czechia|Hungary|Romania|Greece|"
    "Turkey|Türkiye|Israel|Egypt|Nigeria|Ghana|Kenya|South Africa|Morocco|India|Pakistan|"
    "Bangladesh|Sri Lanka|Nepal|China|Hong Kong|Taiwan|Japan|(?:Republic of )?Korea|"
    "South Korea|Singapore|Malaysia|Indonesia|Philippines|Vietnam|Viet Nam|Thailand|"
    "Australia|New Zealand|United Arab Emirates|UAE|Saudi Arabia|Qatar|Ukraine|Russia"
)
_COUNTRY_END = re.compile(rf"(?:^|[,\s\u2013\u2014-])(?:{COUNTRIES})(?:,?\s*\d{{4,6}})?\.?$")
_STREET_START = re.compile(r"^\d{1,6}[A-Za-z]?,?\s+\S")
_CONNECTORS = frozenset({"of", "de", "del", "la", "le", "and", "y", "the", "am", "an", "der"})
# Between the parts of a contact line; the en dash is not one ("Main St – Sacramento").
_SEGMENT_SPLIT = re.compile(r"\s*[|\u2022\u00b7\u25e6\t]\s*|\s+\u2014\s+|\s{3,}")
_LOCATION = re.compile(rf"(?<![\w,])({_CITY}), ({_REGION})(?: ({_ZIP}))?(?![\w])")


def find_emails(text: str) -> list[Span]:
    return [(m.start(), m.end(), 0.97) for m in EMAIL.finditer(text)]


def find_links(text: str) -> list[Span]:
    out: list[Span] = []
    for m in _URL.finditer(text):
        scheme, www, host, tld = m.group("scheme"), m.group("www"), m.group("host"), m.group("tld")
        path = m.group("path") or ""
        if m.start() > 0 and text[m.start() - 1] == "@":
            continue
        if not (scheme or www):
            if host != host.lower() or not re.fullmatch(_TLDS, tld):
                continue  # "ASP.NET", "Node.js", "e.g."
            if host.count(".") == 0:
                continue
        end = m.start() + len(m.group(0).rstrip(".,;:!?)]}'\""))
        if text[end - 1 : end] == "/":  # "linkedin.com/in/" / "jane-doe": the line broke it
            rest = re.match(r"[ \t]*\n[ \t]*([\w\-.]{2,60})[ \t]*(?:\n|$)", text[end:])
            if rest:
                end += rest.end(1)
        confidence = 0.95 if (scheme or www or path) else 0.8
        out.append((m.start(), end, confidence))
    return out


def _phone_ok(candidate: str, before: str) -> float:
    digits = re.sub(r"\D", "", candidate)
    groups = re.findall(r"\d+", candidate)
    if not 7 <= len(digits) <= 15:
        return 0.0
    if groups and all(_YEAR.match(g) for g in groups):
        return 0.0  # "2019 - 2021", "2015 2016 2017"
    if re.fullmatch(r"\d{5}-\d{4}", candidate.strip()):
        return 0.0  # ZIP+4
    if candidate.count("(") != candidate.count(")"):
        candidate = candidate.replace("(", "").replace(")", "")
    plus = candidate.lstrip("( ").startswith("+")
    shaped = re.search(r"\(?\d{3}\)?[ .\-\u2010-\u2013]?\d{3}[ .\-\u2010-\u2013]\d{4}\b", candidate)
    if plus or shaped:
        return 0.95
    if _PHONE_CONTEXT.search(before):
        return 0.85
    if len(digits) >= 10 and len(groups) >= 3:
        return 0.7
    return 0.0


def find_phones(text: str) -> list[Span]:
    out: list[Span] = []
    for m in _PHONE.finditer(text):
        raw = m.group(1)
        start = m.start(1)
        # a bracket opened before the match belongs to it: "(555) 010-2345"
        if start > 0 and text[start - 1] == "(" and (raw[:3].isdigit() or raw[:1] == "+"):
            start -= 1
            raw = "(" + raw
        trimmed = raw.rstrip(" \t-.(")
        confidence = _phone_ok(trimmed, text[max(0, start - 16) : start])
        if confidence:
            out.append((start, start + len(trimmed), confidence))
    return out


def find_addresses(text: str) -> list[Span]:
    """Our street pattern alone: every "12 Elm St[, Town, ST 00000]" and P.O. box."""
    return [(a, b, 0.85) for a, b, _full in _street_matches(text)]


def _street_matches(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, whole): whole when a town, region, postcode or box came with it."""
    out = []
    for m in _ADDRESS.finditer(text):
        found = m.group(0).rstrip(" ,")
        town = m.group("town") or ""
        # a town counts with a postcode or a real region: "2nd Place, AWS ASEAN AI" is
        # an award, its "AI" no state
        tail = _TOWN_REGION.search(town) if town else None
        region = (tail.group("region") or "") if tail else ""
        whole = bool(m.group("box")) or bool(
            tail and (tail.group("zip") or len(region) > 2 or region in US_STATES)
        )
        out.append((m.start(), m.start() + len(found), whole))
    return out


_TOWN_REGION = re.compile(rf"(?P<region>[A-Z]{{2}}|{STATE_NAMES})?(?: ?(?P<zip>{_ZIP}))?$")


def _pyap() -> Any:
    """pyap, imported once. Its vendored copy of six puts an importer on sys.meta_path
    that lacks find_spec (Python warns on every later import that reaches it); pyap
    never uses what that importer serves (six.moves), so it is taken off again."""
    try:
        import pyap
    except ImportError:  # pragma: no cover
        return None
    sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_SixMetaPathImporter"]
    return pyap


def _pyap_addresses(text: str) -> list[tuple[int, int, bool]]:
    """Street addresses as pyap reads them (US, Canada, UK): the USPS street suffixes,
    directionals, units and postcodes our pattern does not list. (start, end, whole):
    whole when a postcode or a region came with it."""
    pyap = _pyap()
    if pyap is None:  # pragma: no cover - a dependency; without it ours alone
        return []
    out: list[tuple[int, int, bool]] = []
    for lo, hi in _street_windows(text):
        for start, end, whole in _pyap_in(pyap, text[lo:hi]):
            out.append((lo + start, lo + end, whole))
    return sorted(set(out))


# Where a street address can start: a house number before a capitalised word ("48
# Linden", "221B Baker", "1600 E Riverside"). pyap reads about 50 kB a second, so it
# is given only the text around these (a 200-page resume would otherwise take seconds).
_STREET_NUMBER = re.compile(r"(?<![\w.,/\-])\d{1,6}[A-Za-z]?[ \t]+(?:[NSEW]\.?[ \t]+)?[A-Z]")
_WINDOW_BEFORE, _WINDOW_AFTER = 40, 200


def _street_windows(text: str) -> list[tuple[int, int]]:
    windows: list[tuple[int, int]] = []
    for m in _STREET_NUMBER.finditer(text):
        lo, hi = max(0, m.start() - _WINDOW_BEFORE), min(len(text), m.start() + _WINDOW_AFTER)
        # whole lines, so that no address is cut where a window ends
        lo = text.rfind("\n", 0, lo) + 1
        line_end = text.find("\n", hi)
        hi = len(text) if line_end < 0 else line_end
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], hi)
        else:
            windows.append((lo, hi))
    return windows


def _pyap_in(pyap: Any, text: str) -> list[tuple[int, int, bool]]:
    out: list[tuple[int, int, bool]] = []
    for country in ("US", "CA", "GB"):
        try:
            found = pyap.parse(text, country=country)
        except Exception:  # a library's failure costs recall, never the resume
            logger.debug("pyap could not read a text", exc_info=True)
            continue
        for address in found:
            # pyap's offsets and text are its own copy's (spacing collapsed, a comma
            # where a line broke): the address is found again in ours, wherever it is
            words = re.findall(r"[^\s,]+", address.full_address)
            if not words:
                continue
            pattern = re.compile(
                r"(?<![\w\-])" + r"[\s,]*".join(re.escape(w) for w in words) + r"(?!\w)"
            )  # pyap can end inside a word ("2nd Place, AWS AS|EAN"): such a match is dropped
            # a postcode or region counts when it is a word of its own: pyap reads the
            # "DE" of "SECUINSIDE" as Delaware
            whole = any(
                part and re.search(rf"(?<!\w){re.escape(part)}(?!\w)", address.full_address)
                for part in (address.postal_code, address.region1)
            )
            out.extend((m.start(), m.end(), whole) for m in pattern.finditer(text))
    return out


def find_street_addresses(text: str, blocks: list[tuple[int, int]]) -> list[Span]:
    """Street addresses: pyap's and ours together.

    Measured (benchmarks/identity_libraries.py, issue 23): on 600 generated addresses
    (USPS suffixes, units, ZIP+4, Canadian and UK postcodes, four placings) ours alone
    finds 0.685, pyap alone 0.933 and the two together 0.960, all with precision
    1.000 (usaddress, which needs a compiled extension, 0.908); on resumes-dev all
    find the same 20 of 23 (the three missed are placeholders with no number), but
    ours alone also took eight award lines ("2021 2nd Place, AWS ASEAN AI") for
    addresses and pyap seven ("2015 3rd Place, WITHCO"); together, as below, one. So
    an address counts on its own where one is expected (the contact blocks); in the
    body it needs a postcode or a real region with it (an employer's full address
    stays withheld; an award's "2nd Place" stays as written).
    """
    out: list[Span] = []
    for a, b, whole in [*_pyap_addresses(text), *_street_matches(text)]:
        if whole or any(lo <= a < hi for lo, hi in blocks):
            out.append((a, b, 0.85))
    return out


_HANDLE = re.compile(
    r"(?<![\w.@])@[A-Za-z0-9_](?:[A-Za-z0-9_.]{0,28}[A-Za-z0-9_])?"
    r"(?:@[A-Za-z0-9](?:[A-Za-z0-9\-.]{0,60}[A-Za-z0-9])?)?(?![\w@])"  # "@jane@mastodon.social"
)


def find_handles(text: str, end: int, start: int = 0) -> list[Span]:
    """Social handles ("@jane_codes") between start and end: the contact block only,
    since elsewhere "@Acme" is more often a company than the candidate."""
    return [(m.start(), m.end(), 0.75) for m in _HANDLE.finditer(text, start, end)]


_HEADER_NUMBER = re.compile(r"(?<![\w+.\-/])\+?\(?\d[\d \t().\-\u2010-\u2013]{5,22}\d(?![\w/])")


def find_header_numbers(text: str, end: int, start: int = 0) -> list[Span]:
    """A number of 7 to 15 digits in two or more groups in the contact block: a phone
    written in a shape the general finder does not trust ("000-00-0000", "0541 99 99"),
    since the only long numbers a contact block holds are phone numbers (dates and
    year ranges excepted)."""
    out: list[Span] = []
    for m in _HEADER_NUMBER.finditer(text, start, end):
        raw = m.group(0).rstrip(" \t-.(")
        groups = re.findall(r"\d+", raw)
        digits = sum(len(g) for g in groups)
        if not 7 <= digits <= 15 or len(groups) < 2 or "\n" in raw:
            continue
        if re.fullmatch(r"\d{5}-\d{4}", raw.strip()):
            continue  # ZIP+4
        if all(_YEAR.match(g) for g in groups if len(g) == 4) and any(len(g) == 4 for g in groups):
            continue  # "2019 - 2021", "05/2019 - 2021"
        out.append((m.start(), m.start() + len(raw), 0.7))
    return out


def find_locations(text: str, end: int, start: int = 0) -> list[Span]:
    """A "City, ST" between start and end: the contact block or a Contact section."""
    out: list[Span] = []
    for m in _LOCATION.finditer(text, start, end):
        region = m.group(2)
        if len(region) == 2 and region not in US_STATES:
            continue
        out.append((m.start(), m.end(), 0.8))
    return out


_REST_OF_ADDRESS = re.compile(
    r"[ \t]*,(?:[ \t]*,?[ \t]*[A-Z\u00c0-\u00de\d][\w.'\u2019\-]*)*[ \t]*,?[ \t]*$"
)
_NEXT_ADDRESS_LINE = re.compile(
    rf"[ \t]*(?:[A-Z\u00c0-\u00de][\w.'\u2019\-]*,?[ \t]+)*"
    rf"(?:{_REGION}|{COUNTRIES}|\d[A-Z]{{2}}\b|[A-Z]\d[A-Z] ?\d[A-Z]\d|"
    rf"[A-Z]{{1,2}}\d[A-Z\d]? ?\d[A-Z]{{2}}|\d{{4,6}})"
    rf"(?:[ \t,]+(?:{_ZIP}|\d{{4,6}}|{COUNTRIES}|[A-Z][\w.\-]*))*[ \t]*\.?$"
)


def address_start(text: str, start: int) -> int:
    """Where an address found at `start` begins, taken back over the line before when
    that line is its first part broken by a narrow column ("25 Tran Hung Dao, Hoan
    Kiem," / "Hanoi 100000, Vietnam"): a street number first and a comma last."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip() or line_start == 0:
        return start
    before = text.rfind("\n", 0, line_start - 1) + 1
    previous = text[before : line_start - 1].rstrip(" \t")
    if previous.endswith(",") and _STREET_START.match(previous) and len(previous) <= 60:
        return before
    return start


def extend_address(text: str, start: int, end: int) -> int:
    """The end of an address found at start..end, taken on to the rest of its line when
    that is only place names ("48 Linden Avenue, Evanston,") and on to the next line
    when the address was broken there by a narrow column ("IL 60201", "Karnataka
    560001, India"): a city or postcode left behind is still the candidate's."""
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    rest = _REST_OF_ADDRESS.match(text, end, line_end)
    if rest:
        end = len(text[:line_end].rstrip(" \t"))
    broken = text[start:end].rstrip().endswith(",") or re.search(
        r"\b[A-Z]{1,2}\d[A-Z\d]?$", text[start:end]
    )
    if broken and line_end < len(text):
        nxt_end = text.find("\n", line_end + 1)
        nxt_end = len(text) if nxt_end < 0 else nxt_end
        if 2 <= nxt_end - line_end <= 60 and _NEXT_ADDRESS_LINE.match(text, line_end + 1, nxt_end):
            end = len(text[:nxt_end].rstrip(" \t."))
    return end


def mask_contacts(text: str, addresses: bool = False) -> str:
    """`text` with emails, links and phone-like numbers (and street addresses, if asked)
    turned into a separator and spaces, the same length: on a contact line run
    together ("jo@x.org 555-0100 12 Elm St, Town, 00000 Country") the address, or the
    name between an address and a phone, is then a segment of its own."""
    chars = list(text)
    if addresses:
        found = find_addresses(text) + find_header_addresses(text, len(text))
        for start, end, _ in found:
            for i in range(start, end):
                if chars[i] != "\n":
                    chars[i] = "|" if i == start else " "
    for pattern in (EMAIL, _URL, _HEADER_NUMBER):
        for m in pattern.finditer(text):
            if pattern is _URL and not (m.group("scheme") or m.group("www") or m.group("path")):
                continue
            if pattern is _HEADER_NUMBER and len(re.findall(r"\d", m.group(0))) < 7:
                continue
            for i in range(m.start(), m.end()):
                if chars[i] != "\n":
                    chars[i] = "|" if i == m.start() else " "
    return "".join(chars)


def find_header_addresses(text: str, end: int, start: int = 0) -> list[Span]:
    """An address segment of a header line that the street pattern does not read.

    Between start and end (the contact block), a segment of a line (split at
    "|", bullets, tabs, wide gaps) that ends with a country ("Mapo-gu, Seoul,
    Republic of Korea", "123 Main St, Anywhere, USA") or starts with a street
    number and has a comma and a region ("235, World Cup buk-ro, Seoul, 03936").
    """
    out: list[Span] = []
    pos = start
    for line in mask_contacts(text[start:end]).split("\n"):
        cursor = 0
        for piece in _SEGMENT_SPLIT.split(line):
            at = line.find(piece, cursor) if piece else -1
            if at < 0:
                continue
            cursor = at + len(piece)
            segment = piece.strip().rstrip(".,;")
            if not 6 <= len(segment) <= 100 or re.search(r"[@/]|https?:|www\.", segment):
                continue
            if any(
                w[:1].islower() and "-" not in w and w not in _CONNECTORS
                for w in re.findall(r"[^\W\d_][\w'\-]*", segment)
            ):
                continue  # a sentence ("worked in 12 countries"), not an address
            country = _COUNTRY_END.search(segment)
            if country and segment[: country.start()].strip(" ,") and "," in segment:
                ok = True
            elif _STREET_START.match(segment) and "," in segment:
                ok = bool(re.search(rf"\b(?:{_REGION})\b|{_ZIP}|{COUNTRIES}", segment))
            elif "," in segment and re.search(r"(?<![\d\-/])\d{4,6}(?![\d\-/])", segment):
                ok = True  # "Street, Town, 00000 Country", "Calle Mayor 12, 28013 Madrid"
            else:
                ok = False
            if ok:
                begin = pos + at + piece.index(segment)
                out.append((begin, begin + len(_address_end(segment)), 0.75))
        pos += len(line) + 1
    return out


_ADDRESS_TAIL = re.compile(
    rf"(?:{_ZIP}|(?<![\d\-/])\d{{4,6}}(?![\d\-/])|\b(?:{_REGION})\b|(?:{COUNTRIES}))"
)


def _address_end(segment: str) -> str:
    """The segment up to its postcode, region or country: a contact line read in one
    run ("12 Elm St, Evanston, IL 60201 Jane Roe") goes on past the address; what
    follows its last place token, unless it is a country, is not the address."""
    tails = list(_ADDRESS_TAIL.finditer(segment))
    if not tails:
        return segment
    cut = segment[: tails[-1].end()]
    rest = segment[tails[-1].end() :].strip(" ,")
    if len(rest.split()) < 2 or _COUNTRY_END.search(rest):
        return segment  # "28013 Madrid": a city after the postcode is the address's
    return cut


# A labelled personal detail: "Date of Birth: 3 May 1990", "Father's Name: Ramesh Kumar",
# "Gender : Female", "Marital Status: Single", "Passport No: K1234567". None is a
# qualification; each identifies the person or states a group, so its value is a slot
# withheld in every copy. The labels are found anywhere on a line, so that a whole
# "Personal Information" block printed on one line ("DOB : 1/2/1990 Gender : Female
# Nationality : Indian") gives one value per label, each ending where the next starts.
PERSONAL_LABEL = re.compile(
    r"(?i)(?<![\w'\u2019])(?P<label>"
    r"date\s+of\s+birth|d\.?\s?o\.?\s?b\.?|birth\s*date|birthday|born(?:\s+on)?|place\s+of\s+birth|"
    r"age|gender|sex|nationality|citizenship|marital\s+status|civil\s+status|religion|caste|"
    r"blood\s+group|height|weight|"
    r"(?:father|mother|husband|wife|spouse|parent|guardian)(?:'s|\u2019s|s)?\s+name|"
    r"s/o|d/o|w/o|son\s+of|daughter\s+of|wife\s+of|"
    r"passport(?:\s+(?:no\.?|number))?|national\s+id(?:\s+(?:no\.?|number))?|"
    r"aadhaa?r(?:\s+(?:card\s+)?(?:no\.?|number))?|pan(?:\s+(?:card\s+)?(?:no\.?|number))|ssn|"
    r"social\s+security(?:\s+(?:no\.?|number))?|"
    r"driving\s+licen[cs]e(?:\s+(?:no\.?|number))?"
    r")(?![\w'])[ \t]*(?:[:\uff1a=][ \t]*|[\-\u2013][ \t]+|\t+|[ \t]{2,})"
)
# Where a labelled field may start: a line, or after a separator on one ("| DOB: ...").
_FIELD_BEFORE = re.compile(r"(?:^|[|\u2022\u00b7,;]|\s)[ \t*\-\u2022]*$")
_VALUE_END = re.compile(r"[|\u2022\u00b7\n]|\s{3,}")


def find_personal_details(text: str) -> list[Span]:
    """The values of labelled personal details (the label itself stays).

    A birth date, a parent's name or an ID number identifies the person (and a
    birth date says the age); gender, nationality, marital status or religion
    state a group. None is a qualification, so every variant shows them withheld.
    A label needs a colon, "=", a tab or a wide gap after it ("born in 1990" is
    prose), and a value runs to the next label, a separator or the line's end.
    """
    labels = [
        m
        for m in PERSONAL_LABEL.finditer(text)
        if _FIELD_BEFORE.search(text[text.rfind("\n", 0, m.start()) + 1 : m.start()])
    ]
    out: list[Span] = []
    for i, m in enumerate(labels):
        limit = labels[i + 1].start() if i + 1 < len(labels) else len(text)
        start, end = _value_span(text, m.end(), limit)
        if start == end and end < limit and text[end : end + 1] == "\n":
            start, end = _value_span(text, end + 1, limit)  # "Nationality :" / "Indian"
        elif (
            end < limit
            and text[end : end + 1] == "\n"
            and "name" in m.group("label").lower()
            and len(text[start:end].split()) <= 2  # a name's last part wrapped
        ):
            more = _NAME_WRAP.match(text, end + 1, limit)  # "Father's Name : Javier" / "Fernández"
            if more and heading_of(more.group(0)) is None:  # not the next section's heading
                end = more.end()
        elif end < limit and text[end : end + 1] == "\n" and _UNFINISHED.search(text, start, end):
            more = _VALUE_REST.match(text, end + 1, limit)  # "30 de enero de" / "1992"
            if more:
                end = more.end()
        value = text[start:end].rstrip(" \t.,;:")
        if not value.strip() or len(value.split()) > 10:
            continue
        out.append((start, start + len(value), 0.85))
    taken = [(a, b) for a, b, _ in out]
    out += [span for span in _spaced_birth_dates(text) if not _overlaps(span, taken)]
    return out


# A birth label set off by one space only ("DOB 04/11/1996", "Born 12 March 1994"): the
# label alone is prose as often as not, so the value counts only when a date parser
# reads a date there.
BIRTH_SPACED = re.compile(
    r"(?i)(?<![\w'\u2019])(?:(?P<strong>date\s+of\s+birth|d\.?o\.?b\.?|birth\s*date)|birthday|"
    r"born(?:\s+on)?)(?:[ \t]+|[ \t]*\n[ \t]*)(?=\d|[^\W\d_]+\.?[ \t]+\d)"
)  # the label may end a line a narrow column broke ("Born" / "1991-11-30 Gender : ...")
_DATE_WORDS = re.compile(r"[^\s,|\u2022\u00b7;]+")


def _overlaps(span: Span, taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < b and span[1] > a for a, b in taken)


def _spaced_birth_dates(text: str) -> list[Span]:
    """Dates after a birth label set off by one space, a digit coming first or second.

    After "date of birth", "DOB" or "birth date" the value runs to a separator or the
    line's end, as after a colon (a date in any language: "30 de enero de 1992").
    After "born" or "birthday", which prose uses too, it is the longest run of up to
    five words that dateutil parses as a date ("Born 23rd July 1995 in Warsaw"; "born
    in 1990" never reaches here; "born 1990" says the age and is taken)."""
    from dateutil import parser as dates

    out: list[Span] = []
    for m in BIRTH_SPACED.finditer(text):
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end < 0 else line_end
        following = PERSONAL_LABEL.search(text, m.end(), line_end)  # "... Nationality : X"
        if following is not None:
            line_end = following.start()
        if m.group("strong"):
            start, end = _value_span(text, m.end(), line_end)
            value = text[start:end].rstrip(" \t.,;:")
            if value and len(value.split()) <= 6:
                out.append((start, start + len(value), 0.8))
                continue
        words = list(_DATE_WORDS.finditer(text, m.end(), line_end))[:5]
        for k in range(len(words), 0, -1):
            start, end = m.end(), words[k - 1].end()
            value = text[start:end].rstrip(".,;:")
            if not any(c.isdigit() for c in value):
                continue
            try:
                dates.parse(value, fuzzy=False)
            except (ValueError, OverflowError):
                continue
            out.append((start, start + len(value), 0.8))
            break
    return out


# A value the line broke before its end: it ends with a connecting word or a day and
# month, and the next line starts with a number ("30 de enero de" / "1992").
_UNFINISHED = re.compile(r"(?:\b(?:de|del|of|the|von|van|da|di)|\d{1,2}\s+[^\W\d_]+)[ \t]*$", re.I)
_VALUE_REST = re.compile(r"[ \t]*\d{1,4}\b[^\n|\u2022]{0,20}?(?=[ \t]*(?:\n|$))")
_NAME_WRAP = re.compile(
    r"[A-Z\u00c0-\u00de][\w'\u2019\-]*(?: [A-Z\u00c0-\u00de][\w'\u2019\-]*)?(?=[ \t]*(?:\n|$))"
)


def _value_span(text: str, start: int, limit: int) -> tuple[int, int]:
    """A value from `start`: to a separator, the line's end or the next label."""
    while start < limit and text[start] in " \t":
        start += 1
    stop = _VALUE_END.search(text, start)
    end = min(stop.start() if stop else len(text), limit)
    return start, max(start, end)


# Japanese and Korean resume forms (rirekisho): a label, then its value on the same line
# or, when the label stands alone, on the next. ふりがな is the kana reading of the
# field below it (the name, the address): as identifying as the field itself.
_CJK_FIELD = re.compile(
    r"(?m)^[ \t\u3000]*(?P<label>生\s*年\s*月\s*日|ふりがな|フリガナ|性\s*別|国\s*籍|本\s*籍|"
    r"現\s*住\s*所|住\s*所|連\s*絡\s*先|생\s*년\s*월\s*일|주\s*소|성\s*별)"
    r"[ \t\u3000]*[:：]?[ \t\u3000]*(?P<value>[^\n]*)"
)
_CJK_ADDRESS_LABELS = ("住", "連", "주")
_POSTCODE_ONLY = re.compile(r"^〒?\s*\d{3}-?\d{4}$")


def find_cjk_fields(text: str) -> list[tuple[int, int, float, bool]]:
    """(start, end, confidence, is_address) for labelled fields of a CJK resume form."""
    out: list[tuple[int, int, float, bool]] = []
    for m in _CJK_FIELD.finditer(text):
        start, end = m.start("value"), m.end("value")
        value = m.group("value").strip()
        nxt = text.find("\n", end + 1)
        next_line = text[end + 1 : nxt if nxt >= 0 else len(text)]
        address = any(c in m.group("label") for c in _CJK_ADDRESS_LABELS)
        if (not value or (address and _POSTCODE_ONLY.match(value))) and next_line.strip():
            end = end + 1 + len(next_line.rstrip())  # the value is (also) on the next line
            if not value:
                start = end - len(next_line.strip())
        while start < end and text[start] in " \t\u3000":
            start += 1
        if start < end:
            out.append((start, end, 0.8, address))
    return out


_SITES = (
    r"linkedin|github|gitlab|bitbucket|twitter|x|instagram|facebook|youtube|medium|behance|"
    r"dribbble|kaggle|leetcode|stack\s?overflow|skype|telegram|mastodon|codepen|hugging\s?face"
)
_LABELLED_HANDLE = re.compile(
    rf"(?i)(?<![\w.])(?:{_SITES})\s*(?::\s*(?://\s*)?|://\s*)"
    r"(?P<handle>@?[A-Za-z0-9][\w\-.]{1,38}[A-Za-z0-9_])(?![\w@/])"
)


def find_labelled_handles(text: str) -> list[Span]:
    """A bare handle after a site's name ("GitHub: janedoe", "LinkedIn:// jane-doe")."""
    out: list[Span] = []
    for m in _LABELLED_HANDLE.finditer(text):
        handle = m.group("handle")
        if "." in handle.strip("."):
            continue  # "linkedin.com/...": a link, found as one
        out.append((m.start("handle"), m.end("handle"), 0.8))
    return out


_LABELLED_ADDRESS = re.compile(
    r"(?im)(?:^|(?<=[|\u2022\u00b7]))[ \t*\-\u2022]*(?P<label>(?:(?:residential|permanent|"
    r"current|present|home|postal|mailing|correspondence)\s+)?address|adresse|direcci\u00f3n|"
    r"anschrift|location|based\s+in)[ \t]*(?:[:\-\u2013][ \t]*|\t+)(?P<value>[^\n|\u2022]{3,120})"
)


def find_labelled_addresses(text: str) -> list[tuple[int, int, float, bool]]:
    """(start, end, confidence, is_street) for "Address: ..." and "Location: ..." values.

    A labelled address is the candidate's wherever it stands (a "Personal details"
    block at the end, a sidebar); `is_street` is False for a bare "Location:".
    """
    out: list[tuple[int, int, float, bool]] = []
    for m in _LABELLED_ADDRESS.finditer(text):
        value = m.group("value").rstrip(" \t.,;")
        if not value.strip() or "@" in value:
            continue
        street = "address" in m.group("label").lower() or m.group("label").lower() in (
            "adresse",
            "direcci\u00f3n",
            "anschrift",
        )
        start = m.start("value")
        out.append((start, start + len(value), 0.85, street))
    return out
