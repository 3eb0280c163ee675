"""Splitting a found name into first and last: ours against nameparser, known truth.

Run (from the project root):
    PYTHONPATH=$PWD .venv/bin/python benchmarks/name_parsing.py [NAMES_DIR]

The identity finder takes the candidate's name from a header line
(`names.parse_name_line`) and then looks for the first and the last name alone
("Ms. Doe", "Jane's"), so splitting the name right matters as much as finding it.
nameparser (HumanName) is a library made for that split. Names are generated from
the shared name lists (NAMES_DIR, default ../shared/data/names: Census 2010
surnames, Tzioumis first names) with middle names and initials, particles ("de la",
"van", "bin"), hyphenated surnames, suffixes, titles, credentials, nicknames and
the inverted "SURNAME, Given" form, so the truth (first, last with its particles)
is known by construction. A split is right when first and last both equal the
truth. Lines ours does not read as a name are counted apart. Nothing is timed.
"""

from __future__ import annotations

import csv
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PARTICLES = ("de", "de la", "van", "van der", "von", "da", "dos", "di", "bin", "al", "le")
SUFFIXES = ("Jr.", "Sr.", "III")
TITLES = ("Dr.", "Mr.", "Ms.", "Prof.")
CREDENTIALS = ("MBA", "PhD", "CPA", "RN")


def _names(folder: Path, n: int) -> tuple[list[str], list[str]]:
    with (folder / "firstnames.csv").open(encoding="utf-8") as fh:
        firsts = [r["firstname"].title() for r in csv.DictReader(fh)][:3000]
    with (folder / "Names_2010Census.csv").open(encoding="utf-8") as fh:
        lasts = [r["name"].title() for r in csv.DictReader(fh) if r["name"].isalpha()][:5000]
    return firsts, lasts


def cases(folder: Path, n: int = 3000, seed: int = 5) -> list[tuple[str, str, str, str]]:
    """(shape, line, first, last) with the truth by construction."""
    rng = random.Random(seed)
    firsts, lasts = _names(folder, n)
    out = []
    for i in range(n):
        first, last = rng.choice(firsts), rng.choice(lasts)
        shape = ("plain", "middle", "initial", "particle", "hyphen", "suffix", "title",
                 "credential", "nickname", "inverted", "caps")[i % 11]  # fmt: skip
        line = f"{first} {last}"
        if shape == "middle":
            line = f"{first} {rng.choice(firsts)} {last}"
        elif shape == "initial":
            line = f"{first} {rng.choice('ABCDEFGHJKLMNPRSTW')}. {last}"
        elif shape == "particle":
            last = f"{rng.choice(PARTICLES)} {last}"
            line = f"{first} {last}"
        elif shape == "hyphen":
            last = f"{last}-{rng.choice(lasts)}"
            line = f"{first} {last}"
        elif shape == "suffix":
            line = f"{first} {last} {rng.choice(SUFFIXES)}"
        elif shape == "title":
            line = f"{rng.choice(TITLES)} {first} {last}"
        elif shape == "credential":
            line = f"{first} {last}, {rng.choice(CREDENTIALS)}"
        elif shape == "nickname":
            line = f'{first} ("{rng.choice(firsts)[:3]}") {last}'
        elif shape == "inverted":
            line = f"{last.upper()}, {first}"
        elif shape == "caps":
            line = f"{first} {last}".upper()
            first, last = first.upper(), last.upper()
        out.append((shape, line, first, last))
    return out


def main(argv: list[str]) -> int:
    from nameparser import HumanName

    from resume_auditor.documents.names import Name, parse_name_line

    folder = Path(argv[1]) if len(argv) > 1 else ROOT.parent / "shared/data/names"
    if not folder.is_dir():
        print(f"(no name lists at {folder}: nothing measured)")
        return 0
    per: dict[str, list[int]] = {}
    for shape, line, first, last in cases(folder):
        row = per.setdefault(shape, [0, 0, 0, 0])  # n, read by ours, ours right, library right
        row[0] += 1
        parsed = parse_name_line(line)
        if parsed is not None:
            row[1] += 1
            name = Name(parsed[2], parsed[0], parsed[1], 1.0)
            row[2] += name.first.lower() == first.lower() and name.last_full.lower() == last.lower()
        h = HumanName(line)
        lib_last = h.last.upper() if line.isupper() else h.last
        row[3] += h.first.lower() == first.lower() and lib_last.lower() == last.lower()
    print(f"{'shape':<12}{'names':>6}{'ours reads':>11}{'ours right':>11}{'nameparser right':>17}")
    tot = [0, 0, 0, 0]
    for shape, (n, read, ours, lib) in per.items():
        print(f"{shape:<12}{n:>6}{read:>11}{ours / n:>11.3f}{lib / n:>17.3f}")
        tot = [a + b for a, b in zip(tot, (n, read, ours, lib), strict=True)]
    n, read, ours, lib = tot
    print(f"{'all':<12}{n:>6}{read:>11}{ours / n:>11.3f}{lib / n:>17.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
