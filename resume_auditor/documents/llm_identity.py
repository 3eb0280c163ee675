"""An optional pass through the generator model to find identity the heuristics missed.

The model is asked for the exact strings that identify the candidate, with a
kind for each. Its answer is checked, never trusted: the JSON must parse, each
kind must be one we know, and each string must occur in the resume as a whole
word (we find the spans; a model's character offsets are not reliable). Every
occurrence that does not overlap a heuristic slot becomes a slot with a modest
confidence, for the user to accept or reject. Anything unusable is reported,
and the heuristic template is returned unchanged.

The function takes `complete(system, user) -> reply` so it does not depend on
the runner; the runner issue wires it to a real model.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from resume_auditor.documents.identity import find_identity
from resume_auditor.documents.llmjson import Complete, ModelOutputError, parse_json_reply
from resume_auditor.domain.identity import Slot, SlotKind, Template

logger = logging.getLogger(__name__)

LLM_CONFIDENCE = 0.6
MAX_ITEM_CHARS = 200
_KINDS = {k.value: k for k in SlotKind}
SYSTEM = (
    "You find personal identity details in a resume so they can be replaced. Answer with JSON only."
)
USER = """List every piece of text in the resume below that identifies the candidate:
their name (full, first, last, initials), email, phone, street address, city in the
contact details, profile links, the colleges they attended, their title (Mr., Ms.,
Dr.) and pronouns referring to them.

Copy each piece exactly as it appears in the resume. Do not list other people.
Answer with JSON of this shape and nothing else:
{{"items": [{{"text": "<exact text>", "kind": "<kind>"}}]}}
where kind is one of: {kinds}.

Resume:
<<<
{resume}
>>>"""


@dataclass
class LlmIdentity:
    template: Template  # the heuristic slots plus the accepted model slots
    added: list[Slot] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def identity_prompt(text: str) -> tuple[str, str]:
    kinds = ", ".join(k.value for k in SlotKind)
    return SYSTEM, USER.format(kinds=kinds, resume=text)


def _occurrences(text: str, item: str) -> list[tuple[int, int]]:
    left = r"(?<![\w@.])" if item[:1].isalnum() else ""
    right = r"(?![\w@])" if item[-1:].isalnum() else ""
    return [(m.start(), m.end()) for m in re.finditer(left + re.escape(item) + right, text)]


def suggest_identity(text: str, complete: Complete, base: Template | None = None) -> LlmIdentity:
    """Heuristic slots plus the model's checked suggestions."""
    base = base if base is not None else find_identity(text)
    if base.text != text:
        raise ValueError("the base template is for another text")
    result = LlmIdentity(template=base)
    system, user = identity_prompt(text)
    try:
        data = parse_json_reply(complete(system, user))
    except ModelOutputError as exc:
        result.problems.append(f"The model's identity suggestions were not usable: {exc}.")
        return result
    items = data.get("items") if isinstance(data, dict) else data
    if not isinstance(items, list):
        result.problems.append("The model's answer has no list of items; nothing was added.")
        return result
    taken = [(s.start, s.end) for s in base.slots]
    slots = list(base.slots)
    for raw in items:
        if not isinstance(raw, dict):
            result.problems.append(f"Ignored an item that is not an object: {raw!r:.60}.")
            continue
        item, kind_name = raw.get("text"), raw.get("kind")
        if not isinstance(item, str) or not item.strip() or len(item) > MAX_ITEM_CHARS:
            result.problems.append(f"Ignored an item without usable text: {raw!r:.60}.")
            continue
        kind = _KINDS.get(str(kind_name).strip().lower())
        if kind is None:
            result.problems.append(f"Ignored {item!r}: unknown kind {kind_name!r}.")
            continue
        item = item.strip()
        spans = _occurrences(text, item)
        if not spans:
            result.problems.append(f"Ignored {item!r}: it is not in the resume.")
            continue
        for start, end in spans:
            if all(end <= s or start >= e for s, e in taken):
                slot = Slot(start, end, kind, text[start:end], LLM_CONFIDENCE)
                slots.append(slot)
                taken.append((start, end))
                result.added.append(slot)
    result.template = Template(text, slots)
    return result
