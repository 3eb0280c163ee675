"""Read required and preferred qualifications out of a job description, offline.

Real postings come in many dresses, so the text is first brought to plain lines:
HTML (also entity-escaped HTML, as job feeds deliver it) becomes one line per
paragraph and one "•" line per list item; front matter (YAML ``---`` / TOML
``+++``) is set aside, except a field that names the qualifications
(``qualifications:``, ``requirements = ...``), which is read as a section of its
own; browser print furniture (date/URL headers, "1/4" page counters) is dropped.

Then sections: headings such as "Requirements", "Qualifications", "What you'll
bring", "You have", "Requisitos", "Anforderungen" open a required list;
"Preferred", "Nice to have", "Bonus points", "Deseable", "Wünschenswert" a
preferred one; a duties or benefits heading ("Responsibilities", "Benefits",
"Funciones") a section whose items are not qualifications. A heading is a
Markdown/HTML heading, a bold line, a short ALL-CAPS line, a short line ending in a
colon or a dash, a short line that is mostly one of those phrases, or a Title Case
line naming a kind of qualification ("Key Skills"): Word and PDF headings carry no
markup. Headings have a rank (Markdown/HTML headings above ALL CAPS, above bold or
plain, above "Label:", above "(a) Label:"); a heading of lower rank than the open
section's is a sub-heading that stays inside it, and so does a heading that names a
kind of qualification ("Experience:", "Training:", "License or Certificate:",
"Language:"), which opens a required list when no list is open. A section named
for duties and requirements at once keeps only the items worded as qualifications.

One qualification per bullet; a hard-wrapped bullet's continuation lines are
joined back; a section without bullets takes one qualification per line, and a
paragraph too long to be one qualification (a civil-service summary) one per
sentence. An item marked "(preferred)", "is a plus", "an asset", "(deseable)"
is preferred wherever it stands, and "(Required)" required; an item holding both
("degree required; IEP experience preferred") is split. Lines carrying such a tag
count even outside any section (job-board footers: "Education: Bachelor's
(Preferred)").

A posting without any qualification heading is read by wording: list items and
lines that say "must", "required", "N years of experience", "degree", "ability
to"... are kept, duties ("Manage...", "Monitor...") are not. Whatever was found,
:func:`read_checklist` says how it was read and, when the checklist is empty or
doubtful, why and what the user can do. The user edits the result; an LLM
extraction path is in llm_job.py.
"""

from __future__ import annotations

import html
import logging
import re
from dataclasses import dataclass, field

from resume_auditor.domain.job import Job, Qualification, QualKind, QualType

logger = logging.getLogger(__name__)

