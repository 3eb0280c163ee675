"""What the plan before a run needs of D1 (workflow/plan.py asks through the interface).

D1 is sized twice: its group gap test, and that same test read as an LL144 impact
ratio ("IR"), whose effect is a ratio of selection rates; a prompt that allows
abstaining makes the same ratio a smaller gap, so "IR" is then sized under
power_sim.ABSTAINING. Its power counts are answers per group on equal cross-group
pairs, every order and repeat of a pair counted, as the plan always counted them.
The empty checklist's note is said here, in the words it always had.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from resume_auditor.domain.case import Case, CaseKind
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import StudyConfig
from resume_auditor.prompts.presets import get_preset
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
