"""D1's blocks of the metrics JSON, typed: `d1`, `impact_ratio` and `error_agreement`.

D1 is placed "head" (designs/base.py): its three blocks sit at the top level among the
report's fixed keys, where they always were, and `Design.block` hands its views the map
of them, this TypedDict (its `block_type`, checked against real reports by
tests/test_metrics_model.py). `d1`'s and `impact_ratio`'s types live here, with the
design; stats/model.py's `MetricsReport` types those keys as maps, as it does D2-D4's.
`error_agreement`'s type (`AgreementDict`) stays there: it compares any run with the
file's other runs, and the Results page reads it.
"""

from typing import TypedDict

from resume_auditor.stats.model import AgreementDict, MetricDict

__all__ = [
    "D1Blocks",
    "D1Breakdowns",
    "D1Dict",
    "GapMetric",
    "ImpactCell",
    "ImpactRatioDict",
    "PowerDict",
]


class GapMetric(MetricDict):
    """D1 group gap (`d1.selection_gap.<group>`): the two rates behind the gap."""

    picked: float | None
    opponent_picked: float | None


class ImpactCell(MetricDict):
    """One category of the D1 impact-ratio table (`impact_ratio.<grouping>.<category>`)."""

    selection_rate: float | None
    selection_rate_ci: list[float | None]
    selected: int
    other_selected: int
    below_four_fifths: bool


class PowerDict(TypedDict, total=False):
    """`d1.power`: empty when no equal cross-group pair was answered."""

    comparisons_per_group: dict[str, int]
    abstain_rate: float
    min_detectable_gap: float | None
    sentence: str


class D1Breakdowns(TypedDict, total=False):
    """`d1.breakdowns`: CriterionValidity and DiscrimValidity per value of one column
    (designs/d1_castleman/breakdowns.py), as Castleman et al. break them down; a breakdown is
    there only when the cases carry its column. Keys of each map: the column's values.
    """

    criterion_validity_by_k: dict[str, MetricDict]  # the true gap (2k for (c+, c-))
    criterion_validity_by_pair_type: dict[str, MetricDict]  # more_base, base_less, more_less
    criterion_validity_by_qual_type: dict[str, MetricDict]
    criterion_validity_by_change_location: dict[str, MetricDict]  # summary, body, both
    criterion_validity_by_generator: dict[str, MetricDict]
    # summary_block, lexical, generator ('a+b' for a pair whose two texts differ in it)
    criterion_validity_by_construction: dict[str, MetricDict]
    discrim_validity_by_signal: dict[str, MetricDict]  # name, explicit


class D1Dict(TypedDict):
    judgments: int
    invalid: int
    abstain_allowed: bool
    metrics: dict[str, MetricDict]
    selection_rate: dict[str, MetricDict]
    selection_gap: dict[str, GapMetric]
    over_assessment: dict[str, dict[str, MetricDict]]
    breakdowns: D1Breakdowns
    power: PowerDict
    flags: list[str]


class ImpactRatioDict(TypedDict):
    """`impact_ratio`: the D1 impact-ratio table by sex, race and intersectional group."""

    design: str
    basis: str
    note: str
    flags: list[str]
    sex: dict[str, ImpactCell]
    race: dict[str, ImpactCell]
    intersectional: dict[str, ImpactCell]


class D1Blocks(TypedDict):
    """D1's blocks by their top-level key."""

    d1: D1Dict
    impact_ratio: ImpactRatioDict
    error_agreement: list[AgreementDict]
