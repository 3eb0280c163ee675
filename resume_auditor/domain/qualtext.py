"""Qualification texts: the versions of one source resume whose qualifications are known.

Every design builds its cases from these. A qualification text is an identity
*template* (text plus identity slots, not yet filled with a persona) of one kind:
the base (meets the job's required qualifications: the resume as written, or a
completed or synthetic base), c+ (k preferred qualifications added), c- (k required
ones removed) or a reworded equal copy. Some are built without an LLM (the original,
the lexical c-), the rest by a generator model, verified and reviewed by the user.

Only `usable()` texts enter cases: a rejected text leaves every case it was in
the next time cases are built, and a generated text that failed verification is
never used unless the user accepts it after reading it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.identity import Template


class QualStatus(StrEnum):
    PENDING = "pending"  # not reviewed yet
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class QualOrigin(StrEnum):
    ORIGINAL = "original"  # the resume as loaded
    LEXICAL = "lexical"  # deterministic line deletion (variants/lexical.py)
    GENERATOR = "generator"  # written by a generator model
    SUMMARY_BLOCK = "summary_block"  # a qualifications block added (variants/summary_block.py)


@dataclass(frozen=True)
class Check:
    """One verification check of a generated text and what it found."""

    name: str  # "added_present", "removed_absent", "judge", "change_size", "length", ...
    passed: bool
    detail: str = ""


@dataclass(frozen=True)
class QualText:
    resume_id: int
    kind: VariantKind  # BASE, MORE (c+), LESS (c-), REWORDED
    k: int  # qualifications added/removed; 0 for BASE and REWORDED
    template: Template
    changes: tuple[str, ...] = ()  # the qualifications added (c+) or removed (c-)
    removed_lines: tuple[str, ...] = ()  # what a lexical c- deleted, for the reader
    origin: QualOrigin = QualOrigin.ORIGINAL
    generator: str = ""  # "provider:model" of the generator model, if any
    verified: bool = True  # every check passed (trivially for ORIGINAL)
    checks: tuple[Check, ...] = ()
    attempts: int = 0  # generator attempts it took (0: no generator)
    status: QualStatus = QualStatus.PENDING
    provenance: dict[str, Any] = field(default_factory=dict, compare=False)  # prompt, request ids
    id: int | None = None

    def usable(self) -> bool:
        """Whether cases may be built from it: accepted, or verified and not rejected."""
        if self.status is QualStatus.REJECTED:
            return False
        return self.status is QualStatus.ACCEPTED or self.verified
