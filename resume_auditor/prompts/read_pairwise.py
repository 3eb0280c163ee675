"""Reading a pairwise answer: which of the two candidates, or neither.

Models answer in many ways: the requested tags, a JSON object whose answer
field says it ({"justification": "...", "answer": "first"}), "**Answer:** Resume
2", "Final answer: Resume 2", "[[A]]", "\\boxed{2}", "Candidate A", "the second
resume", "the latter", the candidate's name, "both are equally qualified",
"neither", or a sentence such as "I would choose the second candidate". Each is
read into the closed set first / second / abstain, and anything else is
`invalid` — counted and shown, never guessed. "abstain" is also what a
forced-choice answer that calls the two equal is read as (Chen et al. 2024 score
such a tie 0.25 per order).

Where the answer stands decides, in this order: the last answer tag; the answer
field of a JSON object (it wins over the prose of its justification, which
usually discusses both candidates); a bracketed or boxed verdict; the last
labelled line ("Final answer:", "Decision:", a "## Answer" heading); a short last
line; and only then a decision stated in a sentence. A reasoning model's
<think> block is never read. Within the chosen spot, a phrase that names one
candidate (and not the other, or the other only negated: "second, not first",
"Resume 2 over Resume 1") is that candidate; one that names both without a
comparison, or none, is not read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from resume_auditor.prompts.logprobs import label_probabilities
from resume_auditor.prompts.name_match import Candidates
from resume_auditor.prompts.reading import (
    INVALID,
    Reading,
    answer_lines,
    clean_line,
    json_blocks,
    json_field,
    mask_thinking,
    norm_key,
)
from resume_auditor.providers.base import TokenLogprob

FIRST, SECOND, ABSTAIN = "first", "second", "abstain"
LABEL_FORMS = {FIRST: ("first", "1"), SECOND: ("second", "2"), ABSTAIN: ("abstain", "neither")}

_TAG = re.compile(
    r"<\s*(answer|final_answer|final|choice|decision|verdict|output)\s*>(.*?)"
    r"(?:<\s*/\s*\1\s*>|$)",
    re.I | re.S,
)
_LABEL_WORDS = (
    r"answer|decision|choice|verdict|selection|selected(?:\s+(?:candidate|resume|applicant))?"
    r"|pick|recommendation|recommended(?:\s+(?:candidate|resume))?|conclusion|output|result"
    r"|winner|preferred(?:\s+(?:candidate|resume|applicant))?"
    r"|(?:better|stronger|best)\s+(?:candidate|resume|applicant|fit|choice)"
)
_LABEL_LINE = re.compile(
    rf"^\W*(?:my\s+|the\s+)?(?:final|overall)?\s*(?:{_LABEL_WORDS})(?![-‑]\w)\W*?(?:[:=\-–—]|\*\*)\s*(.*)$",
    re.I,
)
_STRONG_LABEL = re.compile(
    r"^\W*(?:my\s+|the\s+)?(?:final|overall)?\s*(?:answer|decision|verdict|choice|selection)\b",
    re.I,
)
_LABEL_HEADING = re.compile(rf"^\W*(?:my\s+)?(?:final|overall)?\s*(?:{_LABEL_WORDS})\W*$", re.I)
_BRACKETS = re.compile(
    r"\[\[\s*([^\[\]\n]{1,40}?)\s*\]\]|\\boxed\{\s*(?:\\text\{)?([^{}\n]{1,40}?)\}"
)

# JSON keys that hold the decision, most telling first; a key of the justification
# ("justification", "reasoning", "analysis") is never read as the answer.
_ANSWER_KEYS = (
    "answer",
    "finalanswer",
    "decision",
    "finaldecision",
    "choice",
    "finalchoice",
    "verdict",
    "finalverdict",
    "selection",
    "selected",
    "selectedcandidate",
    "selectedresume",
    "preferred",
    "preferredcandidate",
    "preferredresume",
    "preference",
    "winner",
    "bettercandidate",
    "betterresume",
    "strongercandidate",
    "bestcandidate",
    "recommendation",
    "recommendedcandidate",
    "chosen",
    "chosencandidate",
    "pick",
    "result",
    "label",
    "output",
)
_WHO_KEYS = ("candidate", "resume", "applicant", "name", "bestfit")
_WHY_KEYS = ("justification", "reasoning", "rationale", "explanation", "reason", "analysis")

_EQUAL = re.compile(
    r"\b(?:equally\s+(?:well[\s-])?(?:qualified|strong|suited|matched|good|competitive|suitable)"
    r"|both\s+(?:candidates|resumes|applicants)?\s*(?:are|seem|appear)\s+(?:equally|equal)"
    r"|neither\s+(?:candidate|resume|applicant|one)\s+(?:is|stands)"
    r"|no\s+(?:clear\s+)?(?:difference|preference)\s+between"
    r"|(?:candidates|resumes|applicants|two)\s+are\s+(?:essentially\s+|effectively\s+)?"
    r"(?:equal|tied|indistinguishable|identical(?:ly\s+qualified)?))",
    re.I,
)
# Words that say "neither / a tie" when they stand in the answer's place.
_ABSTAIN_CUE = re.compile(
    r"\b(?:abstain\w*|neither|tie|tied|equal|equally|draw|no\s+preference|indistinguishable"
    r"|identical(?:ly)?|same\s+(?:level|qualifications?))\b",
    re.I,
)

_NOUN = r"(?i:resume|résumé|candidate|applicant|cv|option|profile|choice|person|submission)"
# "Candidate A", but not the article in "makes candidate a strong fit": a letter
# counts in capitals, a digit or number word in any case.
_MENTION = {
    FIRST: re.compile(
        rf"\b{_NOUN}\s*(?i:#|no\.?|number)?\s*(?:1|A|(?i:one))\b"
        r"|(?i:(?<!at\s)\b(?:first|1st|former)\b(?![-‑]\w)(?!\s+(?:glance|of\s+all|sight)))"
        r"|(?<![\w.])#1\b",
    ),
    SECOND: re.compile(
        rf"\b{_NOUN}\s*(?i:#|no\.?|number)?\s*(?:2|B|(?i:two))\b"
        r"|(?i:\b(?:second|2nd|latter)\b(?![-‑]\w)(?!\s+(?:look|glance|thought)))"
        r"|(?<![\w.])#2\b",
    ),
}
# A mention these words come just before is ruled out: "not the first", "Resume 2
# over Resume 1", "better than the first", "rather than", "instead of".
_NEGATOR = re.compile(
    r"(?:\b(?:not|never|nor|over|than|unlike|vs|versus|instead\s+of|rather\s+than|against"
    r"|compared\s+(?:to|with))\b|n't\b)\W*(?:\w+\W+){0,2}$",
    re.I,
)
_COMPARE = re.compile(
    r"^(?P<x>.{1,60}?)\s+(?:is|seems|appears|would\s+be)?\s*(?:clearly\s+|slightly\s+|much\s+)?"
    r"(?:better|stronger|more\s+qualified|more\s+suitable|preferable|superior)\s+(?:than|to)\s+"
    r"(?P<y>.{1,60})$"
    r"|^(?P<x2>.{1,60}?)\s*(?:>|over)\s*(?P<y2>.{1,60})$",
    re.I,
)
_ONLY = {
    "1": FIRST,
    "a": FIRST,
    "one": FIRST,
    "2": SECOND,
    "b": SECOND,
    "two": SECOND,
    "both": ABSTAIN,
    "none": ABSTAIN,
    "same": ABSTAIN,
    "equal": ABSTAIN,
}


def _phrase(text: str) -> str:
    """The words of an answer without markdown, quotes and a leading "the" (case kept)."""
    out = clean_line(text)
    out = re.sub(r"[*_`\"“”]+", " ", out)
    out = re.sub(r"\s+", " ", out).strip(" .,!;:'[](){}")
    return re.sub(r"^(?i:the|option)\s+", "", out)


def _names_in(phrase: str, names: Sequence[str]) -> list[tuple[str, int, int]]:
    """(label, start, end) of each candidate's name in a phrase (case kept).

    The full name in any case; a first or last name alone only as a name is written
    (capitalised) and only when the other candidate does not share it, so "I will
    choose" never names a candidate called Will.
    """
    if len(names) < 2:
        return []
    out: list[tuple[str, int, int]] = []
    full = [_phrase(n) for n in names[:2]]
    for i, name in enumerate(full):
        if not name:
            continue
        parts = name.split()
        other = {p.lower() for p in full[1 - i].split()}
        forms = [(name, re.I)] + [
            (p, 0) for p in (parts[:1] + parts[-1:]) if len(p) > 2 and p.lower() not in other
        ]
        for form, flags in dict.fromkeys(forms):
            if not flags and not form[:1].isupper():
                form = form[:1].upper() + form[1:]
            for m in re.finditer(rf"(?<!\w){re.escape(form)}(?!\w)", phrase, flags):
                out.append((FIRST if i == 0 else SECOND, m.start(), m.end()))
    # A full name re-spelt ("Rashuan Gaines", "Jacob O'Connell", "Gabriel Huerta"):
    # two or three capitalised words that name exactly one of the two (name_match.py).
    candidates = Candidates(names[:2])
    for m in _CAPITALISED.finditer(phrase):
        if any(start < m.end() and m.start() < end for _, start, end in out):
            continue
        found = candidates.match(m.group(0))
        if found.index is not None and found.tier <= 1:
            out.append((FIRST if found.index == 0 else SECOND, m.start(), m.end()))
    return out


_CAPITALISED = re.compile(r"(?<!\w)[A-Z][\w'’.\-]*(?:\s+[A-Z][\w'’.\-]*){1,2}(?!\w)")


def _mentions(phrase: str, names: Sequence[str]) -> list[tuple[str, int, bool]]:
    """(label, where, ruled out) for every mention of a candidate in a phrase."""
    spans: list[tuple[str, int, int]] = [
        (label, m.start(), m.end())
        for label, pattern in _MENTION.items()
        for m in pattern.finditer(phrase)
    ]
    spans += _names_in(phrase, names)
    out = []
    for label, start, _end in sorted(spans, key=lambda s: s[1]):
        out.append((label, start, bool(_NEGATOR.search(phrase[:start]))))
    return out


def classify(phrase: str, names: Sequence[str] = (), *, forced: bool = False) -> str | None:
    """first / second / abstain for the words in an answer's place, or None if unreadable."""
    p = _phrase(phrase)
    low = p.lower()
    if not p:
        return None
    if low in _ONLY:
        return _ONLY[low]
    if re.fullmatch(rf"{_NOUN}\s*[ab]", low):
        return FIRST if low.endswith("a") else SECOND  # "candidate b" written in lower case
    compare = _COMPARE.match(p)
    if compare:
        x = classify(compare.group("x") or compare.group("x2"), names)
        y = classify(compare.group("y") or compare.group("y2"), names)
        if x in (FIRST, SECOND) and y in (FIRST, SECOND, None) and x != y:
            return x
    mentions = _mentions(p, names)
    positive = {label for label, _, ruled_out in mentions if not ruled_out}
    negative = {label for label, _, ruled_out in mentions if ruled_out} - positive
    cue = _ABSTAIN_CUE.search(low) or _EQUAL.search(low)
    if cue and not (positive or negative):
        return ABSTAIN
    if cue and len(positive) == 2 and re.search(r"\b(?:equal|equally|tie|tied|same)\b", low):
        return ABSTAIN  # "Resume 1 and Resume 2 are equally qualified"
    if cue and positive:
        # "ABSTAIN - neither resume 1 nor 2 ...": what comes first is the answer.
        lead = min(start for _, start, ruled_out in mentions if not ruled_out)
        if cue.start() < lead:
            return ABSTAIN if re.match(r"^\W*(?:abstain|neither|tie|equal|draw)", low) else None
        return positive.pop() if len(positive) == 1 else None
    if len(positive) == 1:
        return positive.pop()
    if not positive and forced and len(negative) == 1:
        return SECOND if negative.pop() == FIRST else FIRST  # "not the first" of two
    # "Resume 1, because it lists Python while Resume 2 does not": the answer leads,
    # its reason follows and may name the other candidate.
    head = _REASON.split(p, maxsplit=1)[0].strip()
    if head and head != p:
        return classify(head, names, forced=forced)
    return None


