from __future__ import annotations

import difflib
import itertools
import random
import re
from pathlib import Path

import pytest

from resume_auditor.designs.d1_castleman.cases import build_d1
from resume_auditor.designs.d1_castleman.spec import D1_GROUPS, D1Spec
from resume_auditor.documents.identity import find_identity
from resume_auditor.documents.jobparse import parse_job
from resume_auditor.documents.load import load_file
from resume_auditor.domain.case import CaseKind, Truth, VariantKind
from resume_auditor.domain.groups import ALL_GROUPS, Group
from resume_auditor.domain.identity import Persona, SlotKind
from resume_auditor.variants.lexical import choose_removals, remove
from resume_auditor.variants.names import name_lists, personas_for

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
TEXT = """Dana Whitfield
dana.whitfield@example.com | (555) 010-0000
Pronouns: she/her
SUMMARY
Dana leads analytics. Her team trusts her; she says the work is hers.
Ms. Whitfield taught herself SQL.
"""


def test_identity_slots_round_trip_and_fill() -> None:
    t = find_identity(TEXT)
    assert t.fill(None) == TEXT
    kinds = [s.kind for s in t.slots]
    assert SlotKind.FULL_NAME in kinds and SlotKind.EMAIL in kinds
    filled = t.fill(Persona("Jamal", "Booker", "man", "black_man"))
    assert "Jamal Booker\njamal.booker@example.com" in filled
    assert "Pronouns: he/him" in filled
    assert "Jamal leads analytics. His team trusts him; he says the work is his." in filled
    assert "Mr. Booker taught himself SQL." in filled
    assert "Dana" not in filled and "Whitfield" not in filled and "she" not in filled


def test_fill_keeps_all_caps_names() -> None:
    t = find_identity("MORGAN TATE\nAnalyst\n")
    assert t.fill(Persona("Ann", "Lee", "woman")) == "ANN LEE\nAnalyst\n"


def test_name_lists_have_twenty_distinct_names_per_group() -> None:
    lists = name_lists()
    for group in ALL_GROUPS:
        entries = lists[group.key]
        assert len(entries) >= 20, group
        assert len({e.first for e in entries}) == len(entries)
        assert len({e.last for e in entries}) == len(entries)


def test_personas_are_distinct_and_reproducible() -> None:
    a = personas_for(Group("black", "woman"), 5, random.Random(1))
    b = personas_for(Group("black", "woman"), 5, random.Random(1))
    assert a == b
    assert len({p.full_name for p in a}) == 5
    assert all(p.gender == "woman" for p in a)


def _sample_template():
    doc = load_file(SAMPLE / "resumes" / "01-jordan-ellery.pdf")
    return find_identity(doc.text)


def _job():
    return parse_job((SAMPLE / "job.md").read_text())


def test_job_parser_reads_required_and_preferred() -> None:
    job = _job()
    assert job.title == "Junior Data Analyst"
    assert len(job.required) == 6 and len(job.preferred) == 3
    assert job.required[0].qtype.value == "education"
    assert job.required[1].qtype.value == "experience"


def test_lexical_removal_deletes_what_carries_a_qualification() -> None:
    template = _sample_template()
    job = _job()
    removals = choose_removals(template, job.required, 1, random.Random(3))
    assert removals is not None
    less = remove(template, removals)
    assert len(less.text) < len(template.text)
    for line in removals[0].removed:
        assert line not in less.text
    # slots survive and still fill correctly
    assert less.fill(None).startswith("Jordan Ellery")
    assert less.fill(Persona("Ann", "Lee", "woman")).startswith("Ann Lee")


def test_d1_counts_follow_the_formulas() -> None:
    template, job = _sample_template(), _job()
    for groups in (D1_GROUPS, D1_GROUPS[:2], ALL_GROUPS):
        built = build_d1(1, template, job, D1Spec(groups=groups, k=(1,)), seed=5)
        g = len(groups)
        equal = [c for c in built.cases if c.kind is CaseKind.EQUAL]
        unequal = [c for c in built.cases if c.kind is CaseKind.UNEQUAL]
        assert len(equal) == g * (g + 1) // 2
        # (c, c-) by lexical deletion; (c+, c) and (c+, c-) need a c+, which only the
        # qualifications block gives without a generator (summary_block = "missing")
        assert len(unequal) == 3 * g
        by = {(c.pair_type or c.variants[0], c.construction) for c in unequal}
        assert {c.construction for c in unequal} == {"lexical", "summary_block"}
        assert len(by) >= 2
        # two named bases per group for equal pairs, one block base per group for (c+, c)
        assert len([v for v in built.variants if v.kind is VariantKind.BASE]) == 3 * g
        never = build_d1(1, template, job, D1Spec(groups=groups, summary_block="never"), seed=5)
        unequal_never = [c.construction for c in never.cases if c.kind is CaseKind.UNEQUAL]
        assert unequal_never == ["lexical"] * g
        ordered = {(c.group_a, c.group_b) for c in equal} | {(c.group_b, c.group_a) for c in equal}
        assert ordered == {(a.key, b.key) for a, b in itertools.product(groups, groups)}


