"""The design check: two demographic variants of one text differ only where intended.

A fill records every range it wrote (identity slots, inserted signals). Cut
those ranges out of both texts and what is left — the "skeleton" — must be
identical: same words, same punctuation, same layout. A fill that touched
anything else (a shifted line, a stray space, a real phone number left behind
in one copy) makes the skeletons differ, and the cases are not built: an equal
pair that is not equal would make every fairness number wrong.

The opposite failure is as bad: two variants of different groups whose texts
are the same (a resume with no name, so the name swap changed nothing) would be
counted as a cross-group pair and hide any group preference. Those are refused
too (`IdenticalPairError`), with the reason; fills add a name line to a resume
without one (fills.needs_name_line), so this is the last guard, not the rule.
"""

from __future__ import annotations

from resume_auditor.domain.groups import Group
from resume_auditor.variants.fills import Filled

_ALLOWED = frozenset(
    {
        "full_name",
        "first_name",
        "last_name",
        "email",
        "pronoun_subject",
        "pronoun_object",
        "pronoun_determiner",
        "pronoun_possessive",
        "pronoun_reflexive",
        "title",
        "first_initial",
        "initials",
        "phone",
        "address",
        "location",
        "link",
        "college",
        "personal",
        "instruction",  # removed alike from every copy
        "signal",
    }
)


class DesignCheckError(ValueError):
    """Two variants meant to differ only in identity differ elsewhere."""


class IdenticalPairError(DesignCheckError):
    """Two variants of different groups are the same text: no cross-group comparison."""


def _label(group: str | None) -> str:
    if not group:
        return "identity removed"
    try:
        return Group.parse(group).label
    except ValueError:
        return group


def identical_across_groups(a: Filled, b: Filled) -> bool:
    """True if `a` and `b` stand for different groups yet are the same text."""
    return a.group != b.group and a.text == b.text


def check_differs_across_groups(a: Filled, b: Filled, what: str) -> None:
    """Raise IdenticalPairError if `a` and `b` are of different groups but the same text."""
    if identical_across_groups(a, b):
        groups = " vs ".join(_label(g) for g in (a.group, b.group))
        raise IdenticalPairError(
            f"{what}: the two versions ({groups}) are the same text, so the pair cannot "
            "show any difference between groups and is not counted. The resume probably "
            "has no name or identity details the app could swap; mark the name by hand "
            "on the Resumes page, or leave this resume out of name-based designs."
        )


def skeleton(filled: Filled) -> list[str]:
    """The text outside every recorded span, as the pieces between spans."""
    pieces: list[str] = []
    pos = 0
    for span in sorted(filled.spans, key=lambda s: s.start):
        if span.what not in _ALLOWED:
            raise DesignCheckError(f"unknown kind of difference {span.what!r}")
        if span.start < pos:
            raise DesignCheckError("overlapping identity spans")
        pieces.append(filled.text[pos : span.start])
        pos = span.end
    pieces.append(filled.text[pos:])
    return pieces


def check_same_outside_identity(a: Filled, b: Filled, what: str) -> None:
    """Raise DesignCheckError (saying where) unless `a` and `b` differ only in spans,
    or IdenticalPairError if they are of different groups and yet the same text."""
    check_differs_across_groups(a, b, what)
    sa, sb = skeleton(a), skeleton(b)
    if len(sa) != len(sb):
        raise DesignCheckError(
            f"{what}: the two versions do not have the same identity places "
            f"({len(sa) - 1} vs {len(sb) - 1})."
        )
    for i, (x, y) in enumerate(zip(sa, sb, strict=True)):
        if x != y:
            at = next(
                (j for j, (c, d) in enumerate(zip(x, y, strict=False)) if c != d),
                min(len(x), len(y)),
            )
            raise DesignCheckError(
                f"{what}: the two versions differ outside the identity slots "
                f"(after identity place {i}: {x[max(0, at - 20) : at + 20]!r} vs "
                f"{y[max(0, at - 20) : at + 20]!r}). This is a bug; please report it."
            )
