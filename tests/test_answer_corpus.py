"""Every answer of the answer-style corpus (tests/answers_corpus) is read to the label it
means, for every kind of prompt; the corpus covers the styles models write; and
wrapping an answer the ways models wrap them never changes what it is read as."""

from __future__ import annotations

import math

import pytest
from devtools.answer_corpus import Entry, load_corpus, problems

from resume_auditor.prompts import KINDS, read_answer
from resume_auditor.providers.base import TokenLogprob

CORPUS = load_corpus()
PAIRWISE = [e for e in CORPUS if KINDS[e.kind].pairwise]
MIRROR = {"first": "second", "second": "first", "abstain": "abstain", "invalid": "invalid"}


@pytest.mark.parametrize("entry", CORPUS, ids=[e.key for e in CORPUS])
def test_each_answer_is_read_to_the_label_it_means(entry: Entry) -> None:
    assert problems(entry) == [], entry.text


def test_the_corpus_covers_every_kind_and_the_styles_models_write() -> None:
    assert {e.kind for e in CORPUS} == set(KINDS)
    for kind in KINDS:
        labels = {e.label for e in CORPUS if e.kind == kind}
        assert "invalid" in labels, f"{kind}: no unreadable answer in the corpus"
        assert labels - {"invalid"}, f"{kind}: no readable answer in the corpus"
    styles = {part for e in PAIRWISE for part in e.style.replace("+", " ").split()}
    for style in (
        "tag",
        "json",
        "json-fenced",
        "json-trailing-prose",
        "json-single-quotes",
        "markdown-bold",
        "markdown-heading",
        "final-answer-line",
        "brackets",
        "name",
        "names-candidate",
        "reasoning-both",
        "negation",
        "think",
        "refusal",
        "ambiguous",
    ):
        assert style in styles, style
    models = " ".join(e.model for e in CORPUS)
    for family in ("gpt-4o", "claude", "gemini", "llama", "mistral", "qwen", "deepseek-r1"):
        assert family in models, family


def test_the_issues_two_misread_answers() -> None:
    """Issue 15: the answer field wins over a justification about the other resume."""
    abstain = '{"justification": "Both resumes list the same tools.", "answer": "ABSTAIN"}'
    assert read_answer("pairwise_abstain", abstain).label == "abstain"
    first = '{"justification": "Resume 2 is stronger in design, but...", "answer": "first"}'
    reading = read_answer("pairwise_abstain", first)
    assert reading.label == "first"
    assert reading.justification == "Resume 2 is stronger in design, but..."


# Answers that name a person only (not a position such as "Resume 1" or "first").
BY_NAME = [
    e
    for e in PAIRWISE
    if e.context.get("names")
    and not any(w in e.text.lower() for w in ("resume 1", "resume 2", "first", "second"))
]


@pytest.mark.parametrize("entry", BY_NAME, ids=[e.key for e in BY_NAME])
def test_a_name_answer_shown_in_the_other_order_means_the_other_position(entry: Entry) -> None:
    """The same words about the same person, with the resumes shown the other way round."""
    swapped = {**entry.context, "names": list(reversed(entry.context["names"]))}
    reading = read_answer(entry.kind, entry.text, context=swapped)
    assert reading.label == MIRROR[entry.label]


def _wrappings(text: str) -> dict[str, str]:
    return {
        "fenced": f"```\n{text}\n```" if text.lstrip().startswith("{") else text,
        "trailing": f"{text}\n\nLet me know if you would like a more detailed comparison.",
        "leading": f"Here is my evaluation:\n\n{text}",
        "thinking": f"<think>\nResume 2? <answer>first</answer> Yes. 5.\n</think>\n\n{text}",
        "crlf": text.replace("\n", "\r\n"),
    }


@pytest.mark.parametrize(
    "entry",
    [e for e in CORPUS if e.kind != "generate" and "think" not in e.style],
    ids=[e.key for e in CORPUS if e.kind != "generate" and "think" not in e.style],
)
def test_wrapping_an_answer_as_models_do_does_not_change_its_reading(entry: Entry) -> None:
    base = read_answer(entry.kind, entry.text, context=entry.context)
    for how, text in _wrappings(entry.text).items():
        if how == "trailing" and entry.label == "invalid" and entry.kind != "pairwise_abstain":
            continue  # a closing remark may itself be an answer to a non-pairwise prompt
        if how == "leading" and entry.kind in ("yes_no", "rating") and not entry.text.strip():
            continue
        wrapped = read_answer(entry.kind, text, context=entry.context)
        assert wrapped.label == base.label, (how, text)


def _lp(token: str, chosen: float, *alts: tuple[str, float]) -> TokenLogprob:
    return TokenLogprob(token, chosen, tuple(alts))


def test_a_json_answers_probability_is_read_at_its_answer_field() -> None:
    text = '{"justification": "Resume 2 is stronger.", "answer": "first"}'
    pieces = ['{"', "justification", '":', ' "', "Resume", " 2", " is", " stronger", '.",', ' "']
    pieces += ["answer", '":', ' "']
    tokens = tuple(_lp(p, -0.01) for p in pieces) + (
        _lp("first", math.log(0.7), ("first", math.log(0.7)), ("second", math.log(0.3))),
        _lp('"}', -0.01),
    )
    assert "".join(t.token for t in tokens) == text
    reading = read_answer("pairwise_abstain", text, logprobs=tokens)
    assert reading.label == "first"
    assert reading.parsed["p"]["first"] == pytest.approx(0.7, abs=1e-6)
