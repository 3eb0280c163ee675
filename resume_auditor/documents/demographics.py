"""Explicit demographic mentions: organisations, awards and facts that state a group.

"Black Student Union", "Society of Women Engineers", "mother of two", "Hillel":
these say a candidate's race, gender, religion, age, family status or the
like in so many words. Castleman et al. use exactly such mentions as their
*explicit* signal, and Gaebler et al. redact them by hand. They are not slots:
we flag each one for the user, who decides whether it stays (then it is the
same in every variant of that resume) or goes. Nothing is removed here.

A keyword alone is often not a mention ("Black belt", "Asian markets"), so a
match is widened to the capitalised name around it, and its confidence says
how sure we are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from resume_auditor.documents.findings import Finding, FindingKind
from resume_auditor.documents.sections import heading_of


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    category: str
    confidence: float
    widen: bool = True  # extend to the surrounding capitalised name


def _rule(
    pattern: str, category: str, confidence: float, flags: int = 0, widen: bool = True
) -> _Rule:
    return _Rule(re.compile(pattern, flags), category, confidence, widen)


_NOT_RACE_AFTER = (
    r"(?! ?(?:belt|box|board|hat|Friday|Rock|Knight|Duck|Sea|Forest|Mirror|Swan|Hills|Diamond|"
    r"Book|Belt|Box|Hat|Label|Scholes|Widow|Panther|Ops|Desert|Lives? Matter))"
)
# Where a labelled field starts: a line, or after a "|" or a bullet on one.
_FIELD_START = r"(?im)(?:^|(?<=[|\u2022\u00b7]))[ \t*\-\u2022]*"
_RULES: tuple[_Rule, ...] = (
    # race and ethnicity
    _rule(rf"\bBlack\b{_NOT_RACE_AFTER}", "race", 0.8),
    _rule(r"\bAfrican[- ]American\b|\bAfro-[A-Z]\w+", "race", 0.9),
    _rule(r"\b(?:Hispanic|Latin[oax]s?|Latine|Chican[oa]s?)\b", "race", 0.85),
    _rule(r"\bAsian(?:[- ]American)?\b(?! (?:markets?|region|subsidiar))", "race", 0.7),
    _rule(
        r"\b(?:Pacific Islander|Native American|American Indian|Alaska Native|First Nations)\b",
        "race",
        0.9,
    ),
    _rule(r"\b(?:Indigenous|Caucasian|Arab[- ]American|Middle Eastern)\b", "race", 0.75),
    _rule(r"\bHBCUs?\b|\bhistorically [Bb]lack\b", "race", 0.9),
    _rule(
        r"\b(?:NAACP|NSBE|SHPE|ALPFA|AISES|MAES|NABA|Prospanica|SACNAS|UNCF)\b",
        "race",
        0.85,
        widen=False,
    ),
    # gender
    _rule(
        r"\b(?:Women|Woman|Women's|Womens|Female|Girls?|Ladies|Sorority|Sisterhood)\b",
        "gender",
        0.8,
    ),
    _rule(r"\b(?:Men's|Mens|Male|Fraternity|Brotherhood|Gentlemen)\b", "gender", 0.7),
    _rule(
        r"\bwomen (?:in|of|who)\b|\bgirls who code\b|\bGrace Hopper\b",
        "gender",
        0.85,
        re.IGNORECASE,
    ),
    _rule(r"\bSWE\b", "gender", 0.4, widen=False),
    _rule(r"\bpronouns?\s*:\s*they\s*/\s*them\b", "gender", 0.8, re.IGNORECASE, widen=False),
    # sexual orientation and gender identity
    _rule(
        r"\bLGBTQ?I?A?\+?|\b(?:Lesbian|Queer|Transgender|Nonbinary|Non-binary)\b",
        "sexual_orientation",
        0.8,
    ),
    _rule(r"\bGay\b", "sexual_orientation", 0.6),
    _rule(r"\b(?:Pride|Out in Tech|oSTEM)\b", "sexual_orientation", 0.5),
    # religion
    _rule(
        r"\b(?:Christian|Muslim|Islamic|Jewish|Hillel|Catholic|Hindu|Sikh|Buddhist|Mormon|"
        r"Latter-day Saints?|Evangelical|Baptist|Methodist|Lutheran)\b",
        "religion",
        0.75,
    ),
    _rule(r"\b(?:church|mosque|synagogue|ministry|bible study)\b", "religion", 0.5, re.IGNORECASE),
    # family and marital status
    _rule(
        r"\b(?:married|husband|wife|widow(?:ed|er)?|divorced|pregnan(?:t|cy)|maternity|"
        r"paternity|stay-at-home (?:mom|dad|parent)|(?:mother|father|parent|mom|dad) of "
        r"(?:two|three|four|\d|one))\b",
        "family",
        0.8,
        re.IGNORECASE,
        widen=False,
    ),
    # age
    _rule(
        r"\b(?:date of birth|d\.o\.b\.?|DOB|born (?:in|on)\b[^\n]{0,20}|age\s*:\s*\d{2})",
        "age",
        0.85,
        re.IGNORECASE,
        widen=False,
    ),
    # disability and veteran status
    _rule(
        r"\b(?:disabled|disability|disabilities|wheelchair|deaf|hard of hearing|autis(?:m|tic)|"
        r"ADHD|neurodivergent|visually impaired)\b",
        "disability",
        0.75,
        re.IGNORECASE,
    ),
    _rule(r"\b(?:veteran|veterans|military spouse)\b", "veteran", 0.6, re.IGNORECASE),
    # labelled facts of a "Personal details" block (common outside the US)
    _rule(
        _FIELD_START + r"(?:nationality|citizenship)[ \t]*[:\-\u2013][^\n|]{1,40}",
        "national_origin",
        0.85,
        widen=False,
    ),
    _rule(
        _FIELD_START + r"(?:marital\s+status|civil\s+status)[ \t]*[:\-\u2013][^\n|]{1,30}",
        "family",
        0.9,
        widen=False,
    ),
    _rule(
        _FIELD_START + r"(?:religion|caste)[ \t]*[:\-\u2013][^\n|]{1,30}",
        "religion",
        0.9,
        widen=False,
    ),
    _rule(
        _FIELD_START + r"(?:gender|sex)[ \t]*:[^\n|]{1,20}",
        "gender",
        0.9,
        widen=False,
    ),
)
_CONNECTOR = r"(?:of|in|for|and|&|the|de|at)"
_CAPWORD = r"(?:[A-Z][\w'\u2019.\-]*|[A-Z]{2,})"
_LABELS = {
    "race": "race or ethnicity",
    "gender": "gender",
    "sexual_orientation": "sexual orientation or gender identity",
    "religion": "religion",
    "family": "family or marital status",
    "age": "age",
    "disability": "disability",
    "veteran": "veteran status",
    "national_origin": "national origin or citizenship",
}


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow a keyword to the capitalised name around it.

    Within its line; then onto the next line while the name seems to wrap there
    (a narrow column breaks "Society of Black" / "Engineers"), and back onto the
    line before when that line ends with a joining word ("National Society of").
    """
    for _ in range(3):
        line_start = text.rfind("\n", 0, start) + 1
        left = re.search(rf"(?:{_CAPWORD}(?: {_CONNECTOR})? )+$", text[line_start:start])
        if left:
            start = line_start + left.start()
        if start == line_start and line_start > 0:
            before = re.search(rf"(?:{_CAPWORD} )*{_CAPWORD} {_CONNECTOR}$", text[: line_start - 1])
            if before and before.start() > text.rfind("\n", 0, line_start - 1):
                start = before.start()
                continue
        break
    for _ in range(3):
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        right = re.match(rf"(?:(?: {_CONNECTOR})? {_CAPWORD})+", text[end:line_end])
        if right:
            end += right.end()
        if end == line_end and line_end < len(text):
            nxt = text[line_end + 1 : text.find("\n", line_end + 1) % (len(text) + 1)]
            wrap = re.match(rf"(?:{_CONNECTOR} )?[A-Z][a-z][\w'\u2019\-]*", nxt)
            if wrap and heading_of(nxt) is None and not nxt.startswith("- "):
                end = line_end + 1 + wrap.end()
                continue
        break
    return start, end


def find_demographic_mentions(text: str) -> list[Finding]:
    found: list[Finding] = []
    taken: list[tuple[int, int]] = []
    for rule in _RULES:
        for m in rule.pattern.finditer(text):
            start, end = m.start(), m.end()
            if rule.widen:
                start, end = _widen(text, start, end)
            if any(start < e and end > s for s, e in taken):
                continue
            taken.append((start, end))
            mention = " ".join(text[start:end].split())
            label = _LABELS[rule.category]
            found.append(
                Finding(
                    start,
                    end,
                    FindingKind.DEMOGRAPHIC_MENTION,
                    f"States {label}: \u201c{mention}\u201d. It will be the same in every "
                    "variant of this resume, so it can outweigh the names being tested. "
                    "Keep it on purpose or remove it.",
                    rule.confidence,
                    category=rule.category,
                )
            )
    return sorted(found, key=lambda f: f.start)