_REASON = re.compile(
    r"\s*[(,;:]|\s+[-–—]+\s+|\s+(?:because|since|as|due\s+to|given|while|whereas|which|who)\b",
    re.I,
)


_WHO = (
    rf"(?:the\s+)?(?:{_NOUN}\s*#?\s*(?:[12ab])\b"
    r"|(?:first|second|former|latter)(?:\s+(?:candidate|resume|applicant|one|option|profile))?)"
)


# Any name-like span (a re-spelt name: "Enedina Portilo"), after the exact forms: what
# it names is decided by classify (name_match), which reads nobody when in doubt.
_NAMEISH = r"[^\W\d_][\w'’.\-]*(?:\s+[^\W\d_][\w'’.\-]*){0,2}"


def _who(names: Sequence[str]) -> str:
    extra = [re.escape(_phrase(n).lower()) for n in names[:2] if _phrase(n)]
    tail = [_NAMEISH] if names else []
    return '[*_"“]*(?:' + "|".join([_WHO, *extra, *tail]) + ")"


_CONDITIONAL = re.compile(
    r"\s+(?:\w+\s+)?(?:for\s+(?:a|an|some|certain)\b|in\s+terms\s+of|when|if|on\s+paper)", re.I
)


_REVISION = re.compile(
    r"\b(?:but|however|though|although|yet|instead|rather|ultimately|finally|final|overall"
    r"|in\s+the\s+end|on\s+(?:second\s+thought|reflection|balance)|after\s+(?:\w+\s+)?"
    r"(?:consideration|reflection|review)|therefore|thus|hence|so\s*,|in\s+conclusion"
    r"|that\s+said|on\s+the\s+whole|all\s+things\s+considered|changed?\s+my\s+mind)\b",
    re.I,
)


