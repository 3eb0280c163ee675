"""Turn a study file into a result file ready to run.

A new result file is written under a temporary name (`NAME.audit.partial`) and
moved into place only when complete, so a failure leaves nothing half-written;
the whole of it happens under the audit's writer lock (store/writelock.py), so a
`.partial` found on the way in is the remains of a run that was killed, and is
removed with a note saying so. An existing result file
for the same study is reused: its cases stay as they are and only requests for a
model not yet run are added, so re-running a finished audit sends nothing.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from resume_auditor.designs.registry import run_prompt_design
from resume_auditor.domain.study import (
    ModelSpec,
    StudyConfig,
    StudyError,
    study_from_dict,
    study_to_dict,
)
from resume_auditor.prompts import get_preset
from resume_auditor.prompts.requests import request_body
from resume_auditor.store import writelock
from resume_auditor.store.backup import install_new, remove_partial
from resume_auditor.store.resultfile import RequestSpec, ResultFile
from resume_auditor.variants.generate import GenProgress, generate_for_audit
from resume_auditor.workflow.cases import build_cases, unbuilt_questions
from resume_auditor.workflow.design_requests import check_design_presets, design_specs
from resume_auditor.workflow.ingest import (
    ingest_study_resumes,
    job_from_study,
    template_from_json,
    template_to_json,
)
from resume_auditor.workflow.studyfile import StudyFile, kept_tables

__all__ = [
    "Prepared",
    "fork_audit",
    "new_audit",
    "prepare",
    "queue_run",
    "request_body",
    "request_specs",
    "study_of",
    "template_from_json",
    "template_to_json",
]

logger = logging.getLogger(__name__)


@dataclass
class Prepared:
    path: Path
    run_id: int
    study: StudyConfig
    model: ModelSpec
    new_file: bool
    requests_added: int
    notes: list[str] = field(default_factory=list)
    # the study's further models (`[[models]]`): (run id, model, requests added) each,
    # the same test cases, one run each
    others: list[tuple[int, ModelSpec, int]] = field(default_factory=list)

    @property
    def runs(self) -> list[tuple[int, ModelSpec, int]]:
        """Every run prepared, the first model's first."""
        return [(self.run_id, self.model, self.requests_added), *self.others]


def study_of(result: ResultFile) -> StudyConfig:
    """The audit's settings as stored in its file."""
    return study_from_dict(result.config(), require_sources=False)


def new_audit(path: str | Path, config: StudyConfig) -> Path:
    """An empty audit file (no job, no resumes yet) for the GUI's "New audit"."""
    path = Path(path)
    with writelock.hold(path):
        if path.exists():
            raise StudyError(f"{path} already exists; choose another name.")
        partial = path.with_name(path.name + ".partial")
        remove_partial(partial)
        try:
            with ResultFile(partial, create=True) as result, result.transaction():
                result.save_study(config.name, "", study_to_dict(kept_tables(config)), None)
            install_new(partial, path)
        finally:
            remove_partial(partial)
    return path


def fork_audit(source: str | Path, target: str | Path) -> Path:
    """A new audit with the same job, resumes and settings, and no cases or answers yet.

    This is how a user changes an audit that already has answers: the answered one
    stays as it was, and the new one can be edited and run again.
    """
    target = Path(target)
    with writelock.hold(target):
        if target.exists():
            raise StudyError(f"{target} already exists; choose another name.")
        _fork(Path(source), target)
    return target


def _fork(source: Path, target: Path) -> None:
    partial = target.with_name(target.name + ".partial")
    remove_partial(partial)
    try:
        with ResultFile(source, readonly=True) as src:
            src.copy_to(partial)
        with ResultFile(partial) as copy:
            copy.drop_audit_runs_and_cases()
        install_new(partial, target)
    finally:
        remove_partial(partial)


def request_specs(result: ResultFile, study: StudyConfig, model: ModelSpec) -> list[RequestSpec]:
    """Every request the audit's cases imply for `model` (design_requests.design_specs).

    `_queue_run` stores them; the plan before a run (workflow/plan.py) counts them,
    so what is announced is what is queued.
    """
    return design_specs(result, study, model)


def _queue_runs(
    result: ResultFile, study: StudyConfig
) -> tuple[int, int, list[tuple[int, ModelSpec, int]]]:
    """A run for every model of the study on the same cases: (first run, its requests
    added, the others' (run id, model, requests added))."""
    run_id, added = _queue_run(result, study, study.model)
    others = []
    for model in study.also:
        other, more = _queue_run(result, study, model)
        others.append((other, model, more))
    return run_id, added, others


