"""Rankings written the ways real models write them, each with the order it means.

The ranking reader was built on one publisher's real answers (issue 29); it will
meet other models, other jobs and other names. This generator writes rankings of
candidates drawn from resources/names/names.csv in many shapes at once, each with
its known truth, so a test can ask "is everything a careful reader reads without
doubt read, and nothing misread?" over thousands of answers no one tuned on:

- names re-spelt: case, accents, an apostrophe or hyphen, one slip of a letter, a
  short form ("Alex"), an initial ("J. Huber"), surname first ("Huber, Jake"), the
  first name or surname alone (only where no other candidate shares it), a name
  changed in gender ("Gabriel" for Gabriela);
- list shapes: "1.", "1)", "1st:", bullets, bare lines, "**Name** - why", "Name: why",
  JSON, "A > B > C";
- list faults: cut short ("3. ..."), a repeated or unknown candidate at the end or
  in the middle (the truth is then the top up to the fault).

Each sample's `truth` is the order a careful reader reads: indices into `names`,
best first, up to the first fault.
"""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass
from pathlib import Path

NAMES_CSV = Path(__file__).resolve().parents[2] / "resources" / "names" / "names.csv"
ACCENTS = {"a": "á", "e": "é", "i": "í", "o": "ó", "u": "ú", "n": "ñ"}


@dataclass(frozen=True)
class Sample:
    names: list[str]  # as the prompt showed them
    answer: str
    truth: list[int]  # best first, up to the first fault
    how: str  # what was done to the names and the list


def load_people() -> list[tuple[str, str, str]]:
    """(group, first, last) of every name the app fills in."""
    with NAMES_CSV.open(encoding="utf-8") as fh:
        return [(r["group"], r["first"], r["last"]) for r in csv.DictReader(fh)]


def _slip(word: str, rng: random.Random) -> str:
    """One letter slipped (swapped, doubled, dropped or replaced), never the first."""
    if len(word) < 5:
        return word
    i = rng.randrange(1, len(word) - 1)
    how = rng.choice(("swap", "double", "drop", "replace"))
    if how == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if how == "double":
        return word[: i + 1] + word[i] + word[i + 1 :]
    if how == "drop":
        return word[:i] + word[i + 1 :]
    vowels = "aeiou"
    swap = rng.choice([v for v in vowels if v != word[i].lower()])
    return word[:i] + (swap if word[i].lower() in vowels else word[i]) + word[i + 1 :]


def respell(
    first: str, last: str, others: list[tuple[str, str]], rng: random.Random
) -> tuple[str, str]:
    """(name as the model writes it, what was done), unambiguous among `others`."""
    firsts = {f.lower() for f, _ in others}
    lasts = {x.lower() for _, x in others}
    words = firsts | lasts
    choices = ["same", "upper", "lower", "accent", "slip-first", "slip-last", "initial"]
    choices += ["surname-first", "short", "gender", "hyphen", "apostrophe"]
    if last.lower() not in words:
        choices.append("surname-only")
    if first.lower() not in words:
        choices.append("first-only")
    how = rng.choice(choices)
    f, s = first, last
    if how == "upper":
        return f"{f} {s}".upper(), how
    if how == "lower":
        return f"{f} {s}".lower(), how
    if how == "accent":
        spots = [i for i, c in enumerate(s) if c in ACCENTS]
        if spots:
            i = rng.choice(spots)
            s = s[:i] + ACCENTS[s[i]] + s[i + 1 :]
    elif how == "slip-first":
        slipped = _slip(f, rng)
        f = slipped if slipped.lower() not in words else f
    elif how == "slip-last":
        slipped = _slip(s, rng)
        s = slipped if slipped.lower() not in words else s
    elif how == "initial" and (f[0].lower(), s.lower()) not in {
        (o[0][0].lower(), o[1].lower()) for o in others
    }:
        f = f[0] + "."
    elif how == "surname-first":
        return f"{s}, {f}", how
    elif how == "short" and len(f) >= 7:
        short = f[: rng.randint(4, 5)]
        f = short if short.lower() not in words else f
    elif how == "gender":
        flipped = f[:-1] if f.endswith("a") and len(f) > 4 else f + "a"
        f = flipped if flipped.lower() not in words else f
    elif how == "hyphen" and len(s) >= 6:
        s = s[:3] + "-" + s[3:]
    elif how == "apostrophe" and len(s) >= 5:
        s = s[0] + "'" + s[1].upper() + s[2:]
    elif how == "surname-only":
        return s, how
    elif how == "first-only":
        return f, how
    return f"{f} {s}", how


