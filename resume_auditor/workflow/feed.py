"""Answers in words, as they arrive: what the Run page's feed and the presenter show.

Every kind of answer is put in a recruiter's words — which candidate a pairwise
prompt picked (or that it called them equal), a rating on its scale, a yes/no with
its probability, five scores, a ranking — with the design it belongs to, the
candidates shown (by the synthetic names the model saw, the source resume only as
"Resume N", as the report names them) and the model's own words with any real
identity detail masked (report/privacy.py). Kept free of Qt so it is tested over
real stored answers, and so the UI thread only formats strings: everything read
from the result file is read once, off that thread, into a `Roster`.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from resume_auditor.designs.registry import DESIGNS
from resume_auditor.domain.groups import group_label
from resume_auditor.report.privacy import identity_mask, resume_labels
from resume_auditor.runner.answering import pairwise_label
from resume_auditor.runner.events import Answer
from resume_auditor.store.resultfile import ResultFile

logger = logging.getLogger(__name__)

MAX_WORDS = 240  # characters of the model's words kept on one feed line

DESIGN_TITLES = {d.label: d.feed_title() for d in DESIGNS}
# The designs whose cases are pairs with a right answer (`Design.pair_tab`): each of
# their answers is marked right or wrong, and their running shares are kept.
PAIR_DESIGNS = tuple(d.label for d in DESIGNS if d.pair_tab)

DIMENSIONS = (
    ("relevance", "relevance"),
    ("impact", "impact"),
    ("skill_relevance", "skills"),
    ("achievements", "achievements"),
    ("cultural_fit", "cultural fit"),
)


@dataclass(frozen=True)
class Candidate:
    name: str  # the synthetic name the model saw ("" for a name-free copy)
    group: str  # group key ("black_woman"; "" when none)
    resume: str  # "Resume 2": the source resume, never its real owner's name

    def words(self) -> str:
        who = self.name or "the name-free copy"
        extra = ", ".join(x for x in (group_label(self.group), self.resume) if x)
        return f"{who} ({extra})" if extra else who


def _no_mask(text: str) -> str:
    return text


@dataclass
class Roster:
    """What the words need from the result file, read once off the UI thread."""

    candidates: dict[int, Candidate] = field(default_factory=dict)
    # pair id (of a design in PAIR_DESIGNS) -> (variant_a, variant_b, truth "a"/"b"/"equal")
    pairs: dict[int, tuple[int, int, str]] = field(default_factory=dict)
    mask: Callable[[str], str] = _no_mask

    @classmethod
    def load(cls, result: ResultFile) -> Roster:
        resumes = resume_labels([r.id for r in result.resumes()])
        candidates = {
            int(v.id): Candidate(v.name or "", v.group or "", resumes.get(v.resume_id, ""))
            for v in result.variants()
            if v.id is not None
        }
        pairs = {
            int(p.id): (p.variant_a, p.variant_b, p.truth.value)
            for design in PAIR_DESIGNS
            for p in result.cases(design)
            if p.id is not None and p.truth is not None
        }
        try:
            mask: Callable[[str], str] = identity_mask(result)
        except Exception:  # a damaged template must not hide the feed; say so in the log
            logger.warning("identity mask unavailable; the feed shows words unmasked")
            mask = _no_mask
        return cls(candidates, pairs, mask)

    def candidate(self, variant: int) -> Candidate:
        found = self.candidates.get(variant)
        if found is not None:
            return found
        return Candidate(f"candidate {variant}", "", "")


@dataclass(frozen=True)
class FeedLine:
    """One answer in words; `right` is known only where the design has a right answer."""

    design: str  # the design's label ("" when the request names none)
    title: str  # the design in words
    shown: str  # who was shown
    verdict: str  # what the model answered
    words: str  # the model's own words, masked and shortened ("" when it gave none)
    right: bool | None = None

    def text(self) -> str:
        """One line for the Run page's feed."""
        mark = {True: "✓ ", False: "✗ ", None: ""}[self.right]
        line = f"{mark}{self.title} · {self.shown}: {self.verdict}."
        if self.words:
            line += f" “{self.words}”"
        return line


