"""D1's blocks of the metrics JSON, typed: `d1`, `impact_ratio` and `error_agreement`.

D1 is placed "head" (designs/base.py): its three blocks sit at the top level among the
report's fixed keys, where they always were, and `Design.block` hands its views the map
of them, this TypedDict (its `block_type`, checked against real reports by
tests/test_metrics_model.py). The three blocks' own types are still in stats/model.py,
as `MetricsReport` names them.
"""

from __future__ import annotations

from typing import TypedDict

from resume_auditor.stats.model import AgreementDict, D1Dict, ImpactRatioDict

__all__ = ["D1Blocks", "D1Dict"]


class D1Blocks(TypedDict):
    """D1's blocks by their top-level key."""

    d1: D1Dict
    impact_ratio: ImpactRatioDict
    error_agreement: list[AgreementDict]
