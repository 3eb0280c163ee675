"""The metrics report's shape, as types: docs/metrics-json.md written for the type checker.

`resume-auditor metrics --json`, the saved metrics of a bundle, the report and the
GUI all read one dictionary (built by workflow/metrics.py `metrics_report`). These
TypedDicts describe it key by key so that mypy catches a misspelt or missing key in
any reader. They are plain dicts at run time, so the JSON, the saved metrics and the
bundles are unchanged. tests/test_metrics_model.py builds a real report through the
real path and checks every key and value against these types, so the document, the
types and the output cannot drift apart.

Maps whose keys are data (groups, categories, breakdown values, thresholds of a
rating) are `dict[str, ...]`; a fixed set of names is a TypedDict. `NotRequired`
marks keys that only some metrics or some runs carry.

This module sits in `stats` (imports nothing) so that stats, workflow, report, cli and
ui can all use it. No `from __future__ import annotations` here: Python 3.11 reads
`NotRequired` only from evaluated annotations, and the run-time check needs it.
"""

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

Unit = Literal["proportion", "points", "sd", "ratio", "difference", "number"]
Family = Literal["fairness", "validity"]


class FlagTestDict(TypedDict):
    """The test behind a metric's possible flag (stats/flags.py FlagTest).

    `untestable` (only when it applies): why the test could not fire with these data;
    `share`: the share of the family's alpha the test had (before any was passed on).
    """

    family: Family
    p: float | None
    p_adjusted: float | None
    family_size: int
    alpha: float
    significant: bool
    crossed: bool
    untestable: NotRequired[str]
    share: NotRequired[float]


class MetricDict(TypedDict):
    """A metric object (docs/metrics-json.md, "A metric object").

    `p` and `p_holm` are present only on estimates with a test of "no difference"
    (gaps, differences, ratios); plain proportions have none. `successes` is null on
    estimates that are not a count (gaps, differences, ranks).
    """

    title: str
    value: float | None
    ci: list[float | None]
    level: float
    n: int
    successes: int | None
    clusters: int
    note: str
    p: NotRequired[float | None]
    p_holm: NotRequired[float | None]
    unit: Unit
    sentence: str
    reading: str
    flag: str | None
    flag_test: FlagTestDict | None
    p_adjusted: float | None
    not_significant: bool


class AgreementDict(TypedDict):
    """One entry of `error_agreement`: this run against another run of the same file."""

    run: int
    model: str
    prompt: str
    shared: int
    a_wrong: int
    b_wrong: int
    chance: float | None
    metrics: dict[str, MetricDict]


class ThresholdDict(TypedDict):
    key: str
    title: str
    value: float
    flag_when: Literal["below", "p_below"]
    source: str
    meaning: str


class StudyInfo(TypedDict):
    name: str
    created_at: str


class RunInfo(TypedDict):
    id: int
    provider: str
    base_url: str
    model: str
    prompt: str
    params: dict[str, Any]  # the run's request settings, as stored (provider-specific)
    created_at: str


class Counts(TypedDict):
    pairs: int
    requests: int
    answered: int
    failed: int
    pending: int
    invalid: int
    input_tokens: int
    output_tokens: int


class DesignBlocks(TypedDict, total=False):
    """The D2, D3 and D4 blocks; a design's key is absent when the run has no answers for it.

    Each is its design's block where it has always been, though D2, D3 and D4 are designs
    kept as units (`Design.placement` "top"): each has its own TypedDict
    (designs/d2_correspondence/model.D2Dict, d3_rabbi/model.D3Dict, d4_faire/model.D4Dict,
    `Design.block_type`), read through the design."""

    d2: Mapping[str, Any]
    d3: Mapping[str, Any]
    d4: Mapping[str, Any]


class DesignPowerDict(TypedDict):
    """`power.<D1..D4>`: the chance this audit's test flags an effect of `effect`.

    `basis`: "answers" (simulated on this audit's own answers, resampled with the
    effect planted) or "model" (simulated from stats/power_sim.py's assumptions).
    """

    effect: float
    words: str
    share: float
    power: float
    basis: str


class UnrankedDict(TypedDict):
    """Candidates left out of the rankings read in part (stats/missing.py): a ranking cut
    short or stopped at an unknown name loses some candidates, maybe by their group."""

    rankings: int  # rankings read, whole or in part
    partial: int  # of them, read only in part
    by_group: dict[str, dict[str, int]]  # group -> {"shown", "left_out"} candidates
    by_position: dict[str, dict[str, dict[str, int]]]  # position -> group -> the same
    metric: MetricDict | None  # the spread of the share left out between groups, its test
    flag: str | None