def design_of(answer: Answer) -> str:
    head = answer.cell.split(" ", 1)[0]
    if head in DESIGN_TITLES:
        return head
    # a pair answer whose cell names no design (an older file): the pairs' design
    return PAIR_DESIGNS[0] if answer.pair_id is not None and PAIR_DESIGNS else ""


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_WORDS else text[: MAX_WORDS - 1].rstrip() + "…"


def _unreadable(answer: Answer) -> str | None:
    if "refused" in answer.parsed:
        return "refused to answer"
    if answer.value == "invalid":
        return "gave no answer that could be read"
    return None


def describe(answer: Answer, roster: Roster) -> FeedLine:
    """The answer in words, whatever its kind."""
    design = design_of(answer)
    title = DESIGN_TITLES.get(design, "Answer")
    shown = [roster.candidate(v) for v in answer.variants]
    words = _shorten(roster.mask(answer.justification))
    unreadable = _unreadable(answer)
    right: bool | None = None
    kind = answer.kind
    if kind in ("pairwise_abstain", "forced_choice"):
        who = " vs ".join(c.words() for c in shown) or f"pair {answer.pair_id}"
        verdict = unreadable or _pairwise_verdict(answer, shown)
        if design in PAIR_DESIGNS:  # a pair with a right answer: right or wrong
            right = _pair_right(answer, roster)
            truth = _pair_truth(answer, roster)
            if truth:
                who += f" ({truth})"
        else:  # a design that compares two of its candidates says so
            title = f"{title}, two at a time"
        return FeedLine(design, title, who, verdict, words, right)
    who = shown[0].words() if len(shown) == 1 else ", ".join(c.words() for c in shown)
    if kind == "rating":
        verdict = unreadable or _rating_verdict(answer.parsed)
    elif kind == "yes_no":
        verdict = unreadable or _yes_no_verdict(answer)
        title = f"{title}, yes or no"
    elif kind == "dimensions":
        verdict = unreadable or _dimensions_verdict(answer.parsed)
    elif kind == "ranking":
        who = f"{len(shown)} candidates"
        verdict = unreadable or _ranking_verdict(answer.parsed, shown)
    elif kind == "manipulation":
        title = f"{design} which group the model reads from the resume".strip()
        verdict = unreadable or _manipulation_verdict(answer.parsed)
    else:
        verdict = unreadable or f"answered {answer.value}"
    return FeedLine(design, title, who, verdict, words, right)


def _picked(answer: Answer) -> int | None:
    """The position picked (0 = shown first), None for equal or unreadable."""
    if answer.value == "first":
        return 0
    if answer.value == "second":
        return 1
    return None


def _pairwise_verdict(answer: Answer, shown: list[Candidate]) -> str:
    position = _picked(answer)
    if position is None:
        if answer.value == "abstain":
            if answer.kind == "forced_choice":
                return "called them equal although asked to choose one"
            return "called them equal"
        return f"answered {answer.value}"
    where = "shown first" if position == 0 else "shown second"
    name = shown[position].name if position < len(shown) else ""
    if not name or sum(c.name == name for c in shown) > 1:  # the same name twice
        return f"picked the resume {where}"
    return f"picked {name} ({where})"


def _pair_truth(answer: Answer, roster: Roster) -> str:
    pair = roster.pairs.get(answer.pair_id or -1)
    if pair is None:
        return ""
    a, b, truth = pair
    if truth == "equal":
        return "equally qualified"
    better = roster.candidate(a if truth == "a" else b)
    return f"{better.name or 'one'} is more qualified"


def _pair_right(answer: Answer, roster: Roster) -> bool | None:
    pair = roster.pairs.get(answer.pair_id or -1)
    if pair is None or answer.value not in ("first", "second", "abstain"):
        return None
    a, b, truth = pair
    position = _picked(answer)
    if truth == "equal":
        return position is None
    if position is None or position >= len(answer.variants):
        return False
    return answer.variants[position] == (a if truth == "a" else b)


