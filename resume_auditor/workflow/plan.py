"""Before a run: cases and requests per design and cell, and which cells are too small.

The plan counts the very requests `prepare` would queue (`request_specs`), so the
numbers announced are the numbers sent. A cell is the group of answers that
estimates one quantity (one pair type between two groups, one group's ratings,
...); under the `small_cell` threshold (resources/thresholds.toml) its interval is
too wide to read much into, and the plan says so before anything is paid for.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resume_auditor.designs.base import Design
from resume_auditor.designs.registry import DESIGNS, by_label, enabled
from resume_auditor.documents.jobparse import read_checklist
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.prompts import get_preset
from resume_auditor.runner.estimate import Estimate, estimate_run
from resume_auditor.settings.power import PowerCache
from resume_auditor.settings.thresholds import active_thresholds
from resume_auditor.stats.power import design_power_lines
from resume_auditor.stats.power_sim import (
    CAUTIOUS,
    DEFAULT_ASSUMPTIONS,
    MOST,
    REPEATS,
    TARGET,
    Assumptions,
    Size,
    Sizing,
    default_effects,
    effect_words,
    repeats_for_power,
    simulated_power,
    size_for_power,
    unit_words,
)
from resume_auditor.store.resultfile import RequestSpec, ResultFile, ResultFileError
from resume_auditor.variants.gen_estimate import estimate_generation
from resume_auditor.workflow.cases import unbuilt_questions
from resume_auditor.workflow.execute import run_prices
from resume_auditor.workflow.identity_check import identity_lines, real_details_sent
from resume_auditor.workflow.metrics import pilot_sizing
from resume_auditor.workflow.prepare import _queue_run, request_specs, study_of

logger = logging.getLogger(__name__)

UNITS = by_label()

POWER_POINTER = (
    "Power for the literature's effect sizes (a 10-point selection gap, an impact ratio of "
    "0.8, 0.3 SD) is simulated through the report's own tests on request: "
    "`resume-auditor cases FILE --power`, or Check power… on the Test cases step."
)


@dataclass(frozen=True)
class PlanCell:
    design: str  # "D1", "D2", ... (a case's design label)
    cell: str  # e.g. "D1 equal pairs, k=0, black_woman vs white_man"
    cases: int  # pairs, variants or ranked batches behind the requests
    requests: int
    warning: str = ""


@dataclass
class RunPlan:
    cells: list[PlanCell] = field(default_factory=list)
    small_cell: int = 30
    notes: list[str] = field(default_factory=list)  # what cannot be measured, and why
    power: list[str] = field(default_factory=list)
    generation: str = ""  # what writing the qualification variants costs (if a generator)
    identity: list[str] = field(default_factory=list)  # real details the copies still carry
    sizing: list[Sizing] = field(default_factory=list)  # simulated power, when asked for
    sizing_lines: list[str] = field(default_factory=list)

    def by_design(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for c in sorted(self.cells, key=lambda c: c.design):
            d = out.setdefault(c.design, {"cells": 0, "cases": 0, "requests": 0})
            d["cells"] += 1
            d["cases"] += c.cases
            d["requests"] += c.requests
        return out

    @property
    def requests(self) -> int:
        return sum(c.requests for c in self.cells)

    def warnings(self) -> list[str]:
        return [f"{c.cell}: {c.warning}" for c in self.cells if c.warning]

    def grouped_warnings(self) -> list[str]:
        """The small cells, one sentence per design (a screen has no room for one line
        per cell: a small audit has dozens)."""
        out = []
        for design, d in self.by_design().items():
            small = [c for c in self.cells if c.design == design and c.warning]
            if not small:
                continue
            fewest = min(c.requests for c in small)
            share = "All" if len(small) == d["cells"] else f"{len(small)} of"
            out.append(
                f"{design}: {share} {d['cells']} cell(s) get fewer than {self.small_cell} "
                f"answers (the smallest {fewest}): too few to read much into each one."
            )
        return out

    def summary(self) -> str:
        """Requests per design and in all, in one sentence."""
        parts = [f"{design} {d['requests']:,}" for design, d in self.by_design().items()]
        total = f"{self.requests:,} request(s)"
        return f"{total} in all ({', '.join(parts)})." if parts else "No requests yet."

    def lines(self) -> list[str]:
        """The plan in sentences, as the CLI prints it."""
        out = []
        for design, d in self.by_design().items():
            out.append(
                f"{design}: {d['cases']} case(s) in {d['cells']} cell(s), "
                f"{d['requests']} request(s)."
            )
        out += [f"  {c.cell}: {c.cases} case(s), {c.requests} request(s)" for c in self.cells]
        out.append(f"Total: {self.requests} request(s).")
        out += [f"Warning: {w}" for w in self.warnings()]
        out += [f"Note: {n}" for n in self.notes]
        if self.generation:
            out.append(self.generation)
        out += self.identity
        out += self.sizing_lines or self.power
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "small_cell": self.small_cell,
            "requests": self.requests,
            "designs": self.by_design(),
            "cells": [c.__dict__ for c in self.cells],
            "warnings": self.warnings(),
            "notes": self.notes,
            "identity": self.identity,
            "generation": self.generation,
            "power": self.sizing_lines or self.power,
            "sizing": [
                {
                    "design": z.design,
                    "effect": z.effect,
                    "power_now": z.power_now,
                    "units_now": z.units_now,
                    "units_needed": z.units_needed,
                    "requests_needed": self.requests_needed(z),
                    "power_cautious": z.power_cautious,
                    "repeats_needed": z.repeats_needed,
                    "power_repeats": z.power_repeats,
                }
                for z in self.sizing
            ],
        }

    def requests_needed(self, z: Sizing) -> int | None:
        """Requests of the design at the size that reaches the target power."""
        if z.units_needed is None:
            return None
        have = self.by_design().get(_design_of(z), {}).get("requests", 0)
        return int(math.ceil(have * z.units_needed / max(z.units_now, 1)))


def plan_run(
    result: ResultFile,
    study: StudyConfig,
    model: ModelSpec | None = None,
    *,
    small_cell: int | None = None,
    specs: list[RequestSpec] | None = None,
    simulate: bool = False,
    effects: dict[str, float] | None = None,
) -> RunPlan:
    """Cases and requests per design and cell for the audit's built cases (`specs`:
    the requests already built for this study and model, to not build them twice)."""
    if small_cell is None:
        small_cell = int(active_thresholds().value("small_cell"))
    if specs is None:
        specs = request_specs(result, study, model or study.model)
    cells: dict[str, tuple[set[Any], int]] = {}
    for spec in specs:
        # A pair or a ranked batch is one case in every order (`Design.whole_case`); a
        # request about one candidate (or a pool's pair in one order) counts per what it
        # shows.
        unit = UNITS.get(spec.cell.split(" ", 1)[0])
        whole = unit.whole_case(spec.cell) if unit is not None else "ranking" in spec.cell
        case = spec.case_id if whole else (spec.case_id, spec.variants)
        seen, n = cells.get(spec.cell, (set(), 0))
        seen.add(case)
        cells[spec.cell] = (seen, n + 1)
    plan = RunPlan(small_cell=small_cell)
    for cell, (seen, n) in cells.items():
        warning = (
            f"only {n} answers: too few to read much into (fewer than {small_cell})"
            if n < small_cell
            else ""
        )
        plan.cells.append(PlanCell(cell.split(" ", 1)[0], cell, len(seen), n, warning))
    checklist, said = _checklist_notes(result, study, set(cells))
    plan.notes = checklist + _doubt_notes(result)
    if result.case_count():
        # what the study asks that its cases cannot answer (a design's note on the job's
        # checklist above says it for the cases it names already)
        plan.notes += [
            u.line() for u in unbuilt_questions(result, study) if (u.design, u.question) not in said
        ]
    plan.notes += logprob_notes(study, model or study.model)
    plan.generation = _generation_line(result, study)
    plan.identity = identity_lines(real_details_sent(result, study.keep_real_contact))
    alpha = active_thresholds().value("group_gap_alpha")
    # The normal approximation's "effect it can flag" promised power the real tests did
    # not have (issue 25); only its "too few to flag even a large effect" is kept, and
    # power itself is simulated on request (it takes seconds to a minute the first time).
    plan.power = [POWER_POINTER] + [
        line
        for line in design_power_lines(_approx_lines(result, study, alpha), alpha)
        if "too few" in line
    ]
    plan.power += _unsized_lines(plan)
    if simulate:
        plan.sizing = simulated_sizing(result, study, alpha, effects)
        registry = _registry_power(result, study, alpha)
        plan.sizing_lines = (sizing_lines(plan) if plan.sizing else []) + registry
    return plan


def _approx_lines(result: ResultFile, study: StudyConfig, alpha: float) -> list[str]:
    """Each design's power by the normal approximation (`Design.approx_power`), in the
    order of their labels, every design present sharing alpha."""
    sizes = _sizes(result, study)
    out = []
    for label, counts in sorted(sizes.items()):
        unit = UNITS.get(label)
        line = unit.approx_power(counts, alpha, len(sizes)) if unit is not None else None
        if line is not None:
            out.append(line)
    return out


def _unsized_lines(plan: RunPlan) -> list[str]:
    """The registry designs (designs/registry.py) before the power check is asked for:
    where it is, or that the design has none, rather than silence."""
    present = plan.by_design()
    return [
        f"{d.name} ({d.label}): its power is simulated with the others' on request; after "
        "a run, the width of its intervals on the Results page shows what the audit can tell."
        for d in DESIGNS
        if d.label in present and not d.simulated_power
    ]


def _registry_power(result: ResultFile, study: StudyConfig, alpha: float) -> list[str]:
    """Each registry design's own power check (`Design.power`) at the size its built
    cases give, at its share of the fairness false-alarm rate (each design present an
    equal share, as stats/flags.py gives it), or a line saying it has none."""
    cases = result.cases()
    present = {c.design for c in cases}
    share = alpha / max(1, len(present))
    out: list[str] = []
    for design, spec in enabled(study):
        mine = [c for c in cases if c.design == design.label]
        if not mine or design.simulated_power:  # sized with the others (simulated_sizing)
            continue
        lines = design.power(spec, mine, study.run.repeats, share)
        out += lines or [
            f"{design.name} ({design.label}): power is not simulated for this design yet; "
            "after a run, the width of its intervals on the Results page shows what the "
            "audit can tell."
        ]
    return out


def simulated_sizing(
    result: ResultFile,
    study: StudyConfig,
    alpha: float,
    effects: dict[str, float] | None = None,
) -> list[Sizing]:
    """Each design's power at this size and the size for 80%, simulated through the
    report's own tests (stats/power_sim.py) at the share of alpha its group tests get:
    on the latest run's answers when there are some (a pilot run), else from the
    screener model's stated assumptions (power_sim.Assumptions), with the power the
    recommended size keeps under the cautious ones, and the informative repeats that
    reach 80% with the resumes the audit has. A design may be sized for more than one
    test (`Design.sized_tests`: D1 also for an LL144 impact ratio, "IR", the same gap
    test with the effect given as a ratio of selection rates)."""
    sizes = _sizes(result, study)
    chosen = default_effects() | (effects or {})
    designs = len(sizes)
    cache = PowerCache()
    pilot = {z.design: z for z in pilot_sizing(result, active_thresholds(), effects)}
    repeats = _informative_repeats(study)
    out = []
    for design, n in sorted(sizes.items()):
        unit = UNITS.get(design)
        if unit is None:
            continue
        share = alpha / max(designs, 1) * unit.power_share
        size = unit.plan_size(n, repeats)  # each design sizes itself
        if size is None or size.units < 2:
            continue
        for sized in unit.sized_tests(size, study.run.prompt):
            if sized.design in pilot:
                out.append(pilot[sized.design])
                continue
            cautious = CAUTIOUS if unit.cautious and sized.design == unit.label else None
            out.append(_sized(sized, chosen[sized.design], share, cache, cautious))
    return out


def _sized(
    size: Size, effect: float, share: float, cache: PowerCache, assume: Assumptions | None
) -> Sizing:
    """Sized under the default assumptions; `assume`: the cautious ones whose power at
    the recommended size the plan also states."""
    z = size_for_power(size, effect, share, cache=cache)
    cautious = None
    if z.units_needed is not None and assume is not None:
        at = dataclasses.replace(
            size, units=z.units_needed, assume=assume, batches=_grown_batches(size, z)
        )
        cautious = simulated_power(at, effect, share, cache=cache)
    more = None
    if z.units_needed is None or z.units_needed > z.units_now:
        more = repeats_for_power(size, effect, share, cache=cache)
    return dataclasses.replace(
        z,
        power_cautious=cautious,
        repeats_needed=more[0] if more else None,
        power_repeats=more[1] if more else None,
    )


def _grown_batches(size: Size, z: Sizing) -> int:
    if not size.batches or z.units_needed is None:
        return size.batches
    return max(1, round(size.batches * z.units_needed / max(size.units, 1)))


def _informative_repeats(study: StudyConfig) -> int:
    """Repeats count as more answers only when they can differ: at temperature 0 the
    model gives the same answer each time, so they are one answer (docs/power.md)."""
    temperature = study.model.temperature
    return study.run.repeats if temperature is not None and temperature > 0 else 1


def sizing_lines(plan: RunPlan) -> list[str]:
    """The sizing in sentences: power now, and what gives 80% power."""
    if not plan.sizing:
        return []
    a = DEFAULT_ASSUMPTIONS
    simulated = [d for d in DESIGNS if d.simulated_power]
    codes = [d.label.lower() for d in simulated]
    more = "".join(
        f" and --effect-{c.lower()}" for d in simulated for c in d.power_codes if c != d.label
    )
    assumes = "".join(f"; {d.power_assumes}" for d in simulated if d.power_assumes)
    out = [
        f"Power, simulated through the report's own tests ({TARGET:.0%} target; the effect "
        f"sizes can be chosen with --effect-{codes[0]} .. --effect-{codes[-1]}{more}). Before "
        f"any answer it assumes resumes differ by {a.spread:g} and one answer varies by "
        f"{a.noise:g} (of a rating step{assumes}); after a run, from its answers:"
    ]
    for z in plan.sizing:
        what = effect_words(z.design, z.effect)
        unit = unit_words(z.design)
        line = f"{z.design}: {z.power_now:.0%} chance to flag {what} with {z.units_now} {unit}"
        if z.basis == "answers":
            line += " (simulated on this audit's own answers)"
        else:
            line += _unit_of(z.design).power_note(z.design, z.effect)
        needed = plan.requests_needed(z)
        if z.units_needed is None or needed is None:
            line += f"; even {MOST} {unit} would not reach {TARGET:.0%}"
        elif z.units_needed <= z.units_now:
            pass
        else:
            line += (
                f"; {TARGET:.0%} needs about {z.units_needed} {unit} "
                f"({needed:,} requests for this design instead of "
                f"{plan.by_design().get(_design_of(z), {}).get('requests', 0):,})"
            )
            if z.power_cautious is not None:
                line += (
                    f" — {z.power_cautious:.0%} there if one resume's ratings vary as much "
                    "as ratings across resumes do (a pilot run tells which)"
                )
        if z.repeats_needed is not None and z.power_repeats is not None:
            line += (
                f"; with the resumes there are, {z.repeats_needed} informative repeats "
                f"(temperature above 0) give {z.power_repeats:.0%}"
            )
        short = needed is None or z.units_needed is None or z.units_needed > z.units_now
        out.append(line + (". " + _how_to_grow(z.design) if short else "."))
    return out


def _unit_of(code: str) -> Design[Any]:
    """The design whose test `code` is (a Sizing's `design`: its label, or another of its
    `power_codes`)."""
    return next(d for d in DESIGNS if code in d.power_codes)


def _design_of(z: Sizing) -> str:
    return _unit_of(z.design).label


def _how_to_grow(design: str) -> str:
    return _unit_of(design).power_grow


def _checklist_notes(
    result: ResultFile, study: StudyConfig, cells: set[str]
) -> tuple[list[str], set[tuple[str, str]]]:
    """Said before the run, not in a report's notes after it: what each design's settings
    ask that the job's checklist cannot give (`Design.plan_notes`), and the (design,
    question) of the unbuilt questions those notes say instead."""
    job: Job | None = None
    try:
        job = result.job()
    except ResultFileError:
        job = None
    notes: list[str] = []
    said: set[tuple[str, str]] = set()
    for design, spec in enabled(study):
        found = design.plan_notes(spec, job, cells)
        notes += found.values()
        said |= {
            (design.label, u.question) for u in design.unbuilt_for(spec, job) if u.kind in found
        }
    return notes, said


def _generation_line(result: ResultFile, study: StudyConfig) -> str:
    """The generator's texts, requests and cost, when the study names a generator."""
    gen = study.generation
    if gen is None or not gen.enabled or not gen.generators or not result.has_job():
        return ""
    resumes = [(r.id, r.text) for r in result.resumes() if r.status != "error"]
    found = estimate_generation(resumes, result.job(), gen, study.seed, run_prices())
    return found.line() if found is not None else ""


