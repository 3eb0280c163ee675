"""Several models on the same test cases, compared measure by measure (issue 28).

An audit file can hold one run per model over the same cases. This puts every run's
headline measures side by side and, for every pair of runs, the difference of each
measure with a paired interval and test (stats/compare.py: a source resume left out
of both runs at once), Holm-adjusted across every difference shown, and a plain
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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import pandas as pd

from resume_auditor.designs.base import RunContext
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.report.privacy import IdentityMask, identity_mask, mask_json
from resume_auditor.stats.compare import (
    Comparable,
    Difference,
    Measure,
    adjust,
    clustered,
    difference_unit,
    paired_difference,
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
from resume_auditor.store.runs import RunRecord

logger = logging.getLogger(__name__)


METHOD = (
    "Differences between two models are on the same test cases: each interval leaves "
    "one source resume (for ranked batches, one batch) out of both models' answers at a "
    "time (a paired delete-one jackknife, t on their number - 1 degrees of freedom, or, "
    "when they hold unequal numbers of answers, the jackknife t's exact distribution for "
    "those numbers); the tests are Holm-adjusted across every difference shown."
)


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
    tabulating a run of 10,000 answers is a fifth of a second; while one of five
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
) -> ComparisonDict | None:
    """The comparison of the audit's runs (default: every audit run with an answer; a
    study's further models are queued before they are asked); None: fewer than two.
    `kept`: what an earlier comparison of the same audit read, used where a run's
    answers are unchanged, and updated."""
    runs = result.runs()
    if run_ids is None:
        answered = result.answered_by_run()
        runs = [r for r in runs if answered.get(r.id)]
    else:
        wanted = list(run_ids)
        missing = [i for i in wanted if i not in {r.id for r in runs}]
        if missing:
            raise ValueError(f"{result.path} has no run {missing[0]}.")
        runs = [r for r in runs if r.id in wanted]
    if len(runs) < 2:
        return None
    names = _names(runs)
    marks = result.answer_marks()
    tables: dict[int, dict[str, Comparable]] = {}
    read: dict[int, pd.DataFrame] = {}
    for r in runs:
        state = (r.provider, r.model, r.prompt_id, marks.get(r.id))
        hit = kept.runs.get(r.id) if kept is not None else None
        if hit is None or hit[0] != state:
            answers = result.answers(r.id)
            readable = None if answers.empty else readings(answers)
            hit = (state, run_comparables(result, r, answers), readable)
            if kept is not None:
                kept.runs[r.id] = hit
        tables[r.id] = hit[1]
        if hit[2] is not None:
            read[r.id] = hit[2]
    columns: list[RunColumn] = []
    for r in runs:
        progress = result.progress(r.id)
        cost = 0.0 if r.provider == "local" else progress.cost_usd
        columns.append(
            {
                "run": r.id,
                "name": names[r.id],
                "provider": r.provider,
                "model": r.model,
                "prompt": r.prompt_id,
                "answered": progress.done,
                "invalid": progress.invalid,
                "cost_usd": cost,
                "cost_per_1000": None
                if cost is None or not progress.done
                else cost * 1000 / progress.done,
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
        for a, b in itertools.combinations(runs, 2):
            ca, cb = tables[a.id].get(label), tables[b.id].get(label)
            if ca is None or cb is None:
                continue
            if not all(any(m.key == measure.key for m in c.measures) for c in (ca, cb)):
                continue
            est = paired_difference(ca.table, cb.table, measure, level)
            differences.append(Difference(label, measure, a.id, b.id, est))
    adjust(differences)
    agreement = [
        row
        for a, b in itertools.combinations(runs, 2)
        if a.id in read and b.id in read
        for row in answered_alike(read[a.id], read[b.id], a.id, b.id, level)
    ]
    notes = []
    for r in runs:
        if not tables[r.id]:
            notes.append(f"{names[r.id]} has no readable answer yet: nothing to compare.")
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
    keys = ["ukey", "rep"]
    joined = a.merge(b[[*keys, "reading"]], on=keys, suffixes=("_a", "_b"))
    out: list[AgreementRow] = []
    for design, part in joined.groupby("design", sort=True):
        both = (part["reading_a"].notna() & part["reading_b"].notna()).to_numpy()
        same = (part["reading_a"] == part["reading_b"]).to_numpy()[both]
        clusters = part["cluster"].to_numpy(dtype=object)  # as `readings` names them
        est = clustered_proportion(same, clusters[both], level)
        differ = part[both & (part["reading_a"] != part["reading_b"]).to_numpy()]
        cases = [int(c) for c in dict.fromkeys(differ["case_id"].dropna().astype(int))]
        alike = cast(IntervalDict, {**est.as_dict(), "p": None, "p_holm": None})
        alike["unit"] = "proportion"
        out.append(
            {
                "design": str(design),
                "run_a": run_a,
                "run_b": run_b,
                "alike": alike,
                "differ": int(len(differ)),
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
