"""The candidate's name: where it is at the top, and every later mention of it.

A name must look like one where names stand. A header line is a candidate when
it has a name's shape: one to four capitalised (or ALL-CAPS) words, initials
and particles ("de", "van") allowed, after dropping a title ("Dr."), trailing
credentials (", MBA") and anything after a separator ("Jane Doe | Data
Analyst"); a name drawn letter by letter ("J A N E  D O E") or written
"MORALES, Lena" counts too. It is taken only with evidence (`_evidence`): a
first name known to the shipped lists (resources/names/first_names.txt.gz, from
US birth records and Tzioumis 2018: names of many origins), the name in the
email's local part, a "Name:" label, or a known surname on one of the top
lines. A line holding a resume word (a heading, job title, skill or section
word: "SOUS CHEF", "HR GENERALIST", "Microsoft Office", "Nursing Expertise") is
never a name. Failing all that, the local part of the email ("jane.doe@") is
looked for as a capitalised pair in the text.

Placeholders: a template's stand-in ("YOUR NAME HERE", "[First Last]") stands
where the name stands, so it is taken as the name (low confidence) and is
replaced in every variant like a real one; "John Doe" is name-shaped and found
like any name. `is_placeholder_name` tells the caller, who says so to the user.

Mentions are then matched as whole words, capitalised or ALL-CAPS: the full
name (with or without middle names), the first initial with the last name, the
first and last names alone ("Jane's", "Ms. Doe"). A lone first or last name
directly followed by another capitalised word is someone or something else
("Jane Smith", "Brown University", "King County") and is left alone.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from resume_auditor.documents.contact import (
    BIRTH_SPACED,
    EMAIL,
    PERSONAL_LABEL,
    STATE_NAMES,
    US_STATES,
    find_personal_details,
    mask_contacts,
)
from resume_auditor.documents.sections import EXPERIENCE, heading_of

# How many non-blank lines from the top the name is looked for in (a sidebar
# printed before the main column can push it down).
MAX_HEADER_LINES = 15
ACCEPT = 3.0  # the evidence a line needs to be taken for the name
STRONG = 4.5  # enough evidence for a high confidence
PLACEHOLDER_SCORE = 0.5  # below any real evidence: a real name further down wins

_PARTICLES = frozenset(
    "de del della der di da dos du la le van von ter ten bin ibn al el st".split()  # noqa: SIM905
)
_TITLES = re.compile(r"^(?:mr|ms|mrs|miss|mx|dr|prof)\.?\s+", re.IGNORECASE)
_CREDENTIALS = re.compile(r",\s*(?:[A-Z][A-Za-z.]{1,8})(?:\s*,\s*[A-Z][A-Za-z.]{1,8})*\s*$")
_SEPARATORS = re.compile(r"\s+[|\u2022\u00b7\u2013\u2014\-]\s+|\s*\|\s*|\t|\s{3,}")
_LABEL = re.compile(r"^\s*(?:full\s+)?name\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_PRONOUN_TAIL = re.compile(
    r"\s*[,(\[]?\s*(?:she|he|they|ze|xe)\s*/\s*(?:her|him|them|hers|his|theirs|zir|xem)"
    r"(?:\s*/\s*\w+)?\s*[)\]]?\s*$",
    re.IGNORECASE,
)
# The first words of a personal-details label, where a line may break the label.
_LABEL_START = re.compile(
    r"\s+(?:Date|D\.?O\.?B|Birth\w*|Born|Place|Gender|Sex|Nationality|Citizenship|Marital|"
    r"Civil|Religion|Father'?s?|Mother'?s?|Spouse'?s?|Passport)\b.*$"
)
_SUFFIX_TAIL = re.compile(r",?\s+(?:Jr|Sr|II|III|IV)\.?$")
_NICKNAME = re.compile(
    r"\s+(?:[\"\u201c\u2018'][^\"\u201d\u2019']{1,20}[\"\u201d\u2019']|\([^()]{1,20}\))(?=\s)"
)
_DOC_PREFIX = re.compile(
    r"\s*(?:resume|r\u00e9sum\u00e9|cv|curriculum\s+vitae)(?:\s+of\b|\s*[:\-\u2013\u2014|])\s*",
    re.IGNORECASE,
)
_BODY = re.compile(
    r"\b(experience|employment|work history|career history|education|projects)\b", re.IGNORECASE
)
MAX_SCAN_LINES = 40  # a long sidebar before the main column
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_CJK_LABEL = re.compile(r"^\s*(?:氏\s*名|姓\s*名|名\s*前|이\s*름|성\s*명)\s*[:：]?(.*)$")
_CJK_NAME = re.compile(rf"[{_CJK}]{{1,8}}(?:[ \u3000][{_CJK}]{{1,8}}){{0,2}}")
_REFERENCES = re.compile(r"\b(references?|referees?)\b", re.IGNORECASE)
_PLACEHOLDER = re.compile(
    r"^\s*(?:#{1,6}\s+)?\**\s*("
    r"[\[<{(]?\s*(?:your|first|full|candidate'?s?|applicant'?s?)\s+(?:full\s+)?name"
    r"(?:\s+here)?\s*[\]>})]?"
    r"|[\[<{(]?\s*first\s*name\s+(?:middle\s*name\s+)?(?:last\s*name|surname)\s*[\]>})]?"
    r"|[\[<{(]?\s*(?:first|given)\s+(?:last|family|surname)\s*[\]>})]?"
    r"|[\[<{(]?\s*name\s+surname\s*[\]>})]?"
    r")\s*\**\s*$",
    re.IGNORECASE,
)
# Names templates print for "your name here" (found like any name; said to the user).
PLACEHOLDER_PEOPLE = frozenset(
    ["john doe", "jane doe", "john smith", "jane smith", "john q. public", "jane q. public"]
)
# Words of a resume that are not names: headings, job titles, skills, section and
# organisation words. One of them anywhere in a line means the line is not the name.
# Words that are also common first names (Grant, Hunter, Mason, Will) are left out.
RESUME_WORDS = frozenset(
    """
    resume resumes cv vitae curriculum biodata summary profile profiles experience experiences
    education skill skills contact contacts objective objectives professional references
    reference referees the and of for with at in to my our your their personal information
    info details portfolio about me career careers work history projects project
    certifications certification certificates certificate licenses license licensure
    qualifications qualification highlights accomplishments achievements achievement
    expertise competencies competency strengths abilities knowledge overview background
    employment training courses coursework activities affiliations memberships interests
    hobbies languages language publications presentations awards award honors honours
    volunteer volunteering leadership additional relevant selected core technical
    professional executive statement goals availability declaration signature
    analyst analysts engineer engineering manager management managers developer development
    designer design scientist science consultant consulting specialist assistant associate
    director coordinator administrator administrative administration officer intern
    internship teacher teaching nurse nursing accountant accounting architect technician
    representative lead senior principal staff chief president vice founder
    owner student graduate candidate data software business sales marketing product
    operations finance financial research customer service services support registered
    certified stack front end back web mobile cloud security network networks systems
    system quality human resource resources legal medical clinical chef sous line prep
    cashier server bartender barista waiter waitress housekeeper janitor custodian truck
    mechanic electrician plumber welder machinist operator clerk receptionist secretary
    paralegal attorney lawyer counsel generalist recruiter recruiting recruitment advisor
    adviser agent broker banker auditor bookkeeper controller treasurer economist
    planner buyer merchandiser supervisor superintendent worker laborer
    aide caregiver therapist pharmacist physician doctor surgeon dentist hygienist
    paramedic emt medic veterinarian psychologist counselor counsellor educator instructor
    tutor professor lecturer librarian editor writer author journalist reporter
    photographer artist illustrator animator producer marketer strategist programmer
    tester administrator florist stylist dentist receptionist pharmacist therapist
    specialists devops sre qa ux ui it hr ceo cfo cto coo vp svp evp rn lpn cna
    lvn np crna cpa md phd mba msc bsc bs pmp
    microsoft office excel word powerpoint outlook access windows linux macos unix sql
    python java javascript typescript html css react angular node aws azure gcp docker
    kubernetes salesforce sap oracle quickbooks peoplesoft workday tableau adobe photoshop
    illustrator autocad git jira agile scrum six sigma
    university college school academy institute institution hospital clinic center centre
    company corporation corp inc llc ltd plc group foundation association society bank
    department county city state federal government agency team division
    inventory payroll billing scheduling customer patient patients client clients
    communication communications problem solving time organizational interpersonal
    analytical detail oriented multitasking proficient proficiency excellent
    proven results driven motivated dedicated reliable hardworking bilingual fluent
    computer computers digital media social retail restaurant hospitality food kitchen
    culinary construction manufacturing warehouse logistics transportation healthcare
    health care safety compliance risk insurance real estate property maintenance
    facilities environmental energy marketing advertising relations events event
    planning writing editing leader member ambassador sergeant chain
    speaker ranger trainer processor crew shift mail delivery supply youth athletic
    valley garden gardens square pacific atlantic cowboys controls solutions partners
    holdings industries enterprises technologies capital ventures labs studio studios
    foods motors airlines airways electric water realty properties hotel hotels
    resort inn cafe grill bistro bar market markets store stores mall shop pharmacy
    dental ministries budget budgeting forecasting reporting reports analysis analytics
    international global national regional local general special specialty
    """.split()  # noqa: SIM905  (a word list reads better as text)
)
# Endings of English nouns and verb forms ("Writing", "Qualifications", "Leadership",
# "Analytics"): a word with one is not a name unless the name lists know it
# ("Manning", "Constance", "Florence").
_WORD_ENDINGS = re.compile(
    r"(?:ing|ings|tion|tions|sion|sions|ment|ments|ness|ship|ships|ities|ity|ence|ences|"
    r"ance|ances|ics|ology|ologies|ism|ive|ives|able|ible|ical|ally|ized|ised|"
    r"ware|tech|works)$"
)
# Names that are also common words: a capitalised one may just start a sentence.
COMMON_WORD_NAMES = frozenset(
    """
    will grant hope rose faith joy mark bill pat dean chase hunter miles king brown green
    white black young price page wood may june april summer autumn dawn frank grace sterling
    cash rich rush lane ford bond case crown street field hall hill park stone moore bell
    banks guy sky river august star max art gay major mason cook baker carpenter fisher
    porter butler sailor pilot judge painter farmer gardener miner weaver
    """.split()  # noqa: SIM905  (a word list reads better as text)
)
NOT_NAMES = RESUME_WORDS  # the old name, kept for callers


@cache
def _lexicon(filename: str) -> frozenset[str]:
    from resume_auditor.resources import resource

    with gzip.open(resource("names", filename), "rt", encoding="utf-8") as fh:
        return frozenset(line.strip() for line in fh if line.strip())


def is_first_name(word: str) -> bool:
    """True if `word` (any case, accents ignored) is a first name in the shipped lists."""
    key = _plain(word)
    return len(key) >= 2 and key in _lexicon("first_names.txt.gz")


def is_surname(word: str) -> bool:
    """True if `word` is a surname carried by at least 1,000 people in the 2010 US Census."""
    key = _plain(word)
    return len(key) >= 2 and key in _lexicon("surnames.txt.gz")


_EMAIL_LOCAL = re.compile(r"([A-Za-z][A-Za-z'\-]+)[._\-]([A-Za-z][A-Za-z'\-]+)\d*@")


@dataclass(frozen=True)
class Name:
    tokens: tuple[str, ...]  # as written at the top ("Jane", "Q.", "Public")
    start: int  # where the name line's name starts in the text
    end: int
    confidence: float
    placeholder: bool = False  # a template's stand-in ("YOUR NAME HERE")

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
    if given[0].upper() in US_STATES or re.fullmatch(STATE_NAMES, match.group(2)):
        return None  # "DAYTON, OH", "AUSTIN, Texas": a place
    tokens = (*given, last)
    return tokens if _tokens_ok(list(tokens)) else None


def parse_name_line(line: str) -> tuple[int, int, tuple[str, ...]] | None:
    """(start, end in line, name tokens in natural order) if `line` reads as a name."""
    match = re.match(
        r"\s*(?:#{1,6}\s+)?(?:[^\w\s(\[<{'\"]\s*)*(?:name\s*:\s*)?", line, re.IGNORECASE
    )
    offset = match.end() if match else 0
    rest = line[offset:]
    title = _TITLES.match(rest)
    if title and len(rest) > title.end():
        offset += title.end()
        rest = rest[title.end() :]
    segment = _SEPARATORS.split(rest, maxsplit=1)[0].rstrip("*_ ")
    # "Name : Jo Roe Date of Birth : ...", "Name : Jo Roe DOB 04/11/1996 ..."
    labels = [m for m in (PERSONAL_LABEL.search(segment), BIRTH_SPACED.search(segment)) if m]
    following = min(labels, key=lambda m: m.start()) if labels else None
    if following is not None and following.start() > 0:
        segment = segment[: following.start()].rstrip(" ,;")
    elif match and match.group(0).strip():
        # a labelled name whose next label the line broke: "Name : Jo Roe Date of" / "Birth"
        broken = _LABEL_START.search(segment)
        if broken is not None and len(segment[: broken.start()].split()) >= 2:
            segment = segment[: broken.start()].rstrip(" ,;")
    inverted = _inverted(segment)
    if inverted is not None:
        start = offset + rest.index(segment.strip())
        return start, start + len(segment.strip()), inverted
    pronouns = _PRONOUN_TAIL.search(segment)  # "Jane Doe (she/her)": pronouns are slots
    if pronouns is not None:
        segment = segment[: pronouns.start()]
    segment = _CREDENTIALS.sub("", segment).strip().rstrip(",")
    # "Jane Doe Jr.", "Jane (Janie) Doe": in the span, not in the name's tokens
    suffix = _SUFFIX_TAIL.search(segment)
    core = segment[: suffix.start()] if suffix else segment
    core = _NICKNAME.sub(" ", core)
    if not core.strip() or re.search(r"[\d@/:()]", core):
        return None
    tokens = core.split()
    if not _tokens_ok(tokens):
        return None
    start = offset + rest.index(tokens[0])
    return start, start + len(segment), tuple(tokens)


def find_name(text: str, max_lines: int = MAX_HEADER_LINES) -> Name | None:
    """The candidate's name near the top of `text` (or from the email), else None.

    Every name-shaped stretch of the header is a candidate (a line, a line's
    first segment, a name broken over two lines or drawn letter by letter);
    each needs evidence that it is a person's name (see `_evidence`), and the
    best one wins (the earlier on a tie). A line holding a resume word ("SOUS
    CHEF", "Microsoft Office", "Core Qualifications") is never a name.
    """
    emails = [m.group(0).split("@")[0] for m in EMAIL.finditer(text[:20000])]
    # Words the text also writes in lower case are words ("shift", "park", "writing").
    prose = re.sub(r"\S*(?:@|/|\.\w)\S*", " ", text[:20000])  # not emails, links, handles
    lower = frozenset(re.findall(r"(?<![\w\-])[a-z]{3,}(?![\w\-])", prose))
    # candidates are read with contact details blanked out (same offsets), so a name
    # printed between a right-aligned address and a phone is a segment of its own
    lines = _header_lines(mask_contacts(text[:20000], addresses=True) + text[20000:], max_lines)
    # a parent's or spouse's name ("Father's Name: Tomasz Kowalski") is not the candidate's
    others = [(s, e) for s, e, _ in find_personal_details(text[:20000])]
    labels = [m.start() for m in PERSONAL_LABEL.finditer(text[:20000])]
    best: tuple[float, int, Name] | None = None
    for index, (pos, line, zone) in enumerate(lines):
        if zone == "references":
            continue
        cjk = _cjk_labelled(lines, index)
        if cjk is not None:
            return Name(tuple(text[cjk[0] : cjk[1]].split()), cjk[0], cjk[1], 0.85)
        placeholder = _placeholder(line)
        if placeholder is not None:
            if best is None:
                start, end = placeholder
                name = Name(tuple(line[start:end].split()), pos + start, pos + end, 0.6, True)
                best = (PLACEHOLDER_SCORE, index, name)
            continue
        labelled = bool(_LABEL.match(line))
        for start, end, tokens, glued in _candidates(lines, index):
            if any(start < e and end > s for s, e in others):
                continue
            if tokens[-1].endswith(("-", "\u2010")) and text[end : end + 1] == "\n":
                rest = re.match(r"[^\W\d_][\w'\u2019\-]*", text[end + 1 :])
                if rest:  # "Adeyemi-" / "Okoro": a hyphenated name the line broke
                    tokens = (*tokens[:-1], tokens[-1] + rest.group(0))
                    end = end + 1 + rest.end()
            cut = next((at for at in labels if start < at < end), None)
            if cut is not None:  # "Name : Jo Roe Date" / "of Birth : ...": the label's first word
                end = start + len(text[start:cut].rstrip(" ,;"))
                tokens = tuple(text[start:end].split())
                if len(tokens) < 2:
                    continue
            score = _evidence(tokens, index, labelled, emails, lower)
            in_email = _in_email(list(tokens), emails)
            if (zone == "body" or glued) and not in_email:
                # below "Experience", or split out of one run of letters ("TEACHER" is
                # not "Tea Cher"), only the email vouches for a name
                score = 0.0
            if score < ACCEPT or (best is not None and score <= best[0]):
                continue
            confidence = 0.95 if score >= STRONG else 0.8
            if len(tokens) == 1:
                confidence = 0.7
            best = (score, index, Name(tokens, start, end, confidence))
    if best is not None:
        return best[2]
    footer = _footer_name(text, emails, lower)
    if footer is not None:
        return footer
    labelled_line = _LABEL.search(text[:5000])
    if labelled_line:
        found = parse_name_line(labelled_line.group(0))
        if found is not None and not _vetoed(found[2]):
            start, end, tokens = found
            at = labelled_line.start()
            if not any(at + start < e and at + end > s for s, e in others):
                return Name(tokens, at + start, at + end, 0.9)
    return _name_from_email(text)


Line = tuple[int, str, str]  # (offset in the text, line, zone)
# (start, end in the text, name tokens, split out of one run of letters)
Candidate = tuple[int, int, tuple[str, ...], bool]


def _footer_name(text: str, emails: list[str], lower: frozenset[str]) -> Name | None:
    """The name in a running page header or footer, or in a header band printed last.

    Some producers draw the name band after the body, and multi-page resumes repeat
    "Jane Doe - Page 2"; so a line that recurs, or is among the last lines, may
    hold the name. Only strong evidence counts there (a known first name and
    surname, or the email), never the position.
    """
    spans: list[tuple[int, str, bool]] = []
    pos = 0
    references = work = False  # a referee, an employer: someone else
    for line in text.split("\n"):
        if line.strip():
            heading = heading_of(line)
            if heading is not None and parse_name_line(line) is None:
                references = bool(_REFERENCES.search(heading))
                work = bool(EXPERIENCE.search(heading))
            if not references:
                spans.append((pos, line, work))
        pos += len(line) + 1
    counts: dict[str, int] = {}
    for _, line, _ in spans:
        counts[line.strip()] = counts.get(line.strip(), 0) + 1
    for rank, (at, line, in_work) in enumerate(spans):
        if counts[line.strip()] < 2 and (rank < len(spans) - 5 or in_work):
            continue  # only a running header/footer, or the last lines outside Experience
        found = parse_name_line(line)
        if found is None:
            continue
        start, end, tokens = found
        score = _evidence(tokens, 99, False, emails, lower)
        if score >= STRONG:
            return Name(tokens, at + start, at + end, 0.8)
    return None


def _candidates(lines: list[Line], index: int) -> list[Candidate]:
    """Name-shaped stretches starting on line `index`."""
    pos, line, _ = lines[index]
    out: list[Candidate] = []
    found = parse_name_line(line)
    if found is not None:
        out.append((pos + found[0], pos + found[1], found[2], False))
    # "Curriculum Vitae - Jane Doe", "Resume of Jane Doe", "Data Analyst | Jane Doe"
    prefix = _DOC_PREFIX.match(line)
    at = prefix.end() if prefix else 0
    for n, piece in enumerate(_SEPARATORS.split(line[at:])):
        offset = line.find(piece, at)
        if not piece.strip() or offset < 0:
            continue
        at = offset + len(piece)
        inner = parse_name_line(piece) if n > 0 or prefix else None
        if inner is not None:
            out.append((pos + offset + inner[0], pos + offset + inner[1], inner[2], False))
        elif piece.count(",") >= 1:  # ", Dublin 2, Siobhán O'Connell": a name after a place
            part_at = offset
            for part in piece.split(","):
                found_part = parse_name_line(part)
                if found_part is not None and len(found_part[2]) >= 2:
                    out.append(
                        (
                            pos + part_at + found_part[0],
                            pos + part_at + found_part[1],
                            found_part[2],
                            False,
                        )
                    )
                part_at += len(part) + 1
    spaced = _letter_spaced(line)
    if spaced is not None:
        glued_run = not re.search(r"\S\s{2,}\S", line.strip())
        out.append((pos + spaced[0], pos + spaced[1], spaced[2], glued_run))
    single = _single_word(line)
    if single is not None:
        start, end, (word,) = single
        out.append((pos + start, pos + end, (word,), False))
        glued = _split_glued(word)
        if glued is not None:
            out.append((pos + start, pos + end, glued, True))
        if index + 1 < len(lines):
            npos, nline, _ = lines[index + 1]
            below = _single_word(nline)
            if below is not None and npos == pos + len(line) + 1:
                tokens = [word, below[2][0]]
                if _tokens_ok(tokens):  # "CRAIG" / "DAVIS" on two lines
                    out.append((pos + start, npos + below[1], tuple(tokens), False))
    return out


def _header_lines(text: str, max_lines: int) -> list[Line]:
    """The first non-blank lines, each with its zone.

    "header" until the first Experience/Education heading (a sidebar of contact
    details and skills printed first stays "header", however long, up to
    MAX_SCAN_LINES), "body" after it, "references" inside a References section.
    """
    out: list[Line] = []
    pos = 0
    zone = "header"
    for line in text.split("\n"):
        if line.strip():
            heading = heading_of(line)
            if heading is not None and parse_name_line(line) is None:
                if _REFERENCES.search(heading):
                    zone = "references"
                elif _BODY.search(heading) or zone == "references":
                    zone = "body"
            if len(out) >= max_lines and zone != "header" or len(out) >= MAX_SCAN_LINES:
                break
            out.append((pos, line, zone))
        pos += len(line) + 1
    return out


def _split_glued(word: str) -> tuple[str, ...] | None:
    """A first name and surname run together ("CATHERINESTARK", "JAREDRICHARDS")."""
    if len(word) < 6 or not word.isalpha() or is_first_name(word) or is_surname(word):
        return None
    best: tuple[str, str] | None = None
    for i in range(2, len(word) - 1):
        head, tail = word[:i], word[i:]
        known = is_first_name(head) and (is_surname(tail) or is_first_name(tail))
        if known and (best is None or len(head) > len(best[0])):
            best = (head, tail)
    if best is None or not (word.isupper() or best[1][:1].isupper()):
        return None  # "Jaredrichards" is a word, "JaredRichards" a name
    return best


def _cjk_labelled(lines: list[Line], index: int) -> tuple[int, int] | None:
    """A name after a CJK "name" label (氏名, 姓名, 이름), on the label's line or the next."""
    pos, line, _ = lines[index]
    match = _CJK_LABEL.match(line)
    if match is None:
        return None
    rest = match.group(1).strip()
    if rest:
        at = pos + line.index(rest, match.start(1))
        return (at, at + len(rest)) if _CJK_NAME.fullmatch(rest) else None
    if index + 1 < len(lines):
        npos, nline, _ = lines[index + 1]
        value = nline.strip()
        if _CJK_NAME.fullmatch(value):
            at = npos + nline.index(value)
            return at, at + len(value)
    return None


def _evidence(
    tokens: tuple[str, ...],
    index: int,
    labelled: bool,
    email_locals: list[str],
    lower: frozenset[str] = frozenset(),
) -> float:
    """How strongly a name-shaped line reads as the candidate's name (0: not at all).

    A first name known to the shipped lists counts most, then the name in the
    email's local part or a "Name:" label; a known surname counts less (many
    are also words); the top lines of the header add a little. A resume word
    anywhere in the line vetoes it; a surname the text also writes in lower case
    ("Shift Leader": "leader") counts against it.
    """
    words = [t for t in tokens if not _is_initial(t) and t.lower() not in _PARTICLES]
    if not words or _is_resume_word(tokens):
        return 0.0
    if _vetoed(tokens) and not (labelled or _whole_name_in_email(words, email_locals)):
        # shaped like a word ("Marketing", "Operations"), vouched for by nothing: a name
        # such as "Xiaoling" or "Sterling" needs its email or a "Name:" label
        return 0.0
    first, last = _plain(words[0]), _plain(words[-1])
    score = 0.0
    given = re.split(r"[-\u2010]", words[0])
    if (is_first_name(first) or is_first_name(given[0])) and (len(words) > 1 or index == 0):
        score += 3.0
    known_first = score > 0
    if is_surname(last) or any(is_surname(p) for p in re.split(r"[-\u2010]", words[-1])):
        score += 1.5
    if len(words) > 1 and last in lower:
        score -= 2.0
    if not known_first and first in lower:
        return 0.0  # "Supply Chain", "Park Ranger": the first word is a word
    if _in_email(words, email_locals):
        score += 3.0
    if labelled:
        score += 3.0
    if index < 3:
        score += 1.5
    elif index < 6:
        score += 0.5
    if len(words) == 1:
        if index > 0 or score < STRONG:
            return 0.0  # a lone word is a name only on the first line, with a known name
        if (first in COMMON_WORD_NAMES or first in lower) and not _in_email(words, email_locals):
            return 0.0  # "BAKER", "PILOT": a job before it is a name
        score -= 1.0  # and a two-word reading of the same place wins
    return score


def _is_resume_word(tokens: tuple[str, ...]) -> bool:
    parts = [_plain(p) for t in tokens for p in re.split(r"[-'\u2019/&]", t)]
    return any(p in RESUME_WORDS for p in parts)


def _whole_name_in_email(words: list[str], email_locals: list[str]) -> bool:
    """Both the first and the last word in one email's local part ("xiaoling.zhou@")."""
    if len(words) < 2:
        return False
    first, last = _plain(words[0]), _plain(words[-1])
    return any(
        first in flat and last in flat
        for flat in (re.sub(r"[^a-z]", "", _plain(local)) for local in email_locals)
    )


def _vetoed(tokens: tuple[str, ...]) -> bool:
    """True if a token is a resume word, or is shaped like one and is no known name."""
    parts = [_plain(p) for t in tokens for p in re.split(r"[-'\u2019/&]", t)]
    if any(p in RESUME_WORDS for p in parts):
        return True
    return any(
        _WORD_ENDINGS.search(p) and not is_first_name(p) and not is_surname(p) for p in parts
    )


def _in_email(words: list[str], email_locals: list[str]) -> bool:
    """The name in an email's local part: "jaredrich@", "emoore@", "c.davis@"."""
    first, last = _plain(words[0]), _plain(words[-1])
    for local in email_locals:
        flat = re.sub(r"[^a-z]", "", _plain(local))
        if len(last) >= 3 and last in flat or len(first) >= 3 and first in flat:
            return True
    return False


_LETTERS = str.maketrans(
    {"ø": "o", "Ø": "o", "æ": "ae", "Æ": "ae", "œ": "oe", "Œ": "oe", "ß": "ss", "đ": "d",
     "Đ": "d", "ł": "l", "Ł": "l", "ı": "i", "þ": "th", "Þ": "th", "ð": "d", "Ð": "d"}
)  # fmt: skip


def _plain(token: str) -> str:
    """Lower-case ASCII letters of `token` ("Núñez-Arroyo" -> "nunezarroyo")."""
    bare = unicodedata.normalize("NFKD", token.translate(_LETTERS))
    bare = bare.encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z]", "", bare.lower())