def _render(items: list[str], style: str, rng: random.Random) -> str:
    why = ("strong experience", "relevant skills", "some experience", "a good fit")
    if style == "json":
        return json.dumps({str(k): v for k, v in enumerate(items, start=1)})
    if style == "chain":
        return "Ranking: " + " > ".join(items)
    lines = []
    for k, item in enumerate(items, start=1):
        lines.append(
            {
                "dot": f"{k}. {item}",
                "paren": f"{k}) {item}",
                "ordinal": f"{k}{'st' if k == 1 else 'nd' if k == 2 else 'rd' if k == 3 else 'th'}:"
                f" {item}",
                "bullet": f"- {item}",
                "bare": item,
                "bold-why": f"{k}. **{item}** - {rng.choice(why)}.",
                "colon-why": f"{k}. {item}: {rng.choice(why)}.",
            }[style]
        )
    opening = rng.choice(
        ("Ranking the resumes from most qualified to least qualified:", "Ranking:", "")
    )
    return (opening + "\n\n" if opening else "") + "\n".join(lines)


STYLES = ("dot", "paren", "ordinal", "bullet", "bare", "bold-why", "colon-why", "json", "chain")


def sample(people: list[tuple[str, str, str]], rng: random.Random, size: int = 8) -> Sample:
    """One ranking of `size` candidates, one per group where the groups allow."""
    by_group: dict[str, list[tuple[str, str, str]]] = {}
    for p in people:
        by_group.setdefault(p[0], []).append(p)
    groups = list(by_group)
    rng.shuffle(groups)
    chosen: list[tuple[str, str]] = []
    while len(chosen) < size:
        g = groups[len(chosen) % len(groups)]
        _, first, last = rng.choice(by_group[g])
        if (first, last) not in chosen and first not in {f for f, _ in chosen}:
            chosen.append((first, last))
    names = [f"{f} {s}".upper() for f, s in chosen]
    order = list(range(size))
    rng.shuffle(order)
    written, hows = [], []
    for i in order:
        others = [c for j, c in enumerate(chosen) if j != i]
        text, how = respell(*chosen[i], others, rng)
        written.append(text)
        hows.append(how)
    truth = list(order)
    fault = rng.choice(("none", "none", "none", "cut", "repeat-end", "unknown-mid", "repeat-mid"))
    style = rng.choice(STYLES)
    if fault == "cut":
        k = rng.randint(1, size - 2)
        written, truth = written[:k] + ["..."] * (size - k), truth[:k]
    elif fault == "repeat-end":
        written = written + [written[rng.randrange(size)]]
    elif fault in ("unknown-mid", "repeat-mid"):
        k = rng.randint(1, size - 1)
        extra = "Pat Quinnell" if fault == "unknown-mid" else written[rng.randrange(k)]
        written = written[:k] + [extra] + written[k:]
        truth = truth[:k]
    if style in ("bare", "chain", "json") and fault == "cut":
        style = "dot"  # "..." as a bare line or a JSON value is not a list cut short
    answer = _render(written, style, rng)
    return Sample(names, answer, truth, f"{style}/{fault}/" + ",".join(sorted(set(hows))))


def samples(count: int, seed: int = 29) -> list[Sample]:
    rng = random.Random(seed)
    people = load_people()
    return [sample(people, rng) for _ in range(count)]
