"""What the plan before a run needs of D1 (workflow/plan.py asks through the interface).

D1 is sized twice: its group gap test, and that same test read as an LL144 impact
ratio ("IR"), whose effect is a ratio of selection rates; a prompt that allows
abstaining makes the same ratio a smaller gap, so "IR" is then sized under
power_sim.ABSTAINING. Its power counts are answers per group on equal cross-group
pairs, every order and repeat of a pair counted, as the plan always counted them.
The empty checklist's note is said here, in the words it always had.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from resume_auditor.domain.case import Case, CaseKind
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import StudyConfig
from resume_auditor.prompts.presets import get_preset
from resume_auditor.stats.power import (
    can_flag,
    design_alpha,
    min_detectable_gap,
    power_sentence,
)
from resume_auditor.stats.power_sim import ABSTAINING, Size

IMPACT = "IR"  # the code of its impact-ratio sizing (power_sim's Size.design)


def run_counts(cases: Sequence[Case], study: StudyConfig) -> dict[str, int] | None:
    """Answers per group (the fewest), groups and source resumes of its equal cross-group
    pairs, each asked in the run's orders and repeats; `asked_per_group`: the same
    answers counted once per repeat (what more informative repeats multiply)."""
    cross = [p for p in cases if p.kind == CaseKind.EQUAL and p.group_a and p.group_a != p.group_b]
    groups = sorted({g for p in cross for g in (p.group_a, p.group_b) if g})
    if not groups:
        return None
    per = 2 if study.run.orders == "both" else 1
    counts = [sum(1 for p in cross if g in (p.group_a, p.group_b)) * per for g in groups]
    return {
        "answers_per_group": min(counts) * study.run.repeats,
        "groups": len(groups),
        "resumes": len({p.cluster for p in cross}),
        "asked_per_group": min(counts),
    }


def plan_size(label: str, counts: dict[str, int] | None, repeats: int) -> Size | None:
    """Source resumes, groups, and comparisons per group per resume at `repeats`
    informative repeats."""
    if counts is None:
        return None
    units = counts.get("resumes", 0)
    groups = max(int(counts.get("groups", 2)), 2)
    per = counts.get("asked_per_group", 0) * repeats
    return Size(label, units, groups, max(1, per // max(units, 1)))


def abstains(prompt: str) -> bool:
    """Whether the run's prompt lets the model abstain (unknown: it may)."""
    try:
        return get_preset(prompt).kind != "forced_choice"
    except (KeyError, ValueError):
        return True


def sized_tests(size: Size, prompt: str) -> list[Size]:
    """Its gap test, and the impact ratio: at a fixed ratio abstentions shrink the gap, so
    forced choice would promise too much (measured: 84% claimed, 60% found at 87
    resumes)."""
    impact = replace(size, design=IMPACT)
    if abstains(prompt):
        impact = replace(impact, assume=ABSTAINING)
    return [size, impact]


def power_note(code: str, effect: float) -> str:
    if code != IMPACT:
        return ""
    return (
        f" (LL144: its selection rate {effect:g} times the others'; a prompt that allows "
        "abstaining is assumed to get it on about a third of equal pairs, which makes "
        "the same ratio a smaller gap)"
    )


def plan_notes(unequal_pairs: bool, job: Job | None, cells: Collection[str]) -> dict[str, str]:
    """Said before the run, not in a report's notes after it: its unequal pairs are
    missing because the job's checklist has no required qualification."""
    if not unequal_pairs or job is None or job.required:
        return {}
    if any(c.startswith(f"D1 {CaseKind.UNEQUAL.value} pairs") for c in cells):
        return {}
    return {
        CaseKind.UNEQUAL.value: (
            "No D1 unequal pairs can be built: the job's checklist has no required "
            "qualification, so there is no less-qualified copy of any resume and criterion "
            "validity (which candidate is more qualified) will show no cases. Add the job's "
            "requirements on the Job page (or as `required` in the study file), then build "
            "the test cases again."
        )
    }


def approx_power(label: str, counts: Mapping[str, int], alpha: float, designs: int) -> str:
    """The smallest selection gap its gap test can flag at 80% power before a run (normal
    approximation, forced choice), or that it has too few resumes or answers."""
    groups = max(int(counts.get("groups", 2)), 2)
    a = design_alpha(alpha, designs, groups)
    gap = None
    if can_flag(counts.get("resumes", 0), a):
        gap = min_detectable_gap(counts.get("answers_per_group", 0), groups=1, alpha=a)
    return (
        f"{label}: a selection gap of {100 * gap:.0f} points or more (forced choice)."
        if gap is not None
        else f"{label}: too few source resumes or answers to flag even a large selection gap."
    )


def plan_d1(
    pairs: pd.DataFrame,
    *,
    orders: int = 2,
    reps: int = 1,
    abstain_rate: float = 0.0,
    alpha: float = 0.05,
    design_effect: float = 1.0,
) -> dict[str, Any]:
    """Before a run: answers per group on equal cross-group pairs, and what they can find.

    `pairs` has one row per D1 case with `kind`, `group_a`, `group_b` (as the
    result file's pair table); each is asked in `orders` orders `reps` times.
    `abstain_rate` is a guess of how often the model will abstain (0 for forced
    choice, the cautious default).
    """
    cross = pairs[
        (pairs["kind"] == "equal")
        & pairs["group_a"].notna()
        & pairs["group_b"].notna()
        & (pairs["group_a"] != pairs["group_b"])
    ]
    groups = sorted(set(cross["group_a"]).union(cross["group_b"]))
    if not groups:
        return {"comparisons_per_group": {}, "min_detectable_gap": None, "sentence": ""}
    per_pair = orders * reps
    counts = {
        g: int(((cross["group_a"] == g) | (cross["group_b"] == g)).sum()) * per_pair for g in groups
    }
    n = min(counts.values())
    return {
        "comparisons_per_group": counts,
        "min_detectable_gap": min_detectable_gap(
            n,
            groups=len(groups),
            alpha=alpha,
            abstain_rate=abstain_rate,
            design_effect=design_effect,
        ),
        "sentence": power_sentence(
            n,
            groups=len(groups),
            alpha=alpha,
            abstain_rate=abstain_rate,
            design_effect=design_effect,
        ),
    }
