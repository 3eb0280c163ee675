"""The plan says before a run that an empty checklist leaves D1 without unequal pairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.domain.study import JobSpec, StudyConfig
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.plan import plan_run
from resume_auditor.workflow.prepare import new_audit, study_of


def _audit(tmp_path: Path, job: Job) -> Path:
    path = new_audit(tmp_path / "a.audit", StudyConfig(name="A", seed=1, job=JobSpec(), resumes=()))
    with ResultFile(path) as rf:
        rf.replace_job(job, None, None)
    return path


def test_an_empty_checklist_is_named_in_the_plan(tmp_path: Path) -> None:
    path = _audit(tmp_path, Job("Porter", "Responsibilities\n- Sweep the yard\n", []))
    with ResultFile(path) as rf:
        plan = plan_run(rf, study_of(rf), small_cell=30)
    assert len(plan.notes) == 1
    assert "No D1 unequal pairs" in plan.notes[0] and "Job page" in plan.notes[0]
    assert any(line.startswith("Note: No D1 unequal pairs") for line in plan.lines())
    assert plan.as_dict()["notes"] == plan.notes


def test_a_checklist_with_requirements_adds_no_note(tmp_path: Path) -> None:
    job = Job(
        "Porter", "Requirements\n- Forklift\n", [Qualification("Forklift", QualKind.REQUIRED)]
    )
    path = _audit(tmp_path, job)
    with ResultFile(path) as rf:
        plan = plan_run(rf, study_of(rf), small_cell=30)
    assert plan.notes == []


def test_a_study_whose_posting_lists_only_duties_is_refused_with_the_reason() -> None:
    """`audit` stops before anything is built, saying why the checklist is empty."""
    from resume_auditor.domain.study import StudyError
    from resume_auditor.workflow.ingest import check_job, read_job

    job = read_job(
        "# Billing Coordinator\n\n## Duties\n- Prepare daily billing\n"
        "- Reconcile delivery documents\n- Coordinate dispatch with carriers\n",
        "Billing Coordinator",
    )
    with pytest.raises(StudyError) as err:
        check_job(job)
    assert "Duties" in str(err.value) and "by hand" in str(err.value)