_REQUIRED = re.compile(
    r"\b(requirements?|required|minimum|basic|must[- ]haves?|must have|you have|you bring|"
    r"what you(?:'ll| will)? bring|(?:what )?you(?:'ll| will)? need|what we need|"
    r"(?:what|who) we(?:'re| are) looking for|you should have|you(?:'ll| will) have|"
    r"who you are|what it takes|ideal candidate|eligibility|"
    r"qualifications?|skills and experience|about you|your profile|prerequisites?|"
    r"essential(?: criteria| skills| requirements)?|person specification|"
    # Spanish, German, French, Portuguese, Italian, Dutch: the common section names
    r"requisitos?|requerimientos|requerido|imprescindibles?|perfil(?: buscado| requerido)?|"
    r"anforderungen|voraussetzungen|qualifikationen|dein profil|ihr profil|"
    r"was du mitbringst|was sie mitbringen|das bringst du mit|das bringen sie mit|"
    r"exigences|profil recherch[ée]|comp[ée]tences requises|pr[ée]requis|requis|"
    r"requisiti|vereisten|functie-?eisen)\b",
    re.IGNORECASE,
)
_PREFERRED = re.compile(
    r"\b(preferred|nice[- ]to[- ]haves?|bonus(?: points)?|pluses|plus|desired|desirable|"
    r"ideally|extra credit|even better|great to have|good to have|assets?|"
    r"deseables?|valorables?|se valorar[áa]|wünschenswert|von vorteil|"
    r"souhait[ée]s?|atouts?|un plus|gradit[oi]|pluspunten)\b",
    re.IGNORECASE,
)
_OTHER = re.compile(
    r"\b(responsibilities|what you(?:'ll| will| get to)? do|the role|about|"
    r"(?:additional|other|more|further|important) (?:information|info|details)|good to know|"
    r"next steps|what's next|(?:hiring|interview|application|recruitment) process|"
    r"who we are|benefits?|perks|compensation|salary|pay|"
    r"remuneration|how to apply|to apply|our (?:team|company|values|mission)|what we offer|"
    r"why (?:join|work)|equal opportunity|location|schedule|day to day|duties|overview|"
    r"summary|descriptions?|(?:key )?accountabilities|your impact|(?:a )?day in the life|"
    r"essential (?:job )?functions|job functions|job types?|employment type|"
    r"contract|working (?:days|hours|times)|work remotely|remote|hours|shifts?|start date|"
    r"deadline|posted|company|url|department|reports? to|position title|job id|"
    r"funciones|responsabilidades|beneficios|ofrecemos|qu[ée] ofrecemos|c[óo]mo postular|"
    r"salario|condiciones|aufgaben|deine aufgaben|ihre aufgaben|wir bieten|"
    r"das bieten wir|missions?|nous offrons|avantages|salaire|r[ée]mun[ée]ration)\b",
    re.IGNORECASE,
)
# Headings that name a kind of qualification: inside a list they are sub-headings
# ("Experience:", "Training:"); alone they open a required list.
_TOPIC = re.compile(
    r"\b(skills?|experience|education|training|licen[cs]es?|certificat\w*|language\w*|"
    r"knowledge|abilities|competenc\w*|credentials?|degrees?|formaci[óo]n|idiomas?|"
    r"conocimientos|experiencia|ausbildung|kenntnisse|sprachen|erfahrung|formation|"
    r"langues?)\b",
    re.IGNORECASE,
)
_BULLET = re.compile(
    r"^\s*(?:(?:-{1,3}|[*+\u2022\u2023\u2043\u2219\u00b7\u00a7\u2013\u2014\u2190-\u21ff\u25a0-\u25ff>"
    r"\u2600-\u27bf\U0001f300-\U0001faff]\ufe0f?|\d{1,2}\s?[.)]|\(\w{1,3}\)|[a-z][.)]|o(?=\s+[A-Z]))\s+|"
    r"\*(?=[^\s*]))(.*\S)\s*$"
)
_BOILERPLATE = re.compile(
    r"\b(?:equal (?:employment )?opportunity|without regard to|e-verify|reasonable "
    r"accommodations?|affirmative action|click (?:the )?apply|apply now|apply (?:online|today)|"
    r"send (?:your|a) (?:cv|resume)|to apply,)\b",
    re.IGNORECASE,
)
_EMOJI = re.compile(r"^\s*[\u2600-\u27bf\U0001f300-\U0001faff]\ufe0f?\s+")
_HEADING_MD = re.compile(r"^\s*(#{1,6})\s+(.*\S)\s*$")
_LABEL = re.compile(r"^\s*\**([^\W\d_][\w' /&().,\-]{1,45}?)\**\s*:\s*\**\s*(\S.*)$")
_NUMBERED_HEADING = re.compile(r"^(?:\d{1,2}|[IVX]{1,4})[.)]\s+(\S.{0,40}?):?\s*$")
_ENUMERATED = re.compile(r"^\(?[A-Za-z0-9ivx]{1,3}[.)]\s+")
_TAG_REQUIRED = re.compile(r"\((?:required|requerido|obligatorio|erforderlich|requis)\)", re.I)
_MARKED_PREFERRED = re.compile(
    r"\((?:preferred|a plus|bonus|nice to have|desired|optional|deseable|valorable|"
    r"wünschenswert|von vorteil|souhait[ée]|un plus)\)|"
    r"\b(?:is|are|would be) an? (?:plus|bonus|advantage|asset)\b|\ban? (?:plus|asset)\b|"
    r"\bpreferred\b(?!\s+(?:qualifications|skills|requirements))|\bnice to have\b|"
    r"^\s*(?:good|nice|great) to have\b|\bdeseable\b|\bwünschenswert\b|\bvon vorteil\b",
    re.IGNORECASE,
)
_NOISE = re.compile(
    r"^(?:\d{1,2}/\d{1,2}/\d{2,4},?\s+\d{1,2}:\d{2}(?:\s*[AaPp]\.?[Mm]\.?)?|\d{1,3}\s*/\s*\d{1,3}|"
    r"(?:https?://|www\.)\S+|page \d+(?: of \d+)?|[-=_*~.]{3,}|"
    # advert markers of a web page printed to PDF
    r"(?:.{0,60}[|\u00b7]\s*)?(?:sponsored|patrocinado|publicidad|advertisement|anuncio|"
    r"werbung|publicit[ée])|close ad|read next story|skip ad)$",
    re.IGNORECASE,
)
_ANSWER = re.compile(r"^(?:yes|no|s[ií]|ja|nein|oui|non|n/?a|none|-)$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[(\"'\u201c]?[A-Z\u00c0-\u00de])")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|approx|incl|vs|dr|mr|ms|mrs|no|st|jr|sr)\.$", re.I)
_WRAP_WORDS = re.compile(r"(?:[,;(&/\-]|\b(?:and|or|of|with|to|in|the|a|an|for|as|such))$", re.I)
_NUMBER_WORDS = r"one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty"
# Wording that makes a line a qualification when no heading says so.
_MUST = re.compile(
    r"^(?:(?:all\s+)?(?:candidates?|applicants?|you|the (?:successful |ideal )?"
    r"(?:candidate|applicant|person)|employees?)\s+(?:will\s+)?)?(?:must|should|shall)\b",
    re.IGNORECASE,
)
_DUTIES = re.compile(
    r"\b(?:duties|responsibilities|tasks|what you(?:'ll| will)? do)\b", re.IGNORECASE
)
_SAYS_REQUIRED = re.compile(
    r"\b(?:is|are)\s+(?:required|mandatory|essential)\b|(?<!\bas )\brequired\b\.?$|"
    r"\bpreferred\b|\b(?:a|is a) plus\b|\ban asset\b",
    re.IGNORECASE,
)
_QUAL_START = re.compile(
    rf"^(?:able to|ability to|abilities to|knowledge (?:of|for|in)|strong knowledge|"
    rf"experience (?:with|in|of|as)|proven|demonstrated|proficien\w*|fluen\w*|familiar\w*|"
    rf"understanding of|strong|excellent|good|solid|dedicated|committed|passionate|"
    rf"comfortable|willing\w*|valid|current|active|certified|licensed|bachelor\w*|master\w*|"
    rf"degree|diploma|high school|minimum|at least|(?:\d+|{_NUMBER_WORDS})\+?\s*(?:-\s*\d+\s*)?"
    rf"(?:\+\s*)?(?:years?|yrs|months?))\b",
    re.IGNORECASE,
)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_HTML_TAG = re.compile(
    r"</?(?:p|li|ul|ol|div|br|strong|b|em|span|h[1-6]|td|tr|table)\b[^>]*>", re.I
)
_ESCAPED_TAG = re.compile(r"&lt;/?(?:p|li|ul|ol|div|br|strong|b|h[1-6])\b", re.I)
_LANG_WORDS = {
    "English": "the and of to in for with you we our is are a an be on as or will your",
    "Spanish": "el la los las de que y en para con una por del se requisitos experiencia",
    "German": "der die das und mit für wir sie du ist ein eine zu von bei auf erfahrung",
    "French": "le la les des et pour avec une nous vous est du au sur expérience",
    "Portuguese": "o os as de que e em para com uma por do da não experiência",
    "Italian": "il lo la gli le di che e per con una del della sono esperienza",
    "Dutch": "de het een en van met voor wij je jij is op te ervaring",
}
_KNOWN_LANGUAGES = ("English", "Spanish", "German", "French")
# A duty, not a qualification, even when it says "must": "Ensure ...", "Manage ..."
_DUTY_START = re.compile(
    r"^(?:ensure|manage|maintain|monitor|prepare|coordinate|develop|lead|oversee|assist|"
    r"support|perform|provide|greet|operate|handle|conduct|review|respond|process|create|"
    r"plan|organi[sz]e|implement|design|build|work with|collaborate|report|train|supervise)\b",
    re.IGNORECASE,
)
SHORT_MIN_LINES = 4  # below this, a short checklist is not called into doubt
LONG_ITEM = 300  # a line longer than this is read one sentence at a time
MANY_ITEMS = 40


