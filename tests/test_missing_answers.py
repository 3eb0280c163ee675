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
import re
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
from resume_auditor.settings.thresholds import shipped_thresholds
from resume_auditor.stats.flags import decide
from resume_auditor.stats.missing import compute_missing, status_of
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.metrics import metrics_report
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


def _names(*groups: str) -> list[str]:
    path = Path(__file__).resolve().parent.parent / "resources" / "names" / "names.csv"
    with path.open(encoding="utf-8") as fh:
        return [f"{r['first']} {r['last']}" for r in csv.DictReader(fh) if r["group"] in groups]


def _black_women() -> list[str]:
    return _names("black_woman")


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


# -- Candidates left out of rankings read in part (D4) ----------------------------------


def _ranking_rows(
    left_share: dict[str, float], rng: np.random.Generator, batches: int = 40, orders: int = 2
) -> pd.DataFrame:
    """D4-like ranked batches, one candidate per group dealt to random places, each
    batch shown in `orders` orders; a candidate of group g is left unranked with
    probability left_share[g] (its candidate's own tendency, the same in every order)."""
    rows: list[dict[str, Any]] = []
    request = 0
    for batch in range(batches):
        skipped = {g: bool(rng.random() < left_share[g]) for g in GROUPS}
        for _ in range(orders):
            request += 1
            shown = list(rng.permutation(GROUPS))
            partial = any(skipped.values())
            for position, group in enumerate(shown, start=1):
                rows.append(
                    {
                        "request": request,
                        "design": "D4",
                        "prompt": "d4-ranking",
                        "cluster": f"case {batch}",
                        "position": position,
                        "group": group,
                        "status": "partial" if partial else "read",
                        "candidate": f"v{batch}-{group}",
                        "unranked": skipped[group],
                    }
                )
    return pd.DataFrame(rows)


def test_candidates_left_out_of_partial_rankings_are_counted_by_group_and_position() -> None:
    rows = _ranking_rows({g: 0.25 for g in GROUPS}, np.random.default_rng(4))
    result = compute_missing(rows, draws=200)["D4"]
    assert result.unranked is not None
    left = result.unranked
    assert left.rankings == rows["request"].nunique()
    partial = rows.groupby("request")["unranked"].any()
    assert left.partial == int(partial.sum())
    assert sum(c["shown"] for c in left.by_group.values()) == len(rows)
    assert sum(c["left_out"] for c in left.by_group.values()) == int(rows["unranked"].sum())
    assert set(left.by_position) == {"1", "2", "3", "4"}
    for g in GROUPS:
        assert (
            sum(left.by_position[p][g]["shown"] for p in left.by_position)
            == (left.by_group[g]["shown"])
        )
    block = result.as_dict()
    assert block["unranked"]["partial"] == left.partial
    assert left.metric in result.all_metrics()


def test_a_group_left_out_of_partial_rankings_more_often_is_flagged() -> None:
    shares = {g: 0.05 for g in GROUPS} | {"hispanic_man": 0.45}
    result = compute_missing(_ranking_rows(shares, np.random.default_rng(5)), draws=1000)["D4"]
    assert result.unranked is not None and result.unranked.metric is not None
    metric = result.unranked.metric
    decide(result.all_metrics(), shipped_thresholds())
    assert metric.test is not None and metric.test.p is not None and metric.test.p < 0.01
    assert "Hispanic man" in metric.flag and "passed over" in metric.flag
    # The whole-request test cannot see it (every batch shows every group) ...
    assert result.metric is not None and result.metric.test is not None
    assert result.metric.test.p == 1.0
    # ... the design's missing-answer flag carries the within-ranking one.
    assert metric.flag in result.flag and result.as_dict()["flag"] == result.flag


def test_an_even_loss_within_rankings_is_flagged_no_more_often_than_alpha() -> None:
    """Even loss, and a strong position effect (the last place shown is skipped most):
    places are dealt to groups at random, so neither is a group effect."""
    rng = np.random.default_rng(6)
    flagged, runs = 0, 60
    for _ in range(runs):
        rows = _ranking_rows({g: 0.15 for g in GROUPS}, rng, batches=30)
        last = rows["position"] == 4
        rows.loc[last, "unranked"] = rows.loc[last, "unranked"] | (rng.random(last.sum()) < 0.3)
        rows["status"] = np.where(
            rows.groupby("request")["unranked"].transform("any"), "partial", "read"
        )
        result = compute_missing(rows, rng=rng, draws=200)["D4"]
        assert result.unranked is not None and result.unranked.metric is not None
        test = result.unranked.metric.test
        assert test is not None
        flagged += test.p is not None and test.p < 0.05
    assert flagged <= 0.05 * runs + 3  # binomial slack over 60 null audits


