"""The curated name lists in resources/names (see PROVENANCE.md there)."""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass
from functools import cache

from resume_auditor.domain.groups import Group
from resume_auditor.domain.identity import Persona
from resume_auditor.resources import resource


@dataclass(frozen=True)
class NameEntry:
    first: str
    last: str
    group: str


@cache
def name_lists() -> dict[str, tuple[NameEntry, ...]]:
    out: dict[str, list[NameEntry]] = {}
    with open(resource("names", "names.csv"), newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            out.setdefault(row["group"], []).append(
                NameEntry(row["first"], row["last"], row["group"])
            )
    return {k: tuple(v) for k, v in out.items()}


def personas_for(group: Group, count: int, rng: random.Random) -> list[Persona]:
    """`count` distinct personas of `group`, drawn without replacement."""
    entries = name_lists().get(group.key, ())
    if len(entries) < count:
        raise ValueError(f"only {len(entries)} names for {group.label}; {count} needed")
    chosen = rng.sample(list(entries), count)
    return [Persona(e.first, e.last, group.gender, group.key) for e in chosen]