def _section_of(heading: str) -> QualKind | None | str:
    """REQUIRED / PREFERRED, None for another section, "" for an unknown heading."""
    heading = _CAMEL.sub(" ", heading)
    if re.search(
        r"essential (?:job )?functions|job functions|\bopportunit|\bchance to\b|\bget to\b",
        heading,
        re.I,
    ):
        return None  # "In this role you have the opportunity to:" lists duties
    if _PREFERRED.search(heading):
        return QualKind.PREFERRED
    if _REQUIRED.search(heading):
        return QualKind.REQUIRED
    if _OTHER.search(heading):
        return None
    return ""


@dataclass
class _Heading:
    text: str
    # smaller = higher. Markdown/HTML headings (0.1-0.6) outrank every unmarked one: a
    # "### Where you'll work" ends a list opened by a bold "Desirable" line.
    rank: float


def _heading(line: str) -> _Heading | None:
    """The heading in `line`, or None if it does not look like one."""
    md = _HEADING_MD.match(line)
    if md:
        return _Heading(md.group(2).strip("*_: "), len(md.group(1)) / 10)
    stripped = _EMOJI.sub("", line).strip()  # "🧠 What you'll need" is a heading
    if not stripped:
        return None
    numbered = _NUMBERED_HEADING.match(stripped)
    if numbered and (_names_a_section(numbered.group(1)) or _names_a_topic(numbered.group(1))):
        return _Heading(numbered.group(1).rstrip(":"), 3)  # "2. Qualifications"
    if _BULLET.match(stripped):
        return None
    bold = stripped.startswith("**") and stripped.rstrip(":").endswith("**")
    bare = stripped.replace("**", "").strip("_").strip()
    enumerated = bool(_ENUMERATED.match(bare))
    deeper = 1 if enumerated else 0
    if re.search(r"[:\-\u2013\u2014]$", bare) and len(bare) <= 60 and not bare[:1].islower():
        text = bare.rstrip(":-\u2013\u2014 ").strip()
        if text:
            return _Heading(text, (2 if bold else 3) + deeper)
    letters = [c for c in bare if c.isalpha()]
    if len(bare) <= 40 and len(letters) >= 3 and bare.upper() == bare:
        return _Heading(bare, 1 + deeper)
    short = len(bare.split()) <= 8 and not bare.endswith((".", ";", ","))
    if short and (bold and not bare.endswith(("?", "!")) or _names_a_section(bare)):
        return _Heading(bare, 2 + deeper)
    if short and _names_a_topic(bare):
        return _Heading(bare, 2 + deeper)
    return None


def _names_a_topic(line: str) -> bool:
    """True for a Title Case line that names a kind of qualification ("Key Skills",
    "Knowledge, Skills and Abilities", "Education"), not an item ("Strong SQL skills")."""
    if not _TOPIC.search(line) or re.search(r"\d|[.;,!?]$", line):
        return False
    words = re.findall(r"[^\W\d_][\w'-]*", line)
    if not words or len(words) > 6:
        return False
    if any(w[0].islower() and w.lower() not in _FILLER for w in words):
        return False  # sentence case: an item
    rest = [w for w in words if not _TOPIC.fullmatch(w) and w.lower() not in _FILLER]
    return len(rest) <= 1


_FILLER = frozenset(
    "and & of the a an to your our what we you who - / + für und y de la el".split()  # noqa: SIM905
)


_WEAK_WORDS = (
    "basic minimum plus asset assets required preferred essential desired ideally bonus "
    "pay hours shift shifts remote location contract company summary overview"
)
_WEAK = frozenset(_WEAK_WORDS.split())