def _rating_verdict(parsed: Mapping[str, Any]) -> str:
    rating = parsed.get("rating")
    text = f"rated {rating} out of 5" if rating is not None else "gave no overall rating"
    subs = [
        f"{label} {parsed[key]}"
        for key, label in (
            ("experience", "experience"),
            ("professionalism", "professionalism"),
            ("fit", "fit"),
        )
        if parsed.get(key) is not None
    ]
    if subs:
        text += f" ({', '.join(subs)})"
    return text


def _yes_no_verdict(answer: Answer) -> str:
    text = "said Yes" if answer.value == "yes" else "said No"
    score = answer.parsed.get("score")
    if isinstance(score, int | float):
        text += f" (probability of Yes {score:.0%})"
    return text


def _dimensions_verdict(parsed: Mapping[str, Any]) -> str:
    scores = [(label, parsed[key]) for key, label in DIMENSIONS if parsed.get(key) is not None]
    if not scores:
        return "gave no scores"
    text = "scored " + ", ".join(f"{label} {value}" for label, value in scores) + " (out of 5)"
    missing = parsed.get("missing")
    if missing:
        text += "; no score for " + ", ".join(str(m).replace("_", " ") for m in missing)
    return text


def _ranking_verdict(parsed: Mapping[str, Any], shown: list[Candidate]) -> str:
    order = [int(i) for i in parsed.get("order") or [] if isinstance(i, int)]
    if not order:
        return "gave no ranking"
    places = [
        f"{n}. {shown[i].name or 'candidate ' + str(i + 1)}"
        for n, i in enumerate(order, start=1)
        if 0 <= i < len(shown)
    ]
    text = "ranked " + ", ".join(places)
    if len(order) < len(shown):
        text += f" (left {len(shown) - len(order)} out)"
    return text


def _manipulation_verdict(parsed: Mapping[str, Any]) -> str:
    race = str(parsed.get("perceived_race") or "").capitalize()
    gender = str(parsed.get("perceived_gender") or "")
    if not race and not gender:
        return "could not tell the candidate's race or gender"
    if race and gender:
        return f"read the candidate as a {race} {gender}"
    if race:
        return f"read the candidate as {race} (gender unclear)"
    return f"read the candidate as a {gender} (race unclear)"


# -- stored answers ------------------------------------------------------------------


def answer_from_row(row: Mapping[str, Any]) -> Answer:
    """A stored answer (a row of `ResultFile.answers`) as the runner would have sent it."""
    # A pair answer's pair is its case (store answers(): one case shape for every design).
    raw_pair = row.get("case_id") if row.get("design") in PAIR_DESIGNS else None
    # pandas gives NaN (which is not equal to itself) where a request has no pair
    pair_id = int(raw_pair) if raw_pair is not None and raw_pair == raw_pair else None
    label = str(row.get("label") or "invalid")
    parsed = dict(row.get("parsed") or {})
    return Answer(
        request_id=int(row["request_id"]),
        pair_id=pair_id,
        order=str(row.get("ord") or ""),
        label=pairwise_label(str(row.get("kind") or ""), label),
        justification=str(row.get("justification") or ""),
        kind=str(row.get("kind") or ""),
        value=label,
        parsed=parsed,
        source=str(row.get("source") or "api"),
        variants=tuple(int(v) for v in row.get("variants") or ()),
        cell=str(row.get("cell") or ""),
    )


def recent_answers(result: ResultFile, run_id: int, limit: int) -> list[Answer]:
    """The last `limit` answers of a run, oldest first (for a view opened mid-run)."""
    frame = result.answers(run_id)
    return [answer_from_row(r) for r in frame.tail(limit).to_dict("records")]


# -- running numbers -------------------------------------------------------------------


@dataclass
class PairCounts:
    """Running counts of one design's pairs with a right answer."""

    unequal: list[int] = field(default_factory=lambda: [0, 0])  # right, answered
    equal: list[int] = field(default_factory=lambda: [0, 0])  # called equal, answered
    orders: dict[int, dict[str, int | None]] = field(default_factory=dict)  # pair: order: pick
    consistent: list[int] = field(default_factory=lambda: [0, 0])  # same verdict, both seen


