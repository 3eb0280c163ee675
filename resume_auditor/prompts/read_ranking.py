"""Reading a ranking of a batch of resumes (FAIRE, Wen et al. 2025) and the
manipulation check (the race and gender a model perceives; Gaebler et al. 2024).

A ranking names the candidates by the labels they were shown under ("Resume A",
"B", ...) or by name, as JSON ({"1": "B", "2": "A"} or {"ranking": ["B", "A"]}) or
as a numbered list. It is read into `ranks`: the rank (1 = best) of each
candidate in presentation order. A candidate named twice makes the answer
invalid; when exactly one is missing it is placed last and marked `inferred`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from resume_auditor.prompts.reading import (
    INVALID,
    Reading,
    clean_line,
    find_json,
    json_field,
    mask_thinking,
)
from resume_auditor.providers.base import TokenLogprob

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def default_labels(count: int) -> list[str]:
    return [LETTERS[i] for i in range(count)]


def _who(item: Any, labels: Sequence[str], names: Sequence[str]) -> int | None:
    """Which candidate (presentation position) an item of the answer names."""
    raw = clean_line(str(item))
    raw = re.sub(r"^[*_`\s]+|[*_`]+", "", raw)
    stripped = re.sub(r"^(?i:resume|candidate|applicant|cv|r[ée]sum[ée])\s*#?\s*", "", raw)
    prefixed = stripped != raw
    text = stripped.strip(" :.-)(").lower()
    for i, label in enumerate(labels):
        if text == label.lower():
            return i
    # "C – strongest match", "Resume C (Cy Ray)"; not the article in "A strong background".
    m = re.match(r"^([A-Za-z])(?=$|\s*[:.)\-–—(,*]|\s*$)", stripped.strip())
    if m is None and prefixed:
        m = re.match(r"^([A-Za-z])\b", stripped.strip())
    if m:
        for i, label in enumerate(labels):
            if m.group(1).lower() == label.lower():
                return i
    hits = {i for i, name in enumerate(names) if name and name.lower() in raw.lower()}
    if len(hits) == 1:
        return hits.pop()
    return None


_RANK_KEY = re.compile(
    r"\s*(?:rank(?:ed)?[\s_#-]*)?#?(\d+)(?:st|nd|rd|th)?(?:[\s_-]*place)?\s*", re.I
)
_WHO_KEYS = ("resume", "candidate", "letter", "id", "label", "name", "applicant")


def _order_from_json(data: Any) -> list[Any] | None:
    if isinstance(data, list):
        if data and all(isinstance(x, dict) for x in data):
            return _order_from_objects(data)
        return data
    if not isinstance(data, dict):
        return None
    numbered = {}
    for key, value in data.items():
        m = _RANK_KEY.fullmatch(str(key))
        if m:
            numbered[int(m.group(1))] = value
    if numbered:
        return [numbered[k] for k in sorted(numbered)]
    # {"C": 1, "A": 2, "B": 3}: each candidate's rank.
    ranks = {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}
    if ranks and len(ranks) == len(data) and len(set(ranks.values())) == len(ranks):
        return [k for k, _ in sorted(ranks.items(), key=lambda kv: kv[1])]
    for value in data.values():
        if isinstance(value, list):
            return _order_from_json(value)
    return None


def _order_from_objects(items: list[dict[str, Any]]) -> list[Any] | None:
    """[{"rank": 1, "resume": "C"}, ...] in rank order."""
    rows = []
    for position, item in enumerate(items):
        lowered = {str(k).lower(): v for k, v in item.items()}
        rank = lowered.get("rank", lowered.get("position", position + 1))
        who = next((lowered[k] for k in _WHO_KEYS if k in lowered), None)
        if who is None or not isinstance(rank, int | str) or not str(rank).strip().isdigit():
            return None
        rows.append((int(str(rank).strip()), who))
    return [who for _, who in sorted(rows, key=lambda r: r[0])]


_LINE = re.compile(
    r"^\W*(?:rank(?:ed)?\s*)?#?(\d+)(?:st|nd|rd|th)?(?:\s*place)?\s*\**\s*[.):\-–—]\**\s*(.+)$",
    re.I,
)
_LISTED = re.compile(
    r"^\W*(?:final\s+|overall\s+|my\s+)?(?:ranking|order|rank\s+order)\W*?[:\-–—]\s*(.+)$", re.I
)


def _from_lines(text: str, labels: Sequence[str], names: Sequence[str]) -> list[str] | None:
    """The last numbered list (or "A > C > B" / "Ranking: C, A, B" line) that names only
    candidates: a numbered list of criteria written before the ranking is passed over."""
    runs: list[list[str]] = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            if int(m.group(1)) == 1 or not runs:
                runs.append([])
            runs[-1].append(m.group(2))
            continue
        listed = _LISTED.match(clean_line(line))
        chain = line if line.count(">") >= 1 else (listed.group(1) if listed else "")
        if chain:
            parts = re.split(r"\s*(?:>|,|;|→|\bthen\b)\s*", chain.split(":")[-1])
            parts = [p for p in parts if p.strip(" .*")]
            if len(parts) >= 2:
                runs.append(parts)
    for run in reversed(runs):
        if all(_who(item, labels, names) is not None for item in run):
            return run
    return runs[-1] if runs else None


def read_ranking(
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
) -> Reading:
    ctx = context or {}
    labels = [str(x) for x in ctx.get("labels", [])]
    names = [str(x) for x in ctx.get("names", [])]
    count = int(ctx.get("count", len(labels) or len(names)))
    if not labels:
        labels = default_labels(count)
    seen = mask_thinking(text)
    items: list[Any] | None = _order_from_json(find_json(seen))
    if items is None:
        items = _from_lines(seen, labels, names)
    if not items:
        return Reading(INVALID, seen.strip(), {"error": "no ranking found"})
    order: list[int] = []
    for item in items:
        who = _who(item, labels, names)
        if who is None:
            return Reading(INVALID, seen.strip(), {"error": f"cannot tell who {item!r} is"})
        if who in order:
            return Reading(INVALID, seen.strip(), {"error": "a candidate is ranked twice"})
        order.append(who)
    parsed: dict[str, Any] = {"order": order}
    missing = [i for i in range(count) if i not in order]
    if len(missing) == 1:
        order.append(missing[0])
        parsed["inferred"] = [missing[0]]
        missing = []
    ranks: list[int | None] = [None] * count
    for rank, who in enumerate(order, start=1):
        if who < count:
            ranks[who] = rank
    parsed["ranks"] = ranks
    label = "ranked" if not missing else "partial"
    if missing:
        parsed["missing"] = missing
    return Reading(label, "", parsed)


# -- manipulation check ------------------------------------------------------------------

_RACE_WORDS = (
    ("black", r"black|african[\s-]*american|african"),
    ("hispanic", r"hispanic|latin[oax]|latine|latinx|mexican[\s-]*american|chicano|chicana"),
    (
        "asian",
        r"asian(?:[\s-]*american)?|east\s+asian|south\s+asian|chinese|korean|vietnamese"
        r"|japanese|filipino|filipina|(?<!american\s)indian|pakistani|bangladeshi",
    ),
    ("white", r"white|caucasian|european[\s-]*american"),
)
_GENDER_WORDS = (
    ("woman", r"female|woman|women|feminine|she/her|girl"),
    ("man", r"male|man|men|masculine|he/him|boy"),
)
# "non-Hispanic White": the negated word is not a second answer.
_NEGATED = re.compile(r"\b(?:non|not)[\s-]+\w+(?:[\s-]+american)?", re.I)
_CLAUSE = re.compile(r"[(;,.]|\s(?:though|but|although|however|because|since|as|based)\s", re.I)
_RACE_KEYS = (
    "race",
    "raceethnicity",
    "ethnicity",
    "perceivedrace",
    "likelyrace",
    "raceorethnicity",
)
_GENDER_KEYS = ("gender", "sex", "perceivedgender", "likelygender")


def _key(text: str, words: tuple[tuple[str, str], ...]) -> str:
    """The one category `text` names, reading its first clause first: "Likely male,
    though the name is also used by women" is male; "White or Black" is neither."""
    text = _NEGATED.sub(" ", text)
    for part in (_CLAUSE.split(text, maxsplit=1)[0], text):
        found = {key for key, pattern in words if re.search(rf"\b(?:{pattern})\b", part, re.I)}
        if len(found) == 1:
            return found.pop()
        if len(found) > 1:
            return ""
    return ""