def _doubt_notes(result: ResultFile) -> list[str]:
    """The parser's doubts about a checklist nobody has edited since it was read."""
    try:
        job = result.job()
    except ResultFileError:
        return []
    if not job.required or not job.text.strip():
        return []  # an empty list has its own note above
    reading = read_checklist(job.text, job.title)
    if reading.job.qualifications != job.qualifications:
        return []  # edited by hand: the user has looked at it
    return [f"\u26a0 Job checklist: {note}" for note in reading.notes]


def _wants_logprobs(study: StudyConfig) -> list[Design[Any]]:
    """The enabled designs with a preset that scores from token log-probabilities (a
    pointwise Yes/No scored by the probability of Yes); an unknown preset is the
    study check's to report."""
    out: list[Design[Any]] = []
    for design, spec in enabled(study):
        try:
            if any(get_preset(p).logprobs for p, _kinds, _where in design.presets(spec)):
                out.append(design)
        except (KeyError, ValueError):
            continue
    return out


def logprob_notes(study: StudyConfig, model: ModelSpec) -> list[str]:
    """Say before the run when a design's scores will be bare answers: a preset that
    scores a candidate by the probability of Yes needs token log-probabilities. They are
    asked for on every request of such a prompt; a model known (from the provider, its
    family, or an earlier request or probe) not to give them answers Yes or No only, and
    the design's (`Design.logprob_note`) numbers then compare ties."""
    from resume_auditor.providers.capabilities import Support
    from resume_auditor.providers.registry import model_capabilities

    wanting = _wants_logprobs(study)
    if not wanting:
        return []
    try:
        caps = model_capabilities(model.provider, model.model, model.base_url)
    except (KeyError, ValueError):
        return []
    if caps.logprobs is not Support.NO:
        return []
    return [design.logprob_note(model.model) for design in wanting]


