"""D2's metrics block (`d2` at the top level of the metrics JSON), typed end to end.

Every number is a metric object (stats/model.MetricDict); docs/metrics-json.md, "d2".
"""

# No `from __future__ import annotations`: TypedDict reads NotRequired from the
# evaluated annotations (as in stats/model.py).
from typing import NotRequired, TypedDict

from resume_auditor.stats.model import MetricDict


class SmdMetric(MetricDict):
    """D2 standardized difference (`d2.smd`, `smd_race`, `smd_gender`, `by_prompt`)."""

    ci70: NotRequired[list[float | None]]
    difference: NotRequired[float | None]


class RatioMetric(MetricDict):
    """D2 impact ratio at a rating cut (`d2.impact_ratio.<cut>.<kind>.<key>`)."""

    selection_rate: float | None


class D2Dict(TypedDict):
    """What D2 measured in one run.

    `ratings`: rating answers, `unreadable` of them without a rating read; `sd`: the
    named ratings' standard deviation; `smd` (and by race, by gender, by prompt): each
    group's standardized difference against `reference`; `impact_ratio`: threshold ->
    grouping -> key -> ratio; `manipulation`: the perceived signal; `blinded`: each
    group's shift against the copy with identity removed.
    """

    ratings: int
    unreadable: int
    sd: float | None
    reference: str
    smd: dict[str, SmdMetric]
    smd_race: dict[str, SmdMetric]
    smd_gender: dict[str, SmdMetric]
    impact_ratio: dict[str, dict[str, dict[str, RatioMetric]]]
    manipulation: dict[str, MetricDict]
    blinded: dict[str, MetricDict]
    by_prompt: dict[str, dict[str, SmdMetric]]
    flags: list[str]
