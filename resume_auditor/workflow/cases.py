"""Build an audit's test cases from what the audit file holds.

Cases are built from the stored job, the stored resume templates, the stored
qualification texts (generated ones, once verified or accepted) and the audit's
settings, never from files on disk, so the GUI can edit the job or the identity
slots and build again, and a result file always explains its own cases.
Every design's cases are rows of one table (domain.case.Case, docs/designs.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from resume_auditor.designs.registry import enabled
from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.identity import SlotKind
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import StudyConfig, StudyError
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.variants.build import BuiltCases, text_details
from resume_auditor.variants.designcheck import DesignCheckError, IdenticalPairError
from resume_auditor.variants.texts import TextSet, deterministic_texts, merge_texts
from resume_auditor.workflow.ingest import check_job, template_from_json


def _ks(config: StudyConfig) -> tuple[int, ...]:
    ks: set[int] = set()
    for unit, spec in enabled(config):
        ks.update(unit.less_ks(spec))
    return tuple(sorted(ks))


def text_sets(result: ResultFile, job: Job, config: StudyConfig) -> list[tuple[str, TextSet]]:
    """(file name, usable texts) of every usable resume, in the file's order."""
    out: list[tuple[str, TextSet]] = []
    for record in result.resumes():
        if record.status == "error":
            continue
        stored = result.qual_texts(record.id)
        generated_base = next(
            (t for t in stored if t.kind is VariantKind.BASE and t.usable()), None
        )
        if generated_base is not None:
            template = generated_base.template
        else:
            saved = result.resume_template(record.id) or {"slots": []}
            template = template_from_json(record.text, saved)
        if config.keep_instructions:  # the study tests what the instructions do
            template = template.with_slots(
                s for s in template.slots if s.kind is not SlotKind.INSTRUCTION
            )
        rng = random.Random(f"texts:{config.seed}:{record.id}")
        deterministic = deterministic_texts(record.id, template, job, _ks(config), rng)
        texts = merge_texts(deterministic, stored)
        for unit, spec in enabled(config):  # what a design's cases add (D1's block)
            unit.add_texts(texts, job, spec, config.seed)
        out.append((record.filename, texts))
    return out


def no_usable_resume(result: ResultFile) -> str:
    """Why no resume can be used: each refused file by name, with its reason."""
    refused = [r for r in result.resumes() if r.status == "error"]
    if not refused:
        return "The audit has no resume yet. Add at least one readable resume."
    reasons = " ".join(
        f"{r.filename}: {r.message or 'could not be read.'}".rstrip() for r in refused
    )
    return (
        f"None of the audit's resumes can be used ({len(refused)} refused). {reasons} "
        "Add at least one readable resume."
    )


Details = dict[tuple[int, str, int, str], tuple[str, str, str]]


def text_details_of(texts: TextSet, job: Job) -> Details:
    """(resume, kind, k, construction) -> (qualification type, change location, generator).

    What the D1 breakdowns by qualification type, by where the change sits and by
    generator read, recorded on every variant built from these texts.
    """
    out: Details = {}
    block = texts.block
    sets = [(texts.base, [texts.base, *texts.less.values(), *texts.more.values()])]
    if block is not None:
        sets.append((block.base, [block.base, *block.less.values(), *block.more.values()]))
    for base, of_base in sets:
        for text in of_base:
            qual_type, location, _ = text_details(text, base, job)
            out[(texts.resume_id, text.kind.value, text.k, text.origin.value)] = (
                qual_type,
                location,
                texts.generator_of(text),
            )
    for text in texts.reworded[:1]:
        qual_type, location, _ = text_details(text, texts.base, job)
        out[(texts.resume_id, text.kind.value, text.k, text.origin.value)] = (
            qual_type,
            location,
            texts.generator_of(text),
        )
    return out


def _store(result: ResultFile, built: BuiltCases, details: Details | None = None) -> None:
    ids = [result.add_variant(v) for v in built.variants]
    for v, vid in zip(built.variants, ids, strict=True):
        found = (details or {}).get((v.resume_id, v.kind.value, v.k, v.construction))
        if found is not None and any(found):
            qual_type, location, generator = found
            result.set_variant_details(
                vid, qual_type=qual_type, change_location=location, generator=generator
            )
    for case in [*built.cases, *built.sets]:
        case.variants = [ids[i] for i in case.variants]
        result.add_case(case)


