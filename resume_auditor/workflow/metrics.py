"""The metrics of a result file as a JSON-ready dict (documented in docs/metrics-json.md)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

import pandas as pd

from resume_auditor import __version__
from resume_auditor.designs.base import Design, DesignResult, OtherRun, RunContext
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.settings.thresholds import active_thresholds
from resume_auditor.stats.flags import decide
from resume_auditor.stats.metric import Metric
from resume_auditor.stats.missing import MissingResult, compute_missing
from resume_auditor.stats.model import (
    DesignPowerDict,
    MetricsReport,
)
from resume_auditor.stats.power_sim import (
    Size,
    Sizing,
    default_effects,
    effect_words,
    power_from_data,
    scale_from_data,
    simulated_power,
)
from resume_auditor.stats.thresholds import Thresholds
from resume_auditor.store.resultfile import ResultFile, RunRecord
from resume_auditor.workflow.design_tables import missing_rows

SCHEMA = "resume-auditor.metrics/1"


def metrics_report(
    result: ResultFile,
    run_id: int | None = None,
    *,
    thresholds: Thresholds | None = None,
    power: bool | dict[str, float] = False,
) -> MetricsReport:
    """The metrics of one run of a result file (default: the latest run).

    Every flag of the report is decided here at once (Holm across all of it), so the
    report's first page and its tables speak for the same decisions. `power`: also
    each design's power for the default effect sizes, simulated through its test on
    this audit's answers (seconds of work: for the report, not a live view); a dict
    gives the effects to plant instead, in each design's own units (D1 points of gap
    as a fraction, D2 rating points, D4 score points; for benchmarks).

    Every design comes from the registry (designs/registry.py): one placed "head" (D1)
    first in flags, notes and power, its blocks right after `counts`; the others in the
    registry's order; a design placed "top" (D2, D3, D4) keeps its block at the top
    level under its key, where it was before it moved into its folder.
    """
    runs = result.runs()
    run = (
        next((r for r in runs if r.id == run_id), None) if run_id else (runs[-1] if runs else None)
    )
    if run is None:
        raise ValueError(f"{result.path} has no run" + (f" {run_id}" if run_id else "") + ".")
    study = result.study()
    progress = result.progress(run.id)
    answers = result.answers(run.id)
    thresholds = thresholds if thresholds is not None else active_thresholds()
    registered = registry_results(result, answers, thresholds, run, runs)
    by_key = {d.key: d for d in DESIGNS}
    # A design placed "head" (D1) comes first in flags, notes and power, then the rest
    # of the registry in its order.
    head = {k: r for k, r in registered.items() if by_key[k].placement == "head"}
    rest = {k: r for k, r in registered.items() if k not in head}
    # One family for everything the report can flag: Holm across all of it at once.
    flaggable: list[Metric] = [m for unit in head.values() for m in unit.all_metrics()]
    for unit in rest.values():
        flaggable += unit.all_metrics()
    missing = missing_results(result, run.id, answers)
    for m in missing.values():
        flaggable += m.all_metrics()
    decide(flaggable, thresholds)
    notes = []
    if progress.done < progress.total:
        notes.append(
            f"The run is not finished: {progress.total - progress.done} of {progress.total} "
            "requests have no answer yet; these numbers cover the answered ones."
        )
    if progress.invalid:
        # One count for the whole run (the verdict and the counts use the same one), with
        # where the unreadable answers were.
        parts = {by_key[k].label: r.unreadable for k, r in head.items()}
        parts |= {by_key[k].label: r.unreadable for k, r in rest.items()}
        where = ", ".join(f"{d} {n}" for d, n in parts.items() if n)
        notes.append(
            f"{progress.invalid} answer(s) could not be read and are left out of every metric"
            + (f" (among them {where})." if where else ".")
        )
    # the designs that count their cases in `counts` (D1's `pairs`) come first there
    counts = {d.counted: result.case_count(d.label) for d in DESIGNS if d.counted}
    counts |= {
        "requests": progress.total,
        "answered": progress.done,
        "failed": progress.failed,
        "pending": progress.pending,
        "invalid": progress.invalid,
        "input_tokens": progress.input_tokens,
        "output_tokens": progress.output_tokens,
    }
    out: dict[str, Any] = {
        "schema": SCHEMA,
        "app_version": __version__,
        "result_file": str(result.path),
        "study": {"name": study["name"], "created_at": study["created_at"]},
        "run": {
            "id": run.id,
            "provider": run.provider,
            "base_url": run.base_url,
            "model": run.model,
            "prompt": run.prompt_id,
            "params": run.params,
            "created_at": run.created_at,
        },
        "counts": counts,
    }
    for key, unit in head.items():  # its blocks among the fixed keys, where they always were
        out |= by_key[key].blocks(unit)
    out |= {
        "thresholds": thresholds.as_list(),
        "flags": [f for unit in head.values() for f in unit.flags()]
        + [f for r in rest.values() for f in r.flags()]
        + _missing_flags(missing),
        "notes": notes,
        "missing": {design: m.as_dict() for design, m in missing.items()},
    }
    report = cast(MetricsReport, out)
    if power:
        report["power"] = design_power(power if isinstance(power, dict) else None, registered)
    # The design blocks come last: those placed "top" in the registry's order (d2, d3,
    # d4, as before the designs moved), then the designs kept as units under `designs`.
    units: dict[str, Mapping[str, Any]] = {}
    for key, unit in rest.items():
        if by_key[key].placement == "top":
            out |= by_key[key].blocks(unit)
        else:
            units[key] = unit.as_dict()
    if units:  # the designs kept as units (designs/registry.py), by key
        report["designs"] = units
    return report


def registry_results(
    result: ResultFile,
    answers: pd.DataFrame,
    thresholds: Thresholds,
    run: RunRecord,
    runs: list[RunRecord],
) -> dict[str, DesignResult]:
    """Each registry design's results for a run's answers (flags not yet decided), by key,
    in the registry's order; a design without answers in the run is absent, unless it is
    computed `always` (D1). Those are computed last, knowing how many designs share the
    false-alarm rate: every design with a result."""
    found: dict[str, DesignResult] = {}
    usable = not answers.empty and "design" in answers

    def context(design: Design[Any], designs: int) -> RunContext:
        mine = answers[answers["design"] == design.label] if usable else answers
        return RunContext(
            cases={c.id or 0: c for c in result.cases(design.label)},
            answers=mine,
            thresholds=thresholds,
            run_id=run.id,
            model=run.model,
            prompt=run.prompt_id,
            designs=designs,
            details=result.variant_details,
            others=partial(_other_runs, result, run, runs, design.label),
        )

    for design in DESIGNS:
        if design.always or not usable:
            continue
        if (answers["design"] == design.label).any():
            computed = design.compute_run(context(design, 0))
            if computed is not None:
                found[design.key] = computed
    always = [d for d in DESIGNS if d.always]
    shared = len(found) + len(always)
    for design in always:
        computed = design.compute_run(context(design, shared))
        if computed is not None:
            found[design.key] = computed
    return {d.key: found[d.key] for d in DESIGNS if d.key in found}


def _other_runs(
    result: ResultFile, run: RunRecord, runs: list[RunRecord], label: str
) -> list[tuple[OtherRun, pd.DataFrame]]:
    """Every other run of the file with its answers of one design."""
    return [
        (OtherRun(other.id, other.model, other.prompt_id), result.answers(other.id, design=label))
        for other in runs
        if other.id != run.id
    ]


@dataclass(frozen=True)
class PowerTarget:
    """One design's test to plant an effect on, and the shift that effect is there."""

    design: str
    metric: Metric
    effect: float
    shift: float  # in the test's own values (net wins, rating or score points)
    basis: str  # "answers" or "model"


