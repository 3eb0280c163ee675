"""Address finders compared (ours, pyap, usaddress, ours with a library beside it),
and birth dates with and without a date parser.

Run (from the project root):
    PYTHONPATH=$PWD .venv/bin/python benchmarks/identity_libraries.py [RESUMES_DIR]

Issue 23 asks for a well-kept library wherever one does the job, and ours kept only
where it measures better. Each variant replaces `contact.find_street_addresses` (the
street finder; the labelled, header and CJK finders stay as they are) and is scored on:

- resumes-dev (default ../shared/data/resumes-dev): address recall as
  tests/devtools/identity_truth.py counts it, and every address slot that lies on no
  place of the truth's address (an extra: an employer's address, or a wrong span);
  then per source (leave-one-source-out: nothing here is tuned, so a source's own
  figure is what a new source would see);
- the generated address shapes (tests/devtools/address_shapes.py: USPS suffixes,
  units, directionals, ZIP+4, Canadian and UK postcodes, four placings): recall
  (every letter of the address inside an address or location slot) and precision
  (address and location slots that lie on the address);
- the generated resume shapes (tests/devtools/shapes.py), text, Markdown, PDF, Word.

Birth dates: labelled birth dates in generated lines (seven labels, five separators,
alone or in a one-line personal block, eight date formats and languages) and prose
lines that carry a birth word but no birth date; recall of the date and slots taken
on prose, with the colon-or-wide-gap labels alone and with the one-space labels whose
value dateutil reads as a date.

usaddress needs python-crfsuite, a compiled extension, so it is not a dependency of
the app; it is measured when importable (PYTHONPATH=/some/target with it installed).
Nothing is timed.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped

Span = tuple[int, int, float]
_SEGMENTS = re.compile(r"[^\n|\u2022\u00b7]+")
_US_KEEP = {
    "AddressNumber", "AddressNumberPrefix", "AddressNumberSuffix", "StreetNamePreDirectional",
    "StreetNamePreModifier", "StreetNamePreType", "StreetName", "StreetNamePostType",
    "StreetNamePostDirectional", "StreetNamePostModifier", "OccupancyType",
    "OccupancyIdentifier", "SubaddressType", "SubaddressIdentifier", "BuildingName",
    "PlaceName", "StateName", "ZipCode", "USPSBoxType", "USPSBoxID", "CountryName",
}  # fmt: skip


def pyap_addresses(text: str) -> list[Span]:
    import pyap

    out: list[Span] = []
    for country in ("US", "CA", "GB"):
        for a in pyap.parse(text, country=country):
            # pyap's offsets and text are its own copy's (spacing collapsed, a comma
            # where a line broke): the address is found again in ours, wherever it is
            words = re.findall(r"[^\s,]+", a.full_address)
            pattern = r"[\s,]*".join(re.escape(w) for w in words)
            if words:
                out.extend((m.start(), m.end(), 0.8) for m in re.finditer(pattern, text))
    return out


def usaddress_addresses(text: str) -> list[Span]:
    """usaddress tags the tokens of a string it assumes is an address; as a finder, each
    line segment is tagged and the run from a street number to the last address token
    is taken when it has a street name and a street type or a ZIP code."""
    import usaddress

    out: list[Span] = []
    for seg in _SEGMENTS.finditer(text):
        tokens = list(re.finditer(r"\S+", seg.group(0)))
        if not tokens:
            continue
        try:
            tags = [tag for _tok, tag in usaddress.parse(seg.group(0))]
        except Exception:
            continue
        if len(tags) != len(tokens):
            continue
        starts = [i for i, t in enumerate(tags) if t in ("AddressNumber", "USPSBoxType")]
        if not starts:
            continue
        i = starts[0]
        j = i
        while j + 1 < len(tags) and tags[j + 1] in _US_KEEP:
            j += 1
        run = set(tags[i : j + 1])
        if "StreetName" in run and ({"StreetNamePostType", "ZipCode"} & run) or "USPSBoxID" in run:
            a = seg.start() + tokens[i].start()
            b = seg.start() + tokens[j].end()
            while b > a and text[b - 1] in ",;":
                b -= 1
            out.append((a, b, 0.8))
    return out


Finder = Callable[[str, list[tuple[int, int]]], list[Span]]


def _variants() -> dict[str, Finder]:
    from resume_auditor.documents import contact

    ours = contact.find_addresses
    out: dict[str, Finder] = {
        "ours": lambda t, _b: ours(t),
        "pyap": lambda t, _b: pyap_addresses(t),
        "ours+pyap": lambda t, _b: ours(t) + pyap_addresses(t),
        "app (combined)": contact.find_street_addresses,
    }
    try:
        import usaddress  # noqa: F401
    except ImportError:
        print("(usaddress not importable: not measured)")
    else:
        out["usaddress"] = lambda t, _b: usaddress_addresses(t)
        out["ours+usaddress"] = lambda t, _b: ours(t) + usaddress_addresses(t)
    return out


def _with(finder: Finder) -> Callable[[], None]:
    from resume_auditor.documents import contact

    saved = contact.find_street_addresses
    contact.find_street_addresses = finder  # type: ignore[assignment]

    def undo() -> None:
        contact.find_street_addresses = saved

    return undo


_ADDRESSY = {"address", "location"}


def real(folder: Path, variants: dict[str, Finder]) -> None:
    from devtools.identity_truth import _value_pattern, load_truth, resume_files, score_file
    from devtools.sources import held_out, sources

    from resume_auditor.documents.errors import DocumentError
    from resume_auditor.documents.extract import analyse_resume
    from resume_auditor.documents.load import load_file

    docs = []
    for doc, truth_path in resume_files(folder):
        try:
            docs.append((doc.name, load_file(doc), load_truth(truth_path)))
        except DocumentError:
            continue
    repo_of = sources(folder)
    print(f"\nresumes-dev ({len(docs)} readable files): address recall, extras")
    per_source: dict[str, dict[str, tuple[int, int]]] = {}
    for label, finder in variants.items():
        undo = _with(finder)
        found = missed = 0
        extras: list[str] = []
        by_file: dict[str, tuple[int, int]] = {}
        try:
            for name, loaded, truth in docs:
                template = analyse_resume(loaded).template
                fs = score_file(name, template, truth).fields.get("address")
                f, m = (fs.found, fs.missed) if fs else (0, 0)
                found, missed = found + f, missed + m
                by_file[name] = (f, m)
                value = truth.get("address") or ""
                places = (
                    [
                        (x.start(), x.end())
                        for x in _value_pattern("address", value).finditer(template.text)
                    ]
                    if value.strip()
                    else []
                )
                for s in template.slots:
                    if s.kind.value == "address" and not any(
                        s.start < b and s.end > a for a, b in places
                    ):
                        extras.append(f"{name}: {s.original!r}")
        finally:
            undo()
        rec = found / (found + missed) if found + missed else 1.0
        print(f"  {label:<16} recall {rec:.3f} ({found}/{found + missed}), extras {len(extras)}")
        for e in extras:
            print(f"      extra {e}")
        per_source[label] = by_file
    print("  leave-one-source-out by repository (address recall on the source | on the rest):")
    names = [n for n, _, _ in docs]
    for source, mine, rest in held_out(names, repo_of):
        cells = []
        for label in variants:
            by = per_source[label]

            def rec(files: list[str], by: dict[str, tuple[int, int]] = by) -> str:
                f = sum(by[n][0] for n in files)
                m = sum(by[n][1] for n in files)
                return f"{f / (f + m):.2f}" if f + m else "  - "

            cells.append(f"{label} {rec(mine)}|{rec(rest)}")
        print(f"    {source[:28]:<28} " + "  ".join(cells))


def _score_shapes(items: list[tuple[str, str, list[str]]], variants: dict[str, Finder]) -> None:
    """items: (label, text, address values); recall and precision per variant."""
    from resume_auditor.documents.identity import find_identity

    for label, finder in variants.items():
        undo = _with(finder)
        tp = n = ok = made = 0
        try:
            for _name, text, values in items:
                slots = find_identity(text).slots
                cover = [False] * len(text)
                mine = [s for s in slots if s.kind.value in _ADDRESSY]
                for s in mine:
                    for i in range(s.start, s.end):
                        cover[i] = True
                places = []
                for v in values:
                    at = text.find(v)
                    if at < 0:
                        continue
                    places.append((at, at + len(v)))
                    n += 1
                    tp += all(cover[i] for i in range(at, at + len(v)) if not text[i].isspace())
                made += len(mine)
                ok += sum(any(s.start < b and s.end > a for a, b in places) for s in mine)
        finally:
            undo()
        print(
            f"  {label:<16} recall {tp / n if n else 1:.3f} ({tp}/{n}), "
            f"precision {ok / made if made else 1:.3f} ({ok}/{made})"
        )


def generated(variants: dict[str, Finder]) -> None:
    from devtools.address_shapes import PLACINGS, address_shapes

    shapes = address_shapes()
    print(f"\ngenerated address shapes ({len(shapes)}):")
    _score_shapes([("", s.text, [s.address]) for s in shapes], variants)
    for placing in PLACINGS:
        print(f" placing {placing}:")
        pick = [s for i, s in enumerate(shapes) if PLACINGS[(i // 4) % len(PLACINGS)] == placing]
        _score_shapes([("", s.text, [s.address]) for s in pick], variants)


def resume_shapes_check(variants: dict[str, Finder]) -> None:
    from devtools.shapes import RESUME_PRODUCERS, render_resume, resume_shapes

    from resume_auditor.documents.load import load_bytes

    items = []
    for shape in resume_shapes(RESUME_PRODUCERS):
        name, data, truth = render_resume(shape)
        items.append((name, load_bytes(data, name).text, [truth.address]))
    print(f"\ngenerated resume shapes ({len(items)}), address field:")
    _score_shapes(items, variants)


BIRTH_LABELS = ("Date of Birth", "DOB", "D.O.B.", "Birth date", "Born", "Born on", "Birthday")
SEPARATORS = (": ", " ", "\t", " - ", " : ")
PROSE = (
    "Born and raised in Ohio, I moved to Chicago for college.",
    "Processed date of birth corrections for 300 clients in 2021.",
    "Birthday campaigns raised repeat sales 12% in 2019.",
    "Born leader with 8 years in retail.",
    "Built a DOB check for 2 million records.",
)


def birth_dates() -> None:
    from devtools.shapes import PEOPLE

    from resume_auditor.documents import contact
    from resume_auditor.documents.identity import find_identity

    items = []
    for p in PEOPLE:
        for label in BIRTH_LABELS:
            for sep in SEPARATORS:
                items.append(f"{label}{sep}{p.birth}")
                items.append(f"Gender: {p.gender} | {label}{sep}{p.birth} | Nationality: x")
    print(f"\nbirth dates ({len(items)} labelled lines, {len(PROSE)} prose lines):")
    saved = contact._spaced_birth_dates
    for label, off in (("labels with a colon or gap", True), ("and dateutil", False)):
        if off:
            contact._spaced_birth_dates = lambda _t: []  # type: ignore[assignment]
        try:
            found = 0
            for line, p in zip(items, [p for p in PEOPLE for _ in range(70)], strict=True):
                text = f"Morgan Ellis\n{line}\n"
                at = text.find(p.birth)
                cover = set()
                for slot in find_identity(text).slots:
                    cover.update(range(slot.start, slot.end))
                found += all(i in cover for i in range(at, at + len(p.birth)))
            prose = sum(
                1
                for line in PROSE
                for slot in find_identity(f"Morgan Ellis\n\nSUMMARY\n{line}\n").slots
                if slot.kind.value == "personal"
            )
        finally:
            contact._spaced_birth_dates = saved  # type: ignore[assignment]
        print(
            f"  {label:<28} recall {found / len(items):.3f} ({found}/{len(items)}), "
            f"slots on prose {prose}"
        )


def main(argv: list[str]) -> int:
    birth_dates()
    variants = _variants()
    folder = Path(argv[1]) if len(argv) > 1 else ROOT.parent / "shared/data/resumes-dev"
    if folder.is_dir():
        real(folder, variants)
    else:
        print(f"(no real corpus at {folder}: skipped)")
    generated(variants)
    resume_shapes_check(variants)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
