"""Missing answers are measured, never hidden (issue 29, stats/missing.py).

- counts by status, group, position and prompt add up;
- the permutation test rejects a loss that falls on one group, does not flag an
  even loss more often than alpha, and cannot differ when every request shows
  every group;
- end to end: a model whose answers about one group cannot be read gets the flag
  in the metrics JSON, its list of flags and the report's first page.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from devtools.simulator import Simulator

from resume_auditor.cli import main
from resume_auditor.report.document import build_document
from resume_auditor.report.html import render_html
from resume_auditor.report.verdict import build_verdict
from resume_auditor.stats.flags import decide
from resume_auditor.stats.missing import compute_missing, status_of
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.metrics import metrics_report, shipped_thresholds
from tests.test_designs_e2e import SAMPLE

GROUPS = ["black_woman", "white_man", "asian_woman", "hispanic_man"]


def _rows(lost_share: dict[str, float], rng: np.random.Generator, per: int = 60) -> pd.DataFrame:
    """Single-candidate requests over 12 resumes, each group lost at its own rate."""
    rows: list[dict[str, Any]] = []
    request = 0
    for cluster in range(12):
        for group in GROUPS:
            for _ in range(per // 12):
                request += 1
                lost = rng.random() < lost_share[group]
                status = rng.choice(["unreadable", "refused"]) if lost else "read"
                rows.append(
                    {
                        "request": request,
                        "design": "D2",
                        "prompt": "d2-rating",
                        "cluster": cluster,
                        "position": 1,
                        "group": group,
                        "status": status,
                    }
                )
    return pd.DataFrame(rows)


def test_counts_add_up_by_status_group_position_and_prompt() -> None:
    rows = _rows({g: 0.2 for g in GROUPS}, np.random.default_rng(1))
    result = compute_missing(rows, draws=200)["D2"]
    assert result.requests == len(rows)
    assert sum(result.counts.values()) == result.requests
    assert sum(sum(c.values()) for c in result.by_group.values()) == result.requests
    assert set(result.by_position) == {"1"}
    assert result.by_prompt["d2-rating"] == result.counts
    block = result.as_dict()
    assert block["lost"] == result.counts["unreadable"] + result.counts["refused"]


def test_a_loss_that_falls_on_one_group_is_flagged() -> None:
    shares = {g: 0.02 for g in GROUPS} | {"black_woman": 0.3}
    result = compute_missing(_rows(shares, np.random.default_rng(2)), draws=500)["D2"]
    assert result.metric is not None and result.metric.test is not None
    decide([result.metric], shipped_thresholds())
    assert result.metric.test.p is not None and result.metric.test.p < 0.01
    assert "Black woman" in result.metric.flag and "may be biased" in result.metric.flag


def test_an_even_loss_is_flagged_no_more_often_than_alpha() -> None:
    rng = np.random.default_rng(3)
    flagged = 0
    runs = 60
    for _ in range(runs):
        result = compute_missing(_rows({g: 0.1 for g in GROUPS}, rng), rng=rng, draws=200)["D2"]
        assert result.metric is not None and result.metric.test is not None
        p = result.metric.test.p
        flagged += p is not None and p < 0.05
    assert flagged <= 0.05 * runs + 3  # binomial slack over 60 null audits


def test_requests_that_all_show_every_group_cannot_differ() -> None:
    """A D4 batch shows every group: losing it loses every group alike."""
    rows = []
    for request in range(40):
        status = "unreadable" if request % 3 == 0 else "read"
        for position, group in enumerate(GROUPS, start=1):
            rows.append(
                {
                    "request": request,
                    "design": "D4",
                    "prompt": "d4-rank",
                    "cluster": f"batch {request % 5}",
                    "position": position,
                    "group": group,
                    "status": status,
                }
            )
    result = compute_missing(pd.DataFrame(rows), draws=200)["D4"]
    assert result.metric is not None and result.metric.test is not None
    assert result.metric.test.p == 1.0
    assert set(result.by_position) == {"1", "2", "3", "4"}


@pytest.mark.parametrize(
    ("label", "parsed", "failed", "status"),
    [
        ("first", {}, False, "read"),
        ("partial", {"order": [2]}, False, "partial"),
        ("invalid", {"error": "no ranking found"}, False, "unreadable"),
        ("invalid", {"refused": "the model declined to rank"}, False, "refused"),
        (None, None, True, "failed"),
    ],
)
def test_status_of_a_stored_answer(
    label: str | None, parsed: dict[str, Any] | None, failed: bool, status: str
) -> None:
    assert status_of(label, parsed, failed=failed) == status


STUDY = """
format = 1
[study]
name = "Unreadable for one group"
seed = 5
[job]
file = "{job}"
[resumes]
files = ["{resumes}/01-jordan-ellery.pdf", "{resumes}/02-morgan-tate.pdf",
         "{resumes}/03-riley-castell.pdf"]
[run]
prompt = "d1-baseline"
[designs.d1]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
"""


def _black_women() -> list[str]:
    path = Path(__file__).resolve().parent.parent / "resources" / "names" / "names.csv"
    with path.open(encoding="utf-8") as fh:
        return [
            f"{r['first']} {r['last']}" for r in csv.DictReader(fh) if r["group"] == "black_woman"
        ]


def test_an_audit_whose_answers_about_one_group_cannot_be_read_is_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = _black_women()

    def policy(body: dict[str, Any]) -> str:
        text = json.dumps(body)
        if any(n in text or n.upper() in text for n in names):
            return "Both have merits; it depends on the team."
        pick = ("first", "second")[hashlib.sha256(text.encode()).digest()[0] % 2]
        return f"Resume is stronger. <answer>{pick}</answer>"

    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes"))
    out = tmp_path / "one-group.audit"
    with Simulator(policy=policy) as sim:
        args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", "m"]
        assert main(["audit", str(study), "--out", str(out), *args]) == 0
    with ResultFile(out) as result:
        report = metrics_report(result)
    block = report["missing"]["D1"]
    assert block["by_group"]["black_woman"]["unreadable"] > 0
    assert (
        block["by_group"]["white_man"]["unreadable"]
        < block["by_group"]["black_woman"]["unreadable"]
    )
    assert block["flag"] and block["flag"] in report["flags"]
    verdict = build_verdict(report)
    assert block["flag"] in verdict.flags
    assert verdict.tone in ("caution", "concern")
    assert any("unevenly" in s for s in verdict.sentences)
    capsys.readouterr()
    assert main(["metrics", str(out)]) == 0
    assert "Answers the metrics could not use:" in capsys.readouterr().out
    with ResultFile(out) as result:
        html = render_html(build_document(result, report))
    assert "Answers lost, by group" in html and "could not be used" in html
    # Without the missing-answer block (a report made before it existed) nothing says so.
    older = build_verdict({k: v for k, v in report.items() if k != "missing"})  # type: ignore[misc]
    assert not any("unevenly" in s for s in older.sentences)


def test_a_clear_verdict_becomes_a_caution_when_answers_were_lost_unevenly() -> None:
    from resume_auditor.report.verdict import _uneven_loss

    sentences: list[str] = []
    report: Any = {"missing": {"D2": {"flag": "D2: answers were lost unevenly by group"}}}
    tone, headline = _uneven_loss(report, "clear", "No problem found.", sentences)
    assert tone == "caution" and "may be biased" in headline and "D2" in sentences[0]
    assert _uneven_loss(report, "concern", "Do not rely on it.", [])[0] == "concern"
    assert _uneven_loss({"missing": {}}, "clear", "No problem found.", []) == (
        "clear",
        "No problem found.",
    )
