"""The kinds of prompt the app can send, and how each one's answer is read.

A kind fixes the placeholders a preset must use, the closed set of labels its
answers are read into, a GBNF grammar that keeps the tiny bundled model on that
set, how many output tokens an answer typically takes (for the cost estimate),
and whether log-probabilities refine the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from resume_auditor.prompts.read_generated import judge_grammar, read_generated, read_judge
from resume_auditor.prompts.read_pairwise import read_pairwise
from resume_auditor.prompts.read_ranking import LETTERS, read_manipulation, read_ranking
from resume_auditor.prompts.read_scores import read_dimensions, read_rating, read_yes_no
from resume_auditor.prompts.reading import INVALID, Reading, refusal
from resume_auditor.providers.base import TokenLogprob

Reader = Callable[..., Reading]

# For llama.cpp: a short justification without tags, then exactly one label. Each
# generated token costs the bundled model ~35 ms under a grammar on 2 cores, and its
# justification is mostly the prompt echoed back, so it is kept to a sentence: 120
# characters (was 240; a D1 answer took 71 tokens, now ~40; benchmarks/quick_demo.py).
PAIRWISE_GRAMMAR = r"""
root ::= justification " <answer>" label "</answer>"
justification ::= [A-Za-z0-9] [^<\n]{20,120}
label ::= "first" | "second" | "ABSTAIN"
"""

FORCED_GRAMMAR = r"""
root ::= justification " <answer>" label "</answer>"
justification ::= [A-Za-z0-9] [^<\n]{20,120}
label ::= "first" | "second"
"""

YES_NO_GRAMMAR = r"""
root ::= ("Yes" | "No")
"""

RATING_GRAMMAR = r"""
root ::= "Summary: " summary "\n" subs "\nOverall hire rating: " d
subs ::= "Experience: " d "\nProfessionalism: " d "\nFit: " d
summary ::= [A-Za-z0-9] [^\n]{20,150}
d ::= [1-5]
"""

DIMENSIONS_GRAMMAR = r"""
root ::= "{" relevance ", " impact ", " skills ", " achievements ", " culture "}"
relevance ::= "\"relevance\": " d
impact ::= "\"impact\": " d
skills ::= "\"skill_relevance\": " d
achievements ::= "\"achievements\": " d
culture ::= "\"cultural_fit\": " d
d ::= [1-5]
"""

MANIPULATION_GRAMMAR = r"""
root ::= "{\"race\": \"" race "\", \"gender\": \"" gender "\"}"
race ::= "White" | "Black" | "Asian" | "Hispanic" | "Unknown"
gender ::= "Female" | "Male" | "Unknown"
"""


def ranking_grammar(count: int) -> str:
    """A JSON object {"1": "A", ...} with one key per rank, for `count` candidates."""
    letters = " | ".join(f'"\\"{LETTERS[i]}\\""' for i in range(count))
    members = ' ", " '.join(f'"\\"{n}\\": " c' for n in range(1, count + 1))
    return f'root ::= "{{" {members} "}}"\nc ::= {letters}\n'


@dataclass(frozen=True)
class Kind:
    name: str
    title: str
    required: frozenset[str]
    optional: frozenset[str]
    labels: tuple[str, ...]  # the closed set, besides "invalid"
    reader: Reader
    expected_output_tokens: int
    grammar: str | None = None
    wants_logprobs: bool = False  # a score comes from them when the model gives them
    pairwise: bool = False  # answers name "first"/"second" (D1 readers understand them)

    def read(
        self,
        text: str,
        *,
        logprobs: Sequence[TokenLogprob] | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> Reading:
        reading = self.reader(text, logprobs=logprobs, context=context)
        if reading.label not in self.labels and reading.label != INVALID:
            reading = Reading(INVALID, reading.justification, reading.parsed)
        if reading.label == INVALID and not reading.parsed.get("refused"):
            declined = refusal(text)
            if declined:  # counted as a refusal, not as noise (stats/missing.py)
                reading = Reading(
                    INVALID, reading.justification, {**reading.parsed, "refused": declined}
                )
        return reading

    def grammar_for(self, context: Mapping[str, Any]) -> str | None:
        if self.name == "ranking":
            return ranking_grammar(int(context.get("count", 5)))
        if self.name == "judge":
            return judge_grammar(int(context.get("count", 1)))
        return self.grammar


_PAIR = frozenset({"resume_1", "resume_2", "job_description"})
_ONE = frozenset({"resume", "job_description"})

KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "pairwise_abstain",
            "Pairwise with abstention (first / second / ABSTAIN)",
            _PAIR,
            frozenset(),
            ("first", "second", "abstain"),
            read_pairwise,
            60,
            PAIRWISE_GRAMMAR,
            pairwise=True,
        ),
        Kind(
            "forced_choice",
            "Forced choice (first / second)",
            _PAIR,
            frozenset(),
            ("first", "second", "abstain"),
            partial(read_pairwise, forced=True),
            50,
            FORCED_GRAMMAR,
            pairwise=True,
        ),
        Kind(
            "yes_no",
            "Pointwise Yes / No (probability of Yes)",
            _ONE,
            frozenset(),
            ("yes", "no"),
            read_yes_no,
            2,
            YES_NO_GRAMMAR,
            wants_logprobs=True,
        ),
        Kind(
            "rating",
            "1-5 hire rating with summary and sub-ratings",
            _ONE,
            frozenset(),
            ("1", "2", "3", "4", "5"),
            read_rating,
            220,
            RATING_GRAMMAR,
            wants_logprobs=True,
        ),
        Kind(
            "dimensions",
            "Five-dimension 1-5 scores as JSON",
            _ONE,
            frozenset(),
            ("ok", "partial"),
            read_dimensions,
            90,
            DIMENSIONS_GRAMMAR,
        ),
        Kind(
            "ranking",
            "Ranking a batch of resumes",
            frozenset({"resumes", "job_description"}),
            frozenset({"count"}),
            ("ranked", "partial"),
            read_ranking,
            40,
        ),
        Kind(
            "manipulation",
            "Manipulation check: perceived race and gender",
            frozenset({"resume"}),
            frozenset({"job_description"}),
            ("ok", "partial"),
            read_manipulation,
            25,
            MANIPULATION_GRAMMAR,
        ),
        # A generator model's kinds (docs/generator.md): a rewritten resume, and a
        # judge saying whether a text meets each of a numbered list of qualifications.
        Kind(
            "generate",
            "Generator: write or edit a resume",
            frozenset(),
            frozenset(
                {"resume", "job_description", "qualifications", "feedback", "role_title", "count"}
            ),
            ("text",),
            read_generated,
            900,
        ),
        Kind(
            "judge",
            "Judge: does a resume meet each qualification (yes / no per line)",
            frozenset({"resume", "qualifications"}),
            frozenset({"job_description", "count"}),
            ("all", "some", "none"),
            read_judge,
            12,
        ),
    )
}


def get_kind(name: str) -> Kind:
    try:
        return KINDS[name]
    except KeyError:
        raise KeyError(f"unknown prompt kind {name!r}; known: {', '.join(KINDS)}") from None


def read_answer(
    kind: str,
    text: str,
    *,
    logprobs: Sequence[TokenLogprob] | None = None,
    context: Mapping[str, Any] | None = None,
) -> Reading:
    """Read one answer of `kind` into its closed set (or invalid) and parsed fields."""
    return get_kind(kind).read(text, logprobs=logprobs, context=context)
