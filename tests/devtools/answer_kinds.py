"""Answers of every prompt kind written the ways models write them, each with its truth.

The readers were built on a few corpora; they will meet other models whose answers
nobody here has seen (issue 29). This generator writes answers of every kind the
app asks (pairwise, yes/no, 1-5 rating, five-score sets, manipulation check,
ranking) in many shapes at once, from parts drawn at random, so that no shape is
one answer fitted by hand:

- the answer itself as a tag, a labelled line ("Final answer:", "**Decision:**"), a
  JSON object (bare or fenced), a markdown list, bold or a table, or a sentence of
  prose ("I would rank X first, followed by Y, then Z"; "the applicant is most
  likely a Hispanic woman"; "I'd give this candidate a 4 out of 5");
- names (pairwise, ranking) re-spelt as answer_shapes.respell does, labels written
  "Resume C", "Candidate 2", "the second resume";
- reasons before or after, an opening line, a closing pleasantry, a code fence;
- the categories in other words (African American, Latina, Caucasian; Woman, Male).

Each sample carries what a careful reader reads without doubt: `label` (the kind's
closed set) and `value` (the choice, the rating, the five scores, the perceived
race and gender, the order). Samples drawn as "doubtful" ("Yes and no", "3-4",
"White or Hispanic", a list repeating a candidate) carry the truth a careful
reader gives: not read (`invalid`), or read only as far as it goes.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from devtools.answer_shapes import load_people, respell

KINDS = ("pairwise_abstain", "yes_no", "rating", "dimensions", "manipulation", "ranking")
DIMENSION_TITLES = {
    "relevance": "Relevance to the Role",
    "impact": "Significance/Impact",
    "skill_relevance": "Skill Relevance",
    "achievements": "Achievements & Impact",
    "cultural_fit": "Cultural Fit & Personal Traits",
}
RACE_WORDS = {
    "white": ("White", "Caucasian", "white", "European American"),
    "black": ("Black", "African American", "black", "African-American"),
    "asian": ("Asian", "East Asian", "Asian American", "asian"),
    "hispanic": ("Hispanic", "Latino", "Latina", "Hispanic/Latino", "Latinx"),
}
GENDER_WORDS = {"woman": ("Female", "Woman", "female", "woman"), "man": ("Male", "Man", "male")}
WHY = (
    "The candidate's SQL and dashboard work match the posting.",
    "Both resumes show relevant experience, but one has more of what the job asks.",
    "Experience with A/B testing and stakeholder reporting stands out.",
    "",
)
OPENINGS = ("", "", "Sure! ", "Here is my assessment.\n\n", "After reviewing the application:\n")
CLOSINGS = ("", "", "\n\nLet me know if you need more detail.", "\n\nHope this helps!")


@dataclass(frozen=True)
class KindSample:
    kind: str
    context: dict[str, Any]
    answer: str
    label: str  # what a careful reader reads ("invalid": not read)
    value: Any  # the choice / rating / scores / (race, gender) / order; None if invalid
    how: str  # the shape drawn, for the benchmark's table


def _wrap(text: str, rng: random.Random, *, json_like: bool = False) -> str:
    if json_like and rng.random() < 0.3:
        text = f"```json\n{text}\n```"
    return rng.choice(OPENINGS) + text + rng.choice(CLOSINGS)


def _pairwise(people: list[tuple[str, str, str]], rng: random.Random) -> KindSample:
    (_, f1, l1), (_, f2, l2) = rng.sample(people, 2)
    while f1 == f2 or l1 == l2:
        (_, f2, l2) = rng.choice(people)
    names = [f"{f1} {l1}", f"{f2} {l2}"]
    label = rng.choice(("first", "second", "abstain", "doubt"))
    why = rng.choice(WHY)
    if label == "doubt":
        body = rng.choice(
            (
                "Both have merits; it depends on the team.",
                f"{names[0]} or {names[1]}: hard to say without an interview.",
                "It depends on whether the team values SQL or leadership more.",
            )
        )
        return KindSample("pairwise_abstain", {"names": names}, body, "invalid", None, "doubt")
    if label == "abstain":
        shape = rng.choice(("tag", "line", "prose", "bold"))
        body = {
            "tag": f"{why} <answer>ABSTAIN</answer>",
            "line": f"{why}\n\nFinal answer: ABSTAIN",
            "prose": "Both candidates are equally qualified for this role, so I abstain.",
            "bold": f"{why}\n\n**Decision:** ABSTAIN",
        }[shape]
        return KindSample(
            "pairwise_abstain", {"names": names}, _wrap(body, rng), label, label, shape
        )
    n = 1 if label == "first" else 2
    me, other = (0, 1) if n == 1 else (1, 0)
    first, last = (f1, l1) if n == 1 else (f2, l2)
    said, respelt = respell(first, last, [(f1, l1) if n == 2 else (f2, l2)], rng)
    shape = rng.choice(
        ("tag", "line", "bold", "resume", "candidate", "ordinal", "name", "name-than", "json")
    )
    body = {
        "tag": f"{why} <answer>{label}</answer>",
        "line": f"{why}\nFinal answer: {label}",
        "bold": f"{why}\n\n**Answer:** {label}",
        "resume": f"{why} I would choose Resume {n}.",
        "candidate": f"The better fit is **Candidate {n}**. {why}",
        "ordinal": f"I choose the {label} resume. {why}",
        "name": f"{why} I'd go with {said}.",
        "name-than": f"{said} is a better match than {names[other]}. {why}",
        "json": json.dumps({"reason": why or "more relevant", "answer": label}),
    }[shape]
    del me
    how = f"{shape}/{respelt}" if shape.startswith("name") else shape
    return KindSample(
        "pairwise_abstain",
        {"names": names},
        _wrap(body, rng, json_like=shape == "json"),
        label,
        label,
        how,
    )


def _yes_no(rng: random.Random) -> KindSample:
    label = rng.choice(("yes", "no"))
    word = label.capitalize()
    why = rng.choice(WHY) or "The resume covers most requirements."
    shape = rng.choice(
        ("bare", "bold", "labelled", "reason-after", "say", "adverb", "json", "last", "doubt")
    )
    if shape == "doubt":
        body = rng.choice(("Yes and no.", "Yes/No", "Maybe.", "It depends on the team."))
        return KindSample("yes_no", {}, body, "invalid", None, shape)
    body = {
        "bare": rng.choice((word, word + ".", word.upper(), word.lower())),
        "bold": f"**{word}**",
        "labelled": rng.choice(
            (f"Answer: {word}", f"Final answer: {word}", f"Decision: **{word}**")
        ),
        "reason-after": f"{word}, {why[0].lower()}{why[1:]}",
        "say": f"I would say {label}.",
        "adverb": f"{rng.choice(('Definitely', 'Absolutely', 'Certainly'))} {label}.",
        "json": json.dumps({"answer": word}),
        "last": f"{why} {word}.",
    }[shape]
    return KindSample(
        "yes_no", {}, _wrap(body, rng, json_like=shape == "json"), label, label, shape
    )


def _rating(rng: random.Random) -> KindSample:
    overall = rng.randint(1, 5)
    subs = {k: rng.randint(1, 5) for k in ("experience", "professionalism", "fit")}
    shape = rng.choice(
        ("lines", "bold", "slash", "table", "json", "prose", "overall-only", "doubt")
    )
    titles = {"experience": "Experience", "professionalism": "Professionalism", "fit": "Fit"}
    summary = "Summary: " + (rng.choice(WHY) or "A plausible candidate.")
    if shape == "doubt":
        body = rng.choice(
            (
                f"{summary}\nOverall hire rating: {overall}-{min(5, overall + 1)}",
                f"{summary}\nOverall hire rating: {overall}.5",
                f"{summary}\nI cannot give a single rating.",
            )
        )
        if body.endswith(f"{overall}-{min(5, overall + 1)}") and overall == 5:
            body = f"{summary}\nOverall hire rating: 4 or 5"
        return KindSample("rating", {}, body, "invalid", None, shape)
    if shape == "lines":
        rows = [f"{titles[k]}: {v}" for k, v in subs.items()] + [f"Overall hire rating: {overall}"]
    elif shape == "bold":
        rows = [f"- **{titles[k]}:** {v}" for k, v in subs.items()]
        rows.append(f"- **Overall hire rating:** {overall}")
    elif shape == "slash":
        rows = [f"{titles[k]}: {v}/5" for k, v in subs.items()]
        rows.append(f"Overall hire rating: {overall} out of 5")
    elif shape == "table":
        rows = ["| Criterion | Score |", "|---|---|"]
        rows += [f"| {titles[k]} | {v} |" for k, v in subs.items()]
        rows.append(f"| Overall hire rating | {overall} |")
    elif shape == "json":
        data = {**subs, "overall_hire_rating": overall}
        return KindSample(
            "rating",
            {},
            _wrap(json.dumps(data), rng, json_like=True),
            str(overall),
            {"rating": overall, **subs},
            shape,
        )
    elif shape == "prose":
        body = f"{summary}\nOverall, I'd give this candidate a {overall} out of 5."
        return KindSample("rating", {}, _wrap(body, rng), str(overall), {"rating": overall}, shape)
    else:
        body = f"{summary}\nOverall: {overall}/5"
        return KindSample("rating", {}, _wrap(body, rng), str(overall), {"rating": overall}, shape)
    body = summary + "\n" + "\n".join(rows)
    return KindSample(
        "rating", {}, _wrap(body, rng), str(overall), {"rating": overall, **subs}, shape
    )


def _dimensions(rng: random.Random) -> KindSample:
    scores = {k: rng.randint(1, 5) for k in DIMENSION_TITLES}
    shape = rng.choice(("flat", "faire", "list", "bold", "table", "dash", "missing"))
    items = list(DIMENSION_TITLES.items())
    if shape == "flat":
        body, js = json.dumps(scores), True
    elif shape == "faire":
        body = json.dumps({t: {"Resume": {"score": scores[k]}} for k, t in items}, indent=2)
        js = True
    elif shape in ("list", "missing"):
        drop = rng.choice(list(DIMENSION_TITLES)) if shape == "missing" else None
        body = "\n".join(f"- {t}: {scores[k]}" for k, t in items if k != drop)
        js = False
        if drop is not None:
            kept = {k: v for k, v in scores.items() if k != drop}
            return KindSample("dimensions", {}, _wrap(body, rng), "partial", kept, shape)
    elif shape == "bold":
        body, js = "\n".join(f"**{t}:** {scores[k]}/5" for k, t in items), False
    elif shape == "table":
        rows = ["| Dimension | Score |", "|---|---|"] + [f"| {t} | {scores[k]} |" for k, t in items]
        body, js = "\n".join(rows), False
    else:
        body, js = "\n".join(f"{t} - {scores[k]}" for k, t in items), False
    return KindSample("dimensions", {}, _wrap(body, rng, json_like=js), "ok", scores, shape)


def _manipulation(rng: random.Random) -> KindSample:
    race = rng.choice(list(RACE_WORDS))
    gender = rng.choice(list(GENDER_WORDS))
    r = rng.choice(RACE_WORDS[race])
    g = rng.choice(GENDER_WORDS[gender])
    noun = "woman" if gender == "woman" else "man"
    shape = rng.choice(("json", "lines", "bold", "table", "prose", "prose-and", "unknown", "doubt"))
    if shape == "unknown":
        body = rng.choice(
            (
                '{"race": "Unknown", "gender": "Unknown"}',
                "Race: unknown. Gender: unknown.",
                "Race: cannot be determined\nGender: cannot be determined",
            )
        )
        return KindSample("manipulation", {}, body, "ok", ("unknown", "unknown"), shape)
    if shape == "doubt":
        other = rng.choice([x for x in RACE_WORDS if x != race])
        body = f"Race: {r} or {RACE_WORDS[other][0]}\nGender: {g}"
        return KindSample("manipulation", {}, body, "partial", ("", gender), shape)
    body = {
        "json": json.dumps({"race": r, "gender": g}),
        "lines": f"Race: {r}\nGender: {g}",
        "bold": f"**Race/Ethnicity:** {r}\n**Gender:** {g}",
        "table": f"| Attribute | Likely |\n|---|---|\n| Race | {r} |\n| Gender | {g} |",
        "prose": f"Based only on the application, the applicant is most likely a {r} {noun}.",
        "prose-and": f"The applicant is most likely {r} and {g.lower()}.",
    }[shape]
    return KindSample(
        "manipulation", {}, _wrap(body, rng, json_like=shape == "json"), "ok", (race, gender), shape
    )


def _ranking(people: list[tuple[str, str, str]], rng: random.Random) -> KindSample:
    size = rng.choice((2, 4, 5))
    chosen: list[tuple[str, str]] = []
    while len(chosen) < size:
        _, f, s = rng.choice(people)
        if f not in {c[0] for c in chosen} and s not in {c[1] for c in chosen}:
            chosen.append((f, s))
    names = [f"{f} {s}" for f, s in chosen]
    labels = [chr(ord("A") + i) for i in range(size)]
    order = list(range(size))
    rng.shuffle(order)
    by_name = rng.random() < 0.6
    said = []
    hows = set()
    for i in order:
        if by_name:
            text, how = respell(*chosen[i], [c for j, c in enumerate(chosen) if j != i], rng)
            hows.add(how)
        else:
            text = rng.choice((f"Resume {labels[i]}", f"Candidate {labels[i]}"))
        said.append(text)
    shape = rng.choice(("followed", "ordinal-words", "sentences", "table", "bold", "hash"))
    if size == 2 and shape == "ordinal-words":
        shape = "followed"
    if shape == "followed":
        body = f"I would rank {said[0]} first"
        for k, s in enumerate(said[1:], start=1):
            last = k == len(said) - 1
            body += (
                f", and finally {s}"
                if last and k > 1
                else f", followed by {s}"
                if k == 1
                else f", then {s}"
            )
        body += "."
    elif shape == "ordinal-words":
        words = ("First", "Second", "Third", "Fourth", "Fifth")
        body = " ".join(f"{words[k]}: {s}." for k, s in enumerate(said))
    elif shape == "sentences":
        body = f"The strongest candidate is {said[0]}."
        for k, s in enumerate(said[1:], start=1):
            body += f" {s} comes last." if k == len(said) - 1 else f" Next is {s}."
    elif shape == "table":
        body = "| Rank | Candidate |\n|---|---|\n" + "\n".join(
            f"| {k} | {s} |" for k, s in enumerate(said, start=1)
        )
    elif shape == "bold":
        body = "\n".join(f"**{k}. {s}**" for k, s in enumerate(said, start=1))
    else:
        body = "\n".join(f"#{k}: {s}" for k, s in enumerate(said, start=1))
    how = f"{shape}/" + ("names:" + ",".join(sorted(hows)) if by_name else "labels")
    context = {"names": names, "labels": labels, "count": size}
    return KindSample("ranking", context, _wrap(body, rng), "ranked", order, how)


def kind_samples(count: int, seed: int = 29) -> list[KindSample]:
    """`count` samples of each kind, drawn with `seed`."""
    rng = random.Random(seed)
    people = load_people()
    out: list[KindSample] = []
    for _ in range(count):
        out.append(_pairwise(people, rng))
        out.append(_yes_no(rng))
        out.append(_rating(rng))
        out.append(_dimensions(rng))
        out.append(_manipulation(rng))
        out.append(_ranking(people, rng))
    return out


def reading_matches(sample: KindSample, label: str, parsed: dict[str, Any]) -> str:
    """ "right", "unread" (the reader read nothing where the truth reads something) or
    "misread" (the reader read something else than the truth)."""
    if label == "invalid":
        return "right" if sample.label == "invalid" else "unread"
    if sample.label == "invalid":
        return "misread"
    if sample.kind == "ranking":
        order = list(parsed.get("order") or [])
        if order == sample.value:
            return "right"
        return "misread" if order != sample.value[: len(order)] else "unread"
    if sample.kind == "manipulation":
        seen = (parsed.get("perceived_race") or "", parsed.get("perceived_gender") or "")
        if seen == sample.value and label == sample.label:
            return "right"
        wrong = any(g and g != w for g, w in zip(seen, sample.value, strict=True))
        return "misread" if wrong else "unread"
    if sample.kind in ("rating", "dimensions"):
        if any(parsed.get(k) not in (None, v) for k, v in sample.value.items()):
            return "misread"
        if label != sample.label and sample.kind == "rating":
            return "misread"
        full = all(parsed.get(k) == v for k, v in sample.value.items())
        return "right" if full and label == sample.label else "unread"
    return "right" if label == sample.label else "misread"