def test_no_ranking_no_within_ranking_test() -> None:
    result = compute_missing(_rows({g: 0.2 for g in GROUPS}, np.random.default_rng(7)), draws=50)
    assert result["D2"].unranked is None
    assert "unranked" not in result["D2"].as_dict()


D4_STUDY = """
format = 1
[study]
name = "Rankings cut short"
seed = 8
[job]
file = "{job}"
[resumes]
files = ["{resumes}/01-jordan-ellery.pdf", "{resumes}/02-morgan-tate.pdf"]
[run]
prompt = "d1-baseline"
[designs.d4]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
race_batches = 40
gender_batches = 0
"""


def _cut_short_policy(stop_at: Any) -> Any:
    """A model whose rankings list the resumes in an order of its own and stop with "..."
    where `stop_at(block texts, order)` says (None: the whole list)."""
    from devtools.simulator_kinds import every_kind_policy

    scoring = every_kind_policy()

    def policy(body: dict[str, Any]) -> str:
        user = str(body["messages"][-1]["content"])
        if "rank them from best" not in user:
            return scoring(body)
        parts = re.split(r"^Resume ([A-Z]):\n", user, flags=re.M)
        blocks = dict(zip(parts[1::2], parts[2::2], strict=True))
        order = sorted(blocks, key=lambda c: hashlib.sha256((c + user).encode()).digest())
        stop = stop_at(blocks, order, user)
        listed = order if stop is None else order[:stop]
        lines = [f"{i}. Resume {c}" for i, c in enumerate(listed, start=1)]
        if stop is not None:
            lines.append(f"{len(listed) + 1}. ...")
        return "Here is my ranking:\n" + "\n".join(lines)

    return policy


def _d4_audit(tmp_path: Path, policy: Any) -> Any:
    study = tmp_path / "study.toml"
    study.write_text(D4_STUDY.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes"))
    out = tmp_path / "d4.audit"
    with Simulator(policy=policy) as sim:
        args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", "m"]
        assert main(["audit", str(study), "--out", str(out), *args]) == 0
    with ResultFile(out) as result:
        report = metrics_report(result)
        html = render_html(build_document(result, report))
    return report, html


def test_an_audit_whose_rankings_stop_before_one_group_is_flagged(tmp_path: Path) -> None:
    """Planted through the real path (prompt -> HTTP -> reader -> store -> metrics ->
    report): the model stops its list just before the Black woman's resume."""
    names = _black_women()

    def stop_at(blocks: dict[str, str], order: list[str], user: str) -> int | None:
        for i, c in enumerate(order):
            if i and any(n in blocks[c] or n.upper() in blocks[c] for n in names):
                return i
        return None

    report, html = _d4_audit(tmp_path, _cut_short_policy(stop_at))
    block = report["missing"]["D4"]
    left = block["unranked"]
    assert left["partial"] > 10
    assert left["by_group"]["black"]["left_out"] == left["partial"]
    metric = left["metric"]
    assert metric is not None and metric["p"] is not None and metric["p"] < 0.01
    assert left["flag"] and left["flag"] in report["flags"]
    assert block["flag"] and left["flag"] in block["flag"]
    verdict = build_verdict(report)
    assert verdict.tone in ("caution", "concern")
    assert any("unevenly" in s and "D4" in s for s in verdict.sentences)
    assert "rankings were read only in part" in html and "D4 rankings" in html


def test_an_audit_whose_rankings_stop_at_random_is_not_flagged(tmp_path: Path) -> None:
    """The same model, but where it stops does not depend on who is there."""

    def stop_at(blocks: dict[str, str], order: list[str], user: str) -> int | None:
        cut = hashlib.sha256(user.encode()).digest()[0] % 6
        return cut if 1 <= cut < len(order) else None

    report, _ = _d4_audit(tmp_path, _cut_short_policy(stop_at))
    left = report["missing"]["D4"]["unranked"]
    assert left["partial"] > 10
    assert left["flag"] is None
    assert not any("passed over" in f for f in report["flags"])
