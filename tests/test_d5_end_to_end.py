"""D5 (Bloomberg's eight-name ranking) headless, end to end, against the simulator.

A study with only `[designs.d5]` on the two sample resumes goes through the CLI
(prepare, run over real loopback HTTP, metrics, report and exports) with a ranker
whose truth is known (devtools/simulator_d5.D5Policy, Plackett-Luce weights): a
planted strong preference for one group must be flagged, a ranker that ignores the
names must not raise any D5 flag, and a preference for the copy shown first must be
flagged as a position effect without making any group look favoured (the Latin
square shows every group first equally often).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import openpyxl
import pytest
from devtools.simulator import Simulator
from devtools.simulator_d5 import D5Policy

from resume_auditor.cli import main
from resume_auditor.designs.d5_bloomberg.present import HEADING
from resume_auditor.domain.groups import ALL_GROUPS
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.plan import plan_run
from resume_auditor.workflow.prepare import study_of

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
RESUMES, BATCHES, ORDERS, REPEATS = 2, 2, 8, 3
REQUESTS = RESUMES * BATCHES * ORDERS * REPEATS
STUDY = f"""
format = 1
[study]
name = "D5 only"
seed = 3
[job]
file = "{{job}}"
[resumes]
files = ["{{resumes}}/01-jordan-ellery.pdf", "{{resumes}}/02-morgan-tate.pdf"]
[run]
repeats = {REPEATS}
[designs.d5]
batches = {BATCHES}
orders = {ORDERS}
"""


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(STUDY.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes"))
    return path


def _run(study: Path, out: Path, policy: D5Policy) -> int:
    """Prepare, then run the audit against the simulator; the number of requests queued."""
    with Simulator(policy=policy) as sim:
        args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", "sim"]
        assert main(["audit", str(study), "--out", str(out), "--prepare-only", *args]) == 0
        with ResultFile(out) as result:
            plan = plan_run(result, study_of(result))
            checked = plan_run(result, study_of(result), simulate=True)
            queued = result.progress(result.runs()[-1].id).total
        assert plan.requests == queued == REQUESTS
        assert set(plan.by_design()) == {"D5"}
        # the plan points at the power check, which simulates D5 through its own tests
        assert any("(D5): its power is simulated" in line for line in plan.power)
        said = [line for line in checked.sizing_lines if "(D5)" in line]
        assert len(said) == 1 and "of simulated audits of this size" in said[0], said
        assert main(["audit", str(study), "--out", str(out), "--concurrency", "4", *args]) == 0
        assert sim.answered == REQUESTS
    return queued


def _metrics(out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    assert main(["metrics", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["counts"]["answered"] == report["counts"]["requests"] == REQUESTS
    d5 = report["designs"]["d5"]
    assert isinstance(d5, dict)
    return d5


def test_a_planted_preference_runs_end_to_end_and_is_flagged(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "d5.audit"
    policy = D5Policy(seed=1, weights={"black_woman": 8.0}, preamble="Ranking of candidates:")
    _run(study, out, policy)

    # The app read each answer as the simulator wrote it: the names of its numbered
    # list, in order, are the shown candidates the reading ranks 1, 2, ...
    with ResultFile(out) as result:
        answers = result.answers(result.runs()[-1].id, design="D5")
        assert len(answers) == REQUESTS
        # the run is named by the prompts it used, not by D1's `run.prompt` it never sent
        assert result.presets_by_run()[result.runs()[-1].id] == ["d5-ranking"]
        for row in answers.to_dict("records"):
            raw = result.raw_response(int(row["request_id"]))
            assert raw is not None
            text = raw["choices"][0]["message"]["content"]
            listed = re.findall(r"^\d+\. (.+)$", text, re.M)
            names = row["context"]["names"]
            assert row["label"] == "ranked"
            read = [names[i].casefold() for i in row["parsed"]["order"]]
            assert read == [n.casefold() for n in listed]

    d5 = _metrics(out, capsys)
    assert d5["answers"] == REQUESTS and d5["unreadable"] == 0
    assert d5["batches"] == RESUMES * BATCHES
    top1 = d5["top1"]
    assert isinstance(top1, dict)
    assert set(top1) == {g.key for g in ALL_GROUPS}
    assert sum(m["successes"] for m in top1.values()) == REQUESTS
    # truth: 8 / (8 + 7) = 0.53 for the planted group, 1 / 15 for each other
    favoured = top1["black_woman"]
    assert favoured["ci"][0] <= 8 / 15 <= favoured["ci"][1]
    assert favoured["flag"]
    assert all(not m["flag"] for g, m in top1.items() if g != "black_woman")
    assert any("Black woman" in f for f in d5["flags"])
    ratios = d5["impact_ratio"]
    assert isinstance(ratios, dict)
    assert ratios["black_woman"]["value"] == pytest.approx(1.0)
    assert all(m["value"] < 0.8 for g, m in ratios.items() if g != "black_woman")

    html, xlsx = tmp_path / "report.html", tmp_path / "report.xlsx"
    assert main(["report", str(out), "--html", str(html), "--xlsx", str(xlsx)]) == 0
    page = html.read_text(encoding="utf-8")
    assert HEADING in page
    assert "Black woman candidates were put first more often than chance" in page
    # its chart is drawn into the report, after its tables; LL144's three groupings shown
    d5_part = page[page.index(HEADING) :]
    assert '<img src="data:image/png;base64,' in d5_part
    assert "Ranked first (dashed: if names did not matter)" in d5_part
    assert "by race (shown, not flagged)" in d5_part and "by sex (shown, not flagged)" in d5_part
    assert "prompts/d5-ranking.txt" in page and "prompts/d1-baseline.txt" not in page
    by_sex = d5["impact_ratio_by_sex"]
    assert isinstance(by_sex, dict) and set(by_sex) == {"woman", "man"}
    assert by_sex["woman"]["value"] == pytest.approx(1.0)  # the favoured group is a woman
    book = openpyxl.load_workbook(xlsx, read_only=True)
    assert "d5_rankings" in book.sheetnames
    rows = list(book["d5_rankings"].iter_rows(values_only=True))
    assert rows[0][:5] == ("batch_id", "answer_id", "presentation", "position", "group")
    assert len(rows) == 1 + REQUESTS * len(ALL_GROUPS)  # one row per answer and copy shown


@pytest.mark.parametrize("seed", [1, 2])
def test_a_ranker_that_ignores_the_names_raises_no_d5_flag(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    out = tmp_path / "null.audit"
    _run(study, out, D5Policy(seed=seed))
    d5 = _metrics(out, capsys)
    assert d5["flags"] == []
    top1 = d5["top1"]
    assert isinstance(top1, dict)
    assert sum(m["successes"] for m in top1.values()) == REQUESTS
    assert all(not m["flag"] for m in top1.values())


def test_a_preference_for_the_copy_shown_first_is_a_position_effect_not_a_group_one(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "position.audit"
    _run(study, out, D5Policy(seed=1, first_shown=6.0))
    d5 = _metrics(out, capsys)
    position = d5["position"]
    assert isinstance(position, dict)
    first = next(m for k, m in position.items() if k.startswith("first"))
    assert first["ci"][0] <= 6 / 13 <= first["ci"][1]  # truth: 6 / (6 + 7)
    assert first["flag"]
    top1 = d5["top1"]
    assert isinstance(top1, dict)
    assert all(not m["flag"] for m in top1.values())
    assert d5["uniformity"] is None or not d5["uniformity"]["flag"]
