"""Unequal D1 texts without any model: a qualifications block in the summary.

Castleman et al. (2025) break criterion validity down by where the change sits,
"summary only" vs body (App. D.1, Table 10): a qualification stated in a summary
block is a controlled manipulation whose truth is known by construction. So from
any resume, offline:

- c  = the resume with a short block stating the job's required qualifications
  that its body does not already mention (the paper's "completed base": what the
  resume lacks is added, so c states every required qualification);
- c- = the same block without k of those required qualifications (chosen among
  the ones the body does not mention, so c- states k fewer);
- c+ = the block plus k preferred qualifications the body does not mention.

The body is the same in every copy: only the block's lines differ. The block goes
where such blocks go: after the header, the contact section and any summary or
profile section, before the first other section; it is written in the resume's
own style (its headings' case, decoration and colon, a setext underline, its bullet
character and indent, and whether its bullet lines end with a full stop), and its
lines are the checklist's wording, with "must have" / "is a plus" and the like
taken off. Identity slots move with the text, so a persona fills as usual.
"""

from __future__ import annotations

import logging
import random
import re
from collections import Counter
from dataclasses import dataclass

from resume_auditor.documents.sections import CONTACT, find_sections
from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.identity import Slot, SlotKind, Template
from resume_auditor.domain.job import Job, Qualification
from resume_auditor.domain.qualtext import QualOrigin, QualText
from resume_auditor.variants.lexical import key_words, words

logger = logging.getLogger(__name__)

MENTIONED_SHARE = 0.5  # as verify.PRESENT_SHARE: half the distinctive words say "mentioned"
_SUMMARY_HEADING = re.compile(
    r"\b(summary|profile|objective|about|highlights|overview|introduction)\b", re.IGNORECASE
)
_BULLET = re.compile(
    r"^([ \t]*)"
    r"([\u2022\u25cf\u25aa\u25a0\u25e6\u25cb\u00b7\u25ba\u27a2\u2013\u2014\u2713\-*+>o])"
    r"([ \t]+)\S"
)
_UNDERLINE = re.compile(r"^\s*([=\-_~\u2500\u2014*])\1{2,}\s*$")
_LEAD = re.compile(
    r"^(?:(?:we(?:'re| are) looking for|you (?:will )?(?:have|are|bring)|you're|"
    r"candidates? (?:must|should) (?:have|be|possess)|(?:must|should|will) (?:have|be|possess)|"
    r"must|required|requirements?|preferred|nice to have|bonus(?: points)?|plus|ideally|"
    r"minimum(?: qualifications?)?|basic qualifications?|preferred qualifications?)"
    r"\s*[:,\-\u2013]?\s+)+",
    re.IGNORECASE,
)
_TAIL = re.compile(
    r"(?:\s*[,;\-\u2013(]?\s*(?:is |are |would be )?(?:a (?:big |strong )?plus|an asset|"
    r"(?:highly |strongly )?(?:preferred|desired|desirable|required|mandatory)|"
    r"nice to have|is required|are required)\)?\s*)+[.!]*\s*$",
    re.IGNORECASE,
)
HEADING_WORDS = ("Summary of Qualifications", "Highlights")


@dataclass(frozen=True)
class BlockStyle:
    """How the resume writes a section: what the block copies."""

    heading: str  # the heading line, e.g. "SUMMARY OF QUALIFICATIONS", "## Highlights"
    underline: str  # a setext underline line ("=====") or ""
    bullet: str  # what starts an item line ("\u2022 ", "  - "), "" for plain lines
    full_stop: bool  # items end with "."


def _heading_lines(text: str) -> list[tuple[str, str, str]]:
    """(line, heading text, the line after it) for every section heading."""
    out = []
    for section in find_sections(text):
        line = text[section.start : section.body_start].rstrip("\n")
        after = text[section.body_start :].split("\n", 1)[0]
        out.append((line, section.heading, after))
    return out


def _case_of(word_text: str) -> str:
    letters = [c for c in word_text if c.isalpha()]
    if letters and all(c.isupper() for c in letters):
        return "upper"
    long = [w for w in word_text.split() if len(w) > 3]
    if long and all(w[:1].isupper() for w in long):
        return "title"
    return "sentence"


