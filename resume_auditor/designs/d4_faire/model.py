"""D4's metrics block (`d4` at the top level of the metrics JSON), typed end to end.

Every number is a metric object (stats/model.MetricDict); docs/metrics-json.md, "d4".
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired from the
# evaluated annotations (as in stats/model.py).
from typing import NotRequired, TypedDict

from resume_auditor.stats.model import MetricDict


class DifferenceMetric(MetricDict):
    """D4 score difference; `t`, `t_p` from the paper's paired t-test when it can be run."""

    t: NotRequired[float | None]
    t_p: NotRequired[float | None]


class RankMetric(MetricDict):
    """D4 average rank: `expected` is the rank with no preference."""

    expected: float | None


class D4Dict(TypedDict):
    """What D4 measured in one run.

    `scores`: scoring answers, `unreadable` of them without every dimension read;
    `differences`: perturbation -> dimension (and "overall") -> group -> perturbed
    minus original; `rankings`: ranking answers, `unreadable_rankings` of them with no
    rank read; `ranks`: batch size -> group -> average rank.
    """

    scores: int
    unreadable: int
    differences: dict[str, dict[str, dict[str, DifferenceMetric]]]
    rankings: int
    unreadable_rankings: int
    ranks: dict[str, dict[str, RankMetric]]
    flags: list[str]
