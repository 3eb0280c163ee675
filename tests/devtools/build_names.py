"""Build resources/names/names.csv from the public name data in shared/data/names.

Run: PYTHONPATH=tests python -m devtools.build_names SHARED_NAMES_DIR [OUT_DIR]

Candidates: the first names and surnames of the 2024 Bloomberg audit's full
names (first names from North Carolina voter records, surnames from the Census)
and the derived first cut in derived_names.csv. Keep a half only if it signals
the intended group on its own public statistics:
  - first name: at least 95% of US births (SSA 1940-2023, >= 500 births) were of
    the intended sex;
  - surname: the intended race/ethnicity holds the largest share in the 2010
    Census surname table, and at least MIN_SURNAME_SHARE of it;
  - the surname is common (>= MIN_SURNAME_COUNT people in the 2010 Census), so it
    reads as a US surname rather than pointing at a small national subgroup;
  - where Tzioumis (2018) lists the first name, its share for the intended race
    is at least MIN_FIRST_RACE_SHARE (Black first names are mostly absent there).
Then pair the strongest first names with the strongest surnames, one to one: within a
group no first name and no surname repeats, so any pool drawn from one group has
distinct names.
"""

from __future__ import annotations

import csv
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

RACE_KEYS = {"W": "white", "B": "black", "A": "asian", "H": "hispanic"}
CENSUS_COL = {
    "white": "pctwhite",
    "black": "pctblack",
    "asian": "pctapi",
    "hispanic": "pcthispanic",
}
TZ_COL = CENSUS_COL
MIN_SEX_SHARE = 0.95
MIN_BIRTHS = 500
MIN_SURNAME_SHARE = 40.0
MIN_FIRST_RACE_SHARE = 30.0
MIN_SURNAME_COUNT = 3000  # common enough to read as a US surname, not a rare subgroup one
PER_GROUP = 40


def _pct(value: str) -> float:
    try:
        return float(value)
    except ValueError:  # "(S)": suppressed small cell
        return 0.0


Table = dict[str, dict[str, float]]


def load(src: Path) -> tuple[dict[str, dict[str, int]], Table, Table, dict[str, Any]]:
    ssa: dict[str, dict[str, int]] = defaultdict(lambda: {"F": 0, "M": 0})
    with open(src / "ssa_births_1940_2023.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            ssa[row["name"].upper()][row["sex"]] += int(row["births_1940_2023"])
    census = {}
    with open(src / "Names_2010Census.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            shares = {r: _pct(row[c]) for r, c in CENSUS_COL.items()}
            shares["count"] = float(row["count"])
            census[row["name"].upper()] = shares
    tz = {}
    with open(src / "firstnames.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            tz[row["firstname"].upper()] = {r: _pct(row[c]) for r, c in TZ_COL.items()}
    lists = {}
    for gender, fname in (("man", "top_mens_names.json"), ("woman", "top_womens_names.json")):
        lists[gender] = json.loads((src / fname).read_text())
    return ssa, census, tz, lists


def build(src: Path) -> list[dict[str, str]]:
    ssa, census, tz, lists = load(src)
    with open(src / "derived_names.csv", newline="") as fh:
        derived = list(csv.DictReader(fh))
    rows: list[dict[str, str]] = []
    for gender, by_race in lists.items():
        sex = "F" if gender == "woman" else "M"
        for code, names in by_race.items():
            race = RACE_KEYS[code]
            group = f"{race}_{gender}"
            first_pool = [n.split()[0] for n in names] + [
                r["name"] for r in derived if r["group"] == group and r["kind"].startswith("first")
            ]
            last_pool = [n.split()[-1] for n in names] + [
                r["name"] for r in derived if r["group"] == group and r["kind"] == "surname"
            ]
            firsts = {}
            for first in dict.fromkeys(first_pool):
                births = ssa.get(first, {"F": 0, "M": 0})
                total = births["F"] + births["M"]
                if total < MIN_BIRTHS or births[sex] / total < MIN_SEX_SHARE:
                    continue
                first_race = tz.get(first, {}).get(race)
                if first_race is not None and first_race < MIN_FIRST_RACE_SHARE:
                    continue
                firsts[first] = (births[sex] / total, first_race)
            lasts = {}
            for last in dict.fromkeys(last_pool):
                shares = census.get(last)
                if not shares or max(CENSUS_COL, key=shares.__getitem__) != race:
                    continue
                if shares["count"] < MIN_SURNAME_COUNT:
                    continue
                if shares[race] < MIN_SURNAME_SHARE:
                    continue
                lasts[last] = shares[race]
            # The published audit's own full names first (as its authors paired them),
            # then the unused first names and surnames paired strongest with strongest.
            pairs: list[tuple[str, str]] = []
            used_first: set[str] = set()
            used_last: set[str] = set()
            for full in names:
                first, last = full.split()[0], full.split()[-1]
                if (
                    first in firsts
                    and last in lasts
                    and not (first in used_first or last in used_last)
                ):
                    pairs.append((first, last))
                    used_first.add(first)
                    used_last.add(last)
            spare_first = sorted(
                (f for f in firsts if f not in used_first),
                key=lambda f: (-(firsts[f][1] or 0), -firsts[f][0], f),
            )
            spare_last = sorted(
                (n for n in lasts if n not in used_last), key=lambda n: (-lasts[n], n)
            )
            pairs.extend(zip(spare_first, spare_last, strict=False))
            for first, last in pairs[:PER_GROUP]:
                sex_share, first_race = firsts[first]
                rows.append(
                    {
                        "group": group,
                        "first": first.title(),
                        "last": _surname_case(last),
                        "first_sex_share": f"{sex_share:.3f}",
                        "first_race_share": "" if first_race is None else f"{first_race / 100:.3f}",
                        "surname_race_share": f"{lasts[last] / 100:.3f}",
                        "source": "bloomberg-2024" if f"{first} {last}" in names else "paired",
                    }
                )
    return rows


# The Census strips apostrophes; put back the common Irish ones.
_APOSTROPHE = {
    "OBRIEN",
    "OCONNELL",
    "OCONNOR",
    "ODONNELL",
    "ONEAL",
    "ONEIL",
    "ONEILL",
    "OROURKE",
    "OKEEFE",
    "OSULLIVAN",
    "OHARA",
    "OLEARY",
    "OMALLEY",
    "OBRIANT",
}


def _surname_case(last: str) -> str:
    if last in _APOSTROPHE:
        return "O'" + last[1:].capitalize()
    out = last.title()
    if out.startswith("Mc") and len(out) > 2:
        out = "Mc" + out[2:].capitalize()
    return out


def main(argv: list[str]) -> int:
    src = Path(argv[1]) if len(argv) > 1 else Path("../shared/data/names")
    out_dir = Path(argv[2]) if len(argv) > 2 else Path("resources/names")
    rows = build(src)
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "names.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        counts[row["group"]] += 1
    for group, n in sorted(counts.items()):
        print(f"{group}: {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