def read_manipulation(
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
) -> Reading:
    seen = mask_thinking(text)
    data = find_json(seen)
    race_text = gender_text = ""
    race = json_field(data, _RACE_KEYS) if isinstance(data, dict | list) else None
    gender = json_field(data, _GENDER_KEYS) if isinstance(data, dict | list) else None
    if isinstance(data, dict):  # other spellings: "perceived_race_or_ethnicity", "sex_guess"
        for key, value in data.items():
            k = str(key).lower()
            if re.search(r"confiden|reason|explan|justif|basis", k):
                continue
            if race is None and ("race" in k or "ethnic" in k):
                race = (str(key), value)
            elif gender is None and ("gender" in k or "sex" in k):
                gender = (str(key), value)
    if race is not None:
        race_text = str(race[1])
    if gender is not None:
        gender_text = str(gender[1])
    if not race_text:
        m = re.search(r"(?:race|ethnicity)[^:\n]*[:\-–]\s*(.+)", seen, re.I)
        race_text = m.group(1) if m else ""
    if not gender_text:
        m = re.search(r"(?:gender|sex)[^:\n]*[:\-–]\s*(.+)", seen, re.I)
        gender_text = m.group(1) if m else ""
    perceived_race = _key(race_text, _RACE_WORDS)
    perceived_gender = _key(gender_text, _GENDER_WORDS)
    parsed = {
        "perceived_race": perceived_race,
        "perceived_gender": perceived_gender,
        "race_text": race_text.strip()[:200],
        "gender_text": gender_text.strip()[:200],
    }
    if perceived_race and perceived_gender:
        label = "ok"
    else:
        label = "partial" if perceived_race or perceived_gender else INVALID
    return Reading(label, "", parsed)
