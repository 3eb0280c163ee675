"""Checks of a generated qualification text, each a `Check` the user can read.

A generated text is used only if every check passes (or the user accepts it after
reading it). The checks follow Castleman et al. (2025): the added qualifications
are present and the removed ones absent (by their distinctive words, and by a
judge model when one is asked), the change is not trivial (at least 120
characters), the length stays within 10% of the source, and the identity
survives: every placeholder exactly once, and no contact line the source did not
have. A reworded copy must keep the same qualifications.

Everything here compares placeholder texts (identity replaced by tokens), so a
persona's name never counts as a change.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from resume_auditor.documents.contact import find_addresses, find_emails, find_links, find_phones
from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.qualtext import Check
from resume_auditor.variants.gen_placeholders import TOKEN, Rebuilt
from resume_auditor.variants.lexical import key_words, words

MIN_CHANGE_CHARS = 120  # D1 dropped pairs whose texts differ by fewer characters
LENGTH_TOLERANCE = 0.10  # D1's generation prompts: length within 10%
PRESENT_SHARE = 0.5  # share of a qualification's distinctive words that says "mentioned"


@dataclass(frozen=True)
class Expectation:
    """What a generated text should be, relative to its source.

    added: qualifications it must now meet (c+, a completed base).
    removed: qualifications it must no longer mention (c-).
    kept: qualifications the source mentions that must still be there.
    extras: qualifications it must not mention at all (a synthetic base: the
        preferred ones), judged on the words they do not share with `wanted`.
    wanted: qualifications the text should have (their words do not count as extras).
    """

    kind: VariantKind
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    check_length: bool = True
    check_change: bool = True
    extras: tuple[str, ...] = ()
    wanted: tuple[str, ...] = ()


def share_present(text: str, qualification: str) -> float:
    """The share of the qualification's distinctive words that the text contains."""
    keys = key_words(qualification)
    if not keys:
        return 0.0
    return len(keys & set(words(text))) / len(keys)


def mentions(text: str, qualification: str) -> bool:
    return share_present(text, qualification) >= PRESENT_SHARE


def absent(text: str, qualification: str) -> bool:
    """None of its distinctive words is left (as the lexical c- requires)."""
    keys = key_words(qualification)
    return bool(keys) and not (keys & set(words(text)))


def mentions_extra(text: str, qualification: str, wanted: Sequence[str]) -> bool:
    """Whether the text mentions a qualification it should not have.

    Only the words the qualification does not share with the wanted ones count
    ("Python packaging" next to a required "Python scripting" is judged on
    "packaging"), so meeting a requirement never looks like an extra. With no
    such word left, the lexical check cannot tell and leaves it to the judge.
    """
    shared: set[str] = set().union(*(key_words(q) for q in wanted)) if wanted else set()
    keys = key_words(qualification) - shared
    if not keys:
        return False
    return len(keys & set(words(text))) / len(keys) >= PRESENT_SHARE


def changed_chars(source: str, variant: str) -> int:
    """Characters that differ, counted on word runs (robust to re-wrapping)."""
    a = re.findall(r"\S+|\s+", source)
    b = re.findall(r"\S+|\s+", variant)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    total = 0
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            total += max(sum(len(x) for x in a[i1:i2]), sum(len(x) for x in b[j1:j2]))
    return total


def _contacts(text: str) -> set[str]:
    plain = TOKEN.sub(" ", text)
    found: set[str] = set()
    for finder in (find_emails, find_links, find_phones, find_addresses):
        found.update(plain[s:e].strip() for s, e, _ in finder(plain))
    return found


def added_contacts(source: str, variant: str) -> list[str]:
    """Contact details (email, link, phone, street address) the variant has and the source lacks."""
    return sorted(_contacts(variant) - _contacts(source))


def _quote(items: Sequence[str]) -> str:
    return "; ".join(f'"{q}"' for q in items)


def lexical_checks(source: str, variant: str, rebuilt: Rebuilt, exp: Expectation) -> list[Check]:
    """Every check that needs no model, on placeholder texts."""
    checks: list[Check] = []
    problems = []
    if rebuilt.missing:
        problems.append(f"dropped {', '.join(rebuilt.missing)}")
    if rebuilt.repeated:
        problems.append(f"wrote {', '.join(rebuilt.repeated)} more than once")
    if rebuilt.unknown:
        problems.append(f"made up {', '.join(rebuilt.unknown)}")
    checks.append(
        Check(
            "placeholders",
            not problems,
            "; ".join(problems) or "every identity placeholder kept exactly once",
        )
    )
    extra = added_contacts(source, variant)
    checks.append(
        Check(
            "contact",
            not extra,
            f"added contact details: {', '.join(extra)}" if extra else "no contact details added",
        )
    )
    if exp.added:
        missing = [q for q in exp.added if not mentions(variant, q)]
        checks.append(
            Check(
                "added_present",
                not missing,
                f"not found in the text: {_quote(missing)}"
                if missing
                else f"found: {_quote(exp.added)}",
            )
        )
    if exp.removed:
        left = [q for q in exp.removed if not absent(variant, q)]
        checks.append(
            Check(
                "removed_absent",
                not left,
                f"still mentioned: {_quote(left)}" if left else f"gone: {_quote(exp.removed)}",
            )
        )
    if exp.extras:
        found = [q for q in exp.extras if mentions_extra(variant, q, exp.wanted)]
        checks.append(
            Check(
                "no_extras",
                not found,
                f"mentions what it should not have: {_quote(found)}"
                if found
                else "no qualification beyond the required ones",
            )
        )
    if exp.kept:
        lost = [q for q in exp.kept if not mentions(variant, q)]
        name = "same_qualifications" if exp.kind is VariantKind.REWORDED else "others_kept"
        checks.append(
            Check(
                name,
                not lost,
                f"no longer mentioned: {_quote(lost)}"
                if lost
                else "every other qualification the source mentions is still there",
            )
        )
    if exp.check_change:
        changed = changed_chars(source, variant)
        checks.append(
            Check(
                "change_size",
                changed >= MIN_CHANGE_CHARS,
                f"{changed} characters changed (at least {MIN_CHANGE_CHARS} needed)",
            )
        )
    if exp.check_length:
        ratio = len(variant) / max(1, len(source)) - 1.0
        checks.append(
            Check(
                "length",
                abs(ratio) <= LENGTH_TOLERANCE + 1e-9,
                f"length {ratio:+.0%} of the source (within ±{LENGTH_TOLERANCE:.0%} needed)",
            )
        )
    return checks


def judge_check(items: Sequence[tuple[str, bool]], met: Sequence[bool] | None) -> Check:
    """The judge model's verdict on each qualification against what it should be."""
    if met is None:
        return Check("judge", False, "the judge's answer could not be read")
    wrong = [
        f'"{q}" should be {"met" if want else "absent"}'
        for (q, want), got in zip(items, met, strict=True)
        if got != want
    ]
    return Check(
        "judge",
        not wrong,
        "; ".join(wrong) if wrong else "the judge model agrees on every qualification",
    )


def feedback(checks: Sequence[Check]) -> str:
    """What a retry is told about the previous attempt (only what failed)."""
    failed = [c for c in checks if not c.passed]
    if not failed:
        return ""
    lines = "\n".join(f"- {c.name.replace('_', ' ')}: {c.detail}" for c in failed)
    return f"\nA previous attempt was rejected. Fix these problems:\n{lines}\n"
