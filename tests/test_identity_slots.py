"""Identity slots: what is found, what is left alone, and how personas fill each kind."""

from __future__ import annotations

import pytest

from resume_auditor.documents.identity import find_identity
from resume_auditor.documents.names import find_name
from resume_auditor.domain.identity import Persona, Slot, SlotKind, Template


def _slots(text: str) -> list[tuple[SlotKind, str]]:
    return [(s.kind, s.original) for s in find_identity(text).slots]


def _kinds(text: str, kind: SlotKind) -> list[str]:
    return [o for k, o in _slots(text) if k is kind]


@pytest.mark.parametrize(
    ("top", "name"),
    [
        ("Jane Q. Public\n", "Jane Q. Public"),
        ("JANE PUBLIC\n", "JANE PUBLIC"),
        ("Dr. Jane Public, PhD\n", "Jane Public"),
        ("Jane Public, MBA, CPA | Data Analyst\n", "Jane Public"),
        ("RESUME\nJane Public\n", "Jane Public"),
        ("DATA ANALYST\nJane Public\n", "Jane Public"),
        ("Name: Jane Public\n", "Jane Public"),
        ("# Ana de la Cruz\n", "Ana de la Cruz"),
        ("Seán Ó Briain-Mac\n", "Seán Ó Briain-Mac"),
        ("Zoë Núñez-Arroyo\n", "Zoë Núñez-Arroyo"),
        ("DeShawn McDonald\n", "DeShawn McDonald"),
        ("MORALES, Lena \u00b7 Event Planner\n", "Lena MORALES"),
        ("DAYTON, OH\n", None),
        ("AUSTIN, Texas\n", None),
        ("PUBLIC, MBA\n", None),
        ("Senior Software Engineer\n", None),
        ("Curriculum Vitae\n", None),
    ],
)
def test_the_name_at_the_top(top: str, name: str | None) -> None:
    found = find_name(top + "Experience\nBuilt things.\n")
    assert (" ".join(found.tokens) if found else None) == name


def test_the_name_from_the_email_when_the_top_has_none() -> None:
    text = "Contact: jane.public@example.com\nSummary\nJane Public builds dashboards.\n"
    found = find_name(text)
    assert found is not None and found.tokens == ("Jane", "Public")


def test_every_mention_of_the_name() -> None:
    text = (
        "Jane Q. Public\n"
        "Jane Public leads analytics. Jane's team trusts Ms. Public.\n"
        "J. Public, \u201cDashboards\u201d, 2023. JANE wrote it.\n"
    )
    assert _slots(text) == [
        (SlotKind.FULL_NAME, "Jane Q. Public"),
        (SlotKind.FULL_NAME, "Jane Public"),
        (SlotKind.FIRST_NAME, "Jane"),
        (SlotKind.TITLE, "Ms."),
        (SlotKind.LAST_NAME, "Public"),
        (SlotKind.FIRST_INITIAL, "J."),
        (SlotKind.LAST_NAME, "Public"),
        (SlotKind.FIRST_NAME, "JANE"),
    ]


def test_other_people_and_places_are_left_alone() -> None:
    text = (
        "Jordan Brown\n"
        "EDUCATION\nB.A., Brown University, 2019\n"
        "EXPERIENCE\nWorked with Jordan Smith at Brown & Co in Jackson, MS.\n"
        "REFERENCES\nDr. Alan Reyes, Mr. Lee\n"
    )
    slots = _slots(text)
    assert (SlotKind.COLLEGE, "Brown University") in slots
    assert [o for k, o in slots if k is SlotKind.FIRST_NAME] == []
    assert [o for k, o in slots if k is SlotKind.LAST_NAME] == []
    assert [o for k, o in slots if k is SlotKind.TITLE] == []


@pytest.mark.parametrize(
    ("text", "phones"),
    [
        ("Call (555) 010-2345 or 555.010.2346", ["(555) 010-2345", "555.010.2346"]),
        ("+44 20 7946 0958 | +1-555-010-2347", ["+44 20 7946 0958", "+1-555-010-2347"]),
        ("Phone: 010 2345", ["010 2345"]),
        ("2019 - 2021 | 2015 2016 2017 | ZIP 62704-1234", []),
        ("Python 3.11.4, ISO 9001:2015, $2,500,000, 1,200,000 users", []),
        ("ticket 12345678", []),
    ],
)
def test_phones(text: str, phones: list[str]) -> None:
    assert _kinds("Jane Public\n" + text + "\n", SlotKind.PHONE) == phones


@pytest.mark.parametrize(
    ("text", "links"),
    [
        (
            "linkedin.com/in/jane-public | github.com/jpublic",
            ["linkedin.com/in/jane-public", "github.com/jpublic"],
        ),
        ("Site: https://janepublic.dev/portfolio.", ["https://janepublic.dev/portfolio"]),
        ("www.JanePublic.com", ["www.JanePublic.com"]),
        ("Node.js, ASP.NET, e.g. Vue.js and scikit-learn", []),
        ("jane@public.io", []),
    ],  # fmt: skip
)
def test_links(text: str, links: list[str]) -> None:
    assert _kinds("Jane Public\n" + text + "\n", SlotKind.LINK) == links


