"""Demographic fills: privacy, pronoun grammar, blinding, signals and the design check."""

from __future__ import annotations

import random
import re

import pytest

from resume_auditor.documents.identity import find_identity
from resume_auditor.domain.groups import Group
from resume_auditor.domain.identity import Persona
from resume_auditor.variants.colleges import neutral_colleges
from resume_auditor.variants.designcheck import DesignCheckError, check_same_outside_identity
from resume_auditor.variants.fills import Filled, fill, synthetic_contact
from resume_auditor.variants.signals import field_for, insert_signal, signal_lines

REAL = """Dana Whitfield
dana.whitfield@realmail.com | (312) 555-8841 | 1420 W Addison St, Chicago, IL 60613
linkedin.com/in/dana-whitfield | https://danawhitfield.dev
Pronouns: she/her
SUMMARY
Dana leads analytics. Her team trusts her; she says the work is hers. She manages a team.
Ms. Whitfield taught herself SQL.
EDUCATION
B.S. in Statistics, Northwestern University, 2019
"""
REAL_BITS = ("Dana", "Whitfield", "realmail", "312", "8841", "Addison", "Chicago", "60613",
             "danawhitfield", "dana-whitfield", "Northwestern")  # fmt: skip
MAN = Persona("Jamal", "Booker", "man", "black_man")
WOMAN = Persona("Emily", "Koch", "woman", "white_woman")


def _fill(persona: Persona | None, seed: int = 1, **kw: object) -> Filled:
    t = find_identity(REAL)
    contact = synthetic_contact(random.Random(seed))
    return fill(t, persona, contact=contact, college="University of Iowa", **kw)  # type: ignore[arg-type]


def test_no_real_contact_detail_reaches_a_variant() -> None:
    for persona in (MAN, WOMAN, None):
        text = _fill(persona).text
        for bit in REAL_BITS:
            assert bit not in text, (persona, bit)
        assert re.search(r"\(555\) 555-01\d\d", text)
        assert "Springfield" in text and "University of Iowa" in text
    named = _fill(MAN).text
    assert "linkedin.com/in/jamal-booker" in named
    assert "jamal-booker.example.com" in named


def test_real_contact_details_only_when_asked() -> None:
    t = find_identity(REAL)
    kept = fill(t, MAN, contact=None, college=None)
    assert "(312) 555-8841" in kept.text and "Northwestern University" in kept.text
    assert "Dana" not in kept.text  # the name is still replaced


def test_pronoun_grammar_follows_the_slot_kind() -> None:
    man, woman = _fill(MAN).text, _fill(WOMAN).text
    assert "Jamal leads analytics. His team trusts him; he says the work is his. He manages" in man
    assert "Mr. Booker taught himself SQL." in man and "Pronouns: he/him" in man
    assert "Emily leads analytics. Her team trusts her; she says the work is hers. She" in woman
    assert "Ms. Koch taught herself SQL." in woman and "Pronouns: she/her" in woman


def test_blinded_copy_has_no_identity_and_verbs_agree_with_they() -> None:
    text = _fill(None, blind_college=True).text
    assert text.startswith("Candidate\ncandidate@example.com")
    assert "Pronouns: they/them" in text
    assert "Their team trusts them; they say the work is theirs. They manage a team." in text
    assert "Candidate taught themselves SQL." in text  # the title is dropped with its space
    assert "(college withheld)" in text
    for word in (" she ", " he ", " her ", " his ", "Ms.", "Mr."):
        assert word not in text


def test_two_groups_differ_only_inside_identity_spans() -> None:
    check_same_outside_identity(_fill(MAN, 1), _fill(WOMAN, 2), "test")


def test_the_check_catches_a_change_outside_the_slots() -> None:
    good = _fill(WOMAN)
    bad = Filled(good.text.replace("taught", "trained"), good.spans)
    with pytest.raises(DesignCheckError, match="outside the identity slots"):
        check_same_outside_identity(_fill(MAN), bad, "tampered")
    shifted = Filled(" " + good.text, good.spans)  # every span now one character off
    with pytest.raises(DesignCheckError):
        check_same_outside_identity(_fill(MAN), shifted, "shifted")


def test_explicit_signals_follow_appendix_f_and_go_into_a_section() -> None:
    assert field_for("Senior Software Engineer") == "Computer Science"
    assert field_for("Junior Data Analyst") == "Data Science"
    assert field_for("Underwater Basket Weaver") == "Business"
    lines = signal_lines(Group("black", "woman"), "Software Engineer", ("organization", "award"))
    assert lines == [
        "Chair, Black Women in Computer Science Initiative",
        "Recipient, National Black Women's Professional Association: "
        "Software Engineer Rising Star Award",
    ]
    base = _fill(None)
    new = insert_signal(base, lines, "Awards and Activities")
    assert new.text.rstrip().endswith("Software Engineer Rising Star Award")
    assert "\nAWARDS AND ACTIVITIES\n- Chair" in new.text  # the resume's own heading style
    other = insert_signal(
        base, signal_lines(Group("white", "man"), "Software Engineer", ("award",)), "Awards"
    )
    check_same_outside_identity(new, other, "signals")
    with_section = find_identity(REAL + "AWARDS\n• Dean's list\n")
    placed = insert_signal(
        fill(with_section, None, contact=None, college=None), ["Signal line"], "Awards"
    )
    assert "AWARDS\n• Signal line\n• Dean's list" in placed.text


def test_every_group_has_signals_and_the_college_list_is_clean() -> None:
    for race in ("white", "black", "asian", "hispanic"):
        for gender in ("woman", "man"):
            kinds = ("organization", "award", "experience")
            assert len(signal_lines(Group(race, gender), "Nurse", kinds)) == 3
    colleges = neutral_colleges()
    assert len(colleges) >= 20 and len(set(colleges)) == len(colleges)


@pytest.mark.parametrize(
    ("line", "blinded"),
    [
        ("She's led three audits.", "They've led three audits."),
        ("She’s been a lead analyst.", "They’ve been a lead analyst."),
        ("He's a data analyst.", "They're a data analyst."),
        ("She's leading the team.", "They're leading the team."),
        ("He's managed budgets.", "They've managed budgets."),
    ],
)
def test_a_contracted_pronoun_agrees_with_they(line: str, blinded: str) -> None:
    """Blinded copies said "They's led"; a contraction takes the verb it stands for."""
    text = "Dana Whitfield\ndana@mail.com\n\nSummary\n" + line + "\n"
    filled = fill(find_identity(text), None, contact=None, college=None, blind=True)
    assert blinded in filled.text
