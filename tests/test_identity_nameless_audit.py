"""A nameless resume through a whole audit build: no cross-group pair is two equal texts."""

from __future__ import annotations

from pathlib import Path

import pytest
from devtools.simulator import Simulator, always

from resume_auditor.cli import main
from resume_auditor.store.resultfile import ResultFile

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
# Written for this test: an anonymised resume whose top line is the job, not a name.
NAMELESS = """SOUS CHEF
Summary
Sous chef with eight years in high-volume kitchens; she trained six line cooks.
Highlights
Menu costing, ServSafe, inventory control, Microsoft Office
Experience
Sous Chef, 2016 to Current
Company Name - City, State
Ran the line for a 120-seat bistro and cut food cost by 4 points.
Education
Associate of Applied Science, Culinary Arts, 2015
"""
STUDY = """
format = 1
[study]
name = "Nameless"
seed = 4
[job]
file = "{job}"
[resumes]
files = ["{resume}"]
[run]
prompt = "d1-baseline"
[designs.d1]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
signals = ["name"]
[designs.d2]
groups = ["black_woman", "white_man"]
"""


def test_a_nameless_resume_gets_a_name_line_and_every_cross_group_pair_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    resume = tmp_path / "anonymised.txt"
    resume.write_text(NAMELESS)
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(job=SAMPLE / "job.md", resume=resume))
    out = tmp_path / "a.audit"
    with Simulator(policy=always("Resume 1")) as sim:
        args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", "sim"]
        assert main(["audit", str(study), "--out", str(out), "--prepare-only", *args]) == 0
    printed = capsys.readouterr()
    assert "name line" in printed.out + printed.err  # the user is told
    with ResultFile(out) as result:
        (record,) = result.resumes()
        assert "No candidate name found" in record.message
        texts = {v.id: v.text for v in result.variants()}
        pairs = [p for p in result.cases("D1") if p.group_a != p.group_b]
        assert pairs
        for pair in pairs:
            assert texts[pair.variant_a] != texts[pair.variant_b], pair.differs
        named = [v for v in result.variants() if v.group]
        assert all(v.text.splitlines()[0] == v.name for v in named)


def test_a_resume_whose_copies_cannot_differ_is_left_out_with_a_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last guard: were the name line ever missing, that resume is left out of the
    name-based cells (with a note), the other resumes still build, and nothing identical
    is counted as a cross-group pair."""
    import resume_auditor.variants.fills as fills

    monkeypatch.setattr(fills, "needs_name_line", lambda template: False)
    resume = tmp_path / "anonymised.txt"
    resume.write_text(NAMELESS)
    named = SAMPLE / "resumes" / "01-jordan-ellery.pdf"
    study = tmp_path / "study.toml"
    study.write_text(
        STUDY.format(job=SAMPLE / "job.md", resume=resume).replace(
            f'files = ["{resume}"]', f'files = ["{resume}", "{named}"]'
        )
    )
    out = tmp_path / "a.audit"
    with Simulator(policy=always("Resume 1")) as sim:
        args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", "sim"]
        assert main(["audit", str(study), "--out", str(out), "--prepare-only", *args]) == 0
    printed = capsys.readouterr()
    assert "left out of D1" in printed.out + printed.err
    with ResultFile(out) as result:
        texts = {v.id: v.text for v in result.variants()}
        pairs = [p for p in result.cases("D1") if p.group_a != p.group_b]
        assert pairs, "the named resume still gives cross-group pairs"
        for pair in pairs:
            assert texts[pair.variant_a] != texts[pair.variant_b], pair.differs