def _queue_run(result: ResultFile, study: StudyConfig, model: ModelSpec) -> tuple[int, int]:
    owner = run_prompt_design()  # the design whose cases the run's prompt asks
    problem = owner.run_prompt_problem(study.run.prompt) if owner is not None else None
    if owner is not None and problem and result.case_count(owner.label):
        raise StudyError(problem)
    params = {
        "temperature": model.temperature,
        "max_tokens": model.max_tokens,
        "seed": model.seed,
        "orders": study.run.orders,
        "repeats": study.run.repeats,
    }
    specs = request_specs(result, study, model)
    if not specs:
        # Everything the study asks for is out of reach of its cases: say why rather
        # than queue nothing and call it done.
        why = [u.line() for u in unbuilt_questions(result, study)]
        raise StudyError(
            "Nothing to ask the model: none of the test cases this study asks for could be "
            "built.\n" + ("\n".join(why) or "Build the test cases first.")
        )
    run_id = result.find_run(model.provider, model.base_url, model.model, study.run.prompt, params)
    if run_id is None:
        run_id = result.add_run(
            model.provider, model.base_url, model.model, study.run.prompt, params
        )
    with result.transaction():
        added = result.add_request_specs(run_id, specs)
    return run_id, added


def _build(result: ResultFile, study: StudyFile, notes: list[str]) -> None:
    config = study.config
    job, job_name, job_bytes = job_from_study(study)
    result.save_study(config.name, study.text, study_to_dict(config), str(study.path))
    result.save_job(job, job_name, job_bytes)
    notes.extend(ingest_study_resumes(result, study))
    notes.extend(build_cases(result, config))


def _generate(
    out: Path,
    config: StudyConfig,
    notes: list[str],
    progress: Callable[[GenProgress], None] | None,
) -> bool:
    """Have the study's generator models write their texts into `out`; True if cases changed.

    Runs after the file is in place, so every paid answer is kept even if this
    stops: the same command again asks only for what is missing. New texts
    rebuild the cases while nothing has been answered yet.
    """
    report = generate_for_audit(out, config, progress=progress)
    notes.extend(report.lines())
    if not report.complete:
        raise StudyError(
            "Writing the qualification variants stopped before the end"
            + (f" ({report.notes[-1]})" if report.notes else "")
            + f". What was written is kept in {out}; run the same command again to go on."
        )
    if not report.made:
        return False
    with ResultFile(out) as result:
        if result.answered_count():
            notes.append(
                "New variant texts were written, but the model has answered already, so the "
                "cases stay as they were; start a new audit from this one to use them."
            )
            return False
        with result.transaction():
            notes.extend(build_cases(result, study_of(result)))
    return True


def prepare(
    study: StudyFile,
    out: str | Path,
    model: ModelSpec | None = None,
    *,
    generate: bool = True,
    progress: Callable[[GenProgress], None] | None = None,
) -> Prepared:
    """Create or reuse the result file `out` for `study`, and queue its requests.

    With `generate` and a `[generation]` table in the study, the generator models
    write the qualification variants first (`progress` hears how it goes); the
    GUI passes False and offers a button instead.
    """
    out = Path(out)
    config = study.config if model is None else dataclasses.replace(study.config, model=model)
    get_preset(config.run.prompt)  # an unknown preset fails before anything is written
    check_design_presets(config)
    generating = generate and config.generation is not None and config.generation.enabled
    notes: list[str] = []
    out.parent.mkdir(parents=True, exist_ok=True)
    with writelock.hold(out):  # one `audit` (or the app) at a time prepares this file
        partial = out.with_name(out.name + ".partial")
        if remove_partial(partial):
            notes.append(
                f"Removed {partial.name}, left by an earlier preparation that was stopped "
                "before it finished (nothing in it had been sent to a model); "
                + ("starting again." if not out.exists() else f"{out.name} is kept as it is.")
            )
        if out.exists():
            return _reuse(study, out, config, generating, notes, progress)
        try:
            with ResultFile(partial, create=True) as result:
                with result.transaction():
                    _build(result, dataclasses.replace(study, config=config), notes)
                if not generating:
                    run_id, added, others = _queue_runs(result, config)
            install_new(partial, out)
        finally:
            remove_partial(partial)
        if generating:
            _generate(out, config, notes, progress)
            with ResultFile(out) as result:
                run_id, added, others = _queue_runs(result, config)
    return Prepared(out, run_id, config, config.model, True, added, notes, others)


def _reuse(
    study: StudyFile,
    out: Path,
    config: StudyConfig,
    generating: bool,
    notes: list[str],
    progress: Callable[[GenProgress], None] | None,
) -> Prepared:
    """The same study's existing file: add only what is missing."""
    with ResultFile(out) as result:
        if not result.has_study():
            raise StudyError(f"{out} is an empty result file; delete it and start again.")
        stored = result.study()
        if stored["toml"] != study.text:
            raise StudyError(
                f"{out} already holds a different study ({stored['name']!r}). "
                "Choose another output file, or delete this one to start over."
            )
    if generating:
        _generate(out, config, notes, progress)
    with ResultFile(out) as result:
        run_id, added, others = _queue_runs(result, config)
    return Prepared(out, run_id, config, config.model, False, added, notes, others)


def queue_run(path: str | Path, model: ModelSpec, prompt: str | None = None) -> tuple[int, int]:
    """(run id, requests added) for `model` on an audit file; a same run is reused."""
    with ResultFile(path) as result:
        study = study_of(result)
        if prompt:
            get_preset(prompt)
            study = dataclasses.replace(study, run=dataclasses.replace(study.run, prompt=prompt))
        if not result.case_count():
            raise StudyError("There are no test cases yet: build them first.")
        return _queue_run(result, study, model)
