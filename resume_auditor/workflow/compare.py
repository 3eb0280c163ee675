"""Several models on the same test cases, compared measure by measure (issue 28).

An audit file can hold one run per model over the same cases. This puts every run's
headline measures side by side and, for every pair of runs, the difference of each
measure with a paired interval and test (stats/compare.py: a source resume left out
of both runs at once), adjusted across every difference shown (a randomization test
that swaps whole clusters between two models; stats/compare.adjust), and a plain
sentence for each. Each design says which of its measures are headlines
(`Design.comparable`; D1's are in designs/d1_castleman/compare.py).

The values equal the runs' own metrics (tests/test_compare.py); the per-model
intervals here are the jackknife's, so a model's interval can differ slightly from its
own Results tab's (a clustered Wilson interval for a rate); the comparison's intervals
are all of one kind so that they can be read against each other (docs/comparison.md).
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np
import pandas as pd

from resume_auditor.designs.base import RunContext
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.report.privacy import IdentityMask, identity_mask, mask_json
from resume_auditor.stats.compare import (
    Comparable,
    Difference,
    Family,
    Measure,
    adjust,
    clustered,
    difference_unit,
    paired_with_swaps,
    sentence,
    single,
)
from resume_auditor.stats.estimate import Estimate
from resume_auditor.stats.intervals import clustered_proportion
from resume_auditor.stats.model import (
    COMPARISON_SCHEMA,
    AgreementRow,
    ComparisonDict,
    IntervalDict,
    MeasureRow,
    RunColumn,
    Unit,
)
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS
from resume_auditor.store.parts import AuditReader
from resume_auditor.store.runs import Progress, RunRecord

logger = logging.getLogger(__name__)


METHOD = (
    "Differences between two models are on the same test cases: each interval leaves "
    "one source resume (for ranked batches, one batch) out of both models' answers at a "
    "time (a paired delete-one jackknife, t on their number - 1 degrees of freedom, or, "
    "when they hold unequal numbers of answers, the jackknife t's exact distribution for "
    "those numbers). The adjusted p-values keep the chance of any false call across every "
    "difference shown at 5%: for each design and pair of models, a randomization test "
    "that swaps whole source resumes' answers between the two models (step-down max-t), "
    "times the number of such pairs and designs; where there are too few source resumes "
    "for that test (said in the notes), and for D3, Holm on the t-based p-values."
)


def _unreachable(
    families: Sequence[Family],
    differences: Sequence[Difference],
    names: Mapping[int, str],
    alpha: float,
) -> list[str]:
    """A note for each design whose randomization test could not reach `alpha` with its
    clusters and the comparisons made (8 source resumes have 256 swap patterns, so a p
    of at least 2/256; with ten pairs of models, 10 x 2/256 > 0.05): its adjusted
    p-values rest on the t approximation instead (stats/compare.adjust)."""
    words = {d.design: d.measure.cluster[1] for d in differences}
    pairs = {(f.run_a, f.run_b) for f in families}
    designs = {f.design for f in families}
    n = len(families)
    made = (
        f"{n} pair{'s' if n > 1 else ''} of models compared"
        if len(designs) == 1
        else f"{n} comparisons of two models on one design"
    )
    out: list[str] = []
    said: set[tuple[str, int]] = set()
    for f in families:
        if not f.coarse or (f.design, f.clusters) in said:
            continue
        said.add((f.design, f.clusters))
        between = f"{names[f.run_a]} and {names[f.run_b]}" if len(pairs) == 1 else "two models"
        out.append(
            f"{f.design}: with {f.clusters} {words.get(f.design, 'clusters')} and {made}, the "
            f"exact test cannot call a difference between {between} clear (even the "
            f"strongest result would give p = {f.floor:.2g}), so these differences are "
            "judged with an approximation that, with so few, calls a chance difference "
            "clear a little more often than 1 time in 20. Add source resumes, or compare "
            "fewer models at once, to get the exact test."
        )
    return out


def _names(runs: Sequence[RunRecord]) -> dict[int, str]:
    """Each run's name: its model, with the provider or the run id where two would clash."""
    base = {r.id: r.model or f"run {r.id}" for r in runs}
    out: dict[int, str] = {}
    for r in runs:
        name = base[r.id]
        clash = [o for o in runs if base[o.id] == name]
        if len(clash) > 1:
            with_provider = f"{name} ({r.provider})"
            if sum(1 for o in clash if o.provider == r.provider) > 1:
                with_provider = f"{name} (run {r.id})"
            name = with_provider
        out[r.id] = name
    return out


READING_COLUMNS = frozenset({"ukey", "rep", "design", "case_id", "cluster", "label", "parsed"})


