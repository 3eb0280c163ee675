"""Qualification variants written by a generator model, verified, and stored.

`generate_for_audit` is the one entry point (CLI, GUI, workflow.prepare): for
each source resume it asks the generator model(s) for the completed base, c+,
c- and reworded copies (gen_plan.py), sends every request through the runner as
a generation run of the audit file, checks each answer (verify.py), asks again
with what failed (up to `max_attempts`), and stores each text in the file's
`qual_text` table: verified, or flagged when every attempt failed. The design
builders use only `usable()` texts and fall back to the deterministic path
(name swaps, lexical c-) for the rest.

The work goes in rounds: each round queues the next request of every unfinished
text (an attempt, or the judge's look at it), runs the runner until they are
answered, and reads the answers. Requests are keyed by what they ask (text and
attempt), so a killed generation, run again, replays the recorded answers and
sends only what is missing; the shared response cache makes even a new file free.

With `synthetic_base`, a resume written from the job alone (D1 Appendix G) is
asked for in the first stage. Verified, it becomes a source resume of its own (a
resume row with no file, status "ok", its identity template) and gets its c+, c-
and reworded copies like any other; flagged, its row is stored with status
"error" so no builder uses it until the user accepts the text (review.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.generation import GenerationSpec
from resume_auditor.domain.identity import Slot, SlotKind, Template
from resume_auditor.domain.job import Job
from resume_auditor.domain.qualtext import Check, QualOrigin, QualText
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.prompts import build_body, get_preset
from resume_auditor.runner import Event, RunState, RunStatus
from resume_auditor.store.resultfile import RequestSpec, ResultFile
from resume_auditor.variants.gen_placeholders import (
    Placeholdered,
    from_placeholders,
    synthetic_source,
    to_placeholders,
)
from resume_auditor.variants.gen_plan import (
    SYNTHETIC_KEY,
    Task,
    completion_task,
    skipped_kinds,
    synthetic_task,
    variant_tasks,
)
from resume_auditor.variants.gen_runner import RunnerFactory, default_runner_factory, generation_run
from resume_auditor.variants.verify import feedback, judge_check, lexical_checks

logger = logging.getLogger(__name__)

JUDGE_PRESET = "gen-judge"
SYNTHETIC_TOKENS = 1600  # a one-page resume written from nothing, with room to spare
NO_GENERATOR = (
    "No generator model is set, so no qualification variants were written by a model: "
    "the test cases use name swaps and lines deleted from the resumes (lexical c-) only."
)


@dataclass(frozen=True)
class GenProgress:
    """What the user sees while generation runs."""

    stage: str  # "base" (completing bases) or "variants"
    round: int
    texts_done: int
    texts_total: int
    message: str = ""
    status: RunStatus | None = None


@dataclass
class GenerationReport:
    """What a generation made; `notes` say it in plain words."""

    made: int = 0  # texts stored this time
    verified: int = 0
    flagged: int = 0  # stored unverified: not used unless accepted
    reused: int = 0  # stored by an earlier generation, left as they were
    requests: int = 0  # generation and judge requests answered (from any source)
    cost_usd: float | None = 0.0  # what the generation runs have cost so far (None: unknown)
    complete: bool = True  # False: stopped early (failure, cancel); run again to resume
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        cost = "unknown cost" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        head = (
            f"{self.made} text(s) written ({self.verified} verified, {self.flagged} flagged), "
            f"{self.reused} kept from before; {self.requests} answer(s), {cost}."
        )
        return [head, *self.notes]


@dataclass
class _Work:
    """One wanted text while it is being generated."""

    task: Task
    source: Placeholdered
    source_id: int | None
    attempt: int = 1
    stage: str = "gen"  # "gen" -> ("judge" ->) stored
    text: str = ""
    checks: list[Check] = field(default_factory=list)
    previous: list[Check] = field(default_factory=list)
    requests: list[int] = field(default_factory=list)
    stored: QualText | None = None


def _template(text: str, stored: dict[str, Any] | None) -> Template:
    slots = [
        Slot(
            d["start"], d["end"], SlotKind(d["kind"]), text[d["start"] : d["end"]], d["confidence"]
        )
        for d in (stored or {}).get("slots", [])
    ]
    return Template(text, slots)


def _numbered(items: tuple[str, ...]) -> str:
    return "\n".join(f"{i}. {q}" for i, q in enumerate(items, 1))


def _listed(items: tuple[str, ...]) -> str:
    return "\n".join(f"- {q}" for q in items)


class _Generation:
    def __init__(
        self,
        result: ResultFile,
        spec: GenerationSpec,
        job: Job,
        make_runner: RunnerFactory,
        progress: Callable[[GenProgress], None] | None,
        cancel: threading.Event | None,
    ) -> None:
        self.result = result
        self.spec = spec
        self.job = job
        self.make_runner = make_runner
        self.progress = progress
        self.cancel = cancel
        self.report = GenerationReport()
        self.runs: dict[tuple[str, str, str], int] = {}
        self.stage = "base"
        self.round = 0
        self.done = 0
        self.total = 0

    # -- requests ----------------------------------------------------------------

    def _run_id(self, spec: ModelSpec) -> int:
        key = (spec.provider, spec.base_url, spec.model)
        if key not in self.runs:
            self.runs[key] = generation_run(self.result, spec)
        return self.runs[key]

    def _model(self, work: _Work) -> ModelSpec:
        return self.spec.generators[work.task.generator]

    def _judge_model(self, work: _Work) -> ModelSpec:
        return self.spec.judge_model or self._model(work)

    def _ukey(self, work: _Work) -> str:
        return f"{work.stage}:{work.task.key}:a{work.attempt}"

    def _spec(self, work: _Work) -> tuple[ModelSpec, RequestSpec]:
        task = work.task
        if work.stage == "gen":
            model = self._model(work)
            preset = get_preset(task.preset)
            count = task.index if task.kind is VariantKind.REWORDED else len(task.changes)
            values = {
                "resume": work.source.text,
                "qualifications": _listed(task.changes),
                "count": str(count),
                "feedback": feedback(work.previous),
                "role_title": self.job.title or "the role",
                "job_description": self.job.text,
            }
            body = build_body(model, preset, values)
            # Room for the whole resume, not the model's default answer length.
            room = len(work.source.text) // 3 + 400
            if task.key == SYNTHETIC_KEY:
                room = SYNTHETIC_TOKENS
            body["max_tokens"] = min(model.max_tokens, room)
            context: dict[str, Any] = {"task": task.key, "attempt": work.attempt}
        else:
            model = self._judge_model(work)
            preset = get_preset(JUDGE_PRESET)
            items = tuple(q for q, _ in task.judge_items)
            context = {"task": task.key, "attempt": work.attempt, "count": len(items)}
            values = {
                "resume": work.text,
                "qualifications": _numbered(items),
                "count": str(len(items)),
                "job_description": self.job.text,
            }
            body = build_body(model, preset, values, context=context)
        return model, RequestSpec(
            ukey=self._ukey(work),
            kind=preset.kind,
            body=body,
            preset=preset.id,
            context=context,
        )

    def _send(self, works: list[_Work]) -> dict[str, tuple[int, str, dict[str, Any]]] | None:
        """Queue the next request of each text, run until answered; ukey -> answer.

        None when the round could not finish (a failure, a stop, a cancel).
        """
        by_run: dict[int, tuple[ModelSpec, list[RequestSpec]]] = {}
        for work in works:
            model, spec = self._spec(work)
            run_id = self._run_id(model)
            by_run.setdefault(run_id, (model, []))[1].append(spec)
        answers: dict[str, tuple[int, str, dict[str, Any]]] = {}
        for run_id, (model, specs) in by_run.items():
            with self.result.transaction():
                self.result.add_request_specs(run_id, specs)
            if self.result.open_count(run_id) and not self._run(run_id, model):
                return None
            wanted = {s.ukey for s in specs}
            frame = self.result.answers(run_id)
            for row in frame.itertuples(index=False):
                if row.ukey in wanted:
                    answers[row.ukey] = (int(row.request_id), str(row.label), dict(row.parsed))
        return answers

    def _run(self, run_id: int, model: ModelSpec) -> bool:
        def on_event(event: Event) -> None:
            if isinstance(event, RunStatus) and self.progress is not None:
                self.progress(
                    GenProgress(
                        self.stage,
                        self.round,
                        self.done,
                        self.total,
                        f"{model.provider}:{model.model}: {event.done}/{event.total} answered",
                        event,
                    )
                )

        runner = self.make_runner(Path(self.result.path), run_id, model, on_event)
        runner.start()
        while not runner.join(0.2):
            if self.cancel is not None and self.cancel.is_set():
                runner.cancel()
        status = runner.final_status
        if status is None or status.state is not RunState.FINISHED or status.failed:
            why = status.message if status is not None and status.message else "it stopped"
            if self.cancel is not None and self.cancel.is_set():
                why = "cancelled"
            self.report.complete = False
            self.report.notes.append(
                f"Generation with {model.provider}:{model.model} did not finish ({why}). "
                "Nothing paid for is lost: run the generation again to go on."
            )
            return False
        return True

    # -- answers -----------------------------------------------------------------

    def _on_answer(self, work: _Work, request_id: int, label: str, parsed: dict[str, Any]) -> None:
        work.requests.append(request_id)
        if work.stage == "gen":
            if label == "invalid":
                work.text = ""
                work.checks = [Check("answer", False, "the answer held no resume")]
                self._attempt_over(work)
                return
            work.text = str(parsed.get("text", ""))
            rebuilt = from_placeholders(work.text, work.source)
            work.checks = lexical_checks(work.source.text, work.text, rebuilt, work.task.expect)
            if self.spec.judge and work.task.judge_items and all(c.passed for c in work.checks):
                work.stage = "judge"  # only a text that passed the free checks costs a judge
                return
            self._attempt_over(work)
            return
        met = parsed.get("met") if label != "invalid" else None
        work.checks.append(
            judge_check(work.task.judge_items, None if met is None else [bool(m) for m in met])
        )
        self._attempt_over(work)

    def _attempt_over(self, work: _Work) -> None:
        passed = bool(work.text) and all(c.passed for c in work.checks)
        if passed or work.attempt >= self.spec.max_attempts:
            self._store(work, passed)
            return
        work.previous = work.checks
        work.attempt += 1
        work.stage = "gen"

    def _store(self, work: _Work, verified: bool) -> None:
        task = work.task
        model = self._model(work)
        rebuilt = from_placeholders(work.text, work.source) if work.text else None
        template = rebuilt.template if rebuilt is not None else Template("", [])
        provenance = {
            "task": task.key,
            "preset": task.preset,
            "judge_preset": JUDGE_PRESET if self.spec.judge and task.judge_items else "",
            "requests": work.requests,
            "attempts": work.attempt,
            "source_id": work.source_id,
            "source": "original" if work.source_id is None else "completed base",
        }
        synthetic = task.key == SYNTHETIC_KEY
        if synthetic:
            provenance["source"] = "job only"
        qual = QualText(
            resume_id=task.resume_id,
            kind=task.kind,
            k=task.k,
            template=template,
            changes=task.changes,
            origin=QualOrigin.GENERATOR,
            generator=f"{model.provider}:{model.model}",
            verified=verified,
            checks=tuple(work.checks),
            attempts=work.attempt,
            provenance=provenance,
        )
        with self.result.transaction():
            if synthetic:  # the resume row and its text, both or neither
                qual = replace(qual, resume_id=self._synthetic_row(qual, verified))
            qual_id = self.result.add_qual_text(qual)
        work.stored = replace(qual, id=qual_id)
        work.stage = "stored"
        self.report.made += 1
        self.done += 1
        if verified:
            self.report.verified += 1
        else:
            self.report.flagged += 1

    def _synthetic_row(self, qual: QualText, verified: bool) -> int:
        """The resume row a synthetic base lives in; status "error" while it is flagged."""
        failed = ", ".join(c.name.replace("_", " ") for c in qual.checks if not c.passed)
        message = (
            "" if verified else SYNTHETIC_FLAGGED.format(failed=failed or "no resume in the answer")
        )
        return self.result.add_resume(
            synthetic_filename(qual.generator),
            None,
            qual.template.text,
            1,
            "ok" if verified else "error",
            message,
            template=template_json(qual.template),
        )

    # -- the rounds ----------------------------------------------------------------

    def run_all(self, works: list[_Work]) -> bool:
        self.total += len(works)
        active = list(works)
        while active:
            if self.cancel is not None and self.cancel.is_set():
                self.report.complete = False
                self.report.notes.append("Generation cancelled; run it again to go on.")
                return False
            self.round += 1
            answers = self._send(active)
            if answers is None:
                return False
            for work in active:
                answer = answers.get(self._ukey(work))
                if answer is None:
                    self.report.complete = False
                    self.report.notes.append(f"{work.task.key}: no answer recorded; run again.")
                    return False
                self.report.requests += 1
                self._on_answer(work, *answer)
            active = [w for w in active if w.stage != "stored"]
        return True


SYNTHETIC_FLAGGED = (
    "The synthetic base resume failed its checks ({failed}) after every attempt, so it is "
    "not used. Read it (resume-auditor variants list / diff) and accept it to use it."
)


def synthetic_filename(generator: str) -> str:
    return f"Synthetic base (generated by {generator})"


def template_json(template: Template) -> dict[str, Any]:
    """A template as the resume table stores it (workflow.ingest's form)."""
    return {
        "slots": [
            {"start": s.start, "end": s.end, "kind": s.kind.value, "confidence": s.confidence}
            for s in template.slots
        ]
    }


def _assign_round_robin(tasks: list[Task], spec: GenerationSpec, seed: int) -> list[Task]:
    n = len(spec.generators)
    return [replace(t, generator=(seed + i) % n) for i, t in enumerate(tasks)]


def generate_for_audit(
    path_or_result: str | Path | ResultFile,
    config: StudyConfig,
    *,
    progress: Callable[[GenProgress], None] | None = None,
    cancel: threading.Event | None = None,
    runner_factory: RunnerFactory | None = None,
    resume_ids: list[int] | None = None,
) -> GenerationReport:
    """Write, verify and store the generator's qualification texts for an audit file.

    Texts already stored for a task (an earlier generation) are kept; run it again
    after a stop or a crash and only what is missing is asked for. Call it before
    the test cases are built (workflow.prepare): the design builders read the
    stored texts. `runner_factory` makes the runner for a generation run (tests
    pass one for the provider simulator).
    """
    spec = config.generation
    if spec is None or not spec.enabled:
        return GenerationReport(notes=[NO_GENERATOR])
    if isinstance(path_or_result, ResultFile):
        return _generate(path_or_result, config, spec, progress, cancel, runner_factory, resume_ids)
    with ResultFile(path_or_result) as result:
        return _generate(result, config, spec, progress, cancel, runner_factory, resume_ids)


def _generate(
    result: ResultFile,
    config: StudyConfig,
    spec: GenerationSpec,
    progress: Callable[[GenProgress], None] | None,
    cancel: threading.Event | None,
    runner_factory: RunnerFactory | None,
    resume_ids: list[int] | None,
) -> GenerationReport:
    job = result.job()
    make = runner_factory or default_runner_factory(concurrency=spec.concurrency)
    gen = _Generation(result, spec, job, make, progress, cancel)
    existing: dict[tuple[int, str], QualText] = {}
    synthetic: QualText | None = None  # one per audit, whichever resume row it made
    for q in result.qual_texts():
        task = q.provenance.get("task")
        if q.origin is QualOrigin.GENERATOR and isinstance(task, str):
            existing[(q.resume_id, task)] = q
            if task == SYNTHETIC_KEY and synthetic is None:
                synthetic = q
    sources: dict[int, tuple[str, Placeholdered]] = {}
    for record in result.resumes():
        if record.status == "error" or (resume_ids is not None and record.id not in resume_ids):
            continue
        template = _template(record.text, result.resume_template(record.id))
        sources[record.id] = (record.filename, to_placeholders(template))
    wanted_synthetic = synthetic_task(job, spec, config.seed)
    if spec.synthetic_base and wanted_synthetic is None:
        gen.report.notes.append(
            "The job lists no required qualification, so no synthetic base resume was written."
        )
    if not sources and wanted_synthetic is None:
        gen.report.notes.append("No usable resume in the audit: nothing to generate from.")
        return gen.report

    # Stage 1: the synthetic base (D1 Appendix G), and the completion of each base
    # that lacks required qualifications (D1 Appendix A). A synthetic base already
    # meets them by construction and is never completed.
    synthetic_id = synthetic.resume_id if synthetic is not None else None
    tasks = [] if wanted_synthetic is None else [wanted_synthetic]
    tasks += [
        t
        for rid, (_, ph) in sources.items()
        if rid != synthetic_id
        and (t := completion_task(rid, ph.text, job, spec, config.seed)) is not None
    ]
    tasks = _assign_round_robin(tasks, spec, config.seed)
    works = []
    for t in tasks:
        if t.key == SYNTHETIC_KEY:
            if synthetic is not None:
                gen.report.reused += 1
            else:
                works.append(_Work(t, synthetic_source(), None))
            continue
        if (t.resume_id, t.key) in existing:
            gen.report.reused += 1
            continue
        works.append(_Work(t, sources[t.resume_id][1], None))
    ok = gen.run_all(works)
    made = next((w.stored for w in works if w.task.key == SYNTHETIC_KEY and w.stored), None)
    if made is not None:
        _note_synthetic(gen.report, made)
        if made.usable():  # a new source resume: stage 2 writes its variants too
            sources[made.resume_id] = (
                synthetic_filename(made.generator),
                to_placeholders(made.template),
            )
    elif synthetic is not None and not synthetic.usable() and wanted_synthetic is not None:
        gen.report.notes.append(
            "The synthetic base resume failed its checks earlier and is not used; accept it "
            "(resume-auditor variants accept) to use it, then run the generation again."
        )
    if not sources:
        gen.report.notes.append("No usable resume in the audit: nothing to generate from.")
    if not ok:
        return _finish(gen, result)

    # Stage 2: c+, c- and reworded copies from each base.
    gen.stage = "variants"
    bases: dict[int, tuple[Placeholdered, int | None]] = {}
    for rid, (name, ph) in sources.items():
        done = existing.get((rid, f"r{rid}:complete"))
        fresh = next((w.stored for w in works if w.task.resume_id == rid and w.stored), None)
        completed = fresh or done
        if completed is not None and completed.usable() and completed.id is not None:
            bases[rid] = (to_placeholders(completed.template), completed.id)
        else:
            if completed is not None:
                gen.report.notes.append(
                    f"{name}: the completed base failed its checks; c+, c- and reworded copies "
                    "are written from the resume as it is (which lacks some required "
                    "qualifications)."
                )
            bases[rid] = (ph, None)
    tasks = []
    for rid, (ph, _) in bases.items():
        tasks.extend(variant_tasks(rid, ph.text, job, spec, config.seed))
        name = sources[rid][0]
        gen.report.notes.extend(f"{name}: {n}" for n in skipped_kinds(ph.text, job, spec))
    tasks = _assign_round_robin(tasks, spec, config.seed + 1)
    works = []
    for t in tasks:
        if (t.resume_id, t.key) in existing:
            gen.report.reused += 1
            continue
        ph, source_id = bases[t.resume_id]
        works.append(_Work(t, ph, source_id))
    gen.run_all(works)
    return _finish(gen, result)


def _note_synthetic(report: GenerationReport, made: QualText) -> None:
    if made.usable():
        report.notes.append(
            f"A synthetic base resume was written from the job alone by {made.generator} and "
            "passed its checks; it is used as one more source resume."
        )
    else:
        report.notes.append(
            f"The synthetic base resume written by {made.generator} failed its checks after "
            "every attempt; it is kept, flagged, and not used as a source resume."
        )


def _finish(gen: _Generation, result: ResultFile) -> GenerationReport:
    report = gen.report
    cost: float | None = 0.0
    for run in result.runs(purpose="generation"):
        spent = result.progress(run.id).cost_usd
        cost = None if cost is None or spent is None else cost + spent
    report.cost_usd = cost
    if report.flagged:
        report.notes.append(
            f"{report.flagged} text(s) failed verification after every attempt. They are kept, "
            "flagged, and not used: the test cases fall back to the deterministic variants "
            "(name swaps, lexical c-) for them. Read them with `resume-auditor variants list` "
            "and accept any you judge correct."
        )
    return report
