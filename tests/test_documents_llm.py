"""The optional model passes: every answer is checked against the text, never trusted."""

from __future__ import annotations

import json

import pytest

from resume_auditor.documents.identity import find_identity
from resume_auditor.documents.llm_identity import LLM_CONFIDENCE, suggest_identity
from resume_auditor.documents.llm_job import extract_job_llm
from resume_auditor.documents.llmjson import ModelOutputError, parse_json_reply
from resume_auditor.domain.identity import SlotKind
from resume_auditor.domain.job import QualKind, QualType

RESUME = (
    "Jane Public\njane@example.com\nSUMMARY\nJP (Jane) mentors juniors at Riverbend.\n"
    "EDUCATION\nStudied at Riverbend Polytech.\n"
)
JOB = (
    "Payroll Specialist\n\nWhat we need\n- 3+ years of payroll experience\n"
    "- Experience with ADP Workforce Now\n\nBonus points\n- Multi-state payroll\n"
)


class FakeModel:
    """Records the prompts and answers with a fixed reply."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls: list[tuple[str, str]] = []

    def __call__(self, system: str, user: str) -> str:
        self.calls.append((system, user))
        return self.reply


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure! Here it is:\n```json\n{"items": []}\n```\nAnything else?', {"items": []}),
        ("[1, 2] trailing words", [1, 2]),
        ('noise {"a": [1, {"b": 2}]} more {"c": 3}', {"a": [1, {"b": 2}]}),
    ],
)
def test_json_is_taken_from_wherever_it_is(reply: str, value: object) -> None:
    assert parse_json_reply(reply) == value


@pytest.mark.parametrize("reply", ["", "   ", "no json here", '{"cut": [1, 2', "12"])
def test_replies_without_json_are_refused(reply: str) -> None:
    with pytest.raises(ModelOutputError):
        parse_json_reply(reply)


def test_model_identity_suggestions_are_checked_and_added() -> None:
    items = [
        {"text": "JP", "kind": "initials"},  # missed by the heuristics: added
        {"text": "Riverbend Polytech", "kind": "college"},  # added
        {"text": "Jane Public", "kind": "full_name"},  # already a slot: nothing new
        {"text": "Janet Publik", "kind": "full_name"},  # not in the text
        {"text": "Jane", "kind": "nickname"},  # unknown kind
        "Jane",  # not an object
        {"text": "x" * 300, "kind": "full_name"},  # absurd
    ]
    model = FakeModel(json.dumps({"items": items}))
    base = find_identity(RESUME)
    result = suggest_identity(RESUME, model, base)
    assert len(model.calls) == 1 and RESUME in model.calls[0][1]
    added = [(s.kind, s.original, s.confidence) for s in result.added]
    assert added == [
        (SlotKind.INITIALS, "JP", LLM_CONFIDENCE),
        (SlotKind.COLLEGE, "Riverbend Polytech", LLM_CONFIDENCE),
    ]
    assert len(result.problems) == 4
    assert result.template.fill(None) == RESUME
    assert len(result.template.slots) == len(base.slots) + 2


@pytest.mark.parametrize("reply", ["I cannot help with that.", '{"items": "JP"}', "[]"])
def test_unusable_model_answers_leave_the_heuristic_template(reply: str) -> None:
    base = find_identity(RESUME)
    result = suggest_identity(RESUME, FakeModel(reply), base)
    assert result.template.slots == base.slots and result.added == []
    if reply != "[]":
        assert result.problems


def test_model_job_checklist_is_grounded_in_the_text() -> None:
    answer = {
        "title": "Payroll Specialist",
        "required": [
            {"text": "3+ years of payroll experience", "type": "experience"},
            {"text": "experience with adp workforce now", "type": "wizardry"},
            {"text": "A PhD in astrophysics", "type": "education"},
        ],
        "preferred": ["Multi-state payroll", "Multi-state payroll"],
    }
    result = extract_job_llm(JOB, FakeModel("```json\n" + json.dumps(answer) + "\n```"))
    assert result.used_model
    got = [(q.text, q.kind, q.qtype) for q in result.job.qualifications]
    assert got == [
        ("3+ years of payroll experience", QualKind.REQUIRED, QualType.EXPERIENCE),
        ("experience with adp workforce now", QualKind.REQUIRED, QualType.HARD_SKILL),
        ("Multi-state payroll", QualKind.PREFERRED, QualType.HARD_SKILL),
    ]
    assert any("astrophysics" in p for p in result.problems)


def test_model_job_checklist_falls_back_to_the_headings() -> None:
    answer = {"required": [{"text": "Ten years of quantum payroll"}], "preferred": []}
    result = extract_job_llm(JOB, FakeModel(json.dumps(answer)))
    assert not result.used_model
    assert [q.text for q in result.job.required] == [
        "3+ years of payroll experience",
        "Experience with ADP Workforce Now",
    ]
    assert [q.text for q in result.job.preferred] == ["Multi-state payroll"]
    result = extract_job_llm(JOB, FakeModel("no idea"))
    assert not result.used_model and result.problems
