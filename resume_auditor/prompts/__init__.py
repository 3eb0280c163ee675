"""Prompt presets (resources/prompts/*.toml), filling them, and reading the answers.

A preset names its kind (what answers it expects) and carries a system and a user
template with {placeholders}. Placeholders are checked before a run: a missing one
is an error, an unknown one too, so a typo never reaches a paid model.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from resume_auditor.domain.case import Label
from resume_auditor.resources import resource

PLACEHOLDER = re.compile(r"\{([a-z_0-9]+)\}")

REQUIRED_PLACEHOLDERS: dict[str, set[str]] = {
    "pairwise_abstain": {"resume_1", "resume_2", "job_description"},
}


class PromptError(ValueError):
    pass


@dataclass(frozen=True)
class Preset:
    id: str
    title: str
    kind: str
    system: str
    user: str
    citation: str = ""

    def placeholders(self) -> set[str]:
        return set(PLACEHOLDER.findall(self.system)) | set(PLACEHOLDER.findall(self.user))

    def check(self) -> None:
        needed = REQUIRED_PLACEHOLDERS.get(self.kind)
        if needed is None:
            raise PromptError(f"preset {self.id!r}: unknown kind {self.kind!r}")
        found = self.placeholders()
        missing = needed - found
        unknown = found - needed
        if missing:
            raise PromptError(
                f"preset {self.id!r} is missing {', '.join('{' + m + '}' for m in sorted(missing))}"
            )
        if unknown:
            raise PromptError(
                f"preset {self.id!r} has unknown placeholders "
                f"{', '.join('{' + u + '}' for u in sorted(unknown))}"
            )

    def render(self, values: dict[str, str]) -> tuple[str, str]:
        """(system, user) with placeholders filled; text inside the values is left alone."""

        def fill(template: str) -> str:
            return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)

        return fill(self.system), fill(self.user)


def load_preset_file(path: Path) -> Preset:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PromptError(f"cannot read prompt preset {path.name}: {exc}") from exc
    try:
        preset = Preset(
            id=str(data["id"]),
            title=str(data.get("title", data["id"])),
            kind=str(data["kind"]),
            system=str(data.get("system", "")),
            user=str(data["user"]),
            citation=str(data.get("citation", "")),
        )
    except KeyError as exc:
        raise PromptError(f"prompt preset {path.name} lacks {exc}") from exc
    preset.check()
    return preset


@cache
def presets() -> dict[str, Preset]:
    out = {}
    for path in sorted(resource("prompts").glob("*.toml")):
        preset = load_preset_file(path)
        out[preset.id] = preset
    return out


def get_preset(preset_id: str) -> Preset:
    try:
        return presets()[preset_id]
    except KeyError:
        known = ", ".join(sorted(presets()))
        raise PromptError(f"unknown prompt preset {preset_id!r}; known: {known}") from None


# -- answers -----------------------------------------------------------------------

# For llama.cpp: a short justification without tags, then exactly one label.
PAIRWISE_GRAMMAR = r"""
root ::= justification " <answer>" label "</answer>"
justification ::= [A-Za-z0-9] [^<\n]{20,240}
label ::= "first" | "second" | "ABSTAIN"
"""

_TAGGED = re.compile(r"<answer>\s*\W*\s*(first|second|abstain)\b[^<]*</answer>", re.IGNORECASE)


def parse_pairwise(text: str) -> tuple[Label, str]:
    """(label, justification) from a pairwise answer; INVALID when it cannot be read."""
    tagged = _TAGGED.findall(text)
    if tagged:
        label = Label(tagged[-1].lower())
        justification = text[: text.lower().rfind("<answer>")].strip()
        return label, justification
    # No tags: accept a bare label as the whole answer or its last line.
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if lines:
        last = lines[-1].strip(" .*:\"'").lower()
        for word, label in (
            ("first", Label.FIRST),
            ("second", Label.SECOND),
            ("abstain", Label.ABSTAIN),
        ):
            if last == word or last.endswith(f"answer: {word}"):
                return label, "\n".join(lines[:-1]).strip()
    return Label.INVALID, text.strip()