def power_targets(
    raw: dict[str, float] | None = None,
    effects: dict[str, float] | None = None,
    registered: Mapping[str, DesignResult] | None = None,
) -> list[PowerTarget]:
    """Each design's first group test that can fire, and the shift of its effect.

    `effects`: per design, in its default effect's units (power_sim.default_effects:
    D1 gap as a fraction, else SD); `raw`: instead, in each design's own units (D1
    gap, D2 rating points, D4 score points; for benchmarks that know the true size).
    """
    chosen = default_effects() | (effects or {})
    out: list[PowerTarget] = []

    def first(metrics: list[Metric]) -> Metric | None:
        usable = [
            m
            for m in metrics
            if m.test is not None
            and m.test.joint is not None
            and m.test.share is not None
            and not m.test.untestable
        ]
        return usable[0] if usable else None

    def add(
        design: str, m: Metric | None, unit: float, basis: str = "answers", scaled: bool = False
    ) -> None:
        if m is None:
            return
        if raw is not None:
            if design not in raw or basis != "answers":
                return
            effect = raw[design]
            shift = -abs(effect) * (unit if scaled else 1.0)
        else:
            effect = chosen[design]
            shift = -abs(effect) * unit
        out.append(PowerTarget(design, m, effect, shift, basis))

    def add_registered(head: bool) -> None:
        for design in DESIGNS:  # the registry's designs, each naming its own test
            if (design.placement == "head") != head:
                continue
            unit = (registered or {}).get(design.key)
            target = design.power_target(unit) if unit is not None else None
            if target is not None:
                add(design.label, *target, basis=design.power_basis, scaled=design.raw_scaled)

    add_registered(head=True)  # a design placed "head" (D1) first, then the rest
    add_registered(head=False)
    return out


