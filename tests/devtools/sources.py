"""Which source each file of a development corpus comes from, for leave-one-source-out.

The corpora's SOURCES.md tables name, per file, the repository it was taken from
(a job site's feed, a dataset, a template project) and, for resumes, the producer
that wrote the PDF. A figure computed on the whole corpus can hide a source the code
was fitted to: `held_out` gives, for each source, the files of that source and the
files of all the others, so a benchmark prints both and the gap shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|(.*)$")


def sources(folder: Path, column: str = "repo") -> dict[str, str]:
    """file name -> the value of `column` in the folder's SOURCES.md table ("" if none)."""
    path = folder / "SOURCES.md"
    if not path.is_file():
        return {}
    out: dict[str, str] = {}
    header: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| file"):
            header = [c.lower() for c in cells]
            continue
        row = _ROW.match(line)
        if row and header and column in header:
            value = cells[header.index(column)] if len(cells) > header.index(column) else ""
            out[row.group(1)] = value.strip("` ")
    return out


def producer(filename: str) -> str:
    """The producer in a resumes-dev file name ("rendercv_classic_typst.pdf" -> "typst")."""
    stem = Path(filename).stem
    if Path(filename).suffix != ".pdf":
        return Path(filename).suffix.lstrip(".")
    parts = [p for p in stem.split("_") if not p.isdigit()]
    return parts[-1]


def held_out(
    names: Iterable[str], source_of: dict[str, str]
) -> list[tuple[str, list[str], list[str]]]:
    """(source, its files, every other file) for each source with at least one file."""
    names = list(names)
    by: dict[str, list[str]] = {}
    for name in names:
        by.setdefault(source_of.get(name) or "(unknown)", []).append(name)
    return [
        (source, files, [n for n in names if n not in files])
        for source, files in sorted(by.items())
    ]
