"""The HTML report: its sections, and every number it prints equal to `metrics --json`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from devtools import synthetic
from markupsafe import escape
from report_fixtures import copy_audit, original_identities, parse_report

from resume_auditor.cli import main
from resume_auditor.designs.d2_correspondence.stats import compute_d2
from resume_auditor.designs.d3_rabbi.stats import compute_d3
from resume_auditor.designs.d4_faire.stats import compute_d4
from resume_auditor.report.document import build_document
from resume_auditor.report.html import field_text, render_html
from resume_auditor.report.numbers import get_path
from resume_auditor.report.verdict import build_verdict
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.design_tables import pair_table
from resume_auditor.workflow.metrics import metrics_report

SECTIONS = ["summary", "method", "validity", "fairness", "examples", "limitations", "appendix"]


@pytest.fixture(scope="module")
def audit(sample_audit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file of the sample study answered by a biased simulated model, by two models
    (two runs), for the commands; the other tests read it in memory (`sample_memory`)."""
    return copy_audit(sample_audit, tmp_path_factory.mktemp("audit") / "sample.audit")


def _metrics_json(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> Any:
    capsys.readouterr()
    assert main(["metrics", str(path), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _check_numbers(html: str, metrics: dict[str, Any]) -> int:
    """Every printed number equals the metric it names, to the last digit."""
    parsed = parse_report(html)
    assert parsed.numbers, "the report carries no checkable numbers"
    for path, field, raw, text in parsed.numbers:
        metric = get_path(metrics, path)
        assert json.loads(raw) == metric.get(field), (path, field)
        assert text == field_text(metric, field), (path, field, text)
    return len(parsed.numbers)


def test_every_number_in_the_report_is_the_metrics_json(
    audit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = _metrics_json(audit, capsys)
    out = tmp_path / "report.html"
    assert main(["report", str(audit), "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    parsed = parse_report(html)
    assert json.loads(parsed.script) == metrics  # the embedded numbers are the JSON's
    checked = _check_numbers(html, metrics)
    paths = {tuple(p) for p, *_ in parsed.numbers}
    for needed in (
        ("d1", "metrics", "criterion_validity"),
        ("d1", "metrics", "discrim_validity"),
        ("impact_ratio", "sex", "woman"),
        ("impact_ratio", "race", "black"),
        ("impact_ratio", "intersectional", "black_woman"),
        ("error_agreement", "0", "metrics", "error_agreement"),
    ):
        assert needed in paths, needed
    assert checked > 100
    # A number a reader sees on page one, written out by hand.
    cv = metrics["d1"]["metrics"]["criterion_validity"]
    assert f"{100 * cv['value']:.0f}%" in html.split('id="method"')[0]


def test_an_earlier_run_can_be_reported(
    audit: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    metrics = _metrics_json(audit, capsys, "--run", "1")
    out = tmp_path / "run1.html"
    assert main(["report", str(audit), "--run", "1", "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert json.loads(parse_report(html).script)["run"]["model"] == "sim-model"
    _check_numbers(html, metrics)


def test_sections_page_one_and_self_contained(sample_memory: ResultFile) -> None:
    result = sample_memory
    metrics = metrics_report(result)
    doc = build_document(result, metrics)
    said = dict(
        zip(
            *pair_table(result, result.answers(metrics["run"]["id"], design="D1"))[
                ["request_id", "justification"]
            ].T.values,
            strict=True,
        )
    )
    html = render_html(doc)
    parsed = parse_report(html)
    assert [i for i in parsed.ids if i in SECTIONS] == SECTIONS
    page_one = html.split('<section id="method">')[0]
    verdict = build_verdict(metrics)
    assert verdict.headline in page_one
    assert len(re.findall(r'class="card(?: flagged)?"', page_one)) == 3
    for flag in metrics["flags"]:
        assert flag in page_one
    # Self-contained: every image inlined, nothing fetched from elsewhere.
    assert len(parsed.images) >= 4
    assert all(src.startswith("data:image/png;base64,") for src in parsed.images)
    assert "http://" not in html.replace(metrics["run"]["base_url"], "")
    assert "<link" not in html
    # Method: the prompt verbatim, the model version the server reported.
    assert "{resume_1}" in html and "Appendix G" in html
    assert "sim-other fp_sim" in html
    # Limitations and reproducibility.
    for words in ("Necessary, not sufficient", "Binary gender", "Names are only signals"):
        assert words in html
    assert "settings/study.json" in html and "inputs/resumes/resume-01.txt" in html
    # Examples of each kind of mistake, in the model's own words.
    assert {ex.kind for ex in doc.examples} == {"wrong", "abstained", "arbitrary"}
    assert "Picked the less qualified candidate" in html
    for ex in doc.examples:
        assert ex.answers
        for answer in ex.answers:
            assert answer.justification == " ".join(said[answer.request_id].split())
            assert str(escape(answer.justification)) in html


def test_no_real_candidate_in_the_report(sample_memory: ResultFile) -> None:
    result = sample_memory
    html = render_html(build_document(result, metrics_report(result)))
    for identity in original_identities(sample_memory):
        assert identity not in html


def test_model_text_is_shown_as_text(sample_memory: ResultFile) -> None:
    result = sample_memory
    doc = build_document(result, metrics_report(result))
    doc.examples[0].answers[0].justification = '<script>alert("x")</script><b>picked</b>'
    html = render_html(doc)
    assert '<script>alert("x")' not in html
    assert "&lt;script&gt;alert(" in html


def _with_later_designs(metrics: dict[str, Any]) -> dict[str, Any]:
    rng = np.random.default_rng(11)
    out = dict(metrics)
    out["d2"] = compute_d2(
        synthetic.d2_ratings(rng, clusters=24, effects={"black_woman": -0.6}), rng=1
    ).as_dict()
    out["d3"] = compute_d3(
        synthetic.d3_pointwise(rng, pools=60), synthetic.d3_pairwise(rng, pools=20), rng=1
    ).as_dict()
    out["d4"] = compute_d4(synthetic.d4_scores(rng), synthetic.d4_rankings(rng)).as_dict()
    return json.loads(json.dumps(out))


def test_later_designs_get_their_sections_when_present(sample_memory: ResultFile) -> None:
    result = sample_memory
    metrics = _with_later_designs(metrics_report(result))
    html = render_html(build_document(result, metrics))
    for heading in (
        "Design D2",
        "Impact ratios (D2)",
        "Design D3",
        "Design D4",
    ):
        assert heading in html
    parsed = parse_report(html)
    designs = {p[0] for p, *_ in parsed.numbers}
    assert {"d1", "d2", "d3", "d4", "impact_ratio"} <= designs
    _check_numbers(html, metrics)
    assert any(i.startswith("data:image/png") for i in parsed.images)
    for flag in metrics["d2"]["flags"]:
        assert flag in html.split('<section id="method">')[0]


def _bare(**counts: int) -> dict[str, Any]:
    base = {"requests": 10, "answered": 10, "invalid": 0}
    return {"counts": base | counts, "flags": [], "thresholds": [], "d1": {}, "impact_ratio": {}}


def _metric(value: float, flag: str = "") -> dict[str, Any]:
    return {
        "value": value,
        "ci": [value - 0.1, min(1.0, value + 0.05)],
        "n": 40,
        "unit": "proportion",
        "flag": flag or None,
        "clusters": 10,
    }


def test_verdict_in_plain_words() -> None:
    nothing = build_verdict(_bare(answered=0))
    assert nothing.tone == "none" and "not answered" in nothing.headline
    fine = _bare()
    fine["d1"] = {
        "metrics": {"criterion_validity": _metric(0.98), "discrim_validity": _metric(0.95)}
    }
    verdict = build_verdict(fine)
    assert verdict.tone == "clear" and "necessary, not sufficient" in verdict.headline
    assert [k.title for k in verdict.key_numbers][:2] == [
        "Picks the more qualified candidate",
        "Treats equal candidates as equal",
    ]
    bad = _bare(answered=6)
    bad["d1"] = {
        "metrics": {"criterion_validity": _metric(0.7, "CV low"), "discrim_validity": _metric(0.95)}
    }
    bad["flags"] = ["CV low"]
    verdict = build_verdict(bad)
    assert verdict.tone == "concern" and "does not judge qualifications" in verdict.headline
    assert verdict.preliminary.startswith("Preliminary: 6 of 10")
    assert verdict.flags == ["CV low"]
    unfair = _bare()
    unfair["d1"] = {
        "metrics": {"criterion_validity": _metric(0.98)},
        "selection_gap": {"black_woman": _metric(-0.3, "gap")},
    }
    verdict = build_verdict(unfair)
    assert verdict.tone == "concern" and "race or gender" in verdict.headline
    assert verdict.key_numbers[-1].path == ["d1", "selection_gap", "black_woman"]


def test_a_clean_audit_too_small_to_test_fairness_says_so() -> None:
    small = _bare()
    gap = _metric(0.0) | {"unit": "points", "clusters": 4}
    small["d1"] = {
        "metrics": {"criterion_validity": _metric(0.98), "discrim_validity": _metric(0.95)},
        "selection_gap": {"black_woman": gap, "white_man": gap},
    }
    small["thresholds"] = [{"key": "group_gap_alpha", "value": 0.05}]
    verdict = build_verdict(small)
    assert verdict.tone == "caution" and "too small to test fairness" in verdict.headline
    assert any("cannot flag any gap" in s for s in verdict.sentences)
    big = json.loads(json.dumps(small))
    for m in big["d1"]["selection_gap"].values():
        m["clusters"] = 12
    big["d1"]["power"] = {"min_detectable_gap": 0.2}
    verdict = build_verdict(big)
    assert verdict.tone == "clear"
    assert any("about 20 points" in s for s in verdict.sentences)


def test_examples_show_a_few_answers_and_count_the_rest(
    sample_memory: ResultFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("resume_auditor.report.examples.SHOWN_ANSWERS", 1)
    result = sample_memory
    doc = build_document(result, metrics_report(result))
    assert doc.examples
    for ex in doc.examples:
        assert len(ex.answers) == 1 and ex.answers[0].order == "A shown first"
        assert ex.more.startswith("1 more answer to this test case: 1 ")
    assert str(escape(doc.examples[0].more)) in render_html(doc)


def test_one_unreadable_count_and_unreadable_designs_are_said(sample_memory: ResultFile) -> None:
    """The fixture model answers only the D1 format: every D2-D4 answer is unreadable."""
    result = sample_memory
    metrics = metrics_report(result)
    html = render_html(build_document(result, metrics))
    invalid = metrics["counts"]["invalid"]
    assert invalid > metrics["d1"]["invalid"]  # the D2-D4 answers count too
    said = {int(n) for n in re.findall(r"(\d+) answer\(s\) could not be read", html)}
    assert said == {invalid}
    d4 = html.split("Design D4")[1]
    assert "could not be read" in d4.split("</section>")[0]
    assert "n/a of the time" not in html


def test_page_one_shows_the_lowest_impact_ratio() -> None:
    metrics = _bare()
    metrics["d1"] = {"selection_gap": {"black_woman": _metric(-0.1)}}
    metrics["impact_ratio"] = {
        "sex": {"woman": {**_metric(0.58), "not_significant": True}},
        "race": {"black": _metric(0.73)},
        "intersectional": {"black_woman": _metric(0.85)},
    }
    verdict = build_verdict(metrics)
    fairness = next(k for k in verdict.key_numbers if k.title == "Treats groups alike")
    assert "0.58" in fairness.detail and "not significant" in fairness.detail