def design_power(
    raw: dict[str, float] | None = None,
    registered: Mapping[str, DesignResult] | None = None,
) -> dict[str, DesignPowerDict]:
    """Each design's chance to flag the default effect (stats/power_sim.py), after the
    flags are decided (each test's share of alpha is known): D1, D2 and D4 simulated on
    this audit's own answers, D3 from the model (its test reads ranks within pools)."""
    out: dict[str, DesignPowerDict] = {}
    for t in power_targets(raw, registered=registered):
        test = t.metric.test
        assert test is not None and test.joint is not None and test.share is not None
        if t.basis == "answers":
            found = power_from_data(test.joint.blocks, test.key, t.shift, test.share)
        else:
            groups = len(test.joint.observed) + 1
            size = Size(t.design, t.metric.estimate.clusters, groups)
            found = simulated_power(size, t.effect, test.share)
        if found is not None:
            out[t.design] = {
                "effect": t.effect,
                "words": effect_words(t.design, t.effect),
                "share": test.share,
                "power": found,
                "basis": t.basis,
            }
    return out


def pilot_sizing(
    result: ResultFile, thresholds: Thresholds, effects: dict[str, float] | None = None
) -> list[Sizing]:
    """From the latest run's answers (a pilot): each design's power now and the size
    that reaches 80%, simulated on those answers (power_sim.scale_from_data)."""
    runs = result.runs()
    if not runs or not result.progress(runs[-1].id).done:
        return []
    run = runs[-1]
    answers = result.answers(run.id)
    registered = registry_results(result, answers, thresholds, run, runs)  # they share alpha
    first = {d.key for d in DESIGNS if d.placement == "head"}  # as metrics_report orders
    flaggable: list[Metric] = [
        m for key, unit in registered.items() if key in first for m in unit.all_metrics()
    ]
    for key, unit in registered.items():
        if key not in first:
            flaggable += unit.all_metrics()
    decide(flaggable, thresholds)
    out = []
    for t in power_targets(effects=effects, registered=registered):
        test = t.metric.test
        if t.basis != "answers" or test is None or test.joint is None or test.share is None:
            continue
        now, scale = scale_from_data(test.joint.blocks, test.key, t.shift, test.share)
        units = t.metric.estimate.clusters
        needed = None if scale is None else int(math.ceil(units * scale))
        factor = math.inf if scale is None else scale
        out.append(Sizing(t.design, t.effect, now, units, needed, factor, "answers"))
    return out


def missing_results(
    result: ResultFile, run_id: int, answers: pd.DataFrame | None = None
) -> dict[str, MissingResult]:
    """Each design's missing answers (stats/missing.py), flags not yet decided."""
    if answers is None:
        answers = result.answers(run_id)
    rows = missing_rows(answers, result.failed_requests(run_id))
    return compute_missing(rows) if not rows.empty else {}


def _missing_flags(missing: dict[str, MissingResult]) -> list[str]:
    return [x.flag for m in missing.values() for x in m.all_metrics() if x.flag]
