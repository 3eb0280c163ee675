"""The words for every metric: a plain label, one sentence of meaning, and the paper's term.

A recruiter reads "Picks the more qualified candidate"; an auditor checking the
method wants "CriterionValidity (Castleman et al. 2025, Eq. 2)". The report's page
one, the app's Results page and its tooltips all take their words from here, so a
number is called the same thing wherever it appears. `term_for(path)` finds the
term for a metric by its path in the metrics JSON (docs/metrics-json.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from resume_auditor.designs.registry import DESIGNS


@dataclass(frozen=True)
class Term:
    label: str  # what a recruiter reads
    meaning: str  # one sentence: what the number says
    paper: str  # the term in the paper it comes from, with the paper

    def tooltip(self) -> str:
        return f"{self.meaning}\nIn the paper: {self.paper}."


TERMS: dict[str, Term] = {}
# The registry's designs bring their own words (Design.words: D1's first).
TERMS |= {k: Term(w.label, w.meaning, w.paper) for d in DESIGNS for k, w in d.words.items()}


def breakdown_title(key: str) -> str:
    """The glossary's title of a design's breakdown measure (`Design.breakdown_titles`),
    else its key in words."""
    for design in DESIGNS:
        if key in design.breakdown_titles:
            return design.breakdown_titles[key]
    return key.replace("_", " ")


def term_key(path: Sequence[str]) -> str | None:
    """The TERMS key for a metric at `path` in the metrics JSON; None if it has none."""
    p = [str(x) for x in path]
    if not p:
        return None
    for unit in DESIGNS:
        if unit.holds(p):
            return unit.word_key(p)
    return None


def term_for(path: Sequence[str]) -> Term | None:
    key = term_key(path)
    return TERMS.get(key) if key else None
