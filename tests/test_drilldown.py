"""From a number to the answers behind it, on a real audit with every design answered."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from report_fixtures import original_identities
from results_fixtures import REAL_NAME

from resume_auditor.domain.groups import group_label
from resume_auditor.report.numbers import get_path
from resume_auditor.report.terms import TERMS, term_for
from resume_auditor.stats.labels import label
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.drilldown import AnswerIndex, answers_behind
from resume_auditor.workflow.metrics import metrics_report


@pytest.fixture(scope="module")
def audit(all_designs_audit: Path) -> Iterator[ResultFile]:
    """The audit with every design answered, read in memory (nothing here writes)."""
    with ResultFile.in_memory(all_designs_audit) as result:
        yield result


@pytest.fixture(scope="module")
def metrics(audit: ResultFile) -> dict[str, Any]:
    return metrics_report(audit)


@pytest.fixture(scope="module")
def index(audit: ResultFile, metrics: dict[str, Any]) -> AnswerIndex:
    return AnswerIndex.load(audit, int(metrics["run"]["id"]), metrics)


def metric_paths(data: Any, path: list[str]) -> Iterator[tuple[list[str], dict[str, Any]]]:
    if isinstance(data, dict):
        if "value" in data and "title" in data:
            yield path, data
            return
        for key, value in data.items():
            yield from metric_paths(value, [*path, str(key)])


def readable(rows: list[Any]) -> int:
    return sum(1 for r in rows if r.readable)


def test_the_audit_answered_every_design(metrics: dict[str, Any]) -> None:
    assert all(metrics.get(d) for d in ("d1", "d2", "d3", "d4"))


def test_every_number_of_every_design_leads_to_answers(
    index: AnswerIndex, metrics: dict[str, Any]
) -> None:
    seen = set()
    for top in ("d1", "impact_ratio", "d2", "d3", "d4"):
        for path, metric in metric_paths(metrics[top], [top]):
            if not metric.get("n"):
                continue
            found = index.behind(path)
            assert found.rows, f"no answers behind {'.'.join(path)}"
            assert found.title
            assert {r.design for r in found.rows} == {
                "D1" if top in ("d1", "impact_ratio") else top.upper()
            }
            seen.add(top)
    assert seen == {"d1", "impact_ratio", "d2", "d3", "d4"}


@pytest.mark.parametrize(
    "path",
    [
        ["d1", "metrics", "criterion_validity"],
        ["d1", "metrics", "discrim_validity"],
        ["d1", "metrics", "first_position_rate"],
        ["d2", "manipulation", "both"],
    ],
)
def test_the_answers_are_exactly_the_numbers_denominator(
    index: AnswerIndex, metrics: dict[str, Any], path: list[str]
) -> None:
    metric = get_path(metrics, path)
    assert readable(index.behind(path).rows) == metric["n"] > 0


def test_group_numbers_count_the_groups_answers(
    index: AnswerIndex, metrics: dict[str, Any]
) -> None:
    for group, metric in metrics["d1"]["selection_rate"].items():
        rows = index.behind(["d1", "selection_rate", group]).rows
        assert readable(rows) == metric["n"]
        for r in rows:  # an equal pair across groups, one of them this group's
            groups = [s for s in r.shown if f"({group_label(group)}" in s]
            assert r.what.startswith("Equal pair") and len(groups) == 1
    for grouping, cells in metrics["impact_ratio"].items():
        if grouping not in ("sex", "race", "intersectional"):
            continue
        for cat, metric in cells.items():
            rows = index.behind(["impact_ratio", grouping, cat]).rows
            assert readable(rows) == metric["n"], (grouping, cat)
    for threshold, kinds in metrics["d2"]["impact_ratio"].items():
        for kind, cells in kinds.items():
            for key, metric in cells.items():
                path = ["d2", "impact_ratio", threshold, kind, key]
                assert readable(index.behind(path).rows) == metric["n"], path


def test_mistakes_split_into_the_two_kinds(index: AnswerIndex, metrics: dict[str, Any]) -> None:
    mistakes = index.behind(["d1", "metrics", "unjustified_selection"]).rows
    assert len(mistakes) == metrics["d1"]["metrics"]["unjustified_selection"]["n"]
    picked = [r for r in mistakes if r.answer in ("first", "second")]
    abstained = [r for r in mistakes if r.answer == "abstain"]
    assert len(picked) == metrics["d1"]["metrics"]["unjustified_selection"]["successes"]
    assert len(abstained) == metrics["d1"]["metrics"]["unjustified_abstention"]["successes"]


def test_a_comparison_with_the_reference_lists_both_groups(
    index: AnswerIndex, metrics: dict[str, Any]
) -> None:
    ref = label(metrics["d2"]["reference"])
    for group in metrics["d2"]["smd"]:
        rows = index.behind(["d2", "smd", group]).rows
        shown = {s.split("(", 1)[1].rstrip(")") for r in rows for s in r.shown}
        assert shown == {label(group), ref}
        assert all(r.parsed.startswith("Rated ") for r in rows if r.readable)


def test_d4_differences_and_ranks(index: AnswerIndex, metrics: dict[str, Any]) -> None:
    rows = index.behind(["d4", "differences", "name", "overall", "black_woman"]).rows
    roles = {s for r in rows for s in r.shown}
    assert any("no name" in s for s in roles) and any("Black woman, name" in s for s in roles)
    for size, cells in metrics["d4"]["ranks"].items():
        for group in cells:
            ranked = index.behind(["d4", "ranks", size, group]).rows
            assert ranked and all(len(r.shown) == int(size) for r in ranked)
            assert all(r.parsed.startswith("1. ") for r in ranked if r.readable)


def test_d3_pool_scores(index: AnswerIndex, metrics: dict[str, Any]) -> None:
    for group in metrics["d3"]["pointwise"]["rabbi"]:
        rows = index.behind(["d3", "pointwise", "rabbi", group]).rows
        assert rows and all(r.what.startswith("Yes/No") for r in rows)
        assert all(r.source.startswith("Resume") for r in rows)


def test_a_number_without_answers_says_so(index: AnswerIndex, metrics: dict[str, Any]) -> None:
    found = index.behind(["counts", "answered"])
    assert found.rows == [] and found.note
    assert "black_man" not in metrics["d2"]["smd"]  # a group this study did not rate
    assert index.behind(["d2", "smd", "black_man"]).rows == []


def test_the_model_repeating_a_real_name_is_masked(
    audit: ResultFile, index: AnswerIndex, metrics: dict[str, Any]
) -> None:
    assert REAL_NAME in original_identities(audit)  # the fixture names a real candidate
    rows = index.behind(["d1", "metrics", "order_consistency"]).rows
    rows += index.behind(["d2", "smd", "black_woman"]).rows
    assert any("[Resume" in r.justification for r in rows)
    identities = original_identities(audit)
    for r in rows:
        text = " ".join([r.justification, r.parsed, *r.shown, r.source])
        assert not any(identity in text for identity in identities)


def test_one_call_for_one_number(audit: ResultFile, metrics: dict[str, Any]) -> None:
    found = answers_behind(audit, int(metrics["run"]["id"]), ["d2", "manipulation", "race"])
    assert found.rows and all(r.parsed.startswith("Perceived: ") for r in found.rows)


def test_every_number_on_screen_has_plain_words_and_the_papers_term(
    metrics: dict[str, Any],
) -> None:
    for top in ("d1", "impact_ratio", "d2", "d3", "d4"):
        for path, _metric in metric_paths(metrics[top], [top]):
            if path[:2] == ["d1", "power"]:
                continue
            term = term_for(path)
            assert term is not None, path
            assert term.paper and term.meaning.endswith(".")
            assert "Validity" not in term.label  # no paper jargon in the plain label
    assert all(t.label and t.meaning and t.paper for t in TERMS.values())