PROBED = ("openai-compatible",)  # servers whose log-probability support varies by setup


def probe_logprobs(study: StudyConfig, model: ModelSpec, timeout_s: float = 30.0) -> bool | None:
    """Ask the model once, before a run that scores from them, whether it gives token
    log-probabilities.

    A design's pointwise prompt may score a candidate by the probability of Yes; every request
    asks for log-probabilities, but an OpenAI-compatible server's support depends on
    how it was started, and without knowing it the plan cannot say beforehand that
    the scores will be bare Yes/No. One short request (providers/probe.py) settles
    it; the finding goes to the capability cache, where the plan's note and every
    later request read it, so it is asked once per server and model. None: not asked
    (no design's prompt uses them, another provider, already known) or the probe
    failed (the run itself will say why); otherwise what the server gives.
    """
    import asyncio

    from resume_auditor.providers.capabilities import LOGPROBS, default_cache, model_key
    from resume_auditor.providers.openai_compat import OpenAICompatProvider
    from resume_auditor.providers.probe import probe_logprobs
    from resume_auditor.workflow.execute import provider_factory

    if model.provider not in PROBED or not _wants_logprobs(study):
        return None
    cache = default_cache()
    base = OpenAICompatProvider.canonical_base_url(model.base_url)
    key = model_key(model.provider, base, model.model)
    if cache.get(key, LOGPROBS) is not None:
        return None

    async def ask() -> bool:
        provider = provider_factory(model, timeout_s)()
        try:
            return await probe_logprobs(provider, model.model)
        finally:
            await provider.aclose()

    try:
        got = asyncio.run(ask())
    except Exception as exc:  # a probe never stops a run: the run says what went wrong
        logger.info("the log-probability probe of %s could not ask: %s", model.model, exc)
        return None
    cache.set(key, LOGPROBS, got)
    return got


