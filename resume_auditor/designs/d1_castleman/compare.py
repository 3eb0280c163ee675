"""D1's headline measures for comparing models on the same pairs (issue 28).

Castleman et al. compare many models on the same pairs; a recruiter's question is
which picks the more qualified candidate more often, and whose choices move more with
the candidates' group. The measures are the run's own D1 metrics, recomputed from sums
per source resume so that stats/compare.py can leave a resume out of both runs at once:
CriterionValidity (correct picks on unequal pairs), DiscrimValidity (abstentions on
equal pairs, when the prompt allows them) and the selection gap of each group on equal
cross-group pairs. Each value equals the run's metric at `path` (tests/test_compare.py).
"""

from __future__ import annotations

import dataclasses
import logging

import pandas as pd

from resume_auditor.designs.d1_castleman.inputs import D1_JUDGMENTS
from resume_auditor.domain.groups import group_label
from resume_auditor.stats.compare import Comparable, Measure, ratio
from resume_auditor.stats.inputs import validate
from resume_auditor.stats.pair_choice import with_choice

logger = logging.getLogger(__name__)


READ = ("kind", "truth", "cluster", "ord", "label", "group_a", "group_b")
READ_SPEC = dataclasses.replace(
    D1_JUDGMENTS, columns=tuple(c for c in D1_JUDGMENTS.columns if c.name in READ)
)


def comparable(judgments: pd.DataFrame, *, abstain_allowed: bool = True) -> Comparable | None:
    """D1's answers of one run as a comparison table (None: no readable D1 answer)."""
    if judgments.empty:
        return None
    # only the columns read here are checked and copied (a third of the time, at
    # 10,000 answers a model, went to checking the others)
    df = with_choice(validate(judgments[list(READ)], READ_SPEC))
    df = df[df["choice"] != "invalid"]
    if df.empty:
        return None
    unequal = (df["kind"] == "unequal").to_numpy()
    equal = ~unequal
    choice = df["choice"].to_numpy(dtype=object)
    table = pd.DataFrame(
        {
            "cluster": df["cluster"].astype(str).to_numpy(),
            "unequal": unequal.astype(float),
            "correct": (unequal & (choice == df["truth"].to_numpy(dtype=object))).astype(float),
            "equal": equal.astype(float),
            "abstained": (equal & (choice == "abstain")).astype(float),
        }
    )
    measures = [
        Measure(
            "criterion_validity",
            "Picks the more qualified candidate",
            ("correct", "unequal"),
            ratio(0, 1),
            "picks the more qualified candidate more often",
            path=("d1", "metrics", "criterion_validity"),
        )
    ]
    if abstain_allowed:
        measures.append(
            Measure(
                "discrim_validity",
                "Declines to choose between equal candidates",
                ("abstained", "equal"),
                ratio(0, 1),
                "declines to choose between two equally qualified candidates more often",
                path=("d1", "metrics", "discrim_validity"),
            )
        )
    ga = df["group_a"].to_numpy(dtype=object)
    gb = df["group_b"].to_numpy(dtype=object)
    cross = equal & pd.notna(ga) & pd.notna(gb) & (ga != gb)
    groups = sorted(set(ga[cross]) | set(gb[cross]))
    for g in groups:
        as_a = cross & (ga == g)
        as_b = cross & (gb == g)
        picked = (as_a & (choice == "a")) | (as_b & (choice == "b"))
        other = (as_a & (choice == "b")) | (as_b & (choice == "a"))
        table[f"gap_{g}"] = picked.astype(float) - other.astype(float)
        table[f"in_{g}"] = (as_a | as_b).astype(float)
        label = group_label(g)
        measures.append(
            Measure(
                f"selection_gap.{g}",
                f"Selection gap: {label}",
                (f"gap_{g}", f"in_{g}"),
                ratio(0, 1),
                f"favours {label} candidates more (against equally qualified others)",
                path=("d1", "selection_gap", g),
                unit="points",
                kind="fairness",
            )
        )
    return Comparable(table, tuple(measures))


__all__ = ["comparable"]