def _columns_read(result: AuditReader) -> frozenset[str] | None:
    """The answers' columns the comparison reads: `readings`' and those the audit's
    designs' `comparable` read (None: every column, for a design that does not say)."""
    wanted = READING_COLUMNS
    for design in DESIGNS:
        if result.case_count(design.label):  # counted, not read: they are read per run
            if design.comparable_columns is None:
                return None
            wanted = wanted | design.comparable_columns
    return wanted


def run_comparables(
    result: AuditReader, run: RunRecord, answers: pd.DataFrame
) -> dict[str, Comparable]:
    """Every design's comparison table of one run, by design label (absent: no answers)."""
    out: dict[str, Comparable] = {}
    if answers.empty:
        return out
    details = result.variant_details
    for design in DESIGNS:
        mine = answers[answers["design"] == design.label]
        if mine.empty:
            continue
        context = RunContext(
            cases={c.id or 0: c for c in result.cases(design.label)},
            answers=mine,
            thresholds=DEFAULT_THRESHOLDS,  # headline values need no threshold
            run_id=run.id,
            model=run.model,
            prompt=run.prompt_id,
            designs=0,
            details=details,
            others=lambda: [],
        )
        found = design.comparable(context)
        if found is not None:
            out[design.label] = Comparable(clustered(found.table), found.measures)
    return out


@dataclass
class RunsRead:
    """What `compare_runs` read of each run, kept between comparisons of one audit (the
    Results page's, refreshed every few seconds while a model answers): a run whose
    answers have not changed since (`answer_marks`) is not read again. Reading and
    tabulating a run of 10,000 answers is 45-60 ms; while one of five
    models answered, the page read all five at every refresh."""

    # run id -> (what the run's answers were, its comparison tables, its readings)
    runs: dict[int, tuple[tuple[object, ...], dict[str, Comparable], pd.DataFrame | None]] = field(
        default_factory=dict
    )


def compare_runs(
    result: AuditReader,
    run_ids: Sequence[int] | None = None,
    *,
    alpha: float = 0.05,
    level: float = 0.95,
    kept: RunsRead | None = None,
    progress: Mapping[int, Progress] | None = None,
) -> ComparisonDict | None:
    """The comparison of the audit's runs (default: every audit run with an answer; a
    study's further models are queued before they are asked); None: fewer than two.
    `kept`: what an earlier comparison of the same audit read, used where a run's
    answers are unchanged, and updated. `progress`: runs' progress read just before
    (their counts and costs), not read again."""
    runs = result.runs()
    marks = result.answer_marks()  # per run with answers: how many, and more
    if run_ids is None:
        runs = [r for r in runs if marks.get(r.id, (0,))[0]]
    else:
        wanted = list(run_ids)
        missing = [i for i in wanted if i not in {r.id for r in runs}]
        if missing:
            raise ValueError(f"{result.path} has no run {missing[0]}.")
        runs = [r for r in runs if r.id in wanted]
    if len(runs) < 2:
        return None
    names = _names(runs)
    reading = _columns_read(result)
    tables: dict[int, dict[str, Comparable]] = {}
    read: dict[int, pd.DataFrame] = {}
    for r in runs:
        state = (r.provider, r.model, r.prompt_id, marks.get(r.id))
        hit = kept.runs.get(r.id) if kept is not None else None
        if hit is None or hit[0] != state:
            answers = result.answers(r.id, columns=reading)
            readable = None if answers.empty else readings(answers)
            hit = (state, run_comparables(result, r, answers), readable)
            if kept is not None:
                kept.runs[r.id] = hit
        tables[r.id] = hit[1]
        if hit[2] is not None:
            read[r.id] = hit[2]
    columns: list[RunColumn] = []
    for r in runs:
        done = (progress or {}).get(r.id) or result.progress(r.id)
        cost = 0.0 if r.provider == "local" else done.cost_usd
        columns.append(
            {
                "run": r.id,
                "name": names[r.id],
                "provider": r.provider,
                "model": r.model,
                "prompt": r.prompt_id,
                "answered": done.done,
                "invalid": done.invalid,
                "cost_usd": cost,
                "cost_per_1000": None if cost is None or not done.done else cost * 1000 / done.done,
            }
        )
    # The measures, in design order then each design's own order; a measure any run has.
    order: list[tuple[str, Measure]] = []
    seen: set[tuple[str, str]] = set()
    for label in [d.label for d in DESIGNS]:
        for r in runs:
            found = tables[r.id].get(label)
            for m in found.measures if found else ():
                if (label, m.key) not in seen:
                    seen.add((label, m.key))
                    order.append((label, m))
    rows: list[MeasureRow] = []
    differences: list[Difference] = []
    empty = pd.DataFrame({"cluster": []})
    for label, measure in order:
        values: dict[str, IntervalDict] = {}
        for r in runs:
            comp = tables[r.id].get(label)
            has = comp is not None and any(m.key == measure.key for m in comp.measures)
            table = comp.table if comp is not None and has else empty
            values[str(r.id)] = _metric(single(table, measure, level), measure.unit)
        rows.append(
            {
                "design": label,
                "key": measure.key,
                "label": measure.label,
                "kind": measure.kind,
                "unit": cast(Unit, measure.unit),
                "values": values,
            }
        )
        having = [
            r
            for r in runs
            if (c := tables[r.id].get(label)) is not None
            and any(m.key == measure.key for m in c.measures)
        ]
        pairs = list(itertools.combinations(range(len(having)), 2))
        paired = paired_with_swaps(
            [tables[r.id][label].table for r in having], measure, pairs, level
        )
        for (i, j), (est, swaps) in zip(pairs, paired, strict=True):
            differences.append(Difference(label, measure, having[i].id, having[j].id, est, swaps))
    families = adjust(differences, alpha)
    coded = _Coded.of(read)
    agreement = [
        row for a, b in itertools.combinations(runs, 2) for row in coded.alike(a.id, b.id, level)
    ]
    notes = []
    for r in runs:
        if not tables[r.id]:
            notes.append(f"{names[r.id]} has no readable answer yet: nothing to compare.")
    notes += _unreachable(families, differences, names, alpha)
    return {
        "schema": COMPARISON_SCHEMA,
        "runs": columns,
        "measures": rows,
        "differences": [
            {
                "design": d.design,
                "key": d.measure.key,
                "label": d.measure.label,
                "kind": d.measure.kind,
                "run_a": d.run_a,
                "run_b": d.run_b,
                "difference": _metric(d.estimate, difference_unit(d.measure.unit)),
                "sentence": sentence(d, names[d.run_a], names[d.run_b], alpha, len(differences)),
            }
            for d in differences
        ],
        "agreement": agreement,
        "alpha": alpha,
        "method": METHOD,
        "notes": notes,
    }


