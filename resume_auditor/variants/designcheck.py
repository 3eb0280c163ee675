"""The design check: two demographic variants of one text differ only where intended.

A fill records every range it wrote (identity slots, inserted signals). Cut
those ranges out of both texts and what is left — the "skeleton" — must be
identical: same words, same punctuation, same layout. A fill that touched
anything else (a shifted line, a stray space, a real phone number left behind
in one copy) makes the skeletons differ, and the cases are not built: an equal
pair that is not equal would make every fairness number wrong.
"""

from __future__ import annotations

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
        "signal",
    }
)


class DesignCheckError(ValueError):
    """Two variants meant to differ only in identity differ elsewhere."""


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
    """Raise DesignCheckError (saying where) unless `a` and `b` differ only in spans."""
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
