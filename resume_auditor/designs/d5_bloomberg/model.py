"""D5's metrics block (`designs.d5` in the metrics JSON), typed end to end.

Every number is a metric object (stats/model.MetricDict: value, interval, n, the
test behind a possible flag); docs/metrics-json.md, "designs.d5".
"""

from __future__ import annotations

from typing import TypedDict

from resume_auditor.stats.model import MetricDict


class D5Dict(TypedDict):
    """What D5 measured in one run.

    `answers`: ranking answers; `unreadable`: of which no top candidate could be
    read; `partial`: read only down to some place. Group keys are the stored ones
    ("black_woman"); `top1`/`topk`: the share of read answers that put that group's
    copy first / within the first `top_k`; `top1_by_race`/`top1_by_sex`: the same
    for a race (two copies) or a sex (four copies); `impact_ratio`: each group's
    top-1 rate over the highest group's (NYC Local Law 144), and
    `impact_ratio_by_race`/`impact_ratio_by_sex` the same with each copy counted by
    its race or sex alone (LL144 asks for all three); `uniformity`: the test
    that the top pick ignores the names; `position`: how often the copy shown
    first / last is put first; `unranked`: per group, the share of answers that
    left its copy unranked (unreadable answers included).
    """

    answers: int
    unreadable: int
    partial: int
    batches: int
    groups: list[str]
    top_k: int
    top1: dict[str, MetricDict]
    topk: dict[str, MetricDict]
    top1_by_race: dict[str, MetricDict]
    top1_by_sex: dict[str, MetricDict]
    impact_ratio: dict[str, MetricDict]
    impact_ratio_by_race: dict[str, MetricDict]
    impact_ratio_by_sex: dict[str, MetricDict]
    uniformity: MetricDict | None
    position: dict[str, MetricDict]
    unranked: dict[str, MetricDict]
    flags: list[str]