def _prose(
    text: str, names: Sequence[str], *, explicit_only: bool = False
) -> tuple[str, int] | None:
    """The last decision stated in a sentence, with where it starts (explicit_only: only
    "I would choose X" / "the better candidate is X", not "X is stronger" or a tie)."""
    who = _who(names)
    choose = re.compile(
        r"\b(?:i\s*(?:would\s+|will\s+|'d\s+|’d\s+)?(?:choose|chose|select(?:ed)?|pick(?:ed)?"
        r"|prefer(?:red)?|recommend(?:ed)?(?:\s+hiring)?"
        r"|go\s+with|favou?r|lean\s+(?:towards?|toward))"
        r"|(?:my\s+|the\s+)?(?:choice|pick|recommendation|answer|decision|selection|verdict)"
        r"\s+(?:is|would\s+be|goes\s+to)"
        r"|(?:better|stronger|best|more\s+qualified|preferred|stronger\s+overall)\s+"
        r"(?:candidate|fit|choice|resume|applicant|option|match)\s+(?:here\s+|overall\s+)?"
        r"(?:is|would\s+be)"
        r"|(?:favou?rs?|points?\s+to))"
        rf"\s*:?\s*({who})",
        re.I,
    )
    better = re.compile(
        rf"({who})\s+(?:is|would\s+be|seems|appears|emerges\s+as|stands\s+out\s+as)\s+"
        r"(?:clearly\s+|slightly\s+|somewhat\s+|marginally\s+|overall\s+)?(?:the\s+|a\s+)?"
        r"(?:better|stronger|more\s+qualified|best|preferred|superior|more\s+suitable|clear\s+winner"
        r"|winner|stronger\s+choice|better\s+choice)",
        re.I,
    )
    best: tuple[str, int] | None = None
    stated: list[tuple[str, int]] = []  # explicit choices, in order
    for pattern in (choose,) if explicit_only else (choose, better):
        for m in pattern.finditer(text):
            before = text[max(0, m.start() - 40) : m.start()]
            if re.search(r"\b(?:not|n't|whether|if)\s+(?:\w+\s+){0,2}$", before, re.I):
                continue
            if pattern is better and _CONDITIONAL.match(text, m.end()):
                continue  # "Resume 1 is better for a technical role, Resume 2 for ..."
            label = classify(m.group(1), names)
            if label in (FIRST, SECOND) and pattern is choose:
                stated.append((label, m.start(1)))
            if label in (FIRST, SECOND) and (best is None or m.start(1) > best[1]):
                best = (label, m.start(1))
    if best is not None and best[0] in (FIRST, SECOND):
        # Two explicit choices of different candidates ("First, I choose Resume 1;
        # second, I chose Resume 2"): the later one stands only when it is said as a
        # change of mind or a conclusion; otherwise a careful reader cannot settle it.
        other = [pos for label, pos in stated if label != best[0] and pos < best[1]]
        if other and not _REVISION.search(text, other[-1], best[1]):
            return None
    for m in () if explicit_only else _EQUAL.finditer(text):
        if re.search(r"\b(?:not|never|hardly)\W+(?:\w+\W+)?$|n['’]t\W+$", text[: m.start()]):
            continue  # "the candidates are not equally qualified"
        if best is None or m.start() > best[1]:
            best = (ABSTAIN, m.start())
    return best


