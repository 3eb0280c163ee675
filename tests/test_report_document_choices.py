"""The report says what was done with instructions to an AI and a doubted checklist.

Instructions found in a resume are removed from every copy unless the study keeps them
(`variants.keep_instructions`); the limitations say which was chosen. A checklist the
parser doubted and nobody edited is named there too, marked ⚠.
"""

from __future__ import annotations

from dataclasses import replace

from resume_auditor.report.document import _limitations
from resume_auditor.report.facts import AuditFacts
from resume_auditor.report.prompts import PromptShown
from resume_auditor.store.resultfile import RunRecord


def _facts(**changes: object) -> AuditFacts:
    run = RunRecord(1, "openai", "https://api.example.com", "m", "d1-baseline", {}, "2026-01-01")
    facts = AuditFacts(
        study_name="S",
        study_created_at="2026-01-01",
        study_seed=1,
        job_title="Cook",
        required=["Knife skills"],
        preferred=[],
        run=run,
        base_url=run.base_url,
        other_runs=[],
        prompt=PromptShown("d1-baseline", "t", "c", "s", "u", "preset"),
        resumes=[],
        variants=0,
        designs=[],
        model_versions=[],
        cost_usd=None,
        cost_note="",
        first_answer="",
        last_answer="",
        failures=[],
        findings=[("prompt_injection", 1), ("white_text", 1)],
        input_hashes=[],
    )
    return replace(facts, **changes)  # type: ignore[arg-type]


def _said(facts: AuditFacts) -> str:
    return " ".join(_limitations({}, facts))  # type: ignore[arg-type]


def test_the_report_says_instructions_were_removed_by_default() -> None:
    said = _said(_facts())
    assert "Instructions to an AI were removed from every copy (the default)" in said


def test_the_report_says_instructions_were_kept_when_the_study_kept_them() -> None:
    said = _said(_facts(keep_instructions=True))
    assert "were kept in every copy, as the study asked" in said


def test_without_instructions_nothing_is_said_about_them() -> None:
    said = _said(_facts(findings=[("white_text", 1)]))
    assert "Instructions to an AI" not in said and "as they were" in said


def test_a_doubted_checklist_is_named_in_the_report() -> None:
    said = _said(_facts(checklist_doubts=["The only required item reads like a heading."]))
    assert "\u26a0 The job's checklist" in said and "reads like a heading" in said