UNREAD = {"invalid", "unreadable", "refused"}
MOST_CASES = 50  # test cases listed where two models differ, for the drill-down


def _reading(label: object, parsed: object) -> str | None:
    """An answer as something two models' answers can be compared by (None: unreadable)."""
    if not isinstance(label, str) or label in UNREAD:
        return None
    if isinstance(parsed, dict) and parsed:
        return json.dumps(parsed, sort_keys=True)
    return label


def readings(answers: pd.DataFrame) -> pd.DataFrame:
    """One run's answers as compared between runs: key, repeat, design, case, cluster and
    the answer as read (None: unreadable); read once a run, not once a pair."""
    out = answers[["ukey", "rep", "design", "case_id"]].copy()
    # a case without a source resume (a D4 batch, a D3 pool) is its own cluster
    out["cluster"] = [
        f"case {case}" if cluster is None or cluster != cluster else str(cluster)
        for cluster, case in zip(answers["cluster"], answers["case_id"], strict=True)
    ]
    # rows with the same answer share its decoded object (store `answers()`, which
    # holds them while this runs): read once a label and object, not once a row
    done: dict[tuple[object, int], str | None] = {}
    found: list[str | None] = []
    for label, parsed in zip(answers["label"].tolist(), answers["parsed"].tolist(), strict=True):
        key = (label, id(parsed))
        if key not in done:
            done[key] = _reading(label, parsed)
        found.append(done[key])
    out["reading"] = found
    return out


def answered_alike(
    a: pd.DataFrame, b: pd.DataFrame, run_a: int, run_b: int, level: float = 0.95
) -> list[AgreementRow]:
    """Per design: how often two runs gave the same answer to the same request (matched on
    the request's key and repeat; both read), with a clustered interval, and the cases
    where they did not. Any design alike: what is compared is the answer as read
    (`readings` of each run)."""
    if a.empty or b.empty:
        return []
    coded = _Coded.of({run_a: a, run_b: b})
    return coded.alike(run_a, run_b, level)


