"""The papers' shorthand in a recruiter's words.

The case builders and the run plan name things as the papers do ("D1 unequal pairs,
k=1", "No (c+, c) pairs"): exact, and what the raw data and the report's appendix
keep. The screen says the same in plain words and keeps the paper's term in a
tooltip, so a reader who never opened the papers can follow.
"""

from __future__ import annotations

import re

from resume_auditor.designs.registry import DESIGNS
from resume_auditor.domain.groups import group_label

_GROUP_KEY = re.compile(r"\b(?:white|black|asian|hispanic)_(?:woman|man)\b")

# The designs as the screen names them; the paper's code and name go in a tooltip.
DESIGN_NAMES = {d.label: (d.name, f"Design {d.label}: {d.summary or d.intro}") for d in DESIGNS}
# The papers' shorthand in the notes the case builders write, in words.
_PAIR_NAMES = (
    (re.compile(r"\(c\+, c\)"), "“extra skills vs just qualified”"),
    (re.compile(r"\(c, c[-−]\)"), "“qualified vs missing a requirement”"),
    (re.compile(r"\(c\+, c[-−]\)"), "“extra skills vs missing a requirement”"),
    (re.compile(r"\bc\+ cop(y|ies)"), r"cop\1 with extra preferred skills"),
    (re.compile(r"\bc[-−] cop(y|ies)"), r"cop\1 missing a requirement"),
    (re.compile(r"\bno c\+ "), "no copy with extra preferred skills "),
    (re.compile(r"\blexical c[-−]"), "copies with a required line deleted"),
    (re.compile(r"Read them with `resume-auditor variants list` and"), "Read them below and"),
    (re.compile(r"\bno c[-−] "), "no copy missing a requirement "),
)
_WITH_K = re.compile(r"\bwith k\s*=\s*(\d)")
_K = re.compile(r"\bk\s*=\s*(\d)")


def _qualifications(k: int) -> str:
    return f"{k} qualification{'s' if k != 1 else ''}"


def plain_words(text: str) -> str:
    """A builder's note in a recruiter's words: '(c+, c)', 'k=1' and group keys spelled out."""
    for pattern, words in _PAIR_NAMES:
        text = pattern.sub(words, text)
    text = _WITH_K.sub(lambda m: f"differing by {_qualifications(int(m.group(1)))}", text)
    text = _K.sub(lambda m: f"{_qualifications(int(m.group(1)))} apart", text)
    return _GROUP_KEY.sub(lambda m: group_label(m.group(0)), text)


def design_name(code: str) -> str:
    return DESIGN_NAMES.get(code, (code, ""))[0]


def readable_cell(cell: str) -> str:
    """A plan cell's name as a reader says it: "D1 unequal pairs, k=1, black_woman vs
    white_man" -> "Unequal, 1 qualification apart: Black woman vs White man"."""
    groups = _GROUP_KEY.sub(lambda m: group_label(m.group(0)), cell)
    code, _, rest = groups.partition(" ")
    registered = {d.label: d for d in DESIGNS}  # every registry design words its cells
    if code in registered:
        return registered[code].cell_words(rest)
    return groups


# The power sizing's terms (workflow/plan.py sizing_lines, Enlargement.lines) as the
# app says them: the CLI's flags and the study file's keys mean nothing on screen.
_POWER_WORDS = (
    (
        re.compile(
            r"; the effect sizes can be chosen with --effect-\w+ \.\. --effect-\w+ and "
            r"--effect-ir\)"
        ),
        ")",
    ),
    (
        re.compile(r"\ba (\d+(?:\.\d+)?) SD difference\b"),
        r"a difference of \1 standard deviations (SD)",
    ),
    (re.compile(r"\b(\d+(?:\.\d+)?) SD\b"), r"\1 standard deviations (SD)"),
    # each design's own words (`Design.screen_words`), in the registry's order
) + tuple((re.compile(p), w) for d in DESIGNS for p, w in d.screen_words)
_POWER_DESIGN = re.compile(r"^(D[1-4]|IR):", re.MULTILINE)
_POWER_STILL = re.compile(r"Still under 80%: (D[1-4]|IR)\b")


def _power_design(code: str) -> str:
    if code == "IR":
        return "Hiring-rate ratio (NYC Local Law 144 impact ratio)"
    return design_name(code)


def power_words(text: str) -> str:
    """The power sizing in the app's words: designs by their screen names, no CLI flags
    or study-file keys (the CLI prints the same sizing with them)."""
    for pattern, words in _POWER_WORDS:
        text = pattern.sub(words, text)
    text = _POWER_DESIGN.sub(lambda m: f"{_power_design(m.group(1))}:", text)
    return _POWER_STILL.sub(lambda m: f"Still under 80%: {_power_design(m.group(1))}", text)
