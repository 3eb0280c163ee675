"""D3's metrics block (`d3` at the top level of the metrics JSON), typed end to end.

Every number is a metric object (stats/model.MetricDict); docs/metrics-json.md, "d3".
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired from the
# evaluated annotations (as in stats/model.py).
from typing import NotRequired, TypedDict

from resume_auditor.stats.model import MetricDict


class RabbiMetric(MetricDict):
    """D3 RABBI (`d3.<pointwise|pairwise>.rabbi.<group>`)."""

    mann_whitney_p: float | None
    reference_n: int
    higher: float | None
    lower: float | None


class ScoreGapMetric(MetricDict):
    """D3 score gap; pairwise ones carry the reverse rate."""

    reverse: NotRequired[float | None]


class SelectedMetric(MetricDict):
    """D3 top-k gaps (`dp_gap`, `eo_gap`): the group's and the reference's selection rates."""

    selected: float | None
    reference_selected: float | None


class D3ScoresDict(TypedDict):
    method: str
    candidates: int
    unreadable: int
    rabbi: dict[str, RabbiMetric]
    score_gap: dict[str, ScoreGapMetric]
    jsd: dict[str, MetricDict]
    emd: dict[str, MetricDict]
    dp_gap: dict[str, dict[str, SelectedMetric]]
    eo_gap: dict[str, dict[str, SelectedMetric]]


class D3Dict(TypedDict):
    reference: str
    pointwise: D3ScoresDict | None
    pairwise: D3ScoresDict | None
    output: dict[str, MetricDict]
    flags: list[str]
