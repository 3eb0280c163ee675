"""Job qualifications through the generator model, checked against the job text.

The model is asked for the required and preferred qualifications as JSON, one
per item, copied from the job description. Each item must be grounded in the
text: found there after normalising case, spaces and bullets, or sharing at
least `MIN_OVERLAP` of its content words with one line of it. Invented items
are dropped and reported. If nothing required survives, the offline section
parser's checklist is used instead, with a note. The user edits the result
either way.

`complete(system, user) -> reply` is passed in, so this does not depend on the
runner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from resume_auditor.documents.jobparse import classify, plain_text, read_checklist
from resume_auditor.documents.llmjson import Complete, ModelOutputError, parse_json_reply
from resume_auditor.domain.job import Job, Qualification, QualKind, QualType

MIN_OVERLAP = 0.8
MAX_ITEM_CHARS = 2000  # a civil-service requirement can be a long paragraph: keep it
_TYPES = {t.value: t for t in QualType if t is not QualType.UNKNOWN}
SYSTEM = "You turn job descriptions into checklists. Answer with JSON only."
USER = """Read the job description below and list its qualifications.

- "required": what a candidate must have (requirements, minimum or basic qualifications).
- "preferred": what is a plus (preferred, nice to have, bonus).
One qualification per item, copied from the text as written. Do not list duties,
benefits or company facts. For each item give "type", one of: {types}.

Answer with JSON of this shape and nothing else:
{{"title": "<job title>", "required": [{{"text": "...", "type": "..."}}],
 "preferred": [{{"text": "...", "type": "..."}}]}}

Job description:
<<<
{job}
>>>"""
_STOP = frozenset(
    "a an and or the of in on for to with as at by from is are be you your we our".split()  # noqa: SIM905
)


@dataclass
class LlmJob:
    job: Job
    used_model: bool  # False: the offline parser's checklist was kept
    problems: list[str] = field(default_factory=list)


def job_prompt(text: str) -> tuple[str, str]:
    return SYSTEM, USER.format(types=", ".join(_TYPES), job=text)


def _norm(text: str) -> str:
    text = re.sub(r"^[\s\-*\u2022\d.)]+", "", text.lower(), flags=re.MULTILINE)
    return " ".join(re.findall(r"[\w+#/.'-]+", text))


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[\w+#]+", text.lower()) if w not in _STOP}


def grounded(item: str, job_text: str, lines: list[set[str]] | None = None) -> bool:
    """True if `item` is in `job_text` (normalised) or mostly in one of its lines."""
    if _norm(item) and _norm(item) in _norm(job_text):
        return True
    words = _words(item)
    if not words:
        return False
    lines = lines if lines is not None else [_words(line) for line in job_text.splitlines()]
    return any(len(words & line) >= MIN_OVERLAP * len(words) for line in lines)


def extract_job_llm(text: str, complete: Complete, title: str = "") -> LlmJob:
    reading = read_checklist(text, title)
    fallback = reading.job
    system, user = job_prompt(text)
    try:
        data = parse_json_reply(complete(system, user))
    except ModelOutputError as exc:
        problem = f"The model's checklist was not usable: {exc}."
        return LlmJob(fallback, False, [problem, *reading.notes])
    if not isinstance(data, dict):
        return LlmJob(fallback, False, ["The model's answer is not a JSON object.", *reading.notes])
    problems: list[str] = []
    # grounded in what a reader sees: HTML entities decoded, front matter fields as lines
    seen_text = f"{text}\n{plain_text(text)}"
    lines = [_words(line) for line in seen_text.splitlines()]
    quals: list[Qualification] = []
    seen: set[str] = set()
    for key, kind in (("required", QualKind.REQUIRED), ("preferred", QualKind.PREFERRED)):
        items = data.get(key, [])
        if not isinstance(items, list):
            problems.append(f"The model's {key!r} is not a list; ignored.")
            continue
        for raw in items:
            item = raw.get("text") if isinstance(raw, dict) else raw
            qtype_name = raw.get("type") if isinstance(raw, dict) else None
            if not isinstance(item, str) or not item.strip() or len(item) > MAX_ITEM_CHARS:
                problems.append(f"Ignored an unusable {key} item: {raw!r:.60}.")
                continue
            item = item.strip()
            if not grounded(item, seen_text, lines):
                problems.append(f"Ignored {item!r}: it is not in the job description.")
                continue
            if _norm(item) in seen:
                continue
            seen.add(_norm(item))
            qtype = _TYPES.get(str(qtype_name).strip().lower()) or classify(item)
            quals.append(Qualification(item, kind, qtype))
    if not any(q.kind is QualKind.REQUIRED for q in quals):
        problems.append(
            "The model found no required qualification in the text; "
            "the checklist read from the headings is used instead."
        )
        return LlmJob(fallback, False, problems + reading.notes)
    model_title = data.get("title")
    job_title = title or (model_title.strip() if isinstance(model_title, str) else "")
    return LlmJob(Job(job_title or fallback.title, text, quals), True, problems)