def _single_word(line: str) -> tuple[int, int, tuple[str, ...]] | None:
    """A line that is one capitalised word ("Anderson"): a name only with strong evidence."""
    match = re.fullmatch(r"\s*(?:#{1,6}\s+)?\**\s*([^\W\d_][\w'\u2019\-]+)\s*\**\s*", line)
    if match is None or not _is_name_token(match.group(1)):
        return None
    return match.start(1), match.end(1), (match.group(1),)


def _letter_spaced(line: str) -> tuple[int, int, tuple[str, ...]] | None:
    """A name drawn letter by letter ("J A R E D  R I C H A R D S"), joined up."""
    stripped = line.strip()
    parts = stripped.split()
    if len(parts) < 4 or not all(p.isalpha() for p in parts):
        return None
    if sum(len(p) == 1 for p in parts) < 0.6 * len(parts):
        return None
    start = line.index(stripped)
    if not re.search(r"\s{2,}", stripped):  # "JA R E D R I C H A R D S": no word gaps
        glued = _split_glued("".join(parts))
        return (start, start + len(stripped), glued) if glued is not None else None
    words = tuple("".join(part.split()) for part in re.split(r"\s{2,}", stripped))
    if not 2 <= len(words) <= 4 or not all(len(w) >= 2 for w in words):
        return None
    if not _tokens_ok(list(words)):
        return None
    return start, start + len(stripped), words


