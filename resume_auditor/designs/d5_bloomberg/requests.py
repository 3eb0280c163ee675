"""D5's requests: every shown order of every batch, under the run's repeats.

The copies are separated by <hr> as in Bloomberg's prompt and each carries a letter
as well as its name, so an answer by names (as GPT wrote them) and an answer by
letters (a local model held to a grammar) are both read by the shared ranking
reader (`prompts/read_ranking.py`) through the names and letters in the context;
the requests themselves are built by the shared `prompts.requests.ranking_requests`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.prompts import get_preset
from resume_auditor.prompts.requests import ranking_requests
from resume_auditor.store.requests import RequestSpec

CELL = "D5 eight-name ranking"


def render(texts: Sequence[str], labels: Sequence[str]) -> str:
    """The {resumes} block: each copy under its letter, copies separated by <hr>."""
    return "\n<hr>\n".join(
        f"Resume {label}:\n{text.strip()}" for label, text in zip(labels, texts, strict=True)
    )


def d5_requests(
    prompt: str,
    study: StudyConfig,
    model: ModelSpec,
    job_text: str,
    variants: Mapping[int, Variant],
    case: Case,
) -> list[RequestSpec]:
    preset = get_preset(prompt)
    return ranking_requests(
        model,
        preset,
        job_text,
        variants,
        case,
        render=render,
        ukey=lambda perm: f"d5:batch:{case.id}:order:{'-'.join(str(i) for i in perm)}:{preset.id}",
        cell=CELL,
        repeats=study.run.repeats,
        presentation=True,
    )