def _sizes(result: ResultFile, study: StudyConfig) -> dict[str, dict[str, int]]:
    """What each design's power depends on, counted from the built cases."""
    out: dict[str, dict[str, int]] = {}
    cases = result.cases()
    for unit in DESIGNS:  # each design counts its own
        found = unit.run_counts([c for c in cases if c.design == unit.label], study)
        if found is not None:
            out[unit.label] = found
    return out


# -- what Start would do ----------------------------------------------------------------


class _Discard(Exception):
    """Raised inside the preview's transaction so nothing it queued is kept."""


@dataclass(frozen=True)
class StartPreview:
    """What pressing Start with these settings would do, found without writing anything."""

    plan: RunPlan
    reuses_run: bool  # the same model, prompt and settings already have a run
    answered: int  # answers that run already has
    to_queue: int  # requests Start would add to the file
    open: int  # requests with no answer once queued: what the run would ask for
    estimate: Estimate | None  # cost and time (None when not asked for)

    @property
    def action(self) -> str:
        """ "again" (nothing to send), "resume" (a run with answers goes on), or "start"."""
        if self.open == 0:
            return "again"
        return "resume" if self.reuses_run and self.answered else "start"


def look_start(path: str | Path, model: ModelSpec, prompt: str | None = None) -> StartPreview:
    """What Start would do, read without taking the file's write lock (the app asks
    this after every change of setting, and a run or Start must never wait for it).

    The run is found as Start finds it (`_queue_run`: same model, prompt and
    settings); the requests it would add are the specs that run does not have yet.
    """
    with ResultFile(path, readonly=True) as store:
        study = study_of(store)
        if prompt:
            get_preset(prompt)
            study = dataclasses.replace(study, run=dataclasses.replace(study.run, prompt=prompt))
        specs = request_specs(store, study, model)
        plan = plan_run(store, study, model, specs=specs)
        run_id = store.find_run(
            model.provider, model.base_url, model.model, study.run.prompt, run_params(study, model)
        )
        if run_id is None:
            return StartPreview(plan, False, 0, len(specs), len(specs), None)
        progress = store.progress(run_id)
        have = {(str(r["ukey"]), int(r["rep"])) for r in store.answers(run_id).to_dict("records")}
        last = 0
        while page := store.open_requests(run_id, after_id=last, limit=1024):
            have.update((r.ukey, r.rep) for r in page)
            last = page[-1].id
    new = sum((s.ukey, s.rep) not in have for s in specs)
    new = max(0, new - (progress.total - len(have)))  # skipped ones are neither
    open_now = progress.pending + progress.failed + new
    return StartPreview(plan, True, progress.done, new, open_now, None)