@dataclass
class _Coded:
    """Several runs' `readings`, coded together once for comparing them two by two: each
    row's request (key and repeat), answer as read (-1: unreadable) and cluster as a
    number shared by the runs. Matching two runs is then indexing an array by those
    numbers, not a join of text columns (ten pairs of five models were a tenth of the
    comparison's time)."""

    runs: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]  # run -> key, reading, cluster
    frames: dict[int, pd.DataFrame]
    keys: int

    @classmethod
    def of(cls, read: dict[int, pd.DataFrame]) -> _Coded:
        ids = [i for i, frame in read.items() if not frame.empty]
        frames = [read[i] for i in ids]
        if not frames:
            return cls({}, {}, 0)
        every = pd.concat([f[["ukey", "rep", "reading", "cluster"]] for f in frames])
        ukey, _ = pd.factorize(every["ukey"].to_numpy(dtype=object))
        rep = every["rep"].to_numpy(dtype="int64")
        reps = int(rep.max()) + 1 if rep.size else 1
        key, unique = pd.factorize(ukey.astype("int64") * max(reps, 1) + rep)
        reading, _ = pd.factorize(every["reading"].to_numpy(dtype=object))  # None: -1
        cluster, _ = pd.factorize(every["cluster"].to_numpy(dtype=object))
        runs, at = {}, 0
        for i, frame in zip(ids, frames, strict=True):
            n = len(frame)
            runs[i] = (key[at : at + n], reading[at : at + n], cluster[at : at + n])
            at += n
        return cls(runs, dict(zip(ids, frames, strict=True)), int(len(unique)))

    def alike(self, run_a: int, run_b: int, level: float) -> list[AgreementRow]:
        if run_a not in self.runs or run_b not in self.runs:
            return []
        key_a, read_a, cluster_a = self.runs[run_a]
        key_b, read_b, _ = self.runs[run_b]
        by_key = np.full(self.keys, -2, dtype="int64")
        by_key[key_b] = read_b
        other = by_key[key_a]
        present = other != -2  # the requests b answered too, in a's order (a join's)
        frame = self.frames[run_a]
        design = frame["design"].to_numpy(dtype=object)[present]
        case = frame["case_id"].to_numpy(dtype=object)[present]
        mine, theirs, cluster = read_a[present], other[present], cluster_a[present]
        both = (mine >= 0) & (theirs >= 0)
        differ = both & (mine != theirs)
        out: list[AgreementRow] = []
        named = pd.notna(design)
        for name in sorted(set(design[named].tolist())):
            part = named & (design == name)
            est = clustered_proportion((mine == theirs)[part & both], cluster[part & both], level)
            cases = [int(c) for c in dict.fromkeys(c for c in case[part & differ] if pd.notna(c))]
            alike = cast(IntervalDict, {**est.as_dict(), "p": None, "p_holm": None})
            alike["unit"] = "proportion"
            out.append(
                {
                    "design": str(name),
                    "run_a": run_a,
                    "run_b": run_b,
                    "alike": alike,
                    "differ": int((part & differ).sum()),
                    "differ_case_count": len(cases),
                    "differ_cases": cases[:MOST_CASES],
                }
            )
        return out


@dataclass(frozen=True)
class DifferingAnswer:
    """One request two models answered differently: each one's answer, as read and in
    its own words (identity details of a real resume masked)."""

    case_id: int
    ukey: str
    rep: int
    answer_a: str
    answer_b: str
    detail_a: str
    detail_b: str


def differing_answers(
    result: AuditReader,
    run_a: int,
    run_b: int,
    design: str,
    *,
    limit: int = 500,
) -> list[DifferingAnswer]:
    """The requests of `design` the two runs answered differently (both readable), for
    the drill-down behind "how often they gave the same answer"."""
    mask = identity_mask(result)
    a = result.answers(run_a, design=design)
    b = result.answers(run_b, design=design)
    if a.empty or b.empty:
        return []
    keys = ["ukey", "rep"]
    cols = [*keys, "case_id", "label", "parsed", "justification"]
    joined = a[cols].merge(
        b[[*keys, "label", "parsed", "justification"]], on=keys, suffixes=("_a", "_b")
    )
    out: list[DifferingAnswer] = []
    for row in joined.to_dict("records"):
        ra, rb = (
            _reading(row["label_a"], row["parsed_a"]),
            _reading(row["label_b"], row["parsed_b"]),
        )
        if ra is None or rb is None or ra == rb:
            continue
        out.append(
            DifferingAnswer(
                int(row["case_id"]),
                str(row["ukey"]),
                int(row["rep"] or 0),
                _shown(row["label_a"], row["parsed_a"], mask),
                _shown(row["label_b"], row["parsed_b"], mask),
                mask(str(row["justification_a"] or "")),
                mask(str(row["justification_b"] or "")),
            )
        )
        if len(out) >= limit:
            break
    return out


def _shown(label: str, parsed: object, mask: IdentityMask) -> str:
    """An answer in one line: its label, and what was read when the label alone does not
    say it (a rating, a ranking)."""
    if isinstance(parsed, dict) and set(parsed) - {"choice", "position", "answer", "summary"}:
        read = json.dumps(mask_json(parsed, mask), sort_keys=True, ensure_ascii=False)
        return f"{label}: {read[:160]}"
    return label


def _metric(estimate: Estimate, unit: str) -> IntervalDict:
    return cast(IntervalDict, {**estimate.as_dict(), "unit": unit})


__all__ = [
    "ComparisonDict",
    "DifferingAnswer",
    "answered_alike",
    "readings",
    "compare_runs",
    "differing_answers",
    "run_comparables",
]
