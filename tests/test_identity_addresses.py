"""Street addresses (pyap beside our pattern) and birth dates (dateutil), known truth.

The generator (tests/devtools/address_shapes.py) writes US, Canadian and UK addresses
with USPS street suffixes our pattern does not list, units, directionals and ZIP+4,
alone on a line, labelled, in a contact row, and broken after the street. The
floors are the combined finder's figures (benchmarks/identity_libraries.py) less a
margin; precision must stay whole.
"""

from __future__ import annotations

from devtools.address_shapes import PLACINGS, address_shapes

from resume_auditor.documents.contact import find_addresses, find_street_addresses
from resume_auditor.documents.identity import find_identity


def _found(text: str, address: str) -> tuple[bool, int, int]:
    slots = [s for s in find_identity(text).slots if s.kind.value in ("address", "location")]
    at = text.find(address)
    cover: set[int] = set()
    for s in slots:
        cover.update(range(s.start, s.end))
    whole = all(i in cover for i in range(at, at + len(address)) if not text[i].isspace())
    right = sum(1 for s in slots if s.start < at + len(address) and s.end > at)
    return whole, right, len(slots)


def test_generated_addresses_are_found_whole_and_nothing_else_is() -> None:
    shapes = address_shapes(200, seed=11)
    by: dict[str, list[bool]] = {p: [] for p in PLACINGS}
    right = made = 0
    for i, shape in enumerate(shapes):
        whole, ok, n = _found(shape.text, shape.address)
        by[PLACINGS[(i // 4) % len(PLACINGS)]].append(whole)
        right, made = right + ok, made + n
    assert right == made  # every address slot lies on the address
    for placing in ("alone", "label", "row"):
        assert sum(by[placing]) / len(by[placing]) >= 0.85, placing
    assert sum(by["broken"]) / len(by["broken"]) >= 0.7


def test_a_street_suffix_our_pattern_lacks_is_found_in_the_header() -> None:
    text = "Morgan Ellis\n1600 Hawthorne Glen, Salt Lake City, UT 84101\n(555) 010-4477\n"
    assert not find_addresses(text)  # "Glen" is not in our list of street types
    whole, _, _ = _found(text, "1600 Hawthorne Glen, Salt Lake City, UT 84101")
    assert whole


def test_an_award_place_in_the_body_is_not_an_address() -> None:
    text = (
        "Claud Park\nclaud@example.org\n\nEXPERIENCE\nSecurity Engineer, Acme, 2019 - 2024\n"
        "\nAWARDS\n"
        "2021 2nd Place, AWS ASEAN AI Hackathon\n2015 3rd Place, WITHCON Hacking Competition\n"
    )
    body = text.index("EXPERIENCE")
    spans = find_street_addresses(text, [(0, body)])
    assert all(b <= body for _, b, _ in spans)
    assert not [s for s in find_identity(text).slots if "Place" in s.original]


def test_a_bare_street_in_the_contact_block_still_counts() -> None:
    text = "Jane Roe\n12 Elm Street\njane@example.org\n\nEXPERIENCE\nClerk, 2020\n"
    spans = find_street_addresses(text, [(0, text.index("EXPERIENCE"))])
    assert [text[a:b] for a, b, _ in spans] == ["12 Elm Street"]


def test_a_birth_date_after_a_label_and_one_space_is_withheld_prose_is_not() -> None:
    from resume_auditor.documents.contact import find_personal_details

    def values(line: str) -> list[str]:
        return [line[a:b] for a, b, _ in find_personal_details(line)]

    assert values("DOB 04/11/1996") == ["04/11/1996"]
    assert values("Born 23rd July 1995 in Warsaw") == ["23rd July 1995"]
    assert values("Date of Birth 30 de enero de 1992") == ["30 de enero de 1992"]
    assert sorted(values("Date of Birth 12 March 1994 Nationality : Polish")) == [
        "12 March 1994",
        "Polish",
    ]
    assert values("Born on: 2 February 1997") == ["2 February 1997"]
    for prose in (
        "Born and raised in Ohio, I moved to Chicago in 2015.",
        "Processed date of birth corrections for 300 clients.",
        "Born leader with 8 years in retail.",
    ):
        assert values(prose) == [], prose
