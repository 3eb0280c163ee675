"""Prompt presets (resources/prompts/*.toml and the user's own), filling them, and
reading the answers of every kind (docs/prompts.md).

- presets.py — Preset, loading and checking presets
- kinds.py — the kinds of prompt, their labels, grammars and readers
- body.py — a preset and its texts -> the stored request body
- read_pairwise.py, read_scores.py, read_ranking.py — answer readers
- logprobs.py — label probabilities from token log-probabilities
"""

from __future__ import annotations

from resume_auditor.domain.case import Label
from resume_auditor.prompts.body import build_body, render_resumes
from resume_auditor.prompts.kinds import KINDS, PAIRWISE_GRAMMAR, Kind, get_kind, read_answer
from resume_auditor.prompts.presets import (
    PLACEHOLDER,
    Preset,
    PromptError,
    get_preset,
    load_preset_file,
    preset_problems,
    presets,
    reload_presets,
    user_presets_dir,
)
from resume_auditor.prompts.read_pairwise import read_pairwise
from resume_auditor.prompts.reading import INVALID, Reading

__all__ = [
    "INVALID",
    "KINDS",
    "PAIRWISE_GRAMMAR",
    "PLACEHOLDER",
    "Kind",
    "Preset",
    "PromptError",
    "Reading",
    "build_body",
    "get_kind",
    "get_preset",
    "load_preset_file",
    "parse_pairwise",
    "preset_problems",
    "presets",
    "read_answer",
    "reload_presets",
    "render_resumes",
    "user_presets_dir",
]


def parse_pairwise(text: str) -> tuple[Label, str]:
    """(label, justification) from a pairwise answer; INVALID when it cannot be read."""
    reading = read_pairwise(text)
    return Label(reading.label), reading.justification