class MissingDesignDict(TypedDict):
    """One design's missing answers (stats/missing.py): requests by status, where they
    fell, and the test of whether the share lost depends on the groups shown."""

    requests: int
    counts: dict[str, int]  # read, partial, unreadable, refused, failed -> requests
    lost: int  # partial + unreadable + refused + failed
    by_group: dict[str, dict[str, int]]  # group -> status -> requests that showed it
    by_position: dict[str, dict[str, dict[str, int]]]  # position -> group -> status -> n
    by_prompt: dict[str, dict[str, int]]  # prompt preset -> status -> requests
    metric: MetricDict | None  # the spread of the share lost between groups, its test
    flag: str | None  # every missing-answer flag of the design (both tests), or None
    unranked: NotRequired[UnrankedDict]  # designs with rankings (D4)


# -- several models compared (stats/compare.py; `metrics --json`'s `comparison`) --

COMPARISON_SCHEMA = 1


class IntervalDict(TypedDict):
    """An estimate with its interval (stats/estimate.Estimate.as_dict) and its unit."""

    value: float | None
    ci: list[float | None]
    level: float
    n: int
    successes: int | None
    clusters: int
    note: str
    p: float | None
    p_holm: float | None
    unit: Unit  # a difference of two rates or gaps is in "points"


class RunColumn(TypedDict):
    """One model of the comparison (one run)."""

    run: int
    name: str  # what the comparison calls it: the model, with the provider if two share it
    provider: str
    model: str
    prompt: str
    answered: int
    invalid: int
    # what its answers cost (USD): None when some answer's price is unknown; and per
    # 1,000 answers, each answer being one screening decision (docs/metrics-json.md)
    cost_usd: float | None
    cost_per_1000: float | None


class MeasureRow(TypedDict):
    """One headline measure, every run's value side by side (by run id, as text keys)."""

    design: str  # label, "D1"
    key: str
    label: str
    kind: str  # "validity" or "fairness"
    unit: Unit  # the values' unit
    values: dict[str, IntervalDict]


class DifferenceDict(TypedDict):
    design: str
    key: str
    label: str
    kind: str
    run_a: int
    run_b: int
    difference: IntervalDict  # A - B, in the measure's own units (a share, not points)
    sentence: str


class AgreementRow(TypedDict):
    """How often two models gave the same answer to the same request of one design."""

    design: str
    run_a: int
    run_b: int
    alike: IntervalDict  # share of requests both answered readably with the same answer
    differ: int  # of those requests, how many they answered differently
    differ_case_count: int  # on how many test cases
    differ_cases: list[int]  # those test cases (first 50), for the drill-down


class ComparisonDict(TypedDict):
    """`metrics --json`'s `comparison` section (docs/metrics-json.md, "comparison")."""

    schema: int
    runs: list[RunColumn]
    measures: list[MeasureRow]
    differences: list[DifferenceDict]
    agreement: list[AgreementRow]
    alpha: float
    method: str
    notes: list[str]


class MetricsReport(DesignBlocks):
    """The whole report (`metrics_report`, `resume-auditor metrics --json`)."""

    schema: str
    app_version: str
    result_file: str
    study: StudyInfo
    run: RunInfo
    counts: Counts
    # The blocks of the design placed "head" (D1), at the top level where they always
    # were; each typed in its folder (designs/d1_castleman/model.D1Blocks, the design's
    # `block_type`), read through the design. `error_agreement` is any run's against
    # the file's other runs, so its type stays here.
    d1: Mapping[str, Any]
    impact_ratio: Mapping[str, Any]
    error_agreement: list[AgreementDict]
    thresholds: list[ThresholdDict]
    flags: list[str]
    notes: list[str]
    power: NotRequired[dict[str, DesignPowerDict]]
    # Missing answers per design (D1..D4), absent in reports made before issue 29.
    missing: NotRequired[dict[str, MissingDesignDict]]
    # The blocks of the designs kept as units (resume_auditor/designs, D5 on), by key;
    # each is its design's own TypedDict (e.g. designs/d5_bloomberg/model.D5Dict).
    designs: NotRequired[dict[str, Mapping[str, Any]]]
    # Every model of the audit compared on the same cases (stats/compare.py; issue 28):
    # added by `metrics --json` and the report when the file holds two runs or more.
    comparison: NotRequired[ComparisonDict]