def build_cases(result: ResultFile, config: StudyConfig) -> list[str]:
    """(Re)build every design's cases; returns notes for the user. All or nothing."""
    if not result.has_job():
        raise StudyError("There is no job description yet. Paste or load one first.")
    job = result.job()
    check_job(job)
    notes: list[str] = []
    per_file: dict[str, list[str]] = {}  # note -> the resumes it applies to
    keep = config.keep_real_contact
    with result.transaction():
        result.clear_cases()
        sets = text_sets(result, job, config)
        if not sets:
            raise StudyError(no_usable_resume(result))
        details: Details = {}
        for _, texts in sets:
            details |= text_details_of(texts, job)
        units = enabled(config)
        try:
            for filename, texts in sets:
                per_resume: list[BuiltCases] = []
                # each design's cases from this resume alone, in its turn (ids come out
                # in the same order as ever): a design placed "head" (D1), then the rest
                # of the registry (D2, D4)
                builders: list[tuple[str, Callable[..., BuiltCases | None]]] = [
                    (unit.label, partial(unit.resume_cases, texts, job, spec))
                    for unit, spec in units
                    if unit.placement == "head"
                ]
                builders += [
                    (unit.label, partial(unit.resume_cases, texts, job, spec))
                    for unit, spec in units
                    if unit.placement != "head"
                ]
                for design, build in builders:
                    try:
                        built_one = build(config.seed, keep_real_contact=keep)
                        if built_one is not None:
                            per_resume.append(built_one)
                    except IdenticalPairError as exc:
                        # this resume's copies cannot differ by group: leave it out of this
                        # design's cells, say why, and build the rest
                        per_file.setdefault(
                            f"left out of {design}: its copies for different groups came out "
                            f"identical ({exc}).",
                            [],
                        ).append(filename)
                for built in per_resume:
                    for n in dict.fromkeys(built.notes):
                        per_file.setdefault(n, []).append(filename)
                    _store(result, built, details)
            all_texts = [t for _, t in sets]
            for unit, spec in units:
                built = unit.build_cases(all_texts, job, spec, config.seed, keep_real_contact=keep)
                notes.extend(built.notes)
                _store(result, built, details)
        except DesignCheckError as exc:
            raise StudyError(str(exc)) from exc
    return [_where(n, files, len(sets)) for n, files in per_file.items()] + notes


def _where(note: str, files: list[str], total: int) -> str:
    """One note for every resume it applies to, not one per resume."""
    files = list(dict.fromkeys(files))  # two designs may give one resume the same note
    if len(files) == 1:
        return f"{files[0]}: {note}"
    if len(files) == total:
        return f"All {total} resumes: {note}"
    return f"{', '.join(files)}: {note}"


@dataclass(frozen=True)
class Unbuilt:
    """A question the study asks that its built cases cannot answer, and why."""

    design: str
    question: str
    reason: str
    fix: str

    def line(self) -> str:
        return (
            f"{self.design}: this audit cannot answer {self.question} — {self.reason}. {self.fix}"
        )


def unbuilt_questions(result: ResultFile, config: StudyConfig) -> list[Unbuilt]:
    """Every design's question the study asks for that has no test case.

    The Test cases step shows them with a warning, the plan says which questions the
    audit cannot answer, and a study that asks only for these is refused before a run
    (workflow/prepare.py).
    """
    kinds = result.case_kinds()
    usable = [r for r in result.resumes() if r.status != "error"]
    job = result.job() if result.has_job() else None
    out: list[Unbuilt] = []
    no_resume = "there is no usable resume"
    add_resumes = "Add readable resumes on the Resumes page, then build the test cases again."

    def lacks(design: str, kind: str, question: str, reason: str, fix: str) -> None:
        if not kinds.get((design, kind)):
            out.append(
                Unbuilt(
                    design,
                    question,
                    no_resume if not usable else reason,
                    add_resumes if not usable else fix,
                )
            )

    generic = "no case could be built from these resumes and settings (see the notes)"
    check = "Check this design's settings and the resumes, then build the test cases again."
    units = enabled(config)

    def ask(head: bool) -> None:
        for unit, spec in units:
            if (unit.placement == "head") == head:
                for missing in unit.unbuilt_for(spec, job):
                    lacks(
                        unit.label,
                        missing.kind,
                        missing.question,
                        missing.reason or generic,
                        missing.fix or check,
                    )

    ask(head=True)  # a design placed "head" (D1) first, then the rest of the registry
    ask(head=False)
    return out
