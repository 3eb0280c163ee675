"""Which answers are behind a number: from a metric's path to the model's own words.

"Every number can be traced to the responses that produced it" (PRODUCT.md). The
Results page lets a user pick any number and read the answers it was computed
from: what the model was shown, what it answered, how the app read the answer and
the model's justification. A number is named by its path in the metrics JSON
(docs/metrics-json.md), e.g. ``["d2", "smd", "black_woman"]``, the same path the
report prints beside it.

The rows are the answers the statistic's input table is built from (the D1
judgments; a design kept as a unit picks its own: `Design.drill`, from what each
answer showed and under which preset), selected the way the
statistic selects them: a group's comparison with the reference group includes
the reference group's answers too, since the number compares the two. Unreadable
answers are listed (marked) although every number leaves them out, so a reader
sees them rather than wondering where they went.

The model's words are masked as the report masks them (report/privacy.py): a real
detail of a source resume the model repeats is replaced by its placeholder.
Source resumes are named "Resume N". No Qt here: the page runs this off the UI
thread, and the CLI or a test can run it as it is.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from resume_auditor.designs.base import Drill
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.domain.groups import GENDERS, RACES, Group, group_label, group_part
from resume_auditor.report.privacy import IdentityMask, identity_mask, resume_labels
from resume_auditor.stats.labels import label
from resume_auditor.stats.pair_choice import choice_of
from resume_auditor.store.parts import AuditReader
from resume_auditor.store.resultfile import ResultFile

logger = logging.getLogger(__name__)

UNITS = {d.label: d for d in DESIGNS}
# The designs whose cases are pairs with a right answer (`Design.pair_tab`): an answer
# of theirs is worded as a pair, and said right or wrong.
PAIR_DESIGNS = tuple(d.label for d in DESIGNS if d.pair_tab)


@dataclass(frozen=True)
class AnswerRow:
    """One answer, as a reader sees it."""

    request_id: int
    design: str  # D1, D2, ... (the case's design label)
    what: str  # the kind of question: "Equal pair", "Rating", "Ranking of 4"...
    source: str  # "Resume 2", or "Resumes 1, 3" for a pool or batch
    shown: tuple[str, ...]  # the candidates in the order shown: "Aisha Etienne (Black woman)"
    answer: str  # the label the app read ("first", "4", "ranked", "invalid")
    parsed: str  # the reading in words: "Picked A: Aisha Etienne", "Overall 4 of 5"
    justification: str  # the model's words, masked
    readable: bool = True
    order: str = ""
    repeat: int = 0

    def searchable(self) -> str:
        return " ".join(
            [self.what, self.source, *self.shown, self.parsed, self.justification]
        ).lower()


@dataclass
class Drilldown:
    path: tuple[str, ...]
    title: str  # what the rows are, in words
    rows: list[AnswerRow] = field(default_factory=list)
    note: str = ""  # e.g. why there are none, or what the selection includes

    @property
    def unreadable(self) -> int:
        return sum(1 for r in self.rows if not r.readable)


@dataclass
class _Answer:
    """One stored answer with everything a selection needs (internal)."""

    request_id: int
    design: str
    kind: str  # answer kind (pairwise_abstain, rating, manipulation, dimensions...)
    preset: str
    order: str
    repeat: int
    label: str
    parsed: dict[str, Any]
    justification: str
    shown: list[int]  # variant ids in the order shown
    facts: dict[str, Any]  # design-specific: groups, condition, truth...


class AnswerIndex:
    """Every answer of one run, read once, so many numbers can be traced cheaply.

    The store is read only in `load` (one place to change if the store's shape does).
    """

    def __init__(
        self,
        answers: list[_Answer],
        names: dict[int, tuple[str, str, str]],
        sources: dict[int, str],
        mask: IdentityMask,
        metrics: Mapping[str, Any] | None = None,
    ) -> None:
        self.answers = answers
        self.names = names
        self.sources = sources
        self.mask = mask
        self.metrics = metrics or {}

    # -- reading the store ------------------------------------------------------------

    @classmethod
    def load(
        cls, result: AuditReader, run_id: int, metrics: Mapping[str, Any] | None = None
    ) -> AnswerIndex:
        names = result.variant_labels()
        sources = resume_labels([r.id for r in result.resumes()])
        mask = identity_mask(result, {n for n, _, _ in names.values() if n})
        answers = result.answers(run_id)
        details = result.variant_details()
        own: list[_Answer] = []
        handled: set[str] = set()
        for unit in DESIGNS:  # a design that reads its answers itself (Design.drill_answers)
            found = unit.drill_answers(answers, details)
            if found is not None:
                handled.add(unit.label)
                own += _own_answers(unit.label, found, answers)
        sets = {
            int(c.id or 0): {
                "id": c.id,
                "design": c.design,
                "kind": str(c.kind),
                "cluster": c.cluster,
                "variants": list(c.variants),
                "meta": c.meta,
            }
            for c in result.cases()
            if c.design not in handled
        }
        out = own + _design_answers(answers, sets, handled)
        return cls(out, names, sources, mask, metrics)

    @classmethod
    def open(cls, path: Path, run_id: int, metrics: Mapping[str, Any] | None = None) -> AnswerIndex:
        with ResultFile(path, readonly=True) as result:
            return cls.load(result, run_id, metrics)

    # -- the query ---------------------------------------------------------------------

    def behind(self, path: Sequence[str]) -> Drilldown:
        """The answers behind the metric at `path`; rows empty (with a note) if none map."""
        p = tuple(str(x) for x in path)
        found = _selector(p)
        if found is None:
            return Drilldown(p, "", [], "This number is not computed from individual answers.")
        title, design, keep, note = found
        chosen = [a for a in self.answers if a.design == design and keep(a)]
        if _is_group(p[-1]) and not any(_mentions(a, p[-1]) for a in chosen):
            chosen = []  # only the reference group's answers: not this number's
        rows = [self._row(a) for a in chosen]
        rows.sort(key=lambda r: r.request_id)
        if not rows:
            note = note or "No answers of this kind in this run."
        return Drilldown(p, title, rows, note)

    # -- presenting one answer ---------------------------------------------------------

    def _who(self, vid: int, role: str = "") -> str:
        name, group, _kind = self.names.get(vid, ("", "", ""))
        bits = [b for b in (group_label(group), role) if b]
        shown = name or f"candidate {vid}"
        return f"{shown} ({', '.join(bits)})" if bits else shown

    def _source(self, a: _Answer) -> str:
        ids = a.facts.get("sources") or ([a.facts["cluster"]] if "cluster" in a.facts else [])
        known = [self.sources.get(int(c), f"Resume id {c}") for c in ids if c is not None]
        unique = list(dict.fromkeys(known))
        if len(unique) > 1:
            return "Resumes " + ", ".join(u.removeprefix("Resume ") for u in unique)
        return unique[0] if unique else ""

    def _row(self, a: _Answer) -> AnswerRow:
        roles = a.facts.get("roles") or []
        shown = tuple(
            self._who(v, roles[i] if i < len(roles) else "") for i, v in enumerate(a.shown)
        )
        readable = a.label != "invalid"
        return AnswerRow(
            request_id=a.request_id,
            design=a.design,
            what=_what(a),
            source=self._source(a),
            shown=shown,
            answer=a.label,
            parsed=_reading(a, shown)
            if readable
            else "Could not be read (left out of every number)",
            justification=self.mask(a.justification or ""),
            readable=readable,
            order=a.order,
            repeat=a.repeat,
        )


def answers_behind(
    result: ResultFile, run_id: int, path: Sequence[str], metrics: Mapping[str, Any] | None = None
) -> Drilldown:
    """One number's answers (builds the index; use AnswerIndex for many numbers)."""
    return AnswerIndex.load(result, run_id, metrics).behind(path)


# -- loading --------------------------------------------------------------------------


def _obj(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return {}
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return {}
    return value


def _own_answers(
    design: str, found: list[tuple[dict[str, Any], dict[str, Any]]], answers: pd.DataFrame
) -> list[_Answer]:
    """A design's answers as it read them (`Design.drill_answers`: each answer's row and
    facts), with what the model was shown and how it was asked from the store's rows."""
    if not found:
        return []
    shown: dict[int, list[int]] = {}
    kinds: dict[int, tuple[str, str]] = {}
    if not answers.empty:
        for rid, variants, kind, preset in zip(
            answers["request_id"],
            answers["variants"],
            answers["kind"],
            answers["preset"],
            strict=True,
        ):
            shown[int(rid)] = [int(v) for v in (_obj(variants) or [])]
            kinds[int(rid)] = (str(kind), str(preset))
    out = []
    for r, facts in found:
        rid = int(r["request_id"])
        kind, preset = kinds.get(rid, ("pairwise", ""))
        out.append(
            _Answer(
                rid,
                design,
                kind,
                preset,
                str(r["ord"]),
                int(r["rep"]),
                str(r["label"]),
                {},
                str(r.get("justification") or ""),
                shown.get(rid, []),
                facts,
            )
        )
    return out


def _design_answers(
    answers: pd.DataFrame, sets: dict[int, dict[str, Any]], handled: set[str]
) -> list[_Answer]:
    if answers.empty or not sets:
        return []
    out = []
    rows = answers[~answers["design"].isin(handled)]
    for a in rows.to_dict("records"):
        s = sets.get(int(a["case_id"]))
        if s is None:
            continue
        meta = s.get("meta") or {}
        ids = [int(v) for v in s.get("variants") or []]
        shown = [int(v) for v in (_obj(a["variants"]) or [])]
        where = [ids.index(v) if v in ids else None for v in shown]

        def pick(
            key: str, where: list[int | None] = where, meta: dict[str, Any] = meta
        ) -> list[Any]:
            values = meta.get(key) or []
            return [values[i] if i is not None and i < len(values) else None for i in where]

        facts: dict[str, Any] = {
            "set": int(s["id"]),
            "set_kind": str(s["kind"]),
            "groups": [g or "" for g in pick("groups")],
        }
        if s.get("cluster") is not None:
            facts["cluster"] = int(s["cluster"])
        if meta.get("sources"):
            facts["sources"] = [v for v in pick("sources") if v is not None]
        facts["preset"] = str(a["preset"])
        if s["design"] in UNITS:  # a design kept as a unit says what it shows
            facts |= UNITS[s["design"]].answer_facts(str(s["kind"]), pick)
        out.append(
            _Answer(
                int(a["request_id"]),
                str(s["design"]),
                str(a["kind"]),
                str(a["preset"]),
                str(a["ord"] or ""),
                int(a["rep"]),
                str(a["label"]),
                _obj(a["parsed"]) or {},
                str(a["justification"] or ""),
                shown,
                facts,
            )
        )
    return out


# -- selecting ------------------------------------------------------------------------

Keep = Callable[[_Answer], bool]
Selection = tuple[str, str, Keep, str]  # title, design, predicate, note


def _is_group(key: str) -> bool:
    """A group, race or gender key (the last part of a by-group number's path)."""
    if key in RACES or key in GENDERS:
        return True
    try:
        Group.parse(key)
    except ValueError:
        return False
    return True


def _mentions(a: _Answer, key: str) -> bool:
    groups = [a.facts.get("group_a"), a.facts.get("group_b"), *(a.facts.get("groups") or [])]
    return any(g and key in (g, group_part(g, "race"), group_part(g, "sex")) for g in groups)


def _selector(p: tuple[str, ...]) -> Selection | None:
    if not p:
        return None
    for unit in DESIGNS:  # every registry design, wherever its blocks sit
        if unit.holds(p) and len(p) > len(unit.block_path):
            drill = unit.drill(p)
            if drill is None:
                return None
            return drill.title, unit.label, _kept(drill), drill.note
    return None


def _kept(drill: Drill) -> Keep:
    """A design's own choice of answers (`Design.drill`) as a selection's predicate."""
    return lambda a: drill.keep(a.kind, a.facts, len(a.shown))


def _choice(a: _Answer) -> str:
    """A pair answer's label in case terms: 'a', 'b', 'abstain' or 'invalid'."""
    return choice_of(a.label, a.order)


_PAIR = ("forced_choice", "pairwise_abstain")


# -- words ----------------------------------------------------------------------------

_WHAT = {
    "pairwise_abstain": "Pair",
    "forced_choice": "Pair (must pick)",
    "rating": "Rating 1–5",
    "manipulation": "What group the model perceived",
    "yes_no": "Yes/No: a good fit?",
    "dimensions": "Scores on five dimensions",
    "ranking": "Ranking",
}


def _what(a: _Answer) -> str:
    if a.design in PAIR_DESIGNS:
        kind = "Equal pair" if a.facts.get("pair_kind") == "equal" else "Unequal pair"
        first = "A" if a.order == "ab" else "B"
        return f"{kind}, {first} shown first"
    text = _WHAT.get(a.kind, a.kind.replace("_", " "))
    if a.kind == "ranking":
        text = f"Ranking of {len(a.shown)}"
    return text


def _num(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "?"
    return f"{value:g}"


def _reading(a: _Answer, shown: tuple[str, ...]) -> str:
    p = a.parsed
    if a.design in PAIR_DESIGNS or a.kind in _PAIR:
        if a.label in ("first", "second"):
            i = 0 if a.label == "first" else 1
            who = shown[i] if i < len(shown) else a.label
            text = f"Picked the {a.label} shown: {who}"
        elif a.label == "abstain":
            text = "Said they are equal"
        else:
            text = a.label
        truth = a.facts.get("truth")
        if a.design in PAIR_DESIGNS and truth in ("a", "b", "equal"):
            right = _choice(a) == ("abstain" if truth == "equal" else truth)
            answer = "equal" if truth == "equal" else f"{str(truth).upper()} is more qualified"
            text += " — right" if right else f" — wrong (right answer: {answer})"
        return text
    if a.kind == "rating":
        parts = [f"{k} {_num(p[k])}" for k in ("experience", "professionalism", "fit") if k in p]
        text = f"Rated {_num(p.get('rating'))} of 5"
        return text + (f" ({', '.join(parts)})" if parts else "")
    if a.kind == "manipulation":
        race = p.get("perceived_race") or "?"
        gender = p.get("perceived_gender") or "?"
        return f"Perceived: {label(race)}, {label(gender)}"
    if a.kind == "yes_no":
        yes = p.get("p_yes")
        if isinstance(yes, int | float) and not isinstance(yes, bool):
            return f"{a.label.capitalize()} (probability of yes {yes:.2f})"
        return a.label.capitalize()
    if a.kind == "dimensions":
        dims = [(k, v) for k, v in p.items() if isinstance(v, int | float) and k != "expected"]
        return ", ".join(f"{k.replace('_', ' ')} {_num(v)}" for k, v in dims) or a.label
    if a.kind == "ranking":
        ranks = p.get("ranks") or []
        placed = sorted(
            (int(r), shown[j]) for j, r in enumerate(ranks) if j < len(shown) and r is not None
        )
        return "; ".join(f"{r}. {who}" for r, who in placed) or a.label
    return a.label