def _names_a_section(line: str) -> bool:
    """True if an unmarked line is mostly a section name ("Duties and Requirements"),
    not an item that happens to hold one of the words ("Previous experience an asset")."""
    if _section_of(line) == "" or re.search(r"\d", line):
        return False
    rest = _CAMEL.sub(" ", line.strip("\u00bf?\u00a1! "))
    for pattern in (_PREFERRED, _REQUIRED, _OTHER):
        rest = pattern.sub(" ", rest)
    words = [w for w in re.findall(r"[\w'&/+-]+", rest.lower()) if w not in _FILLER]
    if not words:
        return True
    # "Basic first aid", "Minimum wage": a weak word with others is an item
    keywords = {
        m.group(0).lower() for p in (_PREFERRED, _REQUIRED, _OTHER) for m in p.finditer(line)
    }
    return len(words) <= 2 and not keywords <= _WEAK


def classify(text: str) -> QualType:
    """A first guess at what a qualification is about; the user can change it."""
    low = text.lower()
    if re.search(
        rf"\b(?:\d+|{_NUMBER_WORDS})\s*(?:\+|-\s*\d+|to\s+\d+)?\s*(?:or more\s+)?\+?\s*"
        rf"(?:years?|yrs)\b",
        low,
    ):
        return QualType.EXPERIENCE
    if re.search(
        r"\b(bachelor\w*|master\w*|phd|ph\.d|doctorate|degree|b\.s|b\.a|m\.s|m\.a|bs|ba|ms|"
        r"mba|associate'?s|diploma|ged|high school|graduate|coursework|majoring)\b",
        low,
    ):
        return QualType.EDUCATION
    if re.search(r"\b(certif\w*|licen[cs]\w*|credential\w*|accredit\w*)", low) or re.search(
        r"\b(CPA|PMP|CFA|CISSP|CISA|CCNA|CDL|PHR|SHRM-CP|RN|LPN|CSM|ITIL)\b", text
    ):
        return QualType.CERTIFICATION
    if re.search(
        r"\b(communicat\w*|collaborat\w*|teamwork|team player|curio\w*|passion\w*|"
        r"detail[- ]oriented|attention to detail|self[- ]starter|motivated|interpersonal|"
        r"leadership|adaptab\w*|problem[- ]solving|organi[sz]ed|organi[sz]ational|empathy|"
        r"ownership|presentation skills|time management|critical thinking|creativ\w*|"
        r"independently|fast[- ]paced|multi-?task\w*|flexib\w*|work ethic|customer[- ]focused|"
        r"stakeholder management|written and verbal|verbal and written|influenc\w*|negotiat\w*|"
        r"mentor\w*|prioriti[sz]\w*)\b",
        low,
    ):
        return QualType.SOFT_SKILL
    return QualType.HARD_SKILL


def _item_kind(item: str, section: QualKind) -> QualKind:
    """The kind an item says it is, else its section's."""
    if _TAG_REQUIRED.search(item):
        return QualKind.REQUIRED
    if _MARKED_PREFERRED.search(item):
        return QualKind.PREFERRED
    return section


# -- bringing the text to plain lines --------------------------------------------------


def _html_to_lines(text: str) -> str:
    """Paragraphs and list items of an HTML fragment as lines; bold kept as ``**``."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"<(script|style)\b.*?</\1>", "", text, flags=re.S | re.I)
    text = re.sub(r"[ \t]*\n(?:[ \t]*\n)+[ \t]*", "<p>", text)  # a blank line: a paragraph
    text = re.sub(r"\s*\n\s*", " ", text)  # other line breaks in HTML are spaces
    text = re.sub(r"<li\b[^>]*>", "\n\u2022 ", text, flags=re.I)
    text = re.sub(
        r"<h([1-6])\b[^>]*>", lambda m: "\n" + "#" * int(m.group(1)) + " ", text, flags=re.I
    )
    text = re.sub(r"</?(?:strong|b)\b[^>]*>", "**", text, flags=re.I)
    text = re.sub(
        r"</?(?:p|ul|ol|div|br|h[1-6]|tr|table|li|hr|section|article|header|footer)\b[^>]*/?>",
        "\n",
        text,
        flags=re.I,
    )
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\u2022[\s\u00a0]*\n[\s\n\u00a0]*", "\u2022 ", text)  # "<li><p>x" -> "• x"
    text = re.sub(r"\*\*([\s\u00a0]*)\*\*", r"\1", text)  # "</strong><strong>"
    out = []
    for raw in text.split("\n"):
        line = " ".join(raw.replace("\u00a0", " ").split())
        stripped = line.strip("*# ")
        if stripped:
            out.append(line)
    return "\n".join(out)


def _unescape(text: str) -> str:
    for _ in range(3):  # "&amp;amp;" in twice-escaped feeds
        new = html.unescape(text)
        if new == text:
            break
        text = new
    return text


def _plain(text: str) -> tuple[str, list[str]]:
    """The text as plain lines, and what was done to it."""
    done = []
    if _ESCAPED_TAG.search(text):
        text = _unescape(text)
        done.append("entity-escaped HTML was decoded")
    if len(_HTML_TAG.findall(text)) >= 2:
        text = _html_to_lines(text)
        done.append("HTML tags were removed")
    if re.search(r"&(?:[a-z]{2,8}|#\d{2,5}|#x[0-9a-f]{1,5});", text, re.I):
        text = _unescape(text)
    text = text.replace("\\:", ":").replace("\u2019", "'").replace("\u2018", "'")
    # a bullet glyph alone on its line, its text on the next (PDF text layers)
    text = re.sub(
        r"^([ \t]*[\u2022\u25cf\u25aa\u25e6\u2023\u2043\u2219\u00b7\u25a0\u25a1\u25c6\u25cb"
        r"\u27a2\u25ba\u25b8\u2713\u2714])[ \t]*\n[ \t]*(?=\S)",
        r"\1 ",
        text,
        flags=re.M,
    )
    text = re.sub(r"\[([^\]\n]+)\]\([^)\s]+\)", r"\1", text)  # Markdown links
    return text, done


# -- front matter ----------------------------------------------------------------------


def _yaml_scalar(value: str, more: list[str]) -> str:
    """A YAML value from its first line and the indented lines after it."""
    value = value.strip()
    if value[:1] and value[0] in "|>":
        lines = [m.strip() for m in more]
        return "\n".join(lines) if value[0] == "|" else " ".join(x for x in lines if x)
    if value[:1] == '"':
        raw = " ".join([value, *(m.strip() for m in more)])
        body = raw[1 : raw.rfind('"')] if raw.rfind('"') > 0 else raw[1:]
        body = body.replace('\\"', '"').replace("\\t", " ")
        return re.sub(r"\\r\\n|\\n|\\r", "\n", body)
    if value[:1] == "'":
        raw = " ".join([value, *(m.strip() for m in more)])
        body = raw[1 : raw.rfind("'")] if raw.rfind("'") > 0 else raw[1:]
        return body.replace("''", "'")
    if value == "" and more and all(m.strip().startswith("- ") for m in more if m.strip()):
        return "\n".join(m.strip()[2:].strip("'\"") for m in more if m.strip())
    return " ".join([value, *(m.strip() for m in more)]).strip()


def _toml_value(value: str, more: list[str]) -> str:
    value = value.strip()
    for quote in ('"""', "'''"):
        if value.startswith(quote):
            raw = "\n".join([value[3:], *more])
            return raw.split(quote)[0].replace("\\n", "\n")
    if value.startswith("["):
        raw = " ".join([value, *more])
        return "\n".join(m.group(2) for m in re.finditer(r"([\"'])(.*?)\1", raw))
    if value[:1] in "\"'":
        return value[1:].rsplit(value[0], 1)[0].replace("\\r\\n", "\n").replace("\\n", "\n")
    return value


