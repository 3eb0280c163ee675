"""Variants, test cases (pairs) and the model's judgments of them.

A *variant* is one resume text shown to the model (a base resume filled with a
persona, a less-qualified copy, ...). A *case* is a pair of variants with a ground
truth known by construction. A *judgment* is what the model said about one case
in one presentation order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class VariantKind(StrEnum):
    BASE = "base"  # meets the job's required qualifications as written
    LESS = "less"  # c-: k required qualifications removed
    MORE = "more"  # c+: k preferred qualifications added
    REWORDED = "reworded"  # same qualifications, different words


class CaseKind(StrEnum):
    EQUAL = "equal"  # equally qualified: a valid screener abstains
    UNEQUAL = "unequal"  # one is strictly more qualified


class Truth(StrEnum):
    A = "a"
    B = "b"
    EQUAL = "equal"


class Order(StrEnum):
    """Which variant is shown first: AB shows A as "Resume 1"."""

    AB = "ab"
    BA = "ba"


class Label(StrEnum):
    """What the model answered, in presentation terms."""

    FIRST = "first"
    SECOND = "second"
    ABSTAIN = "abstain"
    INVALID = "invalid"


class Choice(StrEnum):
    """What the model answered, in case terms (which variant it picked)."""

    A = "a"
    B = "b"
    ABSTAIN = "abstain"
    INVALID = "invalid"


def choice_from_label(label: Label, order: Order) -> Choice:
    if label is Label.ABSTAIN:
        return Choice.ABSTAIN
    if label is Label.INVALID:
        return Choice.INVALID
    first_is_a = order is Order.AB
    picked_first = label is Label.FIRST
    return Choice.A if picked_first == first_is_a else Choice.B


@dataclass
class Variant:
    resume_id: int  # the source resume; cases from one resume form a cluster
    kind: VariantKind
    text: str
    group: str | None = None  # group key of the persona filled in
    name: str | None = None  # the persona's full name
    k: int = 0
    changes: list[str] = field(default_factory=list)  # qualifications removed/added
    removed_lines: list[str] = field(default_factory=list)
    id: int | None = None


@dataclass
class Case:
    design: str  # "D1"
    kind: CaseKind
    variant_a: int
    variant_b: int
    truth: Truth
    cluster: int  # source resume id
    k: int = 0
    differs: str = ""  # a reader's description of what differs
    group_a: str | None = None
    group_b: str | None = None
    signal: str = "name"  # how demographics are signalled: name | explicit | none
    id: int | None = None


@dataclass
class CaseSet:
    """Variants asked about together or side by side: a D2 set of copies, a D3 pool,
    a D4 scored set or ranked batch. `variants` are ids once stored (list indexes
    while being built); `meta` says per position what each variant is (its group,
    condition, ground truth...), as docs/designs.md lists per design."""

    design: str  # "D2" | "D3" | "D4"
    kind: str  # "copies" | "pool" | "scoring" | "ranking"
    variants: list[int]
    cluster: int | None = None  # the source resume, when the set comes from one
    meta: dict[str, Any] = field(default_factory=dict)
    id: int | None = None


@dataclass
class Judgment:
    case_id: int
    order: Order
    repeat: int
    label: Label
    justification: str = ""

    @property
    def choice(self) -> Choice:
        return choice_from_label(self.label, self.order)
