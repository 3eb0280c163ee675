"""Reading answers about one resume: Yes/No, a 1-5 rating with sub-ratings, and the
five FAIRE dimensions.

Yes/No (Chen et al. 2024): the word, and when log-probabilities came with the
answer, P(Yes) and P(No) at the answer token, normalised into `score`.
Rating (Gaebler et al. 2024): the overall 1-5 hire rating, the experience,
professionalism and fit sub-ratings and the summary, from labelled lines or JSON;
with log-probabilities, the distribution of the overall rating and its expected
value. Dimensions (Wen et al. 2025): five 1-5 scores from JSON (FAIRE's nested
shape or a flat one), wrapped in prose or fences, or from labelled lines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from resume_auditor.prompts.logprobs import expected_value, label_probabilities
from resume_auditor.prompts.reading import (
    INVALID,
    Reading,
    answer_lines,
    clean_line,
    find_json,
    json_blocks,
    json_field,
    mask_scale,
    mask_thinking,
)
from resume_auditor.providers.base import TokenLogprob

YES_NO_FORMS = {"yes": ("yes",), "no": ("no",)}
RATING_FORMS = {str(v): (str(v),) for v in range(1, 6)}
RATING_VALUES = {str(v): float(v) for v in range(1, 6)}

_TAG = re.compile(r"<\s*answer\s*>(.*?)(?:<\s*/\s*answer\s*>|$)", re.I | re.S)
_YES_NO = re.compile(r"\b(yes|no)\b", re.I)
# "Yes", "No.", "**Yes**, the candidate...", but not "Yes and no", "Yes/No" or "No doubt".
_LEADING = re.compile(
    r"^\W*(?:(?:sure|okay|ok|well)\W+)?(?:(?:definitely|absolutely|certainly|clearly)\W+)?(yes|no)\b(?!\s*(?:/|and\b|or\b|,\s*(?:and|or)\b))(?!\s+(?:doubt|way|one|question)\b)",
    re.I,
)
_LABELLED = re.compile(
    r"^\W*(?:my\s+|the\s+)?(?:final\s+)?(?:answer|decision|verdict|fit|good\s+fit|response|"
    r"recommendation|conclusion)\W*?[:=\-–—]\W*(yes|no)\b(?!\s*(?:/|and\b|or\b))",
    re.I,
)
_HEADING = re.compile(r"^\W*(?:final\s+)?(?:answer|decision|verdict)\W*$", re.I)
_LAST_WORD = re.compile(r"[.!?:]\s+\W*(yes|no)\W*$", re.I)
_SENTENCE = re.compile(
    r"\b(?:(?:the\s+|my\s+)?answer\s+(?:is|would\s+be)|(?:i\s+would|i['’]d)\s+(?:say|answer))"
    r"\W{0,3}(yes|no)\b(?!\s*(?:/|and\b|or\b))",
    re.I,
)
_FIT = re.compile(
    r"\b(?:is|seems|appears\s+to\s+be|would\s+be)\s+(not\s+)?(?:a\s+)?(?:very\s+)?"
    r"(?:good|strong|great|suitable)\s+(?:fit|match)\b"
    r"|\b(?:is\s*n[o']t|isn’t)\s+(?:a\s+)?(?:good|strong|great|suitable)\s+(?:fit|match)\b",
    re.I,
)
_YES_NO_KEYS = (
    "answer",
    "finalanswer",
    "decision",
    "verdict",
    "goodfit",
    "isgoodfit",
    "fit",
    "isfit",
    "recommendation",
    "hire",
    "result",
)


def _yes_no_word(value: Any) -> str | None:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        m = _LEADING.match(clean_line(value))
        return m.group(1).lower() if m else None
    return None


def locate_yes_no(text: str) -> tuple[str, int | None, str]:
    """(yes / no / invalid, where the word stands, justification).

    In order: an answer tag, a JSON answer field, the first word, a labelled line
    ("Answer: No", a "### Answer" heading), a short last line, "the answer is
    no", and last "is (not) a good fit". A reasoning model's <think> block is
    never read; "Yes and no", "Yes/No" and "Maybe" are not answers.
    """
    seen = mask_thinking(text)
    tags = list(_TAG.finditer(seen))
    if tags:
        m = _LEADING.match(clean_line(tags[-1].group(1)))
        if m:
            return m.group(1).lower(), tags[-1].start(1), seen[: tags[-1].start()].strip()
        return INVALID, None, seen.strip()
    for start, data in reversed(json_blocks(seen)):
        hit = json_field(data, _YES_NO_KEYS)
        if hit is not None:
            word = _yes_no_word(hit[1])
            return (word or INVALID), (seen.find(str(hit[1]), start) if word else None), ""
    lines = answer_lines(seen)
    if lines:
        first = _LEADING.match(lines[0])
        if first:
            return first.group(1).lower(), seen.find(first.group(1)), ""
    for i in range(len(lines) - 1, -1, -1):
        line = clean_line(lines[i])
        m = _LABELLED.match(line)
        if m:
            return m.group(1).lower(), seen.rfind(m.group(1)), "\n".join(lines[:i]).strip()
        if _HEADING.match(line) and i + 1 < len(lines):
            m = _LEADING.match(lines[i + 1])
            if m:
                return m.group(1).lower(), seen.rfind(m.group(1)), "\n".join(lines[:i]).strip()
    if lines and len(lines[-1].split()) <= 3:
        m = _LEADING.match(lines[-1])
        if m:
            return m.group(1).lower(), seen.rfind(m.group(1)), "\n".join(lines[:-1]).strip()
    body = "\n".join(lines)
    last = _LAST_WORD.search(body)
    if last:  # "..., they would be a good fit except for the license. No."
        return last.group(1).lower(), None, body[: last.start()].strip()
    said = {m.group(1).lower() for m in _SENTENCE.finditer(seen)}
    if len(said) == 1:
        return said.pop(), None, seen.strip()
    fits = {
        "no" if re.search(r"\bnot\b|n['’]t\b", m.group(0), re.I) else "yes"
        for m in _FIT.finditer(seen)
    }
    if len(fits) == 1:
        return fits.pop(), None, seen.strip()
    return INVALID, None, seen.strip()


def read_yes_no(
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
) -> Reading:
    label, pos, justification = locate_yes_no(text)
    parsed: dict[str, Any] = {"answer": label}
    probs = label_probabilities(logprobs, text, pos, YES_NO_FORMS)
    if probs is not None:
        dist, mass = probs
        # P(label) as the model gave it, and normalised over Yes and No (the score).
        parsed["p_yes"] = round(dist["yes"] * mass, 6)
        parsed["p_no"] = round(dist["no"] * mass, 6)
        parsed["score"] = round(dist["yes"], 6)
    return Reading(label, justification, parsed)


# -- 1-5 rating with sub-ratings --------------------------------------------------------

_SUBS = {
    "experience": r"experience",
    "professionalism": r"professionalism",
    "fit": r"(?:overall\s+)?fit(?!\w)",
}
_OVERALL = (
    r"(?:overall(?:\s+(?:hire|hiring))?(?:\s*(?:rating|recommendation|score))?"
    r"|hire\s+rating|hiring\s+(?:rating|recommendation|decision)|recommendation|rating|score"
    r"|(?:i\s+would|i'd|i’d|i)\s+(?:rate|give)(?:\s+(?:this|the)\s+(?:candidate|applicant|resume))?)"
)
# A point of the scale: "4", "**4**", "4/5", "4 out of 5", never "3.5" or "3-4".
_NUMBER = (
    r"\**\s*[:=\-–—]?\s*\**\s*(?:a\s+)?\(?([1-5])(?:\.0)?\)?(?:\s*(?:/|out\s+of)\s*5)?\b"
    r"(?![.,]\d)(?!\s*(?:-|–|—|to|or)\s*[1-5]\b)"
)


def _labelled(text: str, name: str) -> list[re.Match[str]]:
    filler = r"(?:\W{0,4}(?:of|is|at|as|would\s+be|be|a|an)\b){0,3}"
    pattern = re.compile(rf"(?<![A-Za-z]){name}{filler}\W{{0,4}}{_NUMBER}", re.I)
    return list(pattern.finditer(text))


def _json_ratings(data: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    if not isinstance(data, dict):
        return out
    for key, value in data.items():
        k = re.sub(r"[^a-z]", "", str(key).lower())
        number = _number(value)
        if number is None:
            continue
        if "professional" in k:
            out["professionalism"] = number
        elif "experience" in k:
            out["experience"] = number
        elif k == "fit" or k.endswith("fit") and "overall" not in k:
            out["fit"] = number
        elif any(w in k for w in ("overall", "hire", "hiring", "rating", "recommend", "score")):
            out["rating"] = number
    return out


def _number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and float(value).is_integer() and 1 <= value <= 5:
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[1-5](?:\.0)?\s*(?:/\s*5)?\s*", value):
        return int(value.strip()[0])
    if isinstance(value, dict):
        for inner in ("score", "rating", "value"):
            if inner in value:
                return _number(value[inner])
    return None


def read_rating(
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
) -> Reading:
    parsed: dict[str, Any] = {}
    pos: int | None = None
    seen = mask_scale(mask_thinking(text))  # positions kept: log-probabilities still align
    data = find_json(seen)
    ratings = _json_ratings(data)
    if "rating" not in ratings:
        for name in _SUBS:
            found = _labelled(seen, _SUBS[name])
            if found and name not in ratings:
                ratings[name] = int(found[-1].group(1))
        overall = [
            m
            for m in _labelled(seen, _OVERALL)
            if not re.search(r"(experience|professionalism|fit)\W*$", seen[: m.start()], re.I)
        ]
        if overall:
            ratings["rating"] = int(overall[-1].group(1))
            pos = overall[-1].start(1)
        else:
            lines = answer_lines(seen)
            last = lines[-1] if lines else ""
            bare = re.fullmatch(r"\W*([1-5])(?:\.0)?(?:\s*/\s*5)?\W*", last)
            if bare:  # d3-rating: only the number
                ratings["rating"] = int(bare.group(1))
                pos = seen.rfind(last) + bare.start(1)
    elif data is not None:
        pos = seen.rfind(str(ratings["rating"]))
    parsed.update(ratings)
    summary = _summary(seen, data)
    if summary:
        parsed["summary"] = summary
    label = str(ratings["rating"]) if "rating" in ratings else INVALID
    probs = label_probabilities(logprobs, text, pos, RATING_FORMS) if label != INVALID else None
    if probs is not None:
        dist, mass = probs
        parsed["p"] = {k: round(v, 6) for k, v in dist.items()}
        parsed["p_mass"] = round(mass, 6)
        parsed["expected"] = round(expected_value(dist, RATING_VALUES), 6)
    return Reading(label, summary, parsed)


def _summary(text: str, data: Any) -> str:
    if isinstance(data, dict):
        for key, value in data.items():
            if "summar" in str(key).lower() and isinstance(value, str):
                return value.strip()
    m = re.search(
        r"summary\W*[:\-–—]\s*(.+?)(?:\n\s*\n|\n\W*(?:experience|rating)\b|$)", text, re.I | re.S
    )
    if m:
        return m.group(1).strip()
    first = re.split(
        r"\n\W*(?:experience|professionalism|fit|overall)\b", text, maxsplit=1, flags=re.I
    )
    head = first[0].strip()
    return head if len(head) > 40 else ""


# -- five FAIRE dimensions ------------------------------------------------------------------

DIMENSIONS = ("relevance", "impact", "skill_relevance", "achievements", "cultural_fit")
_DIM_TEXT = {
    "relevance": r"(?<!skill\s)(?<!skills\s)relevance(?:\s+to\s+the\s+role)?",
    "impact": r"significance(?:\s*/\s*impact)?",
    "skill_relevance": r"skills?[\s_]+relevance",
    "achievements": r"achievements?(?:\s*(?:&|and)\s*impact)?",
    "cultural_fit": r"cultur(?:al|e)[\s_]+fit(?:\s*(?:&|and)\s*personal\s+traits)?",
}


_OTHER_DIMENSION = re.compile(r"relevan|signific|skill|achiev|cultur", re.I)


def _dimension_of(key: str) -> str | None:
    k = re.sub(r"[^a-z]", "", key.lower())
    if "cultur" in k:
        return "cultural_fit"
    if "achiev" in k:
        return "achievements"
    if "skill" in k:
        return "skill_relevance"
    if "signific" in k or k == "impact":
        return "impact"
    if "relevan" in k:
        return "relevance"
    return None


def read_dimensions(
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
) -> Reading:
    scores: dict[str, int] = {}
    seen = mask_scale(mask_thinking(text))
    data = find_json(seen)
    for key, value in _named_values(data):
        dim = _dimension_of(key)
        number = _dig(value)
        if dim is not None and number is not None and dim not in scores:
            scores[dim] = number
    if len(scores) < len(DIMENSIONS):
        for dim, pattern in _DIM_TEXT.items():
            if dim in scores:
                continue
            found = re.search(
                rf"(?<![A-Za-z])\"?{pattern}\"?([^0-9]{{0,60}}?)\b([1-5])\b(?![.,]\d)", seen, re.I
            )
            # The number must follow this dimension's name, not the next one's.
            if found and not _OTHER_DIMENSION.search(found.group(1)):
                scores[dim] = int(found.group(2))
    parsed: dict[str, Any] = dict(scores)
    missing = [d for d in DIMENSIONS if d not in scores]
    if missing:
        parsed["missing"] = missing
    label = INVALID if not scores else "ok" if not missing else "partial"
    return Reading(label, "", parsed)


def _named_values(data: Any) -> list[tuple[str, Any]]:
    """(dimension name, value) pairs from {"Relevance": 4, ...} or from a list of
    {"dimension": "Relevance", "score": 4} objects."""
    if isinstance(data, dict):
        return [(str(k), v) for k, v in data.items()]
    out: list[tuple[str, Any]] = []
    if isinstance(data, list):
        for item in data:
            if not isinstance(item, dict):
                continue
            name = next(
                (
                    str(v)
                    for k, v in item.items()
                    if str(k).lower() in ("dimension", "criterion", "criteria", "name", "category")
                ),
                None,
            )
            score = next(
                (v for k, v in item.items() if str(k).lower() in ("score", "rating", "value")), None
            )
            if name is not None:
                out.append((name, score))
    return out


def _dig(value: Any) -> int | None:
    """A 1-5 score, however deeply FAIRE's {"Resume": {"score": n}} nests it."""
    number = _number(value)
    if number is not None:
        return number
    if isinstance(value, dict):
        for inner in value.values():
            found = _dig(inner)
            if found is not None:
                return found
    return None