@dataclass
class Tally:
    """Plain running counts per design, updated answer by answer (no statistics: the
    Results page has the intervals). What a room watches fill in during a run."""

    pairs: dict[str, PairCounts] = field(default_factory=dict)  # by design (PAIR_DESIGNS)
    by_group: dict[tuple[str, str], list[float]] = field(
        default_factory=lambda: defaultdict(lambda: [0.0, 0.0])
    )
    answered: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, answer: Answer, roster: Roster) -> None:
        design = design_of(answer)
        self.answered[design] += 1
        if answer.value == "invalid":
            return
        kind, parsed = answer.kind, answer.parsed
        if design in PAIR_DESIGNS:
            pair = roster.pairs.get(answer.pair_id or -1)
            right = _pair_right(answer, roster)
            if pair is not None and right is not None:
                counts = self.pairs.setdefault(design, PairCounts())
                box = counts.equal if pair[2] == "equal" else counts.unequal
                box[0] += right
                box[1] += 1
                self._note_order(answer, counts)
            return
        groups = [roster.candidate(v).group for v in answer.variants]
        if kind == "rating" and isinstance(parsed.get("rating"), int | float) and groups:
            self._note(f"{design} average rating (1-5)", groups[0], float(parsed["rating"]))
        elif kind == "yes_no" and groups:
            self._note(f"{design} share answered Yes", groups[0], float(answer.value == "yes"))
        elif kind == "dimensions" and groups:
            values = [float(parsed[k]) for k, _ in DIMENSIONS if parsed.get(k) is not None]
            if values:
                self._note(f"{design} average score (1-5)", groups[0], sum(values) / len(values))
        elif kind == "ranking" and answer.value == "ranked":  # as D4: whole rankings only
            for group, rank in zip(groups, parsed.get("ranks") or [], strict=False):
                if isinstance(rank, int):
                    self._note(f"{design} average rank (1 = best)", group, float(rank))
        elif kind in ("pairwise_abstain", "forced_choice") and _picked(answer) is not None:
            position = _picked(answer) or 0
            for i, group in enumerate(groups[:2]):
                self._note(f"{design} share picked, two at a time", group, float(i == position))

    def _note_order(self, answer: Answer, counts: PairCounts) -> None:
        """The first answer in each order of a pair; once both are in, were they the same?"""
        seen = counts.orders.setdefault(answer.pair_id or 0, {})
        if answer.order in seen or len(seen) >= 2:
            return
        position = _picked(answer)
        seen[answer.order] = None if position is None else answer.variants[position]
        if len(seen) == 2:
            first, second = seen.values()
            counts.consistent[0] += first == second
            counts.consistent[1] += 1

    def pair_shares(self) -> dict[str, float | None]:
        """The pairs' three headline shares so far, over every design whose cases are
        pairs with a right answer (None before any answer counts)."""
        boxes = {
            "criterion_validity": [0, 0],
            "discrim_validity": [0, 0],
            "order_consistency": [0, 0],
        }
        for counts in self.pairs.values():
            for key, box in (
                ("criterion_validity", counts.unequal),
                ("discrim_validity", counts.equal),
                ("order_consistency", counts.consistent),
            ):
                boxes[key][0] += box[0]
                boxes[key][1] += box[1]
        return {key: box[0] / box[1] if box[1] else None for key, box in boxes.items()}

    def _note(self, what: str, group: str, value: float) -> None:
        box = self.by_group[(what, group)]
        box[0] += value
        box[1] += 1

    def lines(self) -> list[str]:
        """One sentence per measure, so far."""
        out = []
        for design, counts in self.pairs.items():
            right, n = counts.unequal
            if n:
                out.append(f"{design} picks the more qualified: {right} of {n} ({right / n:.0%})")
            same, n = counts.equal
            if n:
                out.append(f"{design} calls equal candidates equal: {same} of {n} ({same / n:.0%})")
        measures: dict[str, list[str]] = defaultdict(list)
        for (what, group), (total, count) in sorted(self.by_group.items()):
            if not count:
                continue
            value = f"{total / count:.0%}" if "share" in what else f"{total / count:.1f}"
            measures[what].append(f"{group_label(group) or 'name-free copy'} {value}")
        out += [f"{what}: {', '.join(parts)}" for what, parts in measures.items()]
        return out
