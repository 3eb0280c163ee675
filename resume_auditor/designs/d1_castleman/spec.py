"""D1's typed settings (`D1Spec`) and the reading and writing of its `[designs.d1]` table.

They lived in `domain/study.py` (`StudyConfig.d1`) until the study became generic
(issue 27): the study now keeps every design's table as written (`StudyConfig.more`)
and D1 reads its own here, with the very messages a bad value has always had
(tests/test_d1_unit.py holds them), and writes it back whole (`d1_to_table`), so an
audit file's settings are what they always were.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from resume_auditor.domain.groups import GENDERS, Group
from resume_auditor.domain.study import StudyError, _bool, _choices, _int, _strings

D1_SIGNALS = ("name", "explicit")  # names (implicit) or awards and organisations (explicit)
D1_UNEQUAL_GROUPS = ("same", "cross", "both")
D1_PAIR_TYPES = ("more_base", "base_less", "more_less")  # (c+,c), (c,c-), (c+,c-)
# When unequal pairs use the qualifications block (variants/summary_block.py): never;
# where the body edits (generator, lexical deletion) give no pair of that type and k;
# always, beside the body edits; or only the block.
D1_SUMMARY_BLOCK = ("never", "missing", "always", "only")


# Its groups unless the study names others: Black and White, each a man and a woman.
D1_GROUPS: tuple[Group, ...] = tuple(Group(r, g) for r in ("black", "white") for g in GENDERS)


@dataclass(frozen=True)
class D1Spec:
    groups: tuple[Group, ...] = D1_GROUPS
    equal_pairs: bool = True
    unequal_pairs: bool = True
    k: tuple[int, ...] = (1,)
    signals: tuple[str, ...] = ("name",)
    unequal_groups: str = "same"  # same-group pairs, cross-group pairs, or both
    pair_types: tuple[str, ...] = D1_PAIR_TYPES
    summary_block: str = "missing"  # one of D1_SUMMARY_BLOCK


def d1_from_table(d1: Mapping[str, Any]) -> D1Spec:
    """D1's settings from its `[designs.d1]` table (absent keys: the defaults), with the
    messages a bad value has always had."""
    try:
        groups = tuple(Group.parse(g) for g in _strings(d1.get("groups"), "designs.d1.groups"))
    except ValueError as exc:
        raise StudyError(f"designs.d1.groups: {exc}") from exc
    ks = d1.get("k", [1])
    k_values = tuple(_int(k, "designs.d1.k", 1) for k in (ks if isinstance(ks, list) else [ks]))
    d1_spec = D1Spec(
        groups=groups or D1_GROUPS,
        equal_pairs=_bool(d1.get("equal_pairs", True), "designs.d1.equal_pairs"),
        unequal_pairs=_bool(d1.get("unequal_pairs", True), "designs.d1.unequal_pairs"),
        k=k_values,
        signals=_choices(d1.get("signals", ["name"]), "designs.d1.signals", D1_SIGNALS)
        or ("name",),
        unequal_groups=str(d1.get("unequal_groups", "same")),
        pair_types=_choices(
            d1.get("pair_types", list(D1_PAIR_TYPES)), "designs.d1.pair_types", D1_PAIR_TYPES
        ),
        summary_block=str(d1.get("summary_block", "missing")),
    )
    if d1_spec.summary_block not in D1_SUMMARY_BLOCK:
        raise StudyError(f"designs.d1.summary_block should be one of {', '.join(D1_SUMMARY_BLOCK)}")
    if d1_spec.unequal_groups not in D1_UNEQUAL_GROUPS:
        raise StudyError(
            f"designs.d1.unequal_groups should be one of {', '.join(D1_UNEQUAL_GROUPS)}"
        )
    if len(d1_spec.groups) < 2 and d1_spec.equal_pairs:
        raise StudyError("designs.d1.groups needs at least two groups for equal pairs")
    return d1_spec


def d1_to_table(spec: D1Spec) -> dict[str, Any]:
    """D1's settings as its `[designs.d1]` table (what `d1_from_table` reads back)."""
    return {
        "groups": [g.key for g in spec.groups],
        "equal_pairs": spec.equal_pairs,
        "unequal_pairs": spec.unequal_pairs,
        "k": list(spec.k),
        "signals": list(spec.signals),
        "unequal_groups": spec.unequal_groups,
        "pair_types": list(spec.pair_types),
        "summary_block": spec.summary_block,
    }