def _in_case(title: str, case: str) -> str:
    if case == "upper":
        return title.upper()
    if case == "sentence":
        return title[:1].upper() + title[1:].lower()
    return title


def resume_style(text: str, title: str = HEADING_WORDS[0]) -> BlockStyle:
    """The block's heading and items in the style of the resume's own sections."""
    heads = _heading_lines(text)
    decorations: Counter[tuple[str, str]] = Counter()
    cases: Counter[str] = Counter()
    underlines: Counter[str] = Counter()
    for line, heading, after in heads:
        at = line.find(heading)
        if at < 0:
            continue
        decorations[(line[:at], line[at + len(heading) :])] += 1
        cases[_case_of(heading)] += 1
        m = _UNDERLINE.match(after)
        underlines[m.group(1) if m else ""] += 1
    prefix, suffix = decorations.most_common(1)[0][0] if decorations else ("", "")
    case = cases.most_common(1)[0][0] if cases else "title"
    heading = f"{prefix}{_in_case(title, case)}{suffix}"
    mark = underlines.most_common(1)[0][0] if underlines else ""
    underline = mark * len(heading.strip()) if mark else ""
    bullets: Counter[str] = Counter()
    ends: Counter[bool] = Counter()
    for line in text.split("\n"):
        m = _BULLET.match(line)
        if m is None or (m.group(2) == "o" and not m.group(3)):
            continue
        bullets[m.group(1) + m.group(2) + m.group(3)] += 1
        ends[line.rstrip().endswith(".")] += 1
    bullet = bullets.most_common(1)[0][0] if bullets else ""
    full_stop = bool(ends) and ends[True] > ends[False]
    return BlockStyle(heading, underline, bullet, full_stop)


def phrase(qualification: str, full_stop: bool = False) -> str:
    """The checklist's wording as a line of the candidate's resume."""
    text = " ".join(qualification.split()).strip(" \u2022*-\u2013;,")
    text = _LEAD.sub("", text)
    stripped = _TAIL.sub("", text)
    text = (stripped or text).strip(" ;,:")
    text = text.rstrip(".!")
    if text[:1].islower():
        text = text[:1].upper() + text[1:]
    return text + ("." if full_stop and text else "")


def insertion_point(text: str, slots: list[Slot] | None = None) -> tuple[int, bool]:
    """Where the block goes, and whether a summary section is right before it.

    After the header (everything above the first heading, or a heading line that
    holds an identity slot, such as a Markdown "# Name"), then after any contact or
    summary/profile sections that come first; before the first other section. With
    no heading at all: after the first paragraph, when it is a short header, else
    after the first line. Never above the candidate's name.
    """
    slots = slots or []
    sections = find_sections(text)
    if not sections:
        first = text.find("\n\n")
        header = text[:first] if first >= 0 else ""
        if first >= 0 and header.count("\n") < 6:
            at = first + 1
        else:
            line_end = text.find("\n")
            at = line_end + 1 if line_end >= 0 else len(text)
        return _below_name(text, at, slots), False
    at, after_summary = sections[0].start, False
    for section in sections:
        holds_slot = any(section.start <= s.start < section.body_start for s in slots)
        if holds_slot or CONTACT.search(section.heading):
            at, after_summary = section.end, False
        elif _SUMMARY_HEADING.search(section.heading):
            at, after_summary = section.end, True
        else:
            break
    return _below_name(text, at, slots), after_summary


def _below_name(text: str, at: int, slots: list[Slot]) -> int:
    """`at`, or the start of the line after the name when `at` is above it."""
    names = [s for s in slots if s.kind is SlotKind.FULL_NAME]
    if not names or at > names[0].start:
        return at
    line_end = text.find("\n", names[0].end)
    return line_end + 1 if line_end >= 0 else len(text)


def _block(items: list[str], style: BlockStyle) -> str:
    lines = [style.heading]
    if style.underline:
        lines.append(style.underline)
    lines += [style.bullet + phrase(q, style.full_stop) for q in items]
    return "\n".join(lines) + "\n"


def insert_text(template: Template, at: int, insert: str) -> Template:
    """The template with `insert` put at offset `at`; slots after it move along.

    `at` never falls inside a slot: blocks go at line starts and no slot holds a
    line break.
    """
    slots = [
        s
        if s.end <= at
        else Slot(s.start + len(insert), s.end + len(insert), s.kind, s.original, s.confidence)
        for s in template.slots
    ]
    return Template(template.text[:at] + insert + template.text[at:], slots)


