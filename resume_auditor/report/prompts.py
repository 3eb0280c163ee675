"""The prompt a run used, verbatim, with its placeholders.

A report must show the prompt as it was sent, not as the app ships it today: a
preset may have changed since the run. So we take one answered request of the
run, fill the run's preset with that request's own resumes and job, and compare.
If they match, the preset is the prompt (shown with its title and citation);
if not, the prompt is rebuilt from the request itself by putting the
placeholders back where the resumes and the job description were.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from resume_auditor.designs.registry import run_prompt_design
from resume_auditor.prompts import PromptError, get_preset
from resume_auditor.store.parts import AuditReader
from resume_auditor.store.runs import RunRecord

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PromptShown:
    preset_id: str
    title: str
    citation: str
    system: str
    user: str
    source: str  # "preset": the shipped preset, checked against a request; "as sent"; "unchecked"
    note: str = ""

    def text(self) -> str:
        """The prompt as one text file (what the bundle stores and the appendix hashes)."""
        head = [f"Prompt preset: {self.preset_id}", f"Title: {self.title}"]
        if self.citation:
            head.append(f"Source: {self.citation}")
        if self.note:
            head.append(f"Note: {self.note}")
        return "\n".join(head) + f"\n\n--- system ---\n{self.system}\n\n--- user ---\n{self.user}\n"

    def sha256(self) -> str:
        return hashlib.sha256(self.text().encode("utf-8")).hexdigest()


def _turns(body: dict[str, Any]) -> tuple[str, str] | None:
    """(system, user) of a stored request body, in the app's neutral shape or a chat list."""
    if isinstance(body.get("user"), str):
        return str(body.get("system") or ""), body["user"]
    messages = body.get("messages")
    if isinstance(messages, list):
        system = "".join(
            str(m.get("content", ""))
            for m in messages
            if isinstance(m, dict) and m.get("role") == "system"
        )
        users = [
            str(m.get("content", ""))
            for m in messages
            if isinstance(m, dict) and m.get("role") == "user"
        ]
        if users:
            return system, users[-1]
    return None


def _put_back(text: str, values: dict[str, str]) -> str:
    """Replace each value's first occurrence by its {placeholder}, longest value first."""
    for name, value in sorted(values.items(), key=lambda kv: -len(kv[1])):
        if value and value in text:
            text = text.replace(value, "{" + name + "}", 1)
    return text


def preset_shown(preset_id: str) -> PromptShown | None:
    """A shipped preset as the app has it today (None: not known to this app)."""
    try:
        preset = get_preset(preset_id)
    except (KeyError, PromptError):
        return None
    return PromptShown(
        preset.id,
        preset.title,
        preset.citation,
        preset.system,
        preset.user,
        "unchecked",
        "The shipped preset; the requests fill in its placeholders.",
    )


def prompt_used(result: AuditReader, run: RunRecord) -> PromptShown:
    try:
        preset = get_preset(run.prompt_id)
    except PromptError:
        preset = None
    title = preset.title if preset else run.prompt_id
    citation = preset.citation if preset else ""
    asked = run_prompt_design()  # the design whose cases the run's prompt asks
    answered = result.answers(run.id, design=asked.label) if asked is not None else None
    sample = answered.iloc[0] if answered is not None and len(answered) else None
    body = result.request_body(int(sample["request_id"])) if sample is not None else None
    turns = _turns(body) if body else None
    if sample is None or turns is None:
        if preset is None:
            return PromptShown(
                run.prompt_id,
                title,
                citation,
                "",
                "",
                "unchecked",
                "The prompt is not known to this app and no request shows it.",
            )
        return PromptShown(
            preset.id,
            title,
            citation,
            preset.system,
            preset.user,
            "unchecked",
            "No answered request to check the preset against.",
        )
    pair = list(sample["case_variants"] or [])  # the pair's variants, A then B
    values: dict[str, str] = {"job_description": result.job().text}
    if len(pair) == 2:
        first, second = (pair[0], pair[1]) if sample["ord"] == "ab" else (pair[1], pair[0])
        values["resume_1"] = result.variant_text(first)
        values["resume_2"] = result.variant_text(second)
    if preset is not None and preset.render(values) == turns:
        return PromptShown(preset.id, title, citation, preset.system, preset.user, "preset")
    system, user = (_put_back(t, values) for t in turns)
    note = (
        "Rebuilt from a request as it was sent: the app's preset of this name differs today."
        if preset is not None
        else "Rebuilt from a request as it was sent."
    )
    logger.info("prompt of run %s rebuilt from request %s", run.id, sample["request_id"])
    return PromptShown(run.prompt_id, title, citation, system, user, "as sent", note)
