"""Prompt presets: the shipped ones (resources/prompts/*.toml) and the user's own
(a `prompts` folder in the data folder), checked before anything is sent.

A preset names its kind (what answers it expects) and carries a system and a
user template with {placeholders}. Placeholders are checked against the kind:
a missing one is an error, an unknown one too, so a typo never reaches a paid
model. A user's preset that is broken is reported (`preset_problems`) and left
out; it never hides the shipped ones, and it cannot replace a cited one.
"""

from __future__ import annotations

import difflib
import logging
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from resume_auditor.prompts.kinds import KINDS
from resume_auditor.resources import resource

logger = logging.getLogger(__name__)

PLACEHOLDER = re.compile(r"\{([a-z_0-9]+)\}")
USER_FOLDER = "prompts"


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
    # How many top alternatives per token to ask for (0: none). The kind says
    # whether they refine the answer (Yes/No, ratings, pairwise labels).
    logprobs: int = 0
    # The output this prompt needs, when it differs from the model's setting (a
    # one-word Yes/No needs 3 tokens; a summary with ratings needs more).
    max_tokens: int | None = None
    expected_output_tokens: int | None = None
    description: str = ""
    source: str = "shipped"  # "shipped" or the user's file

    def placeholders(self) -> set[str]:
        return set(PLACEHOLDER.findall(self.system)) | set(PLACEHOLDER.findall(self.user))

    def check(self) -> None:
        kind = KINDS.get(self.kind)
        if kind is None:
            raise PromptError(
                f"preset {self.id!r}: unknown kind {self.kind!r}; use one of {', '.join(KINDS)}"
            )
        found = self.placeholders()
        allowed = kind.required | kind.optional
        missing = kind.required - found
        unknown = found - allowed
        problems = []
        if missing:
            problems.append(f"is missing {', '.join('{' + m + '}' for m in sorted(missing))}")
        for name in sorted(unknown):
            near = difflib.get_close_matches(name, sorted(allowed), n=1)
            hint = f" (did you mean {{{near[0]}}}?)" if near else ""
            problems.append(f"has an unknown placeholder {{{name}}}{hint}")
        if problems:
            raise PromptError(
                f"preset {self.id!r} "
                + " and ".join(problems)
                + f"; a {self.kind} prompt takes "
                + ", ".join("{" + p + "}" for p in sorted(allowed))
            )
        if self.max_tokens is not None and self.max_tokens < 1:
            raise PromptError(f"preset {self.id!r}: max_tokens should be at least 1")
        if not 0 <= self.logprobs <= 20:
            raise PromptError(f"preset {self.id!r}: logprobs should be between 0 and 20")

    def render(self, values: dict[str, str]) -> tuple[str, str]:
        """(system, user) with placeholders filled; text inside the values is left alone."""

        def fill(template: str) -> str:
            return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)

        return fill(self.system), fill(self.user)

    @property
    def output_tokens(self) -> int:
        """Typical output tokens of one answer (for the cost estimate)."""
        if self.expected_output_tokens is not None:
            return self.expected_output_tokens
        return KINDS[self.kind].expected_output_tokens


def _int_or_none(data: dict[str, Any], key: str, name: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise PromptError(f"prompt preset {name}: {key} should be a whole number")
    return value


def load_preset_file(path: Path, source: str = "shipped") -> Preset:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PromptError(f"cannot read prompt preset {path.name}: {exc}") from exc
    try:
        logprobs = data.get("logprobs", 0)
        if isinstance(logprobs, bool):
            logprobs = 5 if logprobs else 0
        preset = Preset(
            id=str(data["id"]),
            title=str(data.get("title", data["id"])),
            kind=str(data["kind"]),
            system=str(data.get("system", "")),
            user=str(data["user"]),
            citation=str(data.get("citation", "")),
            logprobs=int(logprobs),
            max_tokens=_int_or_none(data, "max_tokens", path.name),
            expected_output_tokens=_int_or_none(data, "expected_output_tokens", path.name),
            description=str(data.get("description", "")),
            source=source,
        )
    except KeyError as exc:
        raise PromptError(f"prompt preset {path.name} lacks {exc}") from exc
    except (TypeError, ValueError) as exc:
        raise PromptError(f"prompt preset {path.name}: {exc}") from exc
    preset.check()
    return preset


def user_presets_dir() -> Path:
    from resume_auditor.paths import data_dir

    return data_dir() / USER_FOLDER


@cache
def _load() -> tuple[dict[str, Preset], tuple[str, ...]]:
    out: dict[str, Preset] = {}
    for path in sorted(resource("prompts").glob("*.toml")):
        preset = load_preset_file(path)
        out[preset.id] = preset
    problems: list[str] = []
    folder = user_presets_dir()
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else []:
        try:
            preset = load_preset_file(path, source=str(path))
        except PromptError as exc:
            problems.append(f"{path}: {exc}")
            continue
        if preset.id in out:
            problems.append(
                f"{path}: the id {preset.id!r} is taken by a shipped preset; give yours another id"
            )
            continue
        out[preset.id] = preset
    for problem in problems:
        logger.warning("prompt preset skipped: %s", problem)
    return out, tuple(problems)


def presets() -> dict[str, Preset]:
    """Every usable preset by id: the shipped ones, then the user's own."""
    return _load()[0]


def preset_problems() -> tuple[str, ...]:
    """The user's presets that could not be used, each with the reason."""
    return _load()[1]


def reload_presets() -> None:
    """Read the preset folders again (after the user added or edited one)."""
    _load.cache_clear()


def get_preset(preset_id: str) -> Preset:
    try:
        return presets()[preset_id]
    except KeyError:
        known = ", ".join(sorted(presets()))
        raise PromptError(f"unknown prompt preset {preset_id!r}; known: {known}") from None
