"""A design that yields no case is never "done": the step warns, the plan says which
question cannot be answered, and a study asking only for such cases is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from resume_auditor.cli import main
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui.pages.variants_page import VariantsPage
from resume_auditor.ui.session import Session, load_audit
from resume_auditor.workflow.cases import unbuilt_questions
from resume_auditor.workflow.plan import plan_run
from resume_auditor.workflow.prepare import study_of

RESUME = """Pat Doe
pat.doe@example.com

Experience
Gardener, City Parks, 2019-2024
- Planted and pruned trees in twelve parks
- Led a crew of four on weekend shifts

Education
High school diploma, 2018
"""

STUDY = """
format = 1
[study]
name = "Unbuildable"
seed = 3
[job]
title = "Data Analyst"
text = "Data Analyst. Requirements: SQL."
required = ["Advanced SQL for reporting", "Tableau dashboards"]
[resumes]
files = ["pat.txt"]
[model]
provider = "openai-compatible"
base_url = "http://127.0.0.1:9/v1"
model = "m"
[designs.d1]
groups = ["black_woman", "white_man"]
equal_pairs = {equal}
unequal_pairs = true
summary_block = "never"
"""


def _study(tmp_path: Path, equal: bool) -> Path:
    (tmp_path / "pat.txt").write_text(RESUME, encoding="utf-8")
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(equal=str(equal).lower()), encoding="utf-8")
    return study


def test_a_study_asking_only_for_unbuildable_pairs_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "a.audit"
    code = main(["audit", str(_study(tmp_path, equal=False)), "--out", str(out), "--prepare-only"])
    err = capsys.readouterr().err
    assert code == 2  # bad input, with the reason
    assert "Nothing to ask the model" in err
    assert "cannot answer whether the model picks the more qualified candidate" in err
    assert "summary_block" in err  # the fix
    assert not out.exists()  # nothing half made


def test_an_unbuildable_question_is_a_warning_in_the_plan_and_the_step(
    tmp_path: Path, qtbot: object
) -> None:
    out = tmp_path / "a.audit"
    code = main(["audit", str(_study(tmp_path, equal=True)), "--out", str(out), "--prepare-only"])
    assert code == 0  # the equal pairs can still be asked
    with ResultFile(out) as rf:
        unbuilt = unbuilt_questions(rf, study_of(rf))
        plan = plan_run(rf, study_of(rf), small_cell=30)
    assert [(u.design, "criterion" in u.question) for u in unbuilt] == [("D1", True)]
    assert any("cannot answer whether the model picks the more qualified" in n for n in plan.notes)
    data = load_audit(out)
    assert data.unbuilt and data.pairs
    page = VariantsPage(Session())
    assert page.status(data) == "problem"
    page.show_audit(data)
    assert "⚠" in page.unbuilt.text() and "summary_block" in page.unbuilt.text()
    data.unbuilt = []
    assert page.status(data) == "done"
