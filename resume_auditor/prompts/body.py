"""Turning a preset and the texts it shows into a stored, provider-neutral request body.

The body is what the result file keeps and what the response cache keys on: the
model, the rendered system and user text, and the settings. It carries no key
and no vendor wire format; the runner turns it into a `ChatRequest`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from resume_auditor.domain.study import ModelSpec
from resume_auditor.prompts.kinds import KINDS
from resume_auditor.prompts.presets import Preset
from resume_auditor.prompts.read_ranking import default_labels


def render_resumes(texts: Sequence[str], labels: Sequence[str] | None = None) -> str:
    """The {resumes} block of a ranking prompt: each resume under its own label."""
    labels = list(labels) if labels else default_labels(len(texts))
    return "\n\n".join(
        f"Resume {label}:\n{text.strip()}" for label, text in zip(labels, texts, strict=True)
    )


def build_body(
    model: ModelSpec,
    preset: Preset,
    values: Mapping[str, str],
    *,
    context: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The stored body for one request of `preset` with its placeholders filled."""
    system, user = preset.render(dict(values))
    body: dict[str, Any] = {
        "model": model.model,
        "system": system,
        "user": user,
        "temperature": model.temperature,
        "max_tokens": preset.max_tokens or model.max_tokens,
        "seed": model.seed,
    }
    if preset.logprobs:
        body["top_logprobs"] = preset.logprobs
    if model.provider == "local":
        grammar = KINDS[preset.kind].grammar_for(context or {})
        if grammar:
            body["grammar"] = grammar
    return body
