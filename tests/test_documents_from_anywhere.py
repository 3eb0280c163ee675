"""Issue 23's defects, each on a made-up input in the shape real postings and files come in.

A tagged heading (`## Minimum Qualifications (required)`) opens a list instead of
being its only item; `-- ` bullets are read; a duties heading named "Description"
ends a qualifications list; a checklist the parser doubts says why; a Markdown
posting with TOML front matter is not refused as a settings file; `extract` refuses
a private key as `audit` does; a study with no usable resume names each refused
file and its reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from resume_auditor.cli import main
from resume_auditor.documents.jobparse import read_checklist
from resume_auditor.documents.resumecheck import secret_problem
from resume_auditor.domain.job import QualKind

GOOGLE_STYLE = """# Software Engineer, Payments

## About the job
We move money for small shops.

## Minimum Qualifications (required)
- Bachelor's degree in Computer Science or equivalent practical experience.
- 2 years of experience with Python or Go.
- Experience with SQL databases.
- Experience with Linux.

## Preferred qualifications
- Master's degree in Computer Science.
- Experience with Kubernetes.
"""


def _kinds(text: str) -> list[tuple[str, str]]:
    return [(q.kind.value, q.text) for q in read_checklist(text).job.qualifications]


@pytest.mark.parametrize(
    "heading",
    [
        "## Minimum Qualifications (required)",
        "### Requirements (Required)",
        "Minimum Qualifications (required):",
        "**Basic Qualifications (required)**",
        "MINIMUM QUALIFICATIONS (REQUIRED)",
    ],
)
def test_a_heading_tagged_required_opens_the_list(heading: str) -> None:
    text = GOOGLE_STYLE.replace("## Minimum Qualifications (required)", heading)
    reading = read_checklist(text)
    required = [q.text for q in reading.job.required]
    assert len(required) == 4, required
    assert required[0].startswith("Bachelor's degree")
    assert not any("Qualifications" in r for r in required)
    assert [q.text for q in reading.job.preferred] == [
        "Master's degree in Computer Science.",
        "Experience with Kubernetes.",
    ]
    assert reading.notes == []


def test_a_heading_tagged_preferred_opens_a_preferred_list() -> None:
    text = "## Qualifications (preferred)\n- Spanish\n- A forklift licence\n"
    assert _kinds(text) == [("preferred", "Spanish"), ("preferred", "A forklift licence")]


def test_an_item_tagged_required_is_still_an_item() -> None:
    text = "Education:\nBachelor's Degree (Required)\nExperience:\nSales: 1 year (Preferred)\n"
    kinds = _kinds(text)
    assert ("required", "Bachelor's Degree (Required)") in kinds
    assert ("preferred", "Sales: 1 year (Preferred)") in kinds


@pytest.mark.parametrize("bullet", ["--", "-", "*", "\u2022", "\u25aa", "1."])
def test_every_common_bullet_is_read(bullet: str) -> None:
    text = (
        "Requirements:\n"
        f"{bullet} A valid driver's licence\n"
        f"{bullet} Two years of delivery experience\n"
        f"{bullet} Able to lift 50 lbs\n"
    )
    assert _kinds(text) == [
        ("required", "A valid driver's licence"),
        ("required", "Two years of delivery experience"),
        ("required", "Able to lift 50 lbs"),
    ]


def test_a_description_heading_ends_the_requirements() -> None:
    text = (
        "Sales Associate\n"
        "Requirements\n"
        "- High school diploma or GED\n"
        "- Weekend availability\n"
        "Description\n"
        "Greet customers as they enter the store.\n"
        "Keep the sales floor clean and stocked.\n"
        "Operate the register and handle returns.\n"
    )
    assert _kinds(text) == [
        ("required", "High school diploma or GED"),
        ("required", "Weekend availability"),
    ]


@pytest.mark.parametrize(
    "item", ["Minimum Qualifications:", "Requirements (required)", "Key Skills", "Who you are"]
)
def test_a_lone_heading_as_the_only_requirement_is_doubted(item: str) -> None:
    from resume_auditor.documents.jobparse import ChecklistReading, _notes
    from resume_auditor.domain.job import Job, Qualification

    job = Job("Cook", item, [Qualification(item, QualKind.REQUIRED)])
    notes = _notes(ChecklistReading(job=job), [])
    assert any("reads like a heading" in n for n in notes), notes


def test_a_real_lone_requirement_is_not_doubted() -> None:
    from resume_auditor.documents.jobparse import ChecklistReading, _notes
    from resume_auditor.domain.job import Job, Qualification

    item = "Valid food handler card"
    job = Job("Cook", item, [Qualification(item, QualKind.REQUIRED)])
    assert _notes(ChecklistReading(job=job), []) == []


def test_a_checklist_far_shorter_than_the_posting_is_doubted() -> None:
    text = (
        "Warehouse Lead\n"
        "Requirements\n"
        "- Forklift certification\n"
        "About the team\n"
        "- 3 years of warehouse experience\n"
        "- Must be able to lift 50 lbs\n"
        "- Ability to work nights\n"
        "- Experience with SAP is required\n"
        "- Bachelor's degree in logistics\n"
    )
    reading = read_checklist(text)
    assert [q.text for q in reading.job.required] == ["Forklift certification"]
    assert any("worded like qualifications" in n for n in reading.notes), reading.notes


def test_a_faithful_checklist_is_not_doubted() -> None:
    assert read_checklist(GOOGLE_STYLE).notes == []


TOML_POSTING = """+++
title = "Barista"
date = 2024-03-01
location = "Austin, TX"
draft = false
tags = ["coffee", "retail"]
+++