def _placeholder(line: str) -> tuple[int, int] | None:
    """Where a template's stand-in for the name sits ("YOUR NAME HERE", "[First Last]")."""
    match = _PLACEHOLDER.match(line)
    if match is None:
        return None
    return match.start(1), match.end(1)


def is_placeholder_name(name: str) -> bool:
    """True for a template's stand-in name ("YOUR NAME", "John Doe", "Firstname Lastname")."""
    bare = " ".join(name.split())
    return bool(_PLACEHOLDER.match(bare)) or bare.lower() in PLACEHOLDER_PEOPLE


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
        tokens = tuple(match.group(0).split())
        if match.group(0)[:1].isupper() and not _vetoed(tokens):  # not "sales.manager@"
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
    header = Mention(name.start, name.end, "full", 0.95)
    if name.placeholder:
        return [header]  # "YOUR NAME HERE": its words elsewhere are not the name
    # The name where it stands at the top, whole ("Jane (Janie) Doe Jr."), unless it is
    # written surname first ("MORALES, Lena"): then its two parts are slots of their own.
    natural = text[name.start : name.end].startswith(name.tokens[0])
    out: list[Mention] = [header] if natural else []
    first, last = name.first, name.last
    middles = name.tokens[name.first_index + 1 : -1]
    fulls = [name.tokens[name.first_index :], (first, last)]
    if middles:
        fulls.insert(1, (first, *middles, last))
    for tokens in fulls:
        # \s* not \s+: a glued extraction ("ClaudD.Park") still names the candidate
        pattern = r"(?<![\w@.])" + r"\s*".join(re.escape(t) for t in tokens) + r"(?![\w@])"
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
    if not natural:
        out.append(header)  # after its parts; still covers a "J A N E  D O E" line
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


