"""A job description and its checklist of qualifications."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class QualKind(StrEnum):
    REQUIRED = "required"
    PREFERRED = "preferred"


class QualType(StrEnum):
    """What a qualification is about; the D1 error breakdowns group by it."""

    HARD_SKILL = "hard_skill"
    SOFT_SKILL = "soft_skill"
    EDUCATION = "education"
    EXPERIENCE = "experience"  # years of experience
    CERTIFICATION = "certification"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Qualification:
    text: str
    kind: QualKind
    qtype: QualType = QualType.UNKNOWN


@dataclass
class Job:
    title: str
    text: str
    qualifications: list[Qualification] = field(default_factory=list)

    @property
    def required(self) -> list[Qualification]:
        return [q for q in self.qualifications if q.kind is QualKind.REQUIRED]

    @property
    def preferred(self) -> list[Qualification]:
        return [q for q in self.qualifications if q.kind is QualKind.PREFERRED]