def run_params(study: StudyConfig, model: ModelSpec) -> dict[str, Any]:
    """The settings that make two runs the same run (as `_queue_run` stores them)."""
    return {
        "temperature": model.temperature,
        "max_tokens": model.max_tokens,
        "seed": model.seed,
        "orders": study.run.orders,
        "repeats": study.run.repeats,
    }


def preview_start(
    path: str | Path,
    model: ModelSpec,
    prompt: str | None = None,
    *,
    concurrency: int | None = None,
    estimate: bool = True,
    study: StudyConfig | None = None,
) -> StartPreview:
    """Queue the run Start would queue, count it and estimate it, then roll it all back.

    It holds the file's write lock while it works: for the Estimate button, never
    while a run goes (`look_start` is the lock-free count).

    The same code as Start (`_queue_run`) decides which run is reused and which
    requests are new, so the button's label and the estimate match what a run really
    sends; the transaction is never committed, so the file is unchanged. `study`:
    other settings to count instead of the audit's (their cases are built inside the
    same transaction when they differ in a way that changes the cases).
    """
    from resume_auditor.store.cache import ResponseCache

    result: StartPreview | None = None
    with ResultFile(path) as store:
        stored = study_of(store)
        other = study is not None and study != stored
        study = study if study is not None else stored
        if prompt:
            get_preset(prompt)
            study = dataclasses.replace(study, run=dataclasses.replace(study.run, prompt=prompt))
        try:
            with store.transaction():
                if other:
                    from resume_auditor.domain.study import study_to_dict
                    from resume_auditor.workflow.cases import build_cases

                    store.save_config(study_to_dict(study))
                    if not store.answered_count():
                        build_cases(store, study)
                before = {r.id for r in store.runs(purpose=None)}
                run_id, added = _queue_run(store, study, model)
                progress = store.progress(run_id)
                plan = plan_run(store, study, model, specs=request_specs(store, study, model))
                found: Estimate | None = None
                if estimate and progress.pending + progress.failed:
                    cache = ResponseCache()
                    try:
                        found = estimate_run(
                            store, run_id, prices=run_prices(), cache=cache, concurrency=concurrency
                        )
                    finally:
                        cache.close()
                result = StartPreview(
                    plan=plan,
                    reuses_run=run_id in before,
                    answered=progress.done,
                    to_queue=added,
                    open=progress.pending + progress.failed,
                    estimate=found,
                )
                raise _Discard
        except _Discard:
            pass
    assert result is not None
    return result


