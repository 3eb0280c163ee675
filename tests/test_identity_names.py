"""The candidate's name: only a name where names stand, and name variants that really differ.

The header lines here are written for these tests (not taken from any corpus):
headings, job titles, skills and section words that were once taken for names,
and names of many shapes and origins that must still be found.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from resume_auditor.designs.d1_castleman.cases import build_d1_texts
from resume_auditor.designs.d1_castleman.spec import D1_GROUPS, D1Spec
from resume_auditor.designs.d2_correspondence.cases import build_d2
from resume_auditor.designs.d2_correspondence.settings import D2Spec
from resume_auditor.documents.identity import find_identity
from resume_auditor.documents.names import find_name, is_placeholder_name
from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.identity import Persona, SlotKind, Template
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.domain.qualtext import QualOrigin, QualText
from resume_auditor.variants.build import BuiltCases, VariantMaker
from resume_auditor.variants.designcheck import (
    IdenticalPairError,
    check_same_outside_identity,
)
from resume_auditor.variants.fills import (
    PLACEHOLDER_NAME,
    Filled,
    fill,
    needs_name_line,
)
from resume_auditor.variants.texts import merge_texts

BODY = "\nExperience\nRan the kitchen at a busy bistro for six years.\n"


def _name(top: str) -> str | None:
    found = find_name(top + BODY)
    return " ".join(found.tokens) if found else None


@pytest.mark.parametrize(
    "top",
    [
        "EXECUTIVE CHEF",
        "Line Cook",
        "PAYROLL SPECIALIST",
        "Warehouse Associate",
        "Charge Nurse",
        "Curriculum Vitae",
        "CURRICULUM VITAE",
        "Résumé",
        "Professional Summary",
        "Career Highlights",
        "Key Accomplishments",
        "Areas of Expertise",
        "Technical Proficiencies",
        "Adobe Photoshop",
        "QuickBooks Online",
        "Microsoft Excel",
        "Patient Care",
        "Inventory Control",
        "Grant Writing",
        "Customer Relations",
        "Team Leadership",
        "Forklift Certification",
        "Kelly Services",
        "Chase Bank",
    ],
)
def test_headings_titles_and_skills_are_not_names(top: str) -> None:
    assert _name(top) is None


@pytest.mark.parametrize(
    ("top", "name"),
    [
        ("Maria del Carmen Ortiz", "Maria del Carmen Ortiz"),
        ("Ludwig van Beethoven-Smythe", "Ludwig van Beethoven-Smythe"),
        ("T. Rowan Ellery", "T. Rowan Ellery"),
        ("Rowan T. Ellery, RN", "Rowan T. Ellery"),
        ("SIOBHAN MACNAMARA", "SIOBHAN MACNAMARA"),
        ("Oluwaseun Adebayo-Okafor", "Oluwaseun Adebayo-Okafor"),
        ("Nguyen Thi Lan", "Nguyen Thi Lan"),
        ("Rahul Venkataraman | Line Cook", "Rahul Venkataraman"),
        ("Ms. Keiko Tanaka", "Keiko Tanaka"),
        ("Søren Kierkegaard-Holm", "Søren Kierkegaard-Holm"),
        ("Will Fairbanks", "Will Fairbanks"),
        ("GRANT O'MALLEY", "GRANT O'MALLEY"),
        ("Curriculum Vitae\nAmara Chukwu", "Amara Chukwu"),
        ("EXECUTIVE CHEF\nDelphine Arceneaux", "Delphine Arceneaux"),
        ("R O W A N   E L L E R Y", "ROWAN ELLERY"),
        ("Resume of Amara Chukwu", "Amara Chukwu"),
        ("Curriculum Vitae \u2013 Keiko Tanaka", "Keiko Tanaka"),
        ("Line Cook | Rahul Venkataraman", "Rahul Venkataraman"),
    ],
)
def test_names_of_many_shapes_are_found(top: str, name: str) -> None:
    assert _name(top) == name


def test_a_name_below_a_sidebar_is_found() -> None:
    top = "CONTACT\n(555) 010-4477\nrowan.ellery@example.org\nSKILLS\nKnife work\nRowan Ellery"
    assert _name(top) == "Rowan Ellery"


def test_a_referee_is_not_the_candidate() -> None:
    top = "EXECUTIVE CHEF\nREFERENCES\nDelphine Arceneaux"
    assert _name(top) is None


def test_an_unknown_given_name_needs_a_known_surname_or_the_email() -> None:
    # Neither word is in the name lists: without other evidence it is not taken.
    assert _name("Zorblat Quexx") is None
    assert find_name("Zorblat Quexx\nzorblat.q@example.org\n" + BODY) is not None


@pytest.mark.parametrize(
    "top", ["YOUR NAME HERE", "[Your Name]", "First Last", "Firstname Lastname", "Name Surname"]
)
def test_a_placeholder_stands_where_the_name_stands(top: str) -> None:
    found = find_name(top + BODY)
    assert found is not None and found.placeholder
    template = find_identity(top + BODY)
    assert template.original_name() == top
    assert is_placeholder_name(top)
    # its words elsewhere are left alone
    assert "Name" not in [s.original for s in find_identity(top + BODY + "Name tags").slots[1:]]


def test_john_doe_is_a_name_and_said_to_be_a_placeholder() -> None:
    assert _name("John Doe") == "John Doe"
    assert is_placeholder_name("John Doe") and not is_placeholder_name("Rowan Ellery")


NAMELESS = "SOUS CHEF\nSummary\nRan the line at a 120-seat bistro; trained six cooks.\n"
WOMAN = Persona("Lakisha", "Washington", "woman", "black_woman")
MAN = Persona("Todd", "Becker", "man", "white_man")


def test_a_resume_without_a_name_gets_a_name_line_in_every_variant() -> None:
    template = find_identity(NAMELESS)
    assert template.original_name() is None and needs_name_line(template)
    a = fill(template, WOMAN, contact=None, college=None)
    b = fill(template, MAN, contact=None, college=None)
    blind = fill(template, None, contact=None, college=None, blind=True)
    assert a.text.splitlines()[0] == "Lakisha Washington"
    assert b.text.splitlines()[0] == "Todd Becker"
    assert blind.text.splitlines()[0] == PLACEHOLDER_NAME
    assert a.text.endswith(NAMELESS) and a.text != b.text
    check_same_outside_identity(a, b, "test")  # differ only in the name line


def test_a_resume_with_a_name_gets_no_extra_line() -> None:
    template = find_identity("Delphine Arceneaux\n" + NAMELESS)
    assert not needs_name_line(template)
    assert fill(template, MAN, contact=None, college=None).text.startswith("Todd Becker\nSOUS")


def test_identical_texts_of_different_groups_are_refused() -> None:
    a = Filled("same text", (), "black_woman")
    b = Filled("same text", (), "white_man")
    with pytest.raises(IdenticalPairError, match="same text"):
        check_same_outside_identity(a, b, "Equal pair")
    # the same group twice (an explicit-signal pair of one group) is not a cross-group pair
    check_same_outside_identity(a, Filled("same text", (), "black_woman"), "Equal pair")


def _job() -> Job:
    return Job(
        "Sous Chef",
        "Run the line.",
        [Qualification("Five years on a line", QualKind.REQUIRED)],
    )


def test_designs_on_a_nameless_resume_build_pairs_that_differ() -> None:
    template = find_identity(NAMELESS)
    base = QualText(7, VariantKind.BASE, 0, template, origin=QualOrigin.ORIGINAL)
    texts = merge_texts([base], [])
    built = build_d1_texts(texts, _job(), D1Spec(groups=D1_GROUPS, unequal_pairs=False), seed=5)
    assert built.cases
    for case in built.cases:
        a, b = built.variants[case.variant_a], built.variants[case.variant_b]
        assert a.text != b.text, case.differs
    d2 = build_d2(texts, _job(), D2Spec(groups=D1_GROUPS), seed=5)
    assert len({v.text for v in d2.variants}) == len(d2.variants)


def test_the_maker_tags_each_fill_with_its_group() -> None:
    maker = VariantMaker("Sous Chef", random.Random(1))
    base = QualText(1, VariantKind.BASE, 0, find_identity(NAMELESS))
    out = BuiltCases(1)
    maker.make(out, base, WOMAN, college=None)
    maker.make(out, base, None, college=None)
    assert [f.group for f in out.filled] == ["black_woman", None]


def test_an_empty_template_needs_no_name_line() -> None:
    assert not needs_name_line(Template("   \n"))
    assert SlotKind.FULL_NAME.value == "full_name"


def _kinds(text: str, kind: SlotKind) -> list[str]:
    return [s.original for s in find_identity(text).slots if s.kind is kind]


@pytest.mark.parametrize(
    ("line", "address"),
    [
        ("Flat 4, 22 Baker Street, London, United Kingdom", None),  # the street pattern's
        ("Gangnam-gu, Seoul, Republic of Korea", "Gangnam-gu, Seoul, Republic of Korea"),
        ("17, Rue Oberkampf, 75011 Paris, France", "17, Rue Oberkampf, 75011 Paris, France"),
        ("48 Elm Road, Duluth, USA \u2014 (555) 010-2020", "48 Elm Road, Duluth, USA"),
        ("Worked in 12 countries, including India", ""),
    ],
)
def test_an_address_line_in_the_header(line: str, address: str | None) -> None:
    text = f"Rowan Ellery\n{line}\nrowan@example.org\nExperience\nCooked.\n"
    found = _kinds(text, SlotKind.ADDRESS)
    if address is None:
        assert found  # some address slot covers it
    elif address:
        assert found == [address]
    else:
        assert found == []


def test_a_phone_with_a_bracketed_country_code() -> None:
    text = "Rowan Ellery\n(+49) 30-1234-5678 | rowan@example.org\nExperience\nCooked.\n"
    assert _kinds(text, SlotKind.PHONE) == ["(+49) 30-1234-5678"]


def test_colleges_in_capitals_under_a_sub_heading_of_education() -> None:
    text = (
        "Rowan Ellery\nEDUCATION\nB.S.\nCULINARY ARTS\nJOHNSON AND WALES UNIVERSITY\n"
        "University of Vermont Sept 2014\nEXPERIENCE\nCook, University of Iowa\n"
    )
    colleges = _kinds(text, SlotKind.COLLEGE)
    assert "JOHNSON AND WALES UNIVERSITY" in colleges
    assert "University of Vermont" in colleges
    assert "University of Iowa" not in colleges  # an employer


PERSONAL = """Priya Raghunathan
Date of Birth: 14 March 1994
Father's Name: Suresh Raghunathan
Nationality : Indian | Marital Status - Single
Passport No: K7712093
Languages known: English, Tamil
Experience
Cooked for 300 covers a night.
"""


def test_labelled_personal_details_are_withheld_in_every_variant() -> None:
    template = find_identity(PERSONAL)
    personal = [s.original for s in template.slots if s.kind is SlotKind.PERSONAL]
    # a stated group fact (nationality, marital status) is withheld too (issue 23): left
    # in, it would say "Gender: Female" in a copy given a man's name
    assert personal == ["14 March 1994", "Suresh Raghunathan", "Indian", "Single", "K7712093"]
    a = fill(template, WOMAN, contact=None, college=None)
    b = fill(template, MAN, contact=None, college=None)
    for real in ("1994", "Suresh", "Raghunathan", "K7712093", "Indian", "Single"):
        assert real not in a.text and real not in b.text, real
    assert "English, Tamil" in a.text  # a skill, not a personal detail
    check_same_outside_identity(a, b, "test")


def test_a_labelled_handle_becomes_the_personas() -> None:
    text = "Rowan Ellery\nrowan@example.org\nGitHub: rowanellery\nExperience\nCooked.\n"
    template = find_identity(text)
    assert [s.original for s in template.slots if s.kind is SlotKind.LINK] == ["rowanellery"]
    assert "GitHub: todd-becker" not in fill(template, MAN, contact=None, college=None).text
    assert "rowanellery" not in fill(template, MAN, contact=None, college=None).text


@pytest.mark.parametrize(
    "top", ["Shift Leader", "Park Ranger", "Supply Chain", "Delivery Driver", "TEACHER"]
)
def test_a_title_whose_words_the_text_uses_as_words_is_not_a_name(top: str) -> None:
    body = "\nSummary\nRan the night shift at the park; drove delivery routes for a supply chain.\n"
    assert find_name(top + body) is None


def test_a_name_run_together_needs_the_email() -> None:
    assert find_name("AVIATION\nSummary\nFlew.\n") is None  # not "Avia Tion"
    found = find_name("ROWANELLERY\nrowan.ellery@example.org\nSummary\nCooked.\n")
    assert found is not None and found.tokens == ("ROWAN", "ELLERY")


def test_the_resume_says_when_a_name_line_will_be_added_or_the_name_is_a_stand_in(
    tmp_path: Path,
) -> None:
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.ingest import ingest_resume

    body = b"Summary\nRan the line at a 120-seat bistro.\nExperience\nSous chef, 2019-2024.\n"
    with ResultFile(tmp_path / "a.audit", create=True) as result:
        _, note = ingest_resume(result, "anon.txt", b"SOUS CHEF\n" + body)
        assert "No candidate name found" in note and "name line" in note
        _, note = ingest_resume(result, "template.txt", b"YOUR NAME HERE\n" + body)
        assert "stand-in" in note and "YOUR NAME HERE" in note
        _, note = ingest_resume(result, "real.txt", b"Delphine Arceneaux\n" + body)
        assert "name" not in note.lower()


@pytest.mark.parametrize(("top", "name"), [("BAKER", None), ("PILOT", None), ("TAYLOR", "TAYLOR")])
def test_a_lone_word_on_top_is_a_name_only_if_it_is_no_job(top: str, name: str | None) -> None:
    assert _name(top) == name


def test_a_surname_that_ends_like_a_noun_is_still_a_name() -> None:
    text = "Avery Lindqvist\navery.lindqvist@example.com | linkedin.com/in/avery-lindqvist\n"
    assert _name(text) == "Avery Lindqvist"
    assert _name("Greta Holmquist") == "Greta Holmquist"


@pytest.mark.parametrize(
    "top",
    ["Junior Santos", "Maria Pastor", "Willis Carrier", "Ellen Page", "Edith Head", "David Lean"],
)
def test_surnames_that_are_also_job_words_stay_names(top: str) -> None:
    assert _name(top) == top


@pytest.mark.parametrize(
    ("top", "span"),
    [
        ("Rowan Ellery (she/her)", "Rowan Ellery"),
        ("Rowan \u201cRo\u201d Ellery", "Rowan \u201cRo\u201d Ellery"),
        ("Rowan (Ro) Ellery | Line Cook", "Rowan (Ro) Ellery"),
        ("Rowan Ellery Jr.", "Rowan Ellery Jr."),
        ("Rowan Ellery III", "Rowan Ellery III"),
    ],
)
def test_pronouns_nicknames_and_suffixes_around_a_name(top: str, span: str) -> None:
    found = find_name(top + BODY)
    assert found is not None and found.tokens == ("Rowan", "Ellery")
    template = find_identity(top + BODY)
    assert template.original_name() == span
    if "she/her" in top:
        kinds = {s.kind for s in template.slots}
        assert {SlotKind.PRONOUN_SUBJECT, SlotKind.PRONOUN_OBJECT} <= kinds


def test_a_name_in_the_page_footer_or_a_band_printed_last_is_found() -> None:
    body = "Summary\nCooked for years.\nExperience\nRan the line.\nEducation\nCulinary school.\n"
    footer = "Delphine Arceneaux \u2013 Page 1 of 2\n"
    found = find_name(body + footer + "More work.\n" + footer.replace("1 of", "2 of"))
    assert found is not None and found.tokens == ("Delphine", "Arceneaux")
    last = find_name(body + "Skills\nKnife work\nDelphine Arceneaux\n")
    assert last is not None and last.tokens == ("Delphine", "Arceneaux")
    assert find_name(body + "Skills\nMicrosoft Office\nInventory Control\n") is None
    # an employer that is also a person's name, at the end of Experience, is not the name
    assert find_name("Summary\nCooked.\nEducation\nSchool.\nExperience\nWalt Disney\n") is None


def test_a_labelled_address_is_found_wherever_it_stands() -> None:
    text = (
        "Priya Raghunathan\nLocation: Pune\npriya.r@example.org\nExperience\nCook, Hotel Taj\n"
        "Location: Mumbai\nPersonal Details\n"
        "Permanent Address: Flat 203, Sai Residency, Kondapur, Hyderabad - 500084\n"
    )
    assert _kinds(text, SlotKind.ADDRESS) == [
        "Flat 203, Sai Residency, Kondapur, Hyderabad - 500084"
    ]
    assert _kinds(text, SlotKind.LOCATION) == ["Pune"]  # a job's location is left alone
