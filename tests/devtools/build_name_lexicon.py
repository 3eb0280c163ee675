"""Build resources/names/{first_names,surnames}.txt.gz: the lists the name finder reads.

Run: PYTHONPATH=tests python -m devtools.build_name_lexicon SHARED_NAMES_DIR [OUT_DIR]

The name finder (documents/names.py) takes a header line for the candidate's
name only with evidence that it is one; a first name known to these lists is
the strongest. They are broad on purpose (every first name given to at least
MIN_BIRTHS US babies 1940-2023, plus every name in Tzioumis 2018; every surname
carried by at least MIN_SURNAME_COUNT people in the 2010 Census), so names of
many origins are known. Words that are also common surnames ("Sales", "Senior",
"Word") are why a surname alone never makes a name: the finder also vetoes
resume vocabulary and asks for the name's place in the header.
"""

from __future__ import annotations

import csv
import gzip
import sys
from pathlib import Path

MIN_BIRTHS = 100
MIN_SURNAME_COUNT = 1000


def first_names(shared: Path) -> list[str]:
    births: dict[str, int] = {}
    with open(shared / "ssa_births_1940_2023.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            key = row["name"].lower()
            births[key] = births.get(key, 0) + int(row["births_1940_2023"])
    names = {n for n, count in births.items() if count >= MIN_BIRTHS}
    with open(shared / "firstnames.csv", newline="", encoding="utf-8") as fh:
        names.update(row["firstname"].lower() for row in csv.DictReader(fh))
    return sorted(n for n in names if n.isalpha())


def surnames(shared: Path) -> list[str]:
    out = []
    with open(shared / "Names_2010Census.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            name = row["name"].lower()
            if name.isalpha() and int(row["count"]) >= MIN_SURNAME_COUNT:
                out.append(name)
    return sorted(out)


def write(path: Path, names: list[str]) -> None:
    # mtime=0: the same input gives the same bytes
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as fh:
        fh.write(("\n".join(names) + "\n").encode("utf-8"))


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    shared = Path(argv[0])
    out = Path(argv[1]) if len(argv) > 1 else Path("resources/names")
    write(out / "first_names.txt.gz", first_names(shared))
    write(out / "surnames.txt.gz", surnames(shared))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