# -- making the audit large enough ----------------------------------------------------

ENLARGE_TEMPERATURE = 0.7  # repeats at temperature 0 are one answer; above it they differ


@dataclass(frozen=True)
class Enlargement:
    """The settings that give the sized designs 80% power with the resumes there are,
    and what they would cost, found before anything is changed."""

    study: StudyConfig
    changes: list[str]
    preview: StartPreview | None  # requests, cost and time of the enlarged audit
    short: list[str]  # designs the enlargement still leaves under 80%, and why

    def lines(self) -> list[str]:
        out = ["To reach 80% power with the resumes there are: " + "; ".join(self.changes) + "."]
        if self.preview is not None:
            est = self.preview.estimate
            line = f"The enlarged audit sends {self.preview.open:,} request(s)"
            if est is not None and est.cost_usd is not None:
                line += f", about ${est.cost_usd:,.2f}" if est.cost_usd else ", at no cost"
            elif est is not None and est.free:
                line += ", at no cost (a local or self-hosted model)"
            if est is not None and est.eta_s is not None:
                line += f", about {est.eta_s / 60:,.0f} min"
            out.append(line + ".")
        out += [f"Still under 80%: {s}" for s in self.short]
        return out


def enlarged_study(
    study: StudyConfig, sizing: list[Sizing]
) -> tuple[StudyConfig, list[str], list[str]]:
    """(settings, what changes in words, what stays short) to reach the target power.

    More source resumes are what the sizing asks first, but the app cannot make
    resumes; what it can raise is repeats at a temperature above 0 (D1, D2, D4: the
    fewest that reach the target for every such design, power_sim.repeats_for_power)
    and what a design raises itself (`Design.enlarge`: more pools, say, as the sizing
    asks for). A design no such change brings to
    the target is named, with the resumes it would need.
    """
    changes: list[str] = []
    short: list[str] = []
    repeats = study.run.repeats if _informative_repeats(study) > 1 else 1
    wanted = 1
    for z in sizing:
        if z.units_needed is not None and z.units_needed <= z.units_now:
            continue
        if _raised(study, z) is not None:
            continue  # the design grows itself (below), not by repeats
        if z.repeats_needed is not None:
            wanted = max(wanted, z.repeats_needed * repeats)
        else:
            need = (
                f"about {z.units_needed} source resumes" if z.units_needed else "far more resumes"
            )
            short.append(
                f"{z.design} (even {REPEATS[-1]} repeats per answer are not enough; "
                f"it needs {need})."
            )
    run, model, more = study.run, study.model, dict(study.more)
    if wanted > repeats:
        run = dataclasses.replace(run, repeats=wanted)
        changes.append(f"ask every request {wanted} times (repeats, now {study.run.repeats})")
        if not model.temperature:
            model = dataclasses.replace(model, temperature=ENLARGE_TEMPERATURE)
            changes.append(
                f"at temperature {ENLARGE_TEMPERATURE:g} instead of {model_temperature(study)}, "
                "so that repeats differ (at temperature 0 they are one answer)"
            )
    for z in sizing:
        raised = _raised(study, z)
        if raised is None or (z.units_needed is not None and z.units_needed <= z.units_now):
            continue
        new, words = raised
        if new is None:
            short.append(words)
        else:
            more[UNITS[z.design].key] = new
            changes.append(words)
    enlarged = dataclasses.replace(study, run=run, model=model, more=more)
    return enlarged, changes, short