def with_block(template: Template, items: list[str]) -> Template:
    """The template with a qualifications block stating `items` (none: unchanged)."""
    if not items:
        return template
    text = template.text
    at, after_summary = insertion_point(text, template.slots)
    if any(s.start < at < s.end for s in template.slots):
        at = next(s.end for s in template.slots if s.start < at < s.end)
    style = resume_style(text, HEADING_WORDS[1] if after_summary else HEADING_WORDS[0])
    block = _block(items, style)
    before, after = text[:at], text[at:]
    if before and not before.endswith("\n"):
        block = "\n" + block
    blank_before = "\n\n" in text  # a resume that separates sections by blank lines
    if blank_before and before and not before.endswith("\n\n"):
        block = "\n" + block
    if blank_before and after and not after.startswith("\n"):
        block += "\n"
    return insert_text(template, at, block)


def mentioned(body: str, qualification: str) -> bool:
    """Whether the resume already states it (half its distinctive words are there)."""
    keys = key_words(qualification)
    if not keys:
        return False
    return len(keys & set(words(body))) / len(keys) >= MENTIONED_SHARE


@dataclass
class BlockTexts:
    """One resume's texts of the summary-block construction."""

    base: QualText
    less: dict[int, QualText]
    more: dict[int, QualText]
    stated: tuple[str, ...]  # the required qualifications the base's block states
    notes: list[str]


def _addable(body: str, stated: list[str], pool: list[Qualification]) -> list[str]:
    """Preferred qualifications neither the body nor the block already states."""
    have = {" ".join(phrase(q).lower().split()) for q in stated}
    text = "\n".join([body, *stated])
    out = []
    for q in pool:
        if not key_words(q.text):
            continue  # nothing distinctive: no way to tell it was not already there
        if mentioned(text, q.text) or " ".join(phrase(q.text).lower().split()) in have:
            continue
        out.append(q.text)
    return out


def block_texts(
    resume_id: int, template: Template, job: Job, ks: tuple[int, ...], rng: random.Random
) -> BlockTexts:
    """c, and c- / c+ per k where the resume and checklist allow them; notes say why not."""
    body = template.text
    required = list(dict.fromkeys(q.text for q in job.required))
    stated = [q for q in required if not mentioned(body, q)]
    notes: list[str] = []

    def text(kind: VariantKind, k: int, items: list[str], changes: tuple[str, ...]) -> QualText:
        return QualText(
            resume_id,
            kind,
            k,
            with_block(template, items),
            changes=changes,
            origin=QualOrigin.SUMMARY_BLOCK,
            provenance={"construction": "summary_block", "block": list(items)},
        )

    base = text(VariantKind.BASE, 0, stated, ())
    less: dict[int, QualText] = {}
    more: dict[int, QualText] = {}
    # Left out of c-, a qualification must be absent from all that c- still states: the
    # body and the other lines of the block (some share words: "Experience with ...").
    removable = [
        q
        for q in stated
        if key_words(q) and not mentioned("\n".join([body, *(o for o in stated if o != q)]), q)
    ]
    rng.shuffle(removable)
    addable = _addable(body, stated, job.preferred)
    rng.shuffle(addable)
    for k in sorted(set(ks)):
        if k <= len(removable):
            gone = set(removable[:k])
            kept = [q for q in stated if q not in gone]
            less[k] = text(VariantKind.LESS, k, kept, tuple(q for q in stated if q in gone))
        else:
            notes.append(
                f"the qualifications block cannot leave out {k} required qualification(s): "
                f"only {len(removable)} of the job's {len(required)} are not already stated "
                "in the resume (and have distinctive words to check that)"
            )
        if k <= len(addable):
            more[k] = text(VariantKind.MORE, k, stated + addable[:k], tuple(addable[:k]))
        else:
            notes.append(
                f"the qualifications block cannot add {k} preferred qualification(s): the "
                f"job lists {len(job.preferred)}, {len(addable)} of them not already in the resume"
            )
    return BlockTexts(base, less, more, tuple(stated), notes)
