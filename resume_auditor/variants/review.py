"""Reviewing qualification texts: list, accept, reject, reset, diff, counts.

The GUI's Variants page and `resume-auditor variants` use these. A status change
is stored at once and takes effect the next time the test cases are built (the
design builders use only `usable()` texts): rejecting a text removes it from the
cases it was in once they are rebuilt; accepting a flagged text lets it in.
Every change returns the status the text had, so the caller can undo it.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass

from resume_auditor.domain.qualtext import QualStatus, QualText
from resume_auditor.store.resultfile import ResultFile, ResultFileError


def list_texts(result: ResultFile, resume_id: int | None = None) -> list[QualText]:
    """Every qualification text (of one resume), with its checks and status."""
    return result.qual_texts(resume_id)


SYNTHETIC_TASK = "synthetic"  # gen_plan.SYNTHETIC_KEY: the synthetic base's task
SYNTHETIC_UNUSED = (
    "The synthetic base resume is not used: {why}. Accept its text "
    "(resume-auditor variants accept) to use it."
)


def _set(result: ResultFile, qual_id: int, status: QualStatus) -> QualStatus:
    with result.transaction():
        previous = result.set_qual_status(qual_id, status)
        if previous is None:
            raise ResultFileError(f"There is no variant text with id {qual_id} in this audit.")
        qual = result.qual_text(qual_id)
        if qual is not None and qual.provenance.get("task") == SYNTHETIC_TASK:
            _sync_synthetic(result, qual)
    return previous


def _sync_synthetic(result: ResultFile, qual: QualText) -> None:
    """A synthetic base is a source resume exactly while its text is usable.

    Its resume row is what the builders (and the generator's stage 2) read, so
    accepting a flagged synthetic text makes it a source, and rejecting one (or
    resetting a flagged one) takes it out.
    """
    if qual.usable():
        result.set_resume_status(qual.resume_id, "ok")
        return
    why = "the user rejected it" if qual.status is QualStatus.REJECTED else "it failed its checks"
    result.set_resume_status(qual.resume_id, "error", SYNTHETIC_UNUSED.format(why=why))


def accept(result: ResultFile, qual_id: int) -> QualStatus:
    """Use the text even if a check failed (the user read it); returns the old status."""
    return _set(result, qual_id, QualStatus.ACCEPTED)


def reject(result: ResultFile, qual_id: int) -> QualStatus:
    """Never use the text; returns the old status."""
    return _set(result, qual_id, QualStatus.REJECTED)


def reset(result: ResultFile, qual_id: int) -> QualStatus:
    """Back to not reviewed (used if verified); returns the old status."""
    return _set(result, qual_id, QualStatus.PENDING)


def set_status(result: ResultFile, qual_id: int, status: QualStatus) -> QualStatus:
    """Any status (an undo puts back what accept/reject/reset returned)."""
    return _set(result, qual_id, status)


@dataclass(frozen=True)
class DiffOp:
    """One stretch of the diff: 'equal', 'replace', 'delete' (only in the source) or
    'insert' (only in the variant), with the source and variant text of it."""

    tag: str
    source: str
    variant: str


@dataclass(frozen=True)
class TextDiff:
    qual_id: int
    source_label: str  # "the resume as loaded" / "the completed base (text 4)"
    source: str
    variant: str
    lines: tuple[DiffOp, ...]  # line by line, for a side-by-side view
    words: tuple[DiffOp, ...]  # word by word, for highlighting inside lines


def _ops(a: list[str], b: list[str]) -> tuple[DiffOp, ...]:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return tuple(
        DiffOp(tag, "".join(a[i1:i2]), "".join(b[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    )


def source_of(result: ResultFile, qual: QualText) -> tuple[str, str]:
    """(label, text) of what a text was made from: its base text, or the resume."""
    source_id = qual.provenance.get("source_id")
    if isinstance(source_id, int):
        base = result.qual_text(source_id)
        if base is not None:
            return f"the completed base (text {source_id})", base.template.text
    record = next((r for r in result.resumes() if r.id == qual.resume_id), None)
    return "the resume as loaded", "" if record is None else record.text


def diff(result: ResultFile, qual_id: int) -> TextDiff:
    """Source and variant side by side: line opcodes, and word opcodes inside them."""
    qual = result.qual_text(qual_id)
    if qual is None:
        raise ResultFileError(f"There is no variant text with id {qual_id} in this audit.")
    label, source = source_of(result, qual)
    variant = qual.template.text
    return TextDiff(
        qual_id,
        label,
        source,
        variant,
        _ops(source.splitlines(keepends=True), variant.splitlines(keepends=True)),
        _ops(re.findall(r"\S+|\s+", source), re.findall(r"\S+|\s+", variant)),
    )


def unified(d: TextDiff) -> str:
    """The diff as text for a terminal ('-' source lines, '+' variant lines)."""
    return "".join(
        difflib.unified_diff(
            d.source.splitlines(keepends=True),
            d.variant.splitlines(keepends=True),
            fromfile=d.source_label,
            tofile=f"variant text {d.qual_id}",
        )
    )


@dataclass(frozen=True)
class CountRow:
    resume_id: int
    kind: str
    k: int
    status: str  # pending / accepted / rejected
    verified: bool
    usable: bool
    count: int


def counts(result: ResultFile) -> list[CountRow]:
    """How many texts there are by resume, kind, k, status and verification."""
    tally: Counter[tuple[int, str, int, str, bool, bool]] = Counter(
        (q.resume_id, q.kind.value, q.k, q.status.value, q.verified, q.usable())
        for q in result.qual_texts()
    )
    return [CountRow(*key, n) for key, n in sorted(tally.items())]