def _raised(study: StudyConfig, z: Sizing) -> tuple[dict[str, Any] | None, str] | None:
    """A registry design's own enlargement for `z` (`Design.enlarge`); None: it has none."""
    unit = UNITS.get(z.design)
    table = unit.table(study) if unit is not None else None
    if unit is None or table is None:
        return None
    return unit.enlarge(table, z.units_now, z.units_needed)


def model_temperature(study: StudyConfig) -> str:
    return f"{study.model.temperature or 0:g}"


def plan_enlargement(
    path: str | Path, sizing: list[Sizing], model: ModelSpec | None = None
) -> Enlargement | None:
    """The enlargement for `sizing`, with the requests, cost and time of the enlarged
    audit counted by the same code as Start (preview_start) on its own settings, in a
    transaction that is rolled back. None when nothing would change."""
    with ResultFile(path, readonly=True) as result:
        study = study_of(result)
    enlarged, changes, short = enlarged_study(study, sizing)
    if not changes:
        return None
    spec = model or enlarged.model
    if model is not None and study.model.temperature != enlarged.model.temperature:
        spec = dataclasses.replace(model, temperature=enlarged.model.temperature)
    preview = preview_start(path, spec, study=enlarged)
    return Enlargement(enlarged, changes, preview, short)


def apply_enlargement(path: str | Path, enlargement: Enlargement) -> list[str]:
    """Save the enlarged settings and build the cases again (all or nothing); the notes
    from building. Refused (StudyError) once the audit has answers: they belong to the
    cases they were asked about."""
    from resume_auditor.domain.study import StudyError, study_to_dict
    from resume_auditor.workflow.cases import build_cases

    with ResultFile(path) as result:
        if result.answered_count():
            raise StudyError(
                "This audit already has answers, which belong to its cases: start a new audit "
                "file with these settings to enlarge it."
            )
        with result.transaction():
            result.save_config(study_to_dict(enlargement.study))
            return build_cases(result, enlargement.study)