## Requirements
- One year of barista experience
- Food handler card
"""


def test_toml_front_matter_is_not_a_settings_file(tmp_path: Path) -> None:
    assert secret_problem("barista.md", TOML_POSTING.encode()) is None
    settings = "API_KEY=abc\nDEBUG=1\n"
    assert secret_problem("notes.txt", settings.encode()) is not None
    hidden = "+++\ntitle = 'x'\napi_token = 'sk-abc'\n+++\nbody\n"
    assert secret_problem("page.md", hidden.encode()) is not None  # a secret key named


def test_extract_refuses_a_private_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "resume.txt"
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" * 4
    # a made-up key (a repeated header fragment); the marker is joined here so that no
    # tracked line looks like a real private key to a secret scanner
    marker = "PRIVATE" + " KEY"
    key.write_text(f"-----BEGIN {marker}-----\n{body}\n-----END {marker}-----\n")
    assert main(["extract", str(key)]) == 2
    captured = capsys.readouterr()
    assert "private key" in captured.err
    assert body not in captured.out + captured.err
    assert "Candidate" not in captured.out


def test_extract_refuses_an_api_key_in_a_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    resume = tmp_path / "cv.txt"
    token = "sk-proj-" + "A1b2C3d4" * 4
    resume.write_text(f"Jane Roe\nExperience\nEngineer at Acme 2019-2023\nkey {token}\n")
    assert main(["extract", str(resume)]) == 2
    captured = capsys.readouterr()
    assert token not in captured.out + captured.err


def test_no_usable_resume_names_each_refused_file(tmp_path: Path) -> None:
    from resume_auditor.domain.job import Job, Qualification
    from resume_auditor.domain.study import JobSpec, StudyConfig, StudyError
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.cases import build_cases
    from resume_auditor.workflow.ingest import record_unreadable
    from resume_auditor.workflow.prepare import new_audit

    config = StudyConfig(name="A", seed=1, job=JobSpec(), resumes=(), more={"d2": {}})
    path = new_audit(tmp_path / "a.audit", config)
    with ResultFile(path) as rf:
        rf.replace_job(
            Job(
                "Cook",
                "Requirements\n- Knife skills\n",
                [Qualification("Knife skills", QualKind.REQUIRED)],
            ),
            None,
            None,
        )
        record_unreadable(rf, "scan.pdf", None, "scan.pdf is an image with no text layer.")
        with pytest.raises(StudyError) as err:
            build_cases(rf, config)
    message = str(err.value)
    assert "scan.pdf" in message and "no text layer" in message


def test_the_job_kind_of_a_tagged_heading_is_its_tag() -> None:
    reading = read_checklist("## Skills (required)\n- Welding\n- Blueprint reading\n")
    assert all(q.kind is QualKind.REQUIRED for q in reading.job.qualifications)
    assert len(reading.job.qualifications) == 2


def test_a_soft_hyphen_drawn_inside_a_pdf_line_is_a_hyphen() -> None:
    from resume_auditor.documents.cleanup import clean_line

    # LuaTeX draws its hyphen glyph as U+00AD: "multi-account" must not become one word
    assert clean_line("in multi\u00adaccount setups", drawn_hyphens=True) == (
        "in multi-account setups"
    )
    # elsewhere (Word, HTML) a soft hyphen is an invisible break point
    assert clean_line("infor\u00admation") == "information"


def test_extract_marks_a_doubtful_checklist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    job = tmp_path / "job.txt"
    job.write_text(
        "Warehouse Lead\nRequirements\n- Forklift certification\nAbout the team\n"
        "- 3 years of warehouse experience\n- Must be able to lift 50 lbs\n"
        "- Ability to work nights\n- Experience with SAP is required\n"
        "- Bachelor's degree in logistics\n"
    )
    assert main(["extract", "--job", str(job)]) == 0
    out = capsys.readouterr().out
    assert "\u26a0 The checklist may be wrong" in out and "worded like qualifications" in out
    assert main(["extract", "--job", str(job), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["checklist_doubts"]


def test_the_name_warning_only_where_a_name_may_be_missed(tmp_path: Path) -> None:
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.ingest import ingest_resume

    body = b"Summary\nRan the line at a 120-seat bistro.\nExperience\nSous chef, 2019-2024.\n"
    with ResultFile(tmp_path / "a.audit", create=True) as result:
        ingest_resume(result, "anon.txt", b"SOUS CHEF\n" + body)  # nothing to mark
        ingest_resume(result, "odd.txt", b"Qhapaq Wamanchi\n" + body)  # a name not known
        ingest_resume(result, "known.txt", b"Delphine Arceneaux\n" + body)
        records = {r.filename: r for r in result.resumes()}
    # (all three are warned that they are short; the name is what differs)
    assert "name line" in records["anon.txt"].message
    assert "may be one" not in records["anon.txt"].message
    assert "'Qhapaq Wamanchi'" in records["odd.txt"].message
    assert "may be one" in records["odd.txt"].message
    assert "name" not in records["known.txt"].message


def test_a_study_reads_a_posting_with_toml_front_matter(tmp_path: Path) -> None:
    from resume_auditor.workflow.ingest import job_from_study
    from resume_auditor.workflow.studyfile import read_study

    (tmp_path / "barista.md").write_text(TOML_POSTING)
    study = tmp_path / "study.toml"
    study.write_text(
        '[study]\nname = "B"\nseed = 1\n[job]\nfile = "barista.md"\n[resumes]\nfiles = ["r.txt"]\n'
    )
    job, name, _ = job_from_study(read_study(study))
    assert name == "barista.md"
    assert [q.text for q in job.required] == ["One year of barista experience", "Food handler card"]
