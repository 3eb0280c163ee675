"""A less-qualified copy without an LLM: delete what carries a required qualification.

For each required qualification we find the resume lines (or items of a
comma-separated skills line) that mention its distinctive words. A qualification
is usable only if (a) something carries it, (b) what carries it is a small part of
the resume, and (c) once deleted, none of its distinctive words is left anywhere.
The edit works on the identity template, so slots keep their meaning.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from resume_auditor.domain.identity import Slot, Template
from resume_auditor.domain.job import Qualification

_WORD = re.compile(r"[a-z0-9][a-z0-9+#.\-]*[a-z0-9+#]|[a-z0-9]")
# Words that say nothing about *which* qualification a line carries.
_GENERIC = frozenset(
    """
    a an and or the of in on for to with as at by from into via per its their our your you
    we is are be been being have has had will would can could should must may experience
    experienced years year yrs plus equivalent related field fields similar strong solid
    good excellent proven demonstrated ability able skills skill skilled knowledge
    understanding familiarity familiar proficiency proficient working work including
    include includes such e.g. eg etc other relevant using use used degree minimum least
    preferred required requirement requirements qualification qualifications basic bonus
    nice have plus level high higher advanced tools tool environment role roles team teams
    professional practice practices concept concepts e.g i.e ie
    """.split()  # noqa: SIM905  (a word list reads better as text)
)


def words(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text.lower()):
        if w.endswith("'s"):
            w = w[:-2]
        if len(w) > 4 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]  # plural -> singular, crude but symmetric
        out.append(w)
    return out


def key_words(qualification: str) -> set[str]:
    return {w for w in words(qualification) if w not in _GENERIC and not w.isdigit() and len(w) > 1}


@dataclass(frozen=True)
class Removal:
    """What deleting one qualification takes out of the text."""

    qualification: Qualification
    spans: tuple[tuple[int, int], ...]  # character ranges to delete
    removed: tuple[str, ...]  # the deleted text, for the reader


@dataclass(frozen=True)
class _Line:
    start: int
    end: int  # exclusive, without the newline
    text: str


def _lines(text: str) -> list[_Line]:
    """Logical lines: a line plus the wrapped lines that continue it.

    A line that starts with a lower-case letter continues the one before (PDF
    extraction breaks long bullets where the page wrapped them).
    """
    out: list[_Line] = []
    pos = 0
    for raw in text.split("\n"):
        start, end = pos, pos + len(raw)
        pos = end + 1
        stripped = raw.lstrip()
        if out and out[-1].text.strip() and stripped[:1].islower():
            prev = out[-1]
            out[-1] = _Line(prev.start, end, text[prev.start : end])
        else:
            out.append(_Line(start, end, raw))
    return out


def _is_list(body: str, has_label: bool) -> bool:
    """A comma-separated list of short items ("Tools: Excel, Git, Jira")."""
    items = [i.strip() for i in body.split(",")]
    if len(items) < 3 or any(len(i.split()) > 4 for i in items):
        return False
    return has_label or len(items) >= 4


def _carriers(text: str, keys: set[str], protected: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans (lines or list items) that mention the qualification's key words."""
    spans: list[tuple[int, int]] = []
    for line in _lines(text):
        if not line.text.strip():
            continue
        if any(not (line.end <= s or line.start >= e) for s, e in protected):
            continue  # never delete the name line or other identity slots
        line_words = set(words(line.text))
        hits = keys & line_words
        if not hits:
            continue
        body = line.text
        label_end = body.find(":") + 1 if ":" in body[:40] else 0
        items = body[label_end:].split(",")
        if _is_list(body[label_end:], label_end > 0):
            # A list line: remove just the items that carry it.
            offset = line.start + label_end
            last = len(items) - 1
            for i, item in enumerate(items):
                if keys & set(words(item)):
                    if i < last:  # the item and the comma after it
                        spans.append((offset, offset + len(item) + 1))
                    else:  # the comma before it and the item
                        spans.append((offset - 1, offset + len(item)))
                offset += len(item) + 1
            continue
        if len(hits) / max(1, len(keys)) >= 0.5 or len(keys) <= 2:
            spans.append((line.start, min(len(text), line.end + 1)))
    return spans


def _delete(text: str, spans: list[tuple[int, int]]) -> str:
    out = []
    pos = 0
    for s, e in sorted(spans):
        out.append(text[pos:s])
        pos = max(pos, e)
    out.append(text[pos:])
    return _tidy("".join(out))


def _tidy(text: str) -> str:
    text = re.sub(r",\s*,", ",", text)
    text = re.sub(r":\s*,\s*", ": ", text)
    text = re.sub(r",\s*\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text)


def find_removal(
    template: Template, qualification: Qualification, max_share: float = 0.35
) -> Removal | None:
    keys = key_words(qualification.text)
    if not keys:
        return None
    text = template.text
    protected = [(s.start, s.end) for s in template.slots]
    spans = _carriers(text, keys, protected)
    if not spans:
        return None
    removed_chars = sum(e - s for s, e in spans)
    if removed_chars > max_share * len(text):
        return None
    remaining = set(words(_delete(text, spans)))
    if keys & remaining:
        return None  # still mentioned somewhere: deleting would not remove it
    return Removal(qualification, tuple(spans), tuple(text[s:e].strip() for s, e in spans))


def removable(template: Template, required: list[Qualification]) -> list[Removal]:
    return [r for q in required if (r := find_removal(template, q)) is not None]


def remove(template: Template, removals: list[Removal]) -> Template:
    """The template with every removal applied; slots are shifted to stay aligned."""
    spans = sorted({span for r in removals for span in r.spans})
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    pieces: list[str] = []
    slots: list[Slot] = []
    pos = 0
    shift = 0
    for s, e in merged + [(len(template.text), len(template.text))]:
        keep = template.text[pos:s]
        for slot in template.slots:
            if pos <= slot.start and slot.end <= s:
                slots.append(
                    Slot(
                        slot.start - shift,
                        slot.end - shift,
                        slot.kind,
                        slot.original,
                        slot.confidence,
                    )
                )
        pieces.append(keep)
        shift += e - s
        pos = e
    new_text = "".join(pieces)
    # _tidy may change lengths: apply it only if no slot would move.
    tidy = _tidy(new_text)
    if tidy != new_text and all(tidy[s.start : s.end] == s.original for s in slots):
        new_text = tidy
    return Template(new_text, slots)


def choose_removals(
    template: Template, required: list[Qualification], k: int, rng: random.Random
) -> list[Removal] | None:
    """k distinct removable qualifications whose deletions do not overlap, or None."""
    options = removable(template, required)
    rng.shuffle(options)
    chosen: list[Removal] = []
    used: list[tuple[int, int]] = []
    for option in options:
        if any(not (e <= us or s >= ue) for s, e in option.spans for us, ue in used):
            continue
        chosen.append(option)
        used.extend(option.spans)
        if len(chosen) == k:
            return chosen
    return None