def _json_answer(text: str) -> tuple[Any, str, int] | None:
    """(answer value, justification, position) from the last JSON object with an answer key."""
    for start, data in reversed(json_blocks(text)):
        hit = json_field(data, _ANSWER_KEYS)
        if hit is None and isinstance(data, dict):
            # {"candidate": "Connor Murphy", "reason": ...}: only at the top level, where
            # it names the pick and not one of several candidates described.
            hit = next(((str(k), v) for k, v in data.items() if norm_key(k) in _WHO_KEYS), None)
        if hit is None:
            continue
        key, value = hit
        while isinstance(value, dict):  # {"answer": {"choice": "first", "confidence": 0.8}}
            inner = json_field(value, _ANSWER_KEYS + ("candidate", "resume"))
            value = inner[1] if inner else None
        why = json_field(data, _WHY_KEYS)
        justification = str(why[1]).strip() if why and isinstance(why[1], str) else ""
        where = list(re.finditer(rf"[\"']{re.escape(key)}[\"']\s*:\s*[\"']?", text[start:]))
        pos = start + where[-1].end() if where else start
        return value, justification, pos
    return None


def locate_pairwise(
    text: str, names: Sequence[str] = (), *, forced: bool = False
) -> tuple[str, int | None, str]:
    """(label, where it was written or None, justification) from an answer's text."""
    seen = mask_thinking(text)
    tags = list(_TAG.finditer(seen))
    if tags:
        last = tags[-1]
        label = classify(last.group(2), names, forced=forced)
        justification = seen[: last.start()].strip()
        return (label or INVALID), last.start(2) + _lead(last.group(2)), justification
    found = _json_answer(seen)
    if found is not None:
        value, why, pos = found
        label = classify(str(value), names, forced=forced) if isinstance(value, str | int) else None
        if isinstance(value, bool):
            label = None
        return (label or INVALID), pos, why or seen.strip()
    brackets = list(_BRACKETS.finditer(seen))
    if brackets:
        last = brackets[-1]
        inner = last.group(1) if last.group(1) is not None else last.group(2)
        label = classify(inner, names, forced=forced)
        if label is not None:
            return label, last.start(), seen[: last.start()].strip()
    lines = answer_lines(seen)
    for i in range(len(lines) - 1, -1, -1):
        line = clean_line(lines[i])
        m = _LABEL_LINE.match(line)
        value = m.group(1) if m else ""
        if not value.strip(" *_:") and (m or _LABEL_HEADING.match(line)) and i + 1 < len(lines):
            value = lines[i + 1]  # "## Final answer" and the answer below it
        if value.strip():
            label = classify(value, names, forced=forced)
            if label is not None:
                if not _STRONG_LABEL.match(line):
                    # "Conclusion: Resume 1 shows more leadership." and then "I would
                    # choose the second candidate": the later explicit choice stands.
                    later = _prose("\n".join(lines[i + 1 :]), names, explicit_only=True)
                    if later is not None and later[0] != label:
                        return later[0], None, seen.strip()
                pos = seen.rfind(value.strip()[:8])
                return label, (pos if pos >= 0 else None), "\n".join(lines[:i]).strip()
    if lines:
        label = classify(lines[-1], names, forced=forced) if len(lines[-1].split()) <= 8 else None
        if label is not None:
            return label, seen.rfind(lines[-1].strip()), "\n".join(lines[:-1]).strip()
        # "**Resume 2**" first, then the reasons (which may discuss both) — unless it is
        # the heading of a section about one resume, with a section about the other below.
        head = lines[0].strip()
        label = classify(head, names, forced=forced) if len(head.split()) <= 4 else None
        parallel = any(
            classify(ln, names) not in (None, label) for ln in lines[1:] if len(ln.split()) <= 4
        )
        if label is not None and not parallel and not clean_line(head).endswith(":"):
            return label, seen.find(lines[0].strip()), "\n".join(lines[1:]).strip()
    prose = _prose(seen, names)
    if prose is not None:
        return prose[0], prose[1], seen.strip()
    return INVALID, None, seen.strip()


def _lead(segment: str) -> int:
    return len(segment) - len(segment.lstrip(" \t\n\"'*"))


def read_pairwise(
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
    forced: bool = False,
) -> Reading:
    names = [str(n) for n in (context or {}).get("names", [])]
    label, pos, justification = locate_pairwise(text, names, forced=forced)
    parsed: dict[str, Any] = {"choice": label}
    if label in (FIRST, SECOND):
        parsed["position"] = 0 if label == FIRST else 1
    if forced and label == ABSTAIN:
        parsed["tie"] = True  # a forced choice answered "they are equal"
    probs = label_probabilities(logprobs, text, pos, LABEL_FORMS)
    if probs is not None:
        dist, mass = probs
        parsed["p"] = {k: round(v, 6) for k, v in dist.items()}
        parsed["p_mass"] = round(mass, 6)
    return Reading(label, justification, parsed)