_NAME_SHAPED = re.compile(r"^(?:[^\W\d_][\w'\u2019.\-]*\s+){1,3}[^\W\d_][\w'\u2019.\-]*$")


def name_in_doubt(text: str, max_lines: int = MAX_HEADER_LINES) -> str | None:
    """When no name was found: what near the top may still be one, else None.

    A line of two to four capitalised words that is no resume word or heading ("Ada
    Quispe-Mamani", a name the lists do not know), or an email whose local part reads
    as first.last, says a name may be there and missed: the user should look. A top
    with neither (an anonymised resume, "SOUS CHEF") has nothing to mark, and no
    warning is given for it.
    """
    if find_name(text, max_lines) is not None:
        return None
    for _, line, zone in _header_lines(text, max_lines):
        bare = line.strip().strip("*_#").strip()
        if zone != "header" or not _NAME_SHAPED.match(bare) or heading_of(bare) is not None:
            continue
        tokens = tuple(bare.split())
        if all(t[:1].isupper() for t in tokens) and not _is_resume_word(tokens):
            return bare
    for m in EMAIL.finditer(text[:5000]):
        local = m.group(0).split("@")[0]
        parts = re.split(r"[._\-]", local)
        if len(parts) == 2 and all(len(p) >= 2 and p.isalpha() for p in parts):
            return m.group(0)
    return None
