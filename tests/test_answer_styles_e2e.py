"""Study -> simulator over HTTP answering in JSON and markdown styles -> stored labels -> D1.

A known group-blind policy (the resume that uses more of the job description's
words wins; between equals it abstains or, for some resumes, picks the first, so
DiscrimValidity is neither 0 nor 1) answers every pair in one of the styles real
models write, with a justification that discusses the other resume. Every stored
label must be the one the policy meant, and the D1 metrics must be exactly those
of the same policy answering in the requested <answer> tags.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from devtools.simulator import Simulator
from devtools.simulator_styles import (
    PAIRWISE_STYLES,
    RATING_STYLES,
    YES_NO_STYLES,
    StyledPolicy,
    leaning_choice,
    render_pairwise,
    render_rating,
    render_yes_no,
)

from resume_auditor.cli import main
from resume_auditor.prompts import read_answer
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.design_tables import pair_table

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
STUDY = """
format = 1
[study]
name = "Answer styles"
seed = 5
[job]
file = "{job}"
[resumes]
files = ["{resumes}/01-jordan-ellery.pdf", "{resumes}/02-morgan-tate.pdf"]
[run]
prompt = "d1-baseline"
[designs.d1]
groups = ["black_woman", "white_man"]
signals = ["name"]
"""
STYLES = (
    "json",
    "json_fenced",
    "json_trailing",
    "json_single",
    "markdown",
    "markdown_heading",
    "final_line",
)


def _audit(study: Path, out: Path, policy: StyledPolicy, capsys: Any) -> dict[str, Any]:
    with Simulator(policy=policy) as sim:
        args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", "sim"]
        assert main(["audit", str(study), "--out", str(out), "--concurrency", "4", *args]) == 0
    capsys.readouterr()
    assert main(["metrics", str(out), "--json"]) == 0
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return report


def _misreads(out: Path, policy: StyledPolicy) -> tuple[int, int, dict[str, int]]:
    """(answers, answers stored with another label than the policy meant, labels meant)."""
    with ResultFile(out) as rf:
        frame = pair_table(rf, rf.answers(rf.runs()[-1].id, design="D1"))
        bodies = {int(r): rf.request_body(int(r)) for r in frame["request_id"]}
    wrong, meant_counts = 0, {}
    for row in frame.itertuples():
        body = bodies[int(row.request_id)]
        assert body is not None
        meant = policy.meant_for(body)
        assert meant is not None, "a stored answer the policy never gave"
        meant_counts[meant] = meant_counts.get(meant, 0) + 1
        wrong += row.label != meant
    return len(frame), wrong, meant_counts


def test_json_and_markdown_answers_are_stored_as_meant_and_d1_is_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes"))
    styled = StyledPolicy(styles=STYLES, decide=leaning_choice)
    report = _audit(study, tmp_path / "styled.audit", styled, capsys)
    answers, wrong, meant = _misreads(tmp_path / "styled.audit", styled)
    assert answers > 0 and wrong == 0
    assert report["counts"]["answered"] == report["counts"]["requests"] == answers
    # The policy really chose both ways and abstained, in several styles.
    assert set(meant) == {"first", "second", "abstain"}, meant
    assert len(styled.styles_used) >= 4, styled.styles_used

    tagged = StyledPolicy(styles=("tag",), decide=leaning_choice)
    baseline = _audit(study, tmp_path / "tagged.audit", tagged, capsys)
    assert _misreads(tmp_path / "tagged.audit", tagged)[1] == 0
    assert report["d1"] == baseline["d1"]
    assert report["d1"]["judgments"] == answers
    assert 0 < report["d1"]["metrics"]["discrim_validity"]["value"] < 1


@pytest.mark.parametrize("style", PAIRWISE_STYLES)
def test_every_simulator_style_is_read_back_to_what_it_meant(style: str) -> None:
    for label in ("first", "second", "abstain"):
        assert read_answer("pairwise_abstain", render_pairwise(label, style)).label == label


def test_the_simulators_yes_no_and_rating_styles_are_read_back() -> None:
    for style in YES_NO_STYLES:
        for label in ("yes", "no"):
            assert read_answer("yes_no", render_yes_no(label, style)).label == label
    for style in RATING_STYLES:
        for value in range(1, 6):
            reading = read_answer("rating", render_rating(value, style))
            assert reading.label == str(value) and reading.parsed["experience"] == value


def test_the_styled_policy_is_blind_to_names_and_says_what_it_meant() -> None:
    job = "Requirements: SQL, Python with pandas, Tableau dashboards."
    base = "Data analyst. SQL and Python with pandas. Tableau dashboards."
    less = "Data analyst. SQL and Python."
    policy = StyledPolicy(styles=("json",))

    def ask(first: str, second: str) -> str:
        user = f"Resume 1:\n{first}\n\nResume 2:\n{second}\n\nJob description:\n{job}\n"
        text = policy({"messages": [{"role": "user", "content": user}]})
        assert policy.meant_for({"user": user}) == read_answer("pairwise_abstain", text).label
        return text

    ask(f"Lakisha Washington\n{base}", f"Emily Walsh\n{base}")
    assert list(policy.meant.values()) == ["abstain"]
    ask(f"Emily Walsh\n{less}", f"Lakisha Washington\n{base}")
    ask(f"Lakisha Washington\n{base}", f"Emily Walsh\n{less}")
    assert list(policy.meant.values()) == ["abstain", "second", "first"]
    with pytest.raises(ValueError, match="unknown answer style"):
        StyledPolicy(styles=("haiku",))
