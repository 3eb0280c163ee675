"""One call from a file to everything the user must see about it.

`extract_resume` loads a resume and returns its clean text, the identity
template, the findings (hidden text, instructions to an AI, explicit
demographic mentions) and warnings. `extract_job` does the same for a job
description with its checklist. The CLI's `extract` command prints these; the
GUI shows the same data beside the preview; `to_json` is the documented shape
(docs/documents.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resume_auditor.documents.demographics import find_demographic_mentions
from resume_auditor.documents.findings import Finding
from resume_auditor.documents.identity import find_identity
from resume_auditor.documents.jobparse import read_checklist
from resume_auditor.documents.load import MAX_BYTES, MAX_PAGES, LoadedDocument, load_file
from resume_auditor.documents.names import name_in_doubt
from resume_auditor.documents.resumecheck import job_warnings, resume_warnings
from resume_auditor.documents.screening import screen
from resume_auditor.domain.identity import NAME_KINDS, SlotKind, Template
from resume_auditor.domain.job import Job


def _document_json(doc: LoadedDocument) -> dict[str, Any]:
    out: dict[str, Any] = {
        "file": doc.filename,
        "kind": doc.kind,
        "pages": doc.pages,
        "characters": doc.characters,
        "page_starts": doc.page_starts,
    }
    if doc.columns:
        out["two_column_pages"] = doc.columns
    if doc.encoding:
        out["encoding"] = doc.encoding
    return out


def _with_pages(findings: list[Finding], doc: LoadedDocument) -> list[Finding]:
    if doc.kind != "pdf":
        return findings
    return [
        f
        if f.page is not None
        else Finding(
            f.start, f.end, f.kind, f.message, f.confidence, doc.page_of(f.start), f.category
        )
        for f in findings
    ]


@dataclass
class ResumeExtraction:
    document: LoadedDocument
    template: Template
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.document.text

    def notice(self) -> str:
        """What the user should look at, in one line ("" if nothing)."""
        return notice(self.findings, self.warnings)

    def to_json(self, include_text: bool = True) -> dict[str, Any]:
        text = self.document.text
        out = _document_json(self.document)
        out["warnings"] = self.warnings
        out["identity"] = {
            "name": self.template.original_name(),
            "slots": [
                {
                    "start": s.start,
                    "end": s.end,
                    "kind": s.kind.value,
                    "text": s.original,
                    "confidence": round(s.confidence, 3),
                }
                for s in self.template.slots
            ],
        }
        out["findings"] = [f.to_json(text) for f in self.findings]
        if include_text:
            out["text"] = text
        return out


def notice(findings: list[Finding], warnings: list[str]) -> str:
    """One sentence for a resume list: what to look at before any run ("" if nothing)."""
    from collections import Counter

    from resume_auditor.documents.findings import FINDING_LABELS, FindingKind

    unsure = sorted({f.page for f in findings if f.kind is FindingKind.UNSURE_TEXT and f.page})
    counts = Counter(FINDING_LABELS[f.kind] for f in findings if f.kind != FindingKind.UNSURE_TEXT)
    parts = [label if n == 1 else f"{label} ({n})" for label, n in counts.items()]
    out = []
    if unsure:
        pages = ", ".join(str(p) for p in unsure)
        out.append(
            f"Check the text of page{'s' if len(unsure) > 1 else ''} {pages} against the PDF: "
            "its layout could not be read with certainty."
        )
    if parts:
        out.append(
            "Look before any run: "
            + ", ".join(parts)
            + " (kept in every variant unless you remove them)."
        )
    out.extend(warnings[:1])
    return " ".join(out)


def analyse_resume(doc: LoadedDocument) -> ResumeExtraction:
    """Identity, findings and warnings for an already loaded resume."""
    template = find_identity(doc.text)
    taken = [
        (s.start, s.end)
        for s in template.slots
        if s.kind in NAME_KINDS or s.kind is SlotKind.PERSONAL
    ]
    mentions = [
        f
        for f in find_demographic_mentions(doc.text)
        # "Christian Okafor" is a name, not a religion; "Nationality: Indian" is withheld
        if not any(f.start < e and f.end > s for s, e in taken)
    ]
    findings = _with_pages(screen(doc.text, doc.findings) + mentions, doc)
    warnings = list(doc.warnings) + resume_warnings(doc.text, doc.filename)
    doubt = name_in_doubt(doc.text) if template.original_name() is None else None
    if doubt is not None:  # only where a name may have been missed
        warnings.append(
            f"No candidate name was recognised in {doc.filename}, but {doubt!r} near the top "
            "may be one: if it is, mark it by hand so the real one is replaced. (Every test "
            "copy gets a name line of its own at the top either way.)"
        )
    findings.sort(key=lambda f: (f.start, f.kind))
    return ResumeExtraction(doc, _with_instructions(template, findings), findings, warnings)


def _with_instructions(template: Template, findings: list[Finding]) -> Template:
    """The template with each instruction to an AI as a slot: removed from every copy
    unless the study keeps them (workflow/cases.py drops the slots then). An
    instruction overlapping an identity slot is cut around it."""
    from resume_auditor.documents.findings import FindingKind
    from resume_auditor.domain.identity import Slot

    taken = sorted((s.start, s.end) for s in template.slots)
    added: list[Slot] = []
    for f in findings:
        if f.kind is not FindingKind.PROMPT_INJECTION:
            continue
        pieces = []
        cursor = f.start
        for lo, hi in taken:
            if hi <= cursor:
                continue
            if lo >= f.end:
                break
            if lo > cursor:
                pieces.append((cursor, lo))
            cursor = max(cursor, hi)
        if cursor < f.end:
            pieces.append((cursor, f.end))
        for start, end in pieces:
            if template.text[start:end].strip():
                added.append(Slot(start, end, SlotKind.INSTRUCTION, template.text[start:end], 0.9))
        taken = sorted([*taken, *pieces])
    return template.with_slots([*template.slots, *added]) if added else template


def extract_resume(
    path: str | Path,
    *,
    password: str | None = None,
    max_bytes: int = MAX_BYTES,
    max_pages: int = MAX_PAGES,
) -> ResumeExtraction:
    doc = load_file(path, password=password, max_bytes=max_bytes, max_pages=max_pages)
    return analyse_resume(doc)


@dataclass
class JobExtraction:
    document: LoadedDocument
    job: Job
    findings: list[Finding] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    doubts: list[str] = field(default_factory=list)  # why the checklist may be wrong

    def to_json(self, include_text: bool = True) -> dict[str, Any]:
        out = _document_json(self.document)
        out["warnings"] = self.warnings
        out["title"] = self.job.title
        out["checklist_doubts"] = self.doubts
        out["qualifications"] = [
            {"text": q.text, "kind": q.kind.value, "type": q.qtype.value}
            for q in self.job.qualifications
        ]
        out["findings"] = [f.to_json(self.document.text) for f in self.findings]
        if include_text:
            out["text"] = self.document.text
        return out


def analyse_job(doc: LoadedDocument, title: str = "") -> JobExtraction:
    reading = read_checklist(doc.text, title)
    job = reading.job
    # why the checklist is empty or doubtful, and what to do (jobparse.read_checklist)
    warnings = list(doc.warnings) + job_warnings(doc.text, doc.filename) + reading.notes
    findings = _with_pages(screen(doc.text, doc.findings), doc)
    return JobExtraction(doc, job, findings, warnings, list(reading.notes))


def extract_job(
    path: str | Path,
    *,
    title: str = "",
    password: str | None = None,
    max_bytes: int = MAX_BYTES,
    max_pages: int = MAX_PAGES,
) -> JobExtraction:
    doc = load_file(path, password=password, max_bytes=max_bytes, max_pages=max_pages)
    return analyse_job(doc, title)


def _quote(text: str, limit: int = 70) -> str:
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "\u2026"
    return f"\u201c{flat}\u201d"


def _describe_document(doc: LoadedDocument) -> str:
    facts = [doc.kind.upper(), f"{doc.pages} page{'s' if doc.pages != 1 else ''}"]
    facts.append(f"{doc.characters:,} characters")
    if doc.encoding:
        facts.append(f"read as {doc.encoding}")
    if doc.columns:
        facts.append(f"two columns on page(s) {', '.join(map(str, doc.columns))}")
    return f"File: {doc.filename} ({'; '.join(facts)})"


def _describe_findings(findings: list[Finding], text: str) -> list[str]:
    from resume_auditor.documents.findings import FINDING_LABELS

    if not findings:
        return ["Findings: none"]
    out = [
        f"Findings ({len(findings)}), shown to you before any run. Instructions to an AI are "
        "removed from every test copy unless the study keeps them (variants.keep_instructions); "
        "the rest is kept as it is:"
    ]
    for f in findings:
        where = f", page {f.page}" if f.page is not None else ""
        out.append(
            f"  ! {FINDING_LABELS[f.kind]}{where} ({f.confidence:.0%}): "
            f"{_quote(text[f.start : f.end])}"
        )
        out.append(f"    {f.message}")
    return out


def describe(result: ResumeExtraction | JobExtraction) -> str:
    """The clean text, then what was found, for a person reading a terminal."""
    from resume_auditor.domain.identity import SLOT_LABELS

    doc = result.document
    lines = [doc.text.rstrip("\n"), "", "-" * 72, _describe_document(doc)]
    if isinstance(result, ResumeExtraction):
        slots = result.template.slots
        lines.append(f"Candidate: {result.template.original_name() or '(no name found)'}")
        lines.append(f"Identity ({len(slots)} slot{'s' if len(slots) != 1 else ''}):")
        for s in slots:
            lines.append(
                f"  {SLOT_LABELS[s.kind]:<26} {_quote(s.original, 48):<52} "
                f"at {s.start}-{s.end} ({s.confidence:.0%})"
            )
    else:
        job = result.job
        lines.append(f"Title: {job.title}")
        if result.doubts:
            lines.append("\u26a0 The checklist may be wrong; check it against the posting:")
            lines.extend(f"  \u26a0 {d}" for d in result.doubts)
        for label, quals in (("Required", job.required), ("Preferred", job.preferred)):
            lines.append(f"{label} ({len(quals)}):")
            lines.extend(f"  - [{q.qtype.value}] {q.text}" for q in quals)
    lines.extend(_describe_findings(result.findings, doc.text))
    shown = set(result.doubts) if isinstance(result, JobExtraction) else set()
    if [w for w in result.warnings if w not in shown]:
        lines.append("Warnings:")
        lines.extend(f"  - {w}" for w in result.warnings if w not in shown)
    return "\n".join(lines) + "\n"
