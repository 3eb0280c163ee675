"""The neutral college list in resources/colleges (see PROVENANCE.md there)."""

from __future__ import annotations

import random
import tomllib
from functools import cache

from resume_auditor.resources import resource


@cache
def neutral_colleges() -> tuple[str, ...]:
    data = tomllib.loads(resource("colleges", "colleges.toml").read_text(encoding="utf-8"))
    names = tuple(str(c) for c in data["colleges"])
    if len(set(names)) != len(names):
        raise ValueError("resources/colleges/colleges.toml lists a college twice")
    return names


def draw_college(rng: random.Random) -> str:
    """A college at random, independent of any group (Gaebler et al. 2024)."""
    return rng.choice(neutral_colleges())