@dataclass
class _FrontMatter:
    kind: str  # "YAML" / "TOML" / ""
    fields: dict[str, str] = field(default_factory=dict)


def _split_front_matter(text: str) -> tuple[str, _FrontMatter]:
    """The body without its front matter, and the front matter's top-level fields."""
    lines = text.lstrip("\ufeff").split("\n")
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start >= len(lines) or lines[start].strip() not in ("---", "+++"):
        return text, _FrontMatter("")
    fence = lines[start].strip()
    closers = ("---", "...") if fence == "---" else ("+++",)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() in closers), None)
    if end is None:
        return text, _FrontMatter("")
    fm = _FrontMatter("YAML" if fence == "---" else "TOML")
    key_re = (
        re.compile(r"^([A-Za-z_][\w\- ]*):(?:\s+(.*)|\s*)$")
        if fence == "---"
        else re.compile(r"^([A-Za-z_][\w\-]*)\s*=\s*(.*)$")
    )
    block = lines[start + 1 : end]
    i = 0
    while i < len(block):
        m = key_re.match(block[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(block) and not key_re.match(block[j]) and not block[j].startswith("["):
            j += 1
        value = m.group(2) or ""
        more = block[i + 1 : j]
        parse = _yaml_scalar if fence == "---" else _toml_value
        fm.fields[m.group(1).strip()] = parse(value, more)
        i = j
    return "\n".join(lines[end + 1 :]), fm


# -- reading the lines -----------------------------------------------------------------


@dataclass
class _Item:
    kind: QualKind
    text: str
    bullet: bool
    last_line: str = ""  # the physical line it ended on, to judge wrapping
    tagged: bool = False


_ANY_TAG = re.compile(r"\s*\((?:required|preferred)\)", re.I)


def _is_tagged(line: str) -> QualKind | None:
    if re.search(r"\((?:required|preferred)\)\s*\.?\s*$", line, re.I):
        return QualKind.REQUIRED if _TAG_REQUIRED.search(line) else QualKind.PREFERRED
    return None


def _sentences(text: str) -> list[str]:
    parts: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if parts and _ABBREVIATION.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return [p.strip() for p in parts if p.strip()]


def _split_item(text: str, section: QualKind) -> list[tuple[QualKind, str]]:
    """One item, or its parts when they are of different kinds (or it is a paragraph)."""
    if len(text) > LONG_ITEM:
        return [(_item_kind(s, section), s) for s in _sentences(text)]
    for splitter in (r";\s+", None):
        parts = re.split(splitter, text) if splitter else _sentences(text)
        parts = [p.strip() for p in parts if p.strip()]
        kinds = [_item_kind(p, section) for p in parts]
        if len(parts) > 1 and len(set(kinds)) > 1:
            return list(zip(kinds, parts, strict=True))
    return [(_item_kind(text, section), text)]


def _continues(item: _Item, line: str) -> bool:
    """True if `line` is the wrapped rest of `item` rather than a new item."""
    if item.tagged or _is_tagged(line) or _LABEL.match(line) and not line[:1].islower():
        return False
    if line[:1].islower() and not _LABEL.match(line):
        return True
    if line[:1] in ",;:)&/":
        return True
    prev = item.last_line.rstrip()
    if _WRAP_WORDS.search(prev):
        return True
    return item.bullet and len(prev) >= 70 and not re.search(r"[.!?:;]$", prev)


def _looks_like_requirement(line: str, bullet: bool) -> QualKind | None:
    """The kind of a line outside any section that reads like a qualification."""
    text = line.strip().strip("*").strip()
    if len(text) > LONG_ITEM or len(text.split()) < 2:
        return None
    if _MUST.match(text) or _SAYS_REQUIRED.search(text):
        return _item_kind(text, QualKind.REQUIRED)
    if bullet and _QUAL_START.match(text):
        return _item_kind(text, QualKind.REQUIRED)
    return None


@dataclass
class _Pass:
    """The items of one run over the lines, and what was seen on the way."""

    items: list[_Item] = field(default_factory=list)
    loose: list[_Item] = field(default_factory=list)  # outside any section, by wording
    headings: list[str] = field(default_factory=list)  # required/preferred headings seen
    other_headings: list[str] = field(default_factory=list)


def _page_headers(lines: list[str]) -> set[str]:
    """Long lines that come back verbatim next to print furniture (a date header, a URL,
    a page counter): the running title of a printed web page. A requirement listed
    twice is not next to such furniture, and stays."""
    kept = [line.strip() for line in lines if line.strip()]
    counts: dict[str, int] = {}
    near_furniture: set[str] = set()
    for i, key in enumerate(kept):
        if len(key) < 25 or _BULLET.match(key) or _is_tagged(key):
            continue
        counts[key] = counts.get(key, 0) + 1
        if any(_NOISE.match(x) for x in kept[max(0, i - 2) : i + 3]):
            near_furniture.add(key)
    return {line for line, n in counts.items() if n >= 2 and line in near_furniture}


def _read_lines(lines: list[str], into: _Pass) -> None:
    section: QualKind | None = None
    other = False  # inside a duties/benefits section
    rank = 99.0  # the open section's heading rank
    pending: list[_Item] = []
    blank_before = True
    other_bullets = False  # the duties/benefits section has had list items
    mixed = False  # the open qualifications section also holds duties
    repeated = _page_headers(lines)

    def close() -> None:
        # a section with bullets keeps only its bullets (plain lines are prose)
        bullets = [i for i in pending if i.bullet or i.tagged]
        into.items.extend(bullets if any(i.bullet for i in pending) else pending)
        pending.clear()

    def open_section(kind: QualKind | None, heading: str, at: float, is_other: bool) -> None:
        nonlocal section, other, rank, other_bullets, mixed
        close()
        section, other, rank, other_bullets = kind, is_other, at, False
        # "Duties and Requirements": keep only the items worded as qualifications
        mixed = kind is not None and bool(_DUTIES.search(heading))
        if kind is not None:
            into.headings.append(heading)
        elif is_other:
            into.other_headings.append(heading)

    for n, raw in enumerate(lines):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped:
            blank_before = True
            continue
        if _NOISE.match(stripped) or stripped in repeated:
            continue
        was_blank, blank_before = blank_before, False
        tag = _is_tagged(stripped)
        label = _LABEL.match(line)
        heading = _heading(line)
        if tag is not None and heading is not None:
            # "## Minimum Qualifications (required)": a heading that carries a tag opens
            # a list of that kind; it is not an item itself
            named = _ANY_TAG.sub("", heading.text).strip(" :-*_")
            if _HEADING_MD.match(line) or (named and isinstance(_section_of(named), QualKind)):
                open_section(tag, named, heading.rank, False)
                continue
        if label and heading is None:
            kind = _section_of(label.group(1))
            if isinstance(kind, QualKind):
                open_section(kind, label.group(1), 3, False)
                # "Nice to have: Xero; dbt", "Required: A degree. Three years of X."
                pieces = [p for x in re.split(r";\s*", label.group(2)) for p in _sentences(x)]
                for piece in pieces:
                    for k, part in _split_item(piece.strip(), kind) if piece.strip() else []:
                        pending.append(_Item(k, part, True, stripped))
                continue
            if kind is None and not tag:  # "Salary: ...", "Job Type: Full-time"
                open_section(None, label.group(1), 3, True)
                continue
            if section is None and not tag:
                continue  # "Position Title: ...": a field, not a qualification
        if heading is not None and not tag:
            found = _section_of(heading.text)
            lead_in = stripped.endswith(":") and len(stripped.split()) > 3
            if isinstance(found, QualKind):
                open_section(found, heading.text, heading.rank, False)
            elif found is None:
                open_section(None, heading.text, heading.rank, True)
            elif _TOPIC.search(heading.text) and not lead_in:
                if section is None and not (other and heading.rank > rank):
                    open_section(QualKind.REQUIRED, heading.text, heading.rank, False)
            elif lead_in and (section is not None or other):
                pass  # "We expect the following:" introduces a list, it does not end it
            elif heading.rank <= rank:
                open_section(None, heading.text, heading.rank, False)
            continue
        bullet = _BULLET.match(line)
        text = (bullet.group(1) if bullet else stripped).strip()
        text = text.replace("**", "").strip()
        if not text:
            continue
        if tag is not None and section is None:
            into.items.append(_Item(tag, text, True, stripped, tagged=True))
            continue
        if section is None:
            if other and bullet:
                other_bullets = True
                continue
            # "Please note that certain requirements must be met..." before a list
            nxt = next((x for x in lines[n + 1 :] if x.strip()), "")
            intro = _section_of(text)
            lead = not bullet and _BULLET.match(nxt) and not _OTHER.search(text)
            if lead and isinstance(intro, QualKind):
                open_section(intro, text, rank if rank < 99 else 3, False)
                continue
            # a paragraph after a duties/benefits list is outside it ("Must be able to
            # lift 30 lbs." closing a posting)
            if not other or (not bullet and was_blank and other_bullets):
                for piece in [text] if bullet else _sentences(text):
                    kind = _looks_like_requirement(piece, bool(bullet))
                    if kind is not None:
                        into.loose.append(_Item(kind, piece, bool(bullet), stripped))
            other_bullets = other_bullets or bool(bullet)
            continue
        if pending and not bullet and not was_blank and _continues(pending[-1], text):
            last = pending[-1]
            last.text = f"{last.text} {text}"
            last.last_line = stripped
            last.kind = _item_kind(last.text, section)
            continue
        if stripped.endswith(":") and tag is None and (not bullet or len(text.split()) <= 5):
            continue  # a lead-in line or a sub-heading inside the list
        if not bullet and _BOILERPLATE.search(text):
            open_section(None, "", rank, True)  # "We are an equal opportunity employer..."
            continue
        if mixed and tag is None and _looks_like_requirement(text, True) is None:
            continue
        for k, part in _split_item(text, section):
            pending.append(_Item(k, part, bool(bullet), stripped, tagged=tag is not None))
    close()


# -- the result ------------------------------------------------------------------------


@dataclass
class ChecklistReading:
    """The job, and how its checklist was read: for the user, before a run."""

    job: Job
    headings: list[str] = field(default_factory=list)  # required/preferred headings used
    by_wording: int = 0  # items picked by their wording (no qualification heading)
    front_matter: str = ""  # "YAML" / "TOML" when the text had some
    front_matter_fields: list[str] = field(default_factory=list)  # fields read as lists
    cleaned: list[str] = field(default_factory=list)  # "HTML tags were removed", ...
    language: str = "English"
    qualification_lines: int = 0  # lines worded like qualifications, anywhere in the text
    notes: list[str] = field(default_factory=list)  # why empty or doubtful, what to do

    @property
    def doubtful(self) -> bool:
        return bool(self.notes)


def _language(text: str) -> str:
    words = re.findall(r"[^\W\d_]+", text.lower())
    if len(words) < 20:
        return "English"
    english = set(_LANG_WORDS["English"].split())
    counts = {"English": sum(w in english for w in words)}
    for lang, vocabulary in list(_LANG_WORDS.items())[1:]:
        vocab = set(vocabulary.split())
        counts[lang] = sum(w in vocab for w in words)
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] >= 1.3 * counts["English"] else "English"


def _key(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _dedupe(items: list[_Item]) -> list[_Item]:
    seen: set[str] = set()
    out = []
    for item in items:
        key = _key(item.text)
        if key and key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _usable(text: str) -> bool:
    letters = sum(c.isalpha() for c in text)
    return letters >= 2 and not _ANSWER.match(text.strip(" .")) and not _NOISE.match(text)


def read_checklist(text: str, title: str = "") -> ChecklistReading:
    """The checklist in `text`, with notes saying how sure it is and why."""
    body, fm = _split_front_matter(text)
    plain, cleaned = _plain(body)
    run = _Pass()
    fm_fields = []
    for key, value in fm.fields.items():
        name = key.replace("_", " ").replace("-", " ")
        kind = _section_of(name)
        if isinstance(kind, QualKind) and value.strip():
            fm_fields.append(key)
            fm_plain, _ = _plain(value)
            _read_lines([f"## {name}", *fm_plain.split("\n")], run)
    fm_title = fm.fields.get("title", "").strip()
    body_run = _Pass()
    _read_lines(plain.split("\n"), body_run)
    run.items += body_run.items
    run.headings += body_run.headings
    run.other_headings += body_run.other_headings
    by_wording = 0  # items kept only for their wording, not already read elsewhere
    if not body_run.headings:
        known = {_key(i.text) for i in run.items}
        by_wording = sum(_key(i.text) not in known for i in _dedupe(body_run.loose))
        run.items += body_run.loose
    quals = []
    for entry in _dedupe(run.items):
        clean = entry.text.strip().rstrip(";").strip().strip("*").strip()
        if _usable(clean):
            quals.append(Qualification(text=clean, kind=entry.kind, qtype=classify(clean)))
    job_title = title or fm_title or _title_line(plain) or "Untitled job"
    job = Job(title=job_title, text=text, qualifications=quals)
    reading = ChecklistReading(
        job=job,
        headings=run.headings,
        by_wording=by_wording,
        front_matter=fm.kind,
        front_matter_fields=fm_fields,
        cleaned=cleaned,
        language=_language(plain),
        qualification_lines=_qualification_lines(
            [*plain.split("\n"), *(v for f in fm_fields for v in fm.fields[f].split("\n"))]
        ),
    )
    reading.notes = _notes(reading, body_run.other_headings)
    logger.debug("checklist: %d item(s), notes %s", len(quals), reading.notes)
    return reading


def plain_text(text: str) -> str:
    """The posting as the parser reads it: HTML and entities undone, front matter fields
    as lines. For checking that a model's items are really in the posting."""
    body, fm = _split_front_matter(text)
    return "\n".join([*fm.fields.values(), _plain(body)[0]])


def parse_job(text: str, title: str = "") -> Job:
    return read_checklist(text, title).job


_EMPTY_CONSEQUENCE = (
    "Without required qualifications no unequal pairs can be built, so criterion "
    "validity (D1) cannot be measured."
)
_WHAT_TO_DO = (
    "Add the qualifications by hand: on the Job page, or as required = [...] and "
    "preferred = [...] under [job] in the study file. Or put them in the text under a "
    "heading such as 'Requirements' and 'Nice to have' and read it again."
)


def _notes(reading: ChecklistReading, other_headings: list[str]) -> list[str]:
    """Why the checklist is empty or doubtful, and what the user can do about it."""
    job = reading.job
    notes = []
    foreign = reading.language != "English"
    if foreign:
        known = reading.language in _KNOWN_LANGUAGES
        found = ", ".join(f"'{h}'" for h in dict.fromkeys(reading.headings)) or "none"
        notes.append(
            f"The posting looks {reading.language}. "
            + (
                f"Headings read as qualification lists: {found}. "
                if known
                else "Section headings are known mainly in English, Spanish, German and French. "
            )
            + f"{len(job.required)} required and {len(job.preferred)} preferred item(s) "
            "were found: check them against the posting and add what is missing by hand."
        )
    if not job.required:
        if reading.headings and job.preferred:
            why = (
                f"Only preferred qualifications were found (under {reading.headings[0]!r}); "
                "nothing is marked as required."
            )
        elif reading.headings:
            why = (
                f"The heading {reading.headings[0]!r} was found but no required item could "
                "be read under it."
            )
        elif other_headings:
            shown = ", ".join(f"'{h}'" for h in list(dict.fromkeys(other_headings))[:3])
            why = (
                f"The posting has no qualifications section: only {shown}. Duties are not "
                "requirements, so none were taken from them."
            )
        else:
            why = (
                "No heading such as 'Requirements', 'Qualifications' or 'Nice to have' was "
                "found, and no line reads like a requirement ('must have', 'N years of "
                "experience', 'degree in ...')."
            )
        notes.append(f"The checklist has no required qualification. {why} {_EMPTY_CONSEQUENCE}")
        notes.append(_WHAT_TO_DO)
        return notes
    if len(job.required) == 1 and _heading_like(job.required[0].text):
        notes.append(
            f"The only required item, {job.required[0].text!r}, reads like a heading, not a "
            "qualification: the requirements under it may not have been read. Check the "
            "posting and add them by hand."
        )
    worded = reading.qualification_lines
    if worded >= SHORT_MIN_LINES and len(job.qualifications) * 2 < worded:
        notes.append(
            f"The posting has {worded} lines worded like qualifications ('N years of', "
            f"'degree', 'must', 'ability to'...) but the checklist holds only "
            f"{len(job.qualifications)}: some may have been missed (a heading not "
            "recognised?). Check the list against the posting."
        )
    if reading.by_wording:
        notes.append(
            f"{reading.by_wording} item(s) were picked by their wording ('must', 'required', "
            "'N years', 'ability to'...), not from under a qualifications heading. Check them: "
            "remove duties, add what is missing."
        )
    if len(job.qualifications) > MANY_ITEMS:
        notes.append(
            f"{len(job.qualifications)} items is more than most postings list; the text may "
            "hold duties or page furniture under a qualifications heading. Check the list."
        )
    fragments = [q for q in job.qualifications if len(q.text.split()) <= 2]
    if len(fragments) >= 4 and len(fragments) * 3 >= len(job.qualifications):
        notes.append(
            f"{len(fragments)} items are one or two words ({fragments[0].text!r}...): the text "
            "may hold adverts or page headers (a web page printed to PDF?). Check the list."
        )
    return notes


def _heading_like(item: str) -> bool:
    """True for an item that is a section heading ("Minimum Qualifications (required)")."""
    bare = _ANY_TAG.sub("", item).strip(" :-*_#")
    if not bare or len(bare.split()) > 6 or bare.endswith((".", ";")):
        return False
    return item.rstrip().endswith(":") or _names_a_section(bare) or _names_a_topic(bare)


def _qualification_lines(lines: list[str]) -> int:
    """How many distinct lines of the posting are worded like a qualification, wherever
    they stand: a measure of what a checklist should hold, independent of headings."""
    seen: set[str] = set()
    for raw in lines:
        stripped = raw.strip()
        if not stripped or _NOISE.match(stripped):
            continue
        bullet = _BULLET.match(stripped)
        text = (bullet.group(1) if bullet else stripped).replace("**", "").strip()
        if _DUTY_START.match(text):
            continue
        if _looks_like_requirement(text, True) is not None:
            seen.add(_key(text))
    return len(seen)


_TITLE_FIELD = re.compile(
    r"^\s*(?:job[ _]?title|position[ _]?title|title|puesto|stellenbezeichnung|poste)\s*:\s*(\S.*)$",
    re.IGNORECASE,
)


def _title_line(text: str) -> str:
    """A "Title:" field, or the first line if it is short enough to be the job's title."""
    for line in text.splitlines()[:40]:
        field_value = _TITLE_FIELD.match(line)
        if field_value:
            return field_value.group(1).strip()
    for line in text.splitlines():
        bare = re.sub(r"^[^\w(\"']+", "", line).strip().strip("*_").strip()
        if not bare or _NOISE.match(bare) or _LABEL.match(bare):
            continue
        short = len(bare) <= 80 and len(bare.split()) <= 10
        if short and not bare.endswith((".", ":")) and _section_of(bare) == "":
            return bare
        return ""
    return ""
