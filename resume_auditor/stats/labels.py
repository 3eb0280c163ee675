"""Reader's names for group keys in sentences: 'Black woman', 'Black', 'female'.

Designs signal intersectional groups (black_woman, D1-D3), races alone or genders
alone (D4 batches, the race and gender models of D2). domain.groups names the
first kind; this adds the other two so a sentence never shows a raw key.
"""

from __future__ import annotations

from resume_auditor.domain.groups import RACE_LABELS, group_label

GENDER_ADJECTIVES = {"woman": "female", "man": "male"}


def label(key: object) -> str:
    text = str(key)
    if text in RACE_LABELS:
        return RACE_LABELS[text]
    if text in GENDER_ADJECTIVES:
        return GENDER_ADJECTIVES[text]
    return group_label(text) or text


def article(word: str) -> str:
    """'a' or 'an' before word."""
    return "an" if word[:1].lower() in "aeiou" else "a"
