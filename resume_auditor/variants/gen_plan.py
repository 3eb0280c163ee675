"""What to ask a generator model for: one `Task` per qualification text wanted.

For each source resume: the completed base (when it lacks required
qualifications and `complete_base` is on), then from the base (the completed one
if it was usable, else the resume as written) c+ for each k with k preferred
qualifications it does not mention, c- for each k with k required ones it does,
and the reworded copies. With `synthetic_base`, one more base is written from
the job alone (`synthetic_task`); once verified it is a source resume of its own
and gets the same c+, c- and reworded copies. Which qualifications a text changes is drawn from the
study's seed, and texts are spread across the generator models round robin from
the seed, so the same study asks the same things every time (a resumed or
re-run generation finds its answers already recorded).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.generation import GenerationSpec
from resume_auditor.domain.job import Job
from resume_auditor.variants.verify import Expectation, mentions

SYNTHETIC_KEY = "synthetic"  # one per audit: the task key of the synthetic base
SYNTHETIC_PRESET = "gen-synthetic"

PRESETS = {
    VariantKind.MORE: "gen-more",
    VariantKind.LESS: "gen-less",
    VariantKind.REWORDED: "gen-reword",
    VariantKind.BASE: "gen-complete",
}


@dataclass(frozen=True)
class Task:
    key: str  # stable: "r12:more:k2", "r12:less:k1", "r12:reword:2", "r12:complete"
    resume_id: int
    kind: VariantKind
    k: int
    changes: tuple[str, ...]  # qualifications added (c+, completion) or removed (c-)
    preset: str
    generator: int  # index into GenerationSpec.generators
    expect: Expectation
    judge_items: tuple[tuple[str, bool], ...]  # (qualification, should be met)
    index: int = 0  # which reworded copy


def _generator(spec: GenerationSpec, seed: int, key: str) -> int:
    """Round robin from the seed: the same text always goes to the same model."""
    return random.Random(f"{seed}:{key}:generator").randrange(len(spec.generators))


def _all(job: Job) -> list[str]:
    return [q.text for q in job.qualifications]


def completion_task(
    resume_id: int, text: str, job: Job, spec: GenerationSpec, seed: int
) -> Task | None:
    """The base completion (D1 Appendix A) when the resume lacks required qualifications."""
    if not spec.complete_base:
        return None
    missing = tuple(q.text for q in job.required if not mentions(text, q.text))
    if not missing:
        return None
    key = f"r{resume_id}:complete"
    kept = tuple(q for q in _all(job) if q not in missing and mentions(text, q))
    return Task(
        key,
        resume_id,
        VariantKind.BASE,
        0,
        missing,
        PRESETS[VariantKind.BASE],
        _generator(spec, seed, key),
        Expectation(
            VariantKind.BASE, added=missing, kept=kept, check_length=False, check_change=False
        ),
        tuple((q.text, True) for q in job.required),
    )


def synthetic_task(job: Job, spec: GenerationSpec, seed: int) -> Task | None:
    """The synthetic base (D1 Appendix G): written from the job alone, meeting exactly
    the required qualifications and none of the preferred ones.

    `resume_id` is 0: the resume row is made only when the text is stored.
    """
    if not spec.synthetic_base or not job.required:
        return None
    required = tuple(q.text for q in job.required)
    preferred = tuple(q.text for q in job.preferred)
    return Task(
        SYNTHETIC_KEY,
        0,
        VariantKind.BASE,
        0,
        required,
        SYNTHETIC_PRESET,
        _generator(spec, seed, SYNTHETIC_KEY),
        Expectation(
            VariantKind.BASE,
            added=required,
            check_length=False,
            check_change=False,
            extras=preferred,
            wanted=required,
        ),
        tuple((q, True) for q in required) + tuple((q, False) for q in preferred),
    )


def variant_tasks(
    resume_id: int, base_text: str, job: Job, spec: GenerationSpec, seed: int
) -> list[Task]:
    """c+ and c- for each k, and the reworded copies, from the base text."""
    tasks: list[Task] = []
    present = [q for q in _all(job) if mentions(base_text, q)]
    addable = [q.text for q in job.preferred if not mentions(base_text, q.text)]
    removable = [q.text for q in job.required if mentions(base_text, q.text)]
    for kind, pool in ((VariantKind.MORE, addable), (VariantKind.LESS, removable)):
        for k in spec.k:
            if k > len(pool):
                continue
            key = f"r{resume_id}:{kind.value}:k{k}"
            chosen = tuple(random.Random(f"{seed}:{key}").sample(pool, k))
            kept = tuple(q for q in present if q not in chosen)
            more = kind is VariantKind.MORE
            tasks.append(
                Task(
                    key,
                    resume_id,
                    kind,
                    k,
                    chosen,
                    PRESETS[kind],
                    _generator(spec, seed, key),
                    Expectation(
                        kind,
                        added=chosen if more else (),
                        removed=() if more else chosen,
                        kept=kept,
                    ),
                    tuple((q, more) for q in chosen),
                )
            )
    for index in range(1, spec.reworded + 1):
        key = f"r{resume_id}:reworded:{index}"
        tasks.append(
            Task(
                key,
                resume_id,
                VariantKind.REWORDED,
                0,
                (),
                PRESETS[VariantKind.REWORDED],
                _generator(spec, seed, key),
                Expectation(VariantKind.REWORDED, kept=tuple(present), check_change=False),
                (),
                index=index,
            )
        )
    return tasks


def skipped_kinds(base_text: str, job: Job, spec: GenerationSpec) -> list[str]:
    """Plain words for the c+/c- that cannot be made from this base (too few qualifications)."""
    notes = []
    addable = [q for q in job.preferred if not mentions(base_text, q.text)]
    removable = [q for q in job.required if mentions(base_text, q.text)]
    for k in spec.k:
        if k > len(addable):
            notes.append(f"no c+ with k={k}: only {len(addable)} preferred qualification(s) to add")
        if k > len(removable):
            notes.append(
                f"no c- with k={k}: the resume mentions only {len(removable)} required one(s)"
            )
    return notes