def test_addresses_and_the_city_in_the_contact_block() -> None:
    text = (
        "Jane Public\n"
        "88 Birch Road, Unit 5, Springfield, IL 62704 | Columbus, OH\n"
        "EXPERIENCE\nAnalyst, Acme, Dayton, OH\nIncreased sales 20 percent\n"
        "CONTACT\nPO Box 1234\nAustin, TX\n"
    )
    assert _kinds(text, SlotKind.ADDRESS) == ["88 Birch Road, Unit 5, Springfield, IL 62704",
                                              "PO Box 1234"]  # fmt: skip
    assert _kinds(text, SlotKind.LOCATION) == ["Columbus, OH", "Austin, TX"]


def test_colleges_attended_not_employers() -> None:
    text = (
        "Jane Public\n"
        "EXPERIENCE\nResearch Assistant, Lakeside University Medical Center\n"
        "Teaching Assistant, Ohio Valley University\n"
        "EDUCATION\nB.S. in Economics, Ohio Valley University, 2021\n"
        "University of California, Berkeley - exchange term\nMIT OpenCourseWare\n"
    )
    assert _kinds(text, SlotKind.COLLEGE) == [
        "Ohio Valley University",
        "Ohio Valley University",
        "University of California, Berkeley",
        "MIT",
    ]


def test_colleges_without_an_education_section_are_less_sure() -> None:
    template = find_identity("Jane Public\nGraduated from Ridgeview College in 2020.\n")
    college = [s for s in template.slots if s.kind is SlotKind.COLLEGE]
    assert [s.original for s in college] == ["Ridgeview College"]
    assert college[0].confidence < 0.7


def test_pronouns_keep_their_role_and_case() -> None:
    text = "Jane Public\nShe led; her team praised her. HE said his was his own; herself.\n"
    assert [(k.value, o) for k, o in _slots(text) if k.value.startswith("pronoun")] == [
        ("pronoun_subject", "She"),
        ("pronoun_determiner", "her"),
        ("pronoun_object", "her"),
        ("pronoun_subject", "HE"),
        ("pronoun_possessive", "his"),
        ("pronoun_determiner", "his"),
        ("pronoun_reflexive", "herself"),
    ]


def test_filling_every_kind() -> None:
    text = (
        "Dr. Jane Q. Public\n"
        "jane.public@old.org | (555) 010-2345 | 88 Birch Road, Springfield, IL 62704 | "
        "Columbus, OH\n"
        "linkedin.com/in/jane-public | https://janepublic.dev\n"
        "JP\n"
        "SUMMARY\nMs. Public and her team. J. Public wrote it.\n"
        "EDUCATION\nB.S., Ohio Valley University\n"
    )
    template = find_identity(text)
    assert template.fill(None) == text
    persona = Persona("Ann", "Lee", "woman", college="Plains State University")
    filled = template.fill(persona)
    assert filled == (
        "Dr. Ann Lee\n"
        "ann.lee@example.com | (555) 010-2345 | 88 Birch Road, Springfield, IL 62704 | "
        "Columbus, OH\n"
        "linkedin.com/in/ann-lee | https://annlee.dev\n"
        "AL\n"
        "SUMMARY\nMs. Lee and her team. A. Lee wrote it.\n"
        "EDUCATION\nB.S., Plains State University\n"
    )
    man = Persona("Tom", "Roe", "man", phone="(555) 000-1111", location="Reno, NV",
                  address="1 Main St, Reno, NV 89501")  # fmt: skip
    filled = template.fill(man)
    assert "Mr. Roe and his team" in filled and "Dr. Tom Roe" in filled
    assert "(555) 000-1111 | 1 Main St, Reno, NV 89501 | Reno, NV" in filled
    assert "Ohio Valley University" in filled  # no college given: kept


def test_persona_links_keep_the_host_and_the_handle_style() -> None:
    p = Persona("Ann", "Lee", "woman")
    assert p.link("https://www.linkedin.com/in/jane_public_123/") == (
        "https://www.linkedin.com/in/ann_lee/"
    )
    assert p.link("github.com/JanePublic") == "github.com/annlee"
    assert p.link("jane-public.github.io/cv") == "ann-lee.github.io/cv"
    assert p.link("linkedin.com") is None
    assert Persona("Zoë", "Núñez", "woman").link("x.com/jp") == "x.com/zoenunez"


def test_template_rejects_slots_that_do_not_match_the_text() -> None:
    with pytest.raises(ValueError):
        Template("Jane Public", [Slot(0, 4, SlotKind.FIRST_NAME, "John")])
    with pytest.raises(ValueError):
        Template("Jane Public", [Slot(0, 4, SlotKind.FIRST_NAME, "Jane"),
                                 Slot(2, 6, SlotKind.LAST_NAME, "ne P")])  # fmt: skip


def test_a_college_name_wrapped_by_a_narrow_column() -> None:
    text = "Jane Public\nEDUCATION\nB.S. in Economics\nNorth Carolina A&T State\nUniversity, 2017\n"
    assert _kinds(text, SlotKind.COLLEGE) == ["North Carolina A&T State\nUniversity"]
    text = "Jane Public\nEDUCATION\nB.S., University of\nNorth Texas, 2017\n"
    assert _kinds(text, SlotKind.COLLEGE) == ["University of\nNorth Texas"]


def test_social_handles_in_the_contact_block_only() -> None:
    text = "Jane Public\njane@example.com | @jane_codes\nEXPERIENCE\nShipped features for @Acme\n"
    template = find_identity(text)
    assert [(s.kind, s.original) for s in template.slots if s.kind is SlotKind.LINK] == [
        (SlotKind.LINK, "@jane_codes")
    ]
    assert "@ann_lee" in template.fill(Persona("Ann", "Lee", "woman"))
