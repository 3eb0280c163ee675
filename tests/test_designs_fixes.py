"""Design fixes of issue 14: which group is shown first, and what a variant records."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from resume_auditor.designs.d1_castleman.cases import build_d1_texts
from resume_auditor.designs.d1_castleman.spec import D1_GROUPS, D1Spec
from resume_auditor.documents.identity import find_identity
from resume_auditor.documents.jobparse import parse_job
from resume_auditor.documents.load import load_file
from resume_auditor.domain.case import CaseKind, VariantKind
from resume_auditor.domain.qualtext import QualText
from resume_auditor.variants.build import change_location, qualification_type, text_details
from resume_auditor.variants.texts import TextSet, deterministic_texts, merge_texts

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
JOB = parse_job((SAMPLE / "job.md").read_text(), "Junior Data Analyst")


def _texts(i: int) -> TextSet:
    pdf = sorted((SAMPLE / "resumes").glob("*.pdf"))[i % 4]
    t = find_identity(load_file(pdf).text)
    return merge_texts(deterministic_texts(i, t, JOB, (1,), random.Random(i)), [])


def test_without_a_twin_the_first_listed_group_is_not_always_a() -> None:
    """With orders = "ab" only A is shown first: A must not follow the study's group order."""
    first: Counter[tuple[str, str]] = Counter()
    for rid in range(12):
        built = build_d1_texts(_texts(rid), JOB, D1Spec(groups=D1_GROUPS), seed=7)
        for c in built.cases:
            if c.kind is CaseKind.EQUAL and c.group_a != c.group_b:
                first[(str(c.group_a), str(c.group_b))] += 1
    for g, h in [(a.key, b.key) for i, a in enumerate(D1_GROUPS) for b in D1_GROUPS[i + 1 :]]:
        # 12 resumes, a fair coin each: both sides lead at least twice (p of failing < 0.01)
        assert first[(g, h)] >= 2 and first[(h, g)] >= 2, (g, h, first)
    again = build_d1_texts(_texts(3), JOB, D1Spec(groups=D1_GROUPS), seed=7)
    same = build_d1_texts(_texts(3), JOB, D1Spec(groups=D1_GROUPS), seed=7)
    assert [(c.group_a, c.group_b) for c in again.cases] == [
        (c.group_a, c.group_b) for c in same.cases
    ]


def test_change_location_reads_the_sections() -> None:
    base = "Jane Doe\nSummary\nAnalyst with SQL.\nExperience\n- Built dashboards\n- Used Python"
    body = base.replace("- Used Python\n", "").replace("\n- Used Python", "")
    assert change_location(base, body) == "body"
    summary = base.replace("Analyst with SQL.", "Analyst.")
    assert change_location(base, summary) == "summary"
    both = summary.replace("\n- Used Python", "")
    assert change_location(base, both) == "both"
    assert change_location(base, base) == ""


def test_qualification_type_prefers_the_job_checklist() -> None:
    required = [q.text for q in JOB.required]
    assert required
    typed = qualification_type([required[0]], JOB)
    assert typed == JOB.required[0].qtype.value
    assert qualification_type(["Bachelor's degree in statistics"], JOB) in {"education", "unknown"}


def test_every_less_text_of_the_sample_gets_its_details() -> None:
    for rid in range(4):
        texts = _texts(rid)
        for less in texts.less.values():
            assert isinstance(less, QualText) and less.kind is VariantKind.LESS
            qual_type, location, generator = text_details(less, texts.base, JOB)
            assert qual_type and location in {"summary", "body", "both"} and generator == ""
