"""Street addresses in many real-world shapes, with the address known by construction.

The resume shapes (shapes.py) carry eight people's addresses, so they say little about
addresses written in forms nobody here has typed in. This generator writes US,
Canadian and British addresses with the street suffixes of USPS Publication 28
(common and uncommon, spelled out and abbreviated), directionals, units, ZIP+4,
state names spelled out, Canadian and UK postcodes, and places each one in a resume
header the ways resumes do: alone on a line, after "Address:", between the name and
the phone on one line, and broken after the street. Used by
benchmarks/identity_libraries.py to compare address finders.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# USPS Publication 28, appendix C1: spelled-out and standard abbreviations (a sample of
# the common and the less common, chosen without looking at any finder's list).
SUFFIXES = (
    "Street", "St", "Avenue", "Ave", "Road", "Rd", "Boulevard", "Blvd", "Lane", "Ln",
    "Drive", "Dr", "Court", "Ct", "Way", "Place", "Pl", "Terrace", "Circle", "Parkway",
    "Highway", "Square", "Trail", "Crescent", "Pike", "Plaza", "Heights", "Hts", "Point",
    "Pt", "Ridge", "Rdg", "Crossing", "Xing", "Commons", "Path", "Walk", "Expressway",
    "Mews", "Row", "Bend", "Cove", "Cv", "Glen", "Hollow", "Landing", "Meadows", "Park",
    "Pass", "Station", "Summit", "Turnpike", "Tpke", "Valley", "Vly", "View", "Village",
    "Hill", "Creek", "Harbor", "Junction", "Jct", "Manor", "Orchard", "Ranch", "Springs",
)  # fmt: skip
STREETS = (
    "Maple", "Oak", "Cedar", "Lakeview", "Washington", "Martin Luther King Jr", "Old Mill",
    "Sunset", "Pine", "Elmwood", "Quarry", "Riverside", "Hawthorne", "Franklin", "Bay",
)  # fmt: skip
DIRECTIONS = ("", "", "", "N ", "S ", "E ", "W ", "NE ", "North ", "South ")
UNITS = ("", "", "", "Apt 4B", "Apt. 12", "Suite 210", "Unit 3", "#17", "Ste 400")
US_PLACES = (
    ("Springfield", "IL", "Illinois", "62704"), ("Austin", "TX", "Texas", "78701"),
    ("Portland", "OR", "Oregon", "97205"), ("Raleigh", "NC", "North Carolina", "27601"),
    ("Boise", "ID", "Idaho", "83702"), ("Ann Arbor", "MI", "Michigan", "48104"),
    ("St. Paul", "MN", "Minnesota", "55102"), ("Salt Lake City", "UT", "Utah", "84101"),
)  # fmt: skip
CA_PLACES = (
    ("Toronto", "ON", "M5V 2T6"),
    ("Vancouver", "BC", "V6B 1A1"),
    ("Halifax", "NS", "B3H 1X3"),
)
UK_PLACES = (("London", "SW1A 1AA"), ("Manchester", "M1 1AE"), ("Leeds", "LS1 4DY"))
PLACINGS = ("alone", "label", "row", "broken")


@dataclass(frozen=True)
class AddressShape:
    text: str  # a resume header and a short body
    address: str  # as written (a broken address: with its line break)


def _us(rng: random.Random) -> tuple[str, str]:
    number = str(rng.choice((7, 48, 120, 1600, 23051)))
    street = f"{number} {rng.choice(DIRECTIONS)}{rng.choice(STREETS)} {rng.choice(SUFFIXES)}"
    unit = rng.choice(UNITS)
    city, st, state, zip5 = rng.choice(US_PLACES)
    region = rng.choice((st, st, state))
    zip_code = zip5 + rng.choice(("", "", "-1234"))
    street = f"{street}, {unit}" if unit else street
    return street, f"{city}, {region} {zip_code}"


def _ca(rng: random.Random) -> tuple[str, str]:
    number = str(rng.choice((15, 220, 1188)))
    street = f"{number} {rng.choice(STREETS)} {rng.choice(SUFFIXES)}"
    city, prov, post = rng.choice(CA_PLACES)
    return street, f"{city}, {prov} {post}"


def _uk(rng: random.Random) -> tuple[str, str]:
    number = str(rng.choice((3, 41, 221)))
    street = f"{number} {rng.choice(STREETS)} {rng.choice(SUFFIXES)}"
    city, post = rng.choice(UK_PLACES)
    return street, f"{city} {post}"


def address_shapes(n: int = 600, seed: int = 7) -> list[AddressShape]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        street, town = (_us, _us, _ca, _uk)[i % 4](rng)
        placing = PLACINGS[(i // 4) % len(PLACINGS)]
        one = f"{street}, {town}"
        name, phone, email = "Morgan Ellis", "(555) 010-4477", "morgan.ellis@example.org"
        if placing == "alone":
            head, address = f"{name}\n{one}\n{phone} | {email}", one
        elif placing == "label":
            head, address = f"{name}\nAddress: {one}\nPhone: {phone}\nEmail: {email}", one
        elif placing == "row":
            head, address = f"{name}\n{one} | {phone} | {email}", one
        else:
            address = f"{street}\n{town}"
            head = f"{name}\n{address}\n{phone}\n{email}"
        body = (
            "\n\nEXPERIENCE\nWarehouse Lead, Northwind Supply, 2019 - 2024\n"
            "- Ran a team of 12 across two shifts\n- Cut picking errors by 30%\n"
            "\nEDUCATION\nB.S. Business Administration, 2018\n"
        )
        out.append(AddressShape(head + body, address))
    return out
