"""The report knows no design by name: it asks the registry (issue 27).

Page 1, the figures, the examples, the sheets and the method section take what a
design says through its hooks (`Design.page_one`, `fairness_number`, `report_figures`,
`pairs`, ...); D1's own words moved into its folder (designs/d1_castleman/findings.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from devtools.code_names import named_tokens

from resume_auditor.designs.base import Chart, KeyFigure, PageOne, ReportFigure
from resume_auditor.designs.d1_castleman.findings import min_resumes_to_flag
from resume_auditor.designs.registry import DESIGNS, by_label
from resume_auditor.report import figures, verdict
from resume_auditor.report.pairs import PAIRS

REPORT = Path(verdict.__file__).parent
# a design's key or label in a name or string token: "d1", "D2", d1_cells, _D1_TITLES
_NAMED = re.compile(r"(?<![A-Za-z0-9])[dD][1-9](?![A-Za-z0-9])")


def test_no_module_of_the_report_names_a_design_in_its_code() -> None:
    named = [
        f"{path.name}:{line}: {token[:60]}"
        for path in sorted(REPORT.glob("*.py"))
        for line, token in named_tokens(path.read_text(encoding="utf-8"), _NAMED)
    ]
    assert named == []


@pytest.mark.parametrize(
    ("groups", "alpha", "designs", "needed"),
    [
        # the sign-flip test's smallest p is 2 / 2^G; a gap test gets 80% of its
        # design's share of alpha over its groups (one group: all of it)
        (4, 0.05, 1, 8),  # share 0.01: 2/2^8 = 0.0078 < 0.01 <= 2/2^7
        (1, 0.05, 1, 6),  # share 0.05: 2/2^6 = 0.031
        (4, 0.05, 4, 10),  # share 0.0025: 2/2^10 = 0.00195
        (2, 0.2, 1, 5),  # share 0.08: 2/2^5 = 0.0625
        (0, 0.05, 1, None),
        (3, 1.0, 1, None),
    ],
)
def test_fewest_resumes_with_which_d1_can_flag(
    groups: int, alpha: float, designs: int, needed: int | None
) -> None:
    assert min_resumes_to_flag(groups, alpha, designs) == needed


def _gap(value: float, clusters: int) -> dict[str, Any]:
    return {"value": value, "ci": [value - 0.3, value + 0.3], "n": 40, "unit": "points",
            "clusters": clusters, "title": "Selection gap", "flag": None,
            "flag_test": None}  # fmt: skip


def _report(**blocks: Any) -> dict[str, Any]:
    base = {"counts": {"requests": 10, "answered": 10, "invalid": 0, "pairs": 40},
            "flags": [], "thresholds": [], "impact_ratio": {}}  # fmt: skip
    return base | blocks


def test_d1_says_on_page_1_when_its_size_cannot_flag_any_gap() -> None:
    d1 = {"metrics": {}, "selection_gap": {"black_woman": _gap(-0.2, 4), "white_man": _gap(0.2, 4)},
          "judgments": 40}  # fmt: skip
    v = verdict.build_verdict(_report(d1=d1))
    # two groups at alpha 0.05: share 0.02, so 2/2^G < 0.02 needs G = 7 resumes
    assert any(
        "with 4 source resumes, the group test cannot flag any gap" in s
        and "at least 7 across 2 groups" in s
        for s in v.sentences
    )
    assert v.tone == "caution" and "too small to test fairness" in v.headline


class _Extra(type(by_label()["D5"])):  # type: ignore[misc]
    """A design added to the registry that has things of its own to say on page 1."""

    key = "extra"
    label = "DX"
    title = "Extra (DX)"

    def block(self, metrics: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        return (metrics or {}).get("extra")

    def page_one(
        self,
        block: Mapping[str, Any] | None,
        *,
        thresholds: Mapping[str, float],
        designs: int,
        built: int | None,
    ) -> PageOne | None:
        if block is None:
            return PageOne(unanswered=("Made up: not tested — no extra block.",))
        metric = block["rate"]
        return PageOne(
            numbers=(KeyFigure("Made up", "How made up?", ("extra", "rate"), metric),),
            sentences=(("It made up {value} (95% CI {ci}).", metric),),
            problems=("it makes things up",),
            cautions=(("It hesitates.", "Use with caution: it hesitates."),),
        )

    def report_figures(
        self, block: Mapping[str, Any], thresholds: Mapping[str, float]
    ) -> list[ReportFigure]:
        items = [("Made up", block["rate"])]
        return [
            ReportFigure("extra_rate", "Made up", "Bar chart.", Chart("rates", "Made up", items))
        ]


def test_a_design_added_to_the_registry_speaks_on_page_1_and_draws_its_figures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    extra = _Extra()
    monkeypatch.setattr(verdict, "DESIGNS", (*DESIGNS, extra))
    monkeypatch.setattr(figures, "DESIGNS", (*DESIGNS, extra))
    rate = {"value": 0.25, "ci": [0.1, 0.4], "n": 40, "unit": "proportion", "title": "Made up"}
    v = verdict.build_verdict(_report(extra={"rate": rate}))
    assert v.tone == "concern" and "it makes things up" in v.headline
    assert "It made up 25% (95% CI 10%–40%)." in v.sentences
    assert "It hesitates." in v.sentences
    assert [k.title for k in v.key_numbers][:1] == ["Made up"]
    assert list(figures.build_figures(_report(extra={"rate": rate}))) == ["extra_rate"]
    v = verdict.build_verdict(_report())
    assert "Made up: not tested — no extra block." in v.sentences
    assert v.tone == "clear"


def test_the_pair_designs_are_the_ones_that_say_so() -> None:
    assert [d.label for d in PAIRS] == [d.label for d in DESIGNS if d.pairs] == ["D1"]
