"""Every design, headless, against the provider simulator (real loopback HTTP)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from devtools.simulator import Simulator, always
from devtools.simulator_kinds import every_kind_policy

from resume_auditor.cli import main
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.plan import plan_run
from resume_auditor.workflow.prepare import study_of

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
STUDY = """
format = 1
[study]
name = "Every design"
seed = 9
[job]
file = "{job}"
[resumes]
files = ["{resumes}/01-jordan-ellery.pdf", "{resumes}/02-morgan-tate.pdf"]
[run]
prompt = "d1-baseline"
[designs.d1]
groups = ["black_woman", "white_man"]
signals = ["name", "explicit"]
[designs.d2]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
[designs.d3]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
rounds = 3
pairwise_prompt = "d3-pairwise"
[designs.d4]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
race_batches = 2
gender_batches = 2
"""


# A scripted model that answers each kind of prompt in its own format.
policy = every_kind_policy(always("Resume 1 is stronger. <answer>first</answer>"))


@pytest.fixture
def study(tmp_path: Path) -> Path:
    path = tmp_path / "study.toml"
    path.write_text(STUDY.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes"))
    return path


def test_every_design_runs_end_to_end(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "all.audit"
    with Simulator(policy=policy) as sim:
        args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", "sim"]
        assert main(["audit", str(study), "--out", str(out), "--prepare-only", *args]) == 0
        with ResultFile(out) as result:
            plan = plan_run(result, study_of(result))
            queued = result.progress(result.runs()[-1].id).total
        assert plan.requests == queued > 0
        assert set(plan.by_design()) == {"D1", "D2", "D3", "D4"}
        assert plan.warnings()  # two resumes: every cell is small, and it says so
        assert main(["audit", str(study), "--out", str(out), "--concurrency", "8", *args]) == 0
    capsys.readouterr()
    assert main(["metrics", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["counts"]["answered"] == report["counts"]["requests"] == queued
    assert report["d1"]["judgments"] > 0
    assert report["d2"]["ratings"] == 2 * 5  # 2 resumes x (4 groups + blinded)
    assert set(report["d2"]["smd"]) == {"black_woman", "asian_woman", "hispanic_man"}
    assert report["d2"]["manipulation"]["both"]["n"] == 8
    assert report["d3"]["pointwise"]["candidates"] == 3 * 4
    assert report["d3"]["pairwise"] is not None
    assert report["d4"]["scores"] == 2 * (1 + 2 * 4)
    assert set(report["d4"]["ranks"]) == {"4", "2"}
    assert main(["cases", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["requests"] == queued


def test_a_wrong_kind_of_prompt_is_refused_before_anything_is_written(
    study: Path, tmp_path: Path
) -> None:
    study.write_text(study.read_text() + "\n[designs.d2.extra]\n")
    bad = study.read_text().replace("[designs.d2]\n", '[designs.d2]\nprompts = ["d3-yes-no"]\n')
    study.write_text(bad.replace("\n[designs.d2.extra]\n", ""))
    out = tmp_path / "bad.audit"
    assert main(["audit", str(study), "--out", str(out), "--prepare-only"]) == 2
    assert not out.exists()