def test_equal_pairs_differ_only_in_identity() -> None:
    template, job = _sample_template(), _job()
    built = build_d1(1, template, job, D1Spec(), seed=11)
    identity_words = set()
    for v in built.variants:
        if v.name:
            first, last = v.name.split(" ", 1)
            identity_words |= {
                first,
                last,
                f"{first}.{last}".lower() + "@example.com",
                "she",
                "he",
                "her",
                "him",
                "his",
                "she/her",
                "he/him",
            }
    for case in built.cases:
        if case.kind is not CaseKind.EQUAL:
            continue
        a = built.variants[case.variant_a].text.split()
        b = built.variants[case.variant_b].text.split()
        changed = [
            w
            for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b).get_opcodes()
            if tag != "equal"
            for w in a[i1:i2] + b[j1:j2]
        ]
        synthetic_phone = re.compile(r"^(\(555\)|555-01\d\d)$")  # fictional numbers
        assert all(
            w.strip("|,.") in identity_words
            or w.lower() in identity_words
            or synthetic_phone.match(w.strip("|,."))
            for w in changed
        ), changed


def test_unequal_pairs_have_truth_on_the_full_resume() -> None:
    template, job = _sample_template(), _job()
    built = build_d1(1, template, job, D1Spec(), seed=3)
    for case in built.cases:
        if case.kind is not CaseKind.UNEQUAL:
            continue
        a, b = built.variants[case.variant_a], built.variants[case.variant_b]
        full, less = (a, b) if case.truth is Truth.A else (b, a)
        rank = {VariantKind.MORE: 2, VariantKind.BASE: 1, VariantKind.LESS: 0}
        assert rank[full.kind] > rank[less.kind]
        changed = less if less.kind is VariantKind.LESS else full
        assert changed.changes and changed.changes[0] in case.differs
        if less.kind is VariantKind.LESS and full.kind is VariantKind.BASE:
            assert len(less.text) < len(full.text)


def test_same_seed_same_cases() -> None:
    template, job = _sample_template(), _job()
    one = build_d1(1, template, job, D1Spec(), seed=42)
    two = build_d1(1, template, job, D1Spec(), seed=42)
    other = build_d1(1, template, job, D1Spec(), seed=43)
    assert [v.text for v in one.variants] == [v.text for v in two.variants]
    assert [(c.truth, c.differs) for c in one.cases] == [(c.truth, c.differs) for c in two.cases]
    assert [v.name for v in one.variants] != [v.name for v in other.variants]


def test_no_removable_qualification_is_reported_not_faked() -> None:
    template = find_identity("Pat Doe\nLikes hiking.\n")
    built = build_d1(1, template, _job(), D1Spec(summary_block="never"), seed=1)
    assert not [c for c in built.cases if c.kind is CaseKind.UNEQUAL]
    assert any("k=1" in n and "deleted" in n for n in built.notes)
    # the qualifications block states what the resume lacks: unequal pairs all the same
    built = build_d1(1, template, _job(), D1Spec(), seed=1)
    unequal = [c for c in built.cases if c.kind is CaseKind.UNEQUAL]
    assert unequal and {c.construction for c in unequal} == {"summary_block"}


@pytest.mark.parametrize("src", sorted((SAMPLE / "src").glob("*.md")), ids=lambda p: p.stem)
def test_committed_sample_pdfs_are_what_the_renderer_makes(src: Path) -> None:
    from devtools.sample import render_resume

    pdf = SAMPLE / "resumes" / (src.stem + ".pdf")
    assert pdf.read_bytes() == render_resume(src.read_text(encoding="utf-8"), title=src.stem)
