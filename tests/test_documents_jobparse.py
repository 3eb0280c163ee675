"""The offline job parser: headings in any dress, one qualification per bullet, types."""

from __future__ import annotations

import pytest

from resume_auditor.documents.jobparse import classify, parse_job
from resume_auditor.documents.resumecheck import job_warnings, resume_warnings
from resume_auditor.domain.job import QualKind, QualType


def _checklist(text: str) -> list[tuple[str, str]]:
    return [(q.kind.value, q.text) for q in parse_job(text).qualifications]


@pytest.mark.parametrize(
    "heading",
    ["## Requirements", "REQUIREMENTS", "Requirements:", "**Requirements**", "Requirements",
     "Minimum Qualifications", "Basic qualifications", "You have", "Must have", "What you bring",
     "What we're looking for"],
)  # fmt: skip
def test_required_headings(heading: str) -> None:
    text = f"Analyst\n\n{heading}\n- SQL\n- Python\n\nBenefits\n- Dental\n"
    assert _checklist(text) == [("required", "SQL"), ("required", "Python")]


@pytest.mark.parametrize(
    "heading",
    ["Preferred qualifications", "Nice to have", "NICE-TO-HAVES", "Bonus", "Pluses:",
     "### Bonus points"],
)  # fmt: skip
def test_preferred_headings(heading: str) -> None:
    text = f"Analyst\nRequirements\n- SQL\n{heading}\n- dbt\nAbout us\n- We are nice\n"
    assert _checklist(text) == [("required", "SQL"), ("preferred", "dbt")]


def test_wrapped_bullets_numbered_items_and_markers() -> None:
    text = (
        "Data Engineer\n"
        "Requirements\n"
        "1. Five years of experience with Spark and\n"
        "   distributed data processing\n"
        "2) Kafka (preferred)\n"
        "\u2022 Terraform is a plus\n"
        "Responsibilities\n"
        "- Build pipelines\n"
    )
    assert _checklist(text) == [
        ("required", "Five years of experience with Spark and distributed data processing"),
        ("preferred", "Kafka (preferred)"),
        ("preferred", "Terraform is a plus"),
    ]


def test_sections_without_bullets_and_inline_lists() -> None:
    text = (
        "Bookkeeper\n"
        "Qualifications\n"
        "Two years of bookkeeping\n"
        "QuickBooks Online\n"
        "Nice to have: Xero; payroll experience\n"
    )
    job = parse_job(text)
    assert job.title == "Bookkeeper"
    assert [(q.kind.value, q.text) for q in job.qualifications] == [
        ("required", "Two years of bookkeeping"),
        ("required", "QuickBooks Online"),
        ("preferred", "Xero"),
        ("preferred", "payroll experience"),
    ]


def test_prose_in_a_bulleted_section_is_not_a_qualification() -> None:
    text = "Analyst\nRequirements\nWe expect the following:\n- SQL\nSome prose here.\n- Excel\n"
    assert _checklist(text) == [("required", "SQL"), ("required", "Excel")]


@pytest.mark.parametrize(
    ("text", "qtype"),
    [
        ("3+ years of experience in payroll", QualType.EXPERIENCE),
        ("Five years of SQL", QualType.EXPERIENCE),
        ("5-7 yrs building APIs", QualType.EXPERIENCE),
        ("Bachelor's degree in accounting", QualType.EDUCATION),
        ("BS or MS in Computer Science", QualType.EDUCATION),
        ("High school diploma or GED", QualType.EDUCATION),
        ("Active RN license in Ohio", QualType.CERTIFICATION),
        ("PMP certification", QualType.CERTIFICATION),
        ("CPA", QualType.CERTIFICATION),
        ("Excellent written and verbal communication", QualType.SOFT_SKILL),
        ("Thrives in a fast-paced environment", QualType.SOFT_SKILL),
        ("Experience with Kubernetes", QualType.HARD_SKILL),
    ],
)
def test_classify(text: str, qtype: QualType) -> None:
    assert classify(text) is qtype


def test_documents_that_look_wrong_are_warned_about_not_refused() -> None:
    invoice = "INVOICE 2291\nTotal due: $450.00\nThank you for your business.\n"
    assert resume_warnings(invoice, "invoice.pdf")
    resume = (
        "Jane Public\njane@example.com\nEXPERIENCE\nAnalyst, Acme, 2019 - 2023\n"
        "- Built dashboards and led weekly reviews for the sales team and developed reports\n"
        "EDUCATION\nB.S., Ohio Valley University, 2019\n" * 2
    )
    assert resume_warnings(resume, "cv.pdf") == []
    job = "Analyst\nRequirements\n- SQL\nResponsibilities\n- Reports\nBenefits\n- Dental\n"
    assert job_warnings(job) == []
    assert job_warnings(resume)
    assert parse_job(job).required[0].kind is QualKind.REQUIRED
