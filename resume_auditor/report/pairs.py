"""The designs whose cases are pairs of candidates, and their answers as judgments.

The report's examples of wrong choices, the method section's pair counts and the
exports' Cases and Judgments sheets read pairs (two candidates, a choice between
them). Which designs have them is each design's to say (`Design.pairs`, D1's today),
so the report asks the registry rather than naming one.
"""

from __future__ import annotations

import logging
from typing import Any

import pandas as pd

from resume_auditor.designs.base import Design
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.store.parts import AuditReader

logger = logging.getLogger(__name__)

PAIRS: tuple[Design[Any], ...] = tuple(d for d in DESIGNS if d.pairs)
OTHERS: tuple[Design[Any], ...] = tuple(d for d in DESIGNS if not d.pairs)


def pair_labels() -> list[str]:
    """The `test_case.design` labels of the designs whose cases are pairs ("D1")."""
    return [d.label for d in PAIRS]


def judgments(result: AuditReader, run_id: int) -> pd.DataFrame:
    """Every pair answer of the run as the shared judgments table (empty: none)."""
    details = result.variant_details()
    frames = [
        frame
        for d in PAIRS
        if not (frame := d.pair_judgments(result.answers(run_id, design=d.label), details)).empty
    ]
    if not frames:
        return pd.DataFrame()
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
