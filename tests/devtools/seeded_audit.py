"""A fresh copy of a prepared audit with its cases built again under another seed.

The calibration benchmarks (null_calibration.py, planted_validity.py) run many audits of
one study: each is the prepared template copied, its cases rebuilt with the audit's own
seed (new names, orders and fills) and a run queued, ready for a simulator policy that
reads the variants to know the truth.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any


def seeded_copy(template: Path, workdir: Path, seed: int) -> tuple[Path, list[Any]]:
    """(the new audit file, its variants) for `seed`, with one run queued."""
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.cases import build_cases
    from resume_auditor.workflow.prepare import _queue_run, study_of

    out = workdir / f"audit-{seed}.audit"
    shutil.copyfile(template, out)
    with ResultFile(out) as result:
        config = dataclasses.replace(study_of(result), seed=seed)
        with result.transaction():
            result.clear_cases()
            build_cases(result, config)
        _queue_run(result, config, config.model)
        variants = list(result.variants())
    return out, variants
