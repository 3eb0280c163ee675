"""Variants, test cases and the model's judgments of them.

A *variant* is one resume text shown to the model (a base resume filled with a
persona, a less-qualified copy, ...). A *case* is what one design asks about: a
D1 pair of variants with a ground truth known by construction, a D2 set of
copies, a D3 pool, a D4 scored set or ranked batch. A *judgment* is what the
model said about one D1 case in one presentation order.
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
    construction: str = ""  # how its text was made (QualOrigin value); not stored
    id: int | None = None


@dataclass
class Case:
    """One test case of any design: what the model is asked about, and what is known.

    Every design's cases share this shape (and one table of the result file):
    `design` (D1-D4), `kind` (D1: equal | unequal; D2: copies; D3: pool; D4:
    scoring | ranking), the `variants` in their case order (ids once stored, list
    indexes while being built; D1: [A, B]), the `cluster` (source resume) and
    `meta`, which says per position what each variant is for D2-D4 (its group,
    condition, ground truth..., docs/designs.md).

    The remaining fields are D1's typed details, queryable columns because the D1
    statistics read them: `truth` (which variant is more qualified, None outside
    D1), `k` qualifications changed, the true `gap` (2k for a (c+, c-) pair) and
    `pair_type` (both filled in by the store from the variants' kinds), `differs`,
    the two variants' groups, how demographics are signalled and, for an unequal
    pair, its `construction`: how the changed texts were made (summary_block,
    lexical, generator; variants/texts.construction_of).
    """

    design: str  # "D1" | "D2" | "D3" | "D4"
    kind: str  # a CaseKind for D1
    variants: list[int]
    cluster: int | None = None  # the source resume, when the case comes from one
    meta: dict[str, Any] = field(default_factory=dict)
    truth: Truth | None = None
    k: int = 0
    gap: int = 0
    pair_type: str = ""
    differs: str = ""  # a reader's description of what differs
    group_a: str | None = None
    group_b: str | None = None
    signal: str = ""  # D1: how demographics are signalled: name | explicit | none
    construction: str = ""  # D1 unequal: summary_block | lexical | generator (a+b if mixed)
    id: int | None = None

    @classmethod
    def pair(
        cls,
        design: str,
        kind: CaseKind,
        variant_a: int,
        variant_b: int,
        truth: Truth,
        cluster: int,
        *,
        k: int = 0,
        differs: str = "",
        group_a: str | None = None,
        group_b: str | None = None,
        signal: str = "name",
        construction: str = "",
    ) -> Case:
        """A D1 pair: two variants with a ground truth known by construction."""
        return cls(
            design,
            kind,
            [variant_a, variant_b],
            cluster,
            truth=truth,
            k=k,
            differs=differs,
            group_a=group_a,
            group_b=group_b,
            signal=signal,
            construction=construction,
        )

    @property
    def variant_a(self) -> int:
        """A pair's first variant (D1)."""
        return self.variants[0]

    @property
    def variant_b(self) -> int:
        """A pair's second variant (D1)."""
        return self.variants[1]


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
