"""Presets of every kind ship with citations; users add their own; bodies are built right."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from resume_auditor.domain.study import ModelSpec
from resume_auditor.prompts import (
    KINDS,
    Preset,
    PromptError,
    build_body,
    get_preset,
    preset_problems,
    presets,
    reload_presets,
    render_resumes,
    user_presets_dir,
)


@pytest.fixture(autouse=True)
def _fresh_presets() -> Iterator[None]:
    reload_presets()
    yield
    reload_presets()


def test_every_kind_has_a_shipped_preset_and_paper_presets_cite_their_paper() -> None:
    shipped = [p for p in presets().values() if p.source == "shipped"]
    assert {p.kind for p in shipped} == set(KINDS)
    papers = {"d1": "Castleman", "d2": "Gaebler", "d3": "Chen", "d4": "Wen"}
    for preset in shipped:
        prefix = preset.id.split("-")[0]
        if prefix in papers:
            assert papers[prefix] in preset.citation, preset.id
        assert preset.citation, preset.id


def test_the_cheap_prefix_preset_puts_the_job_before_the_resumes() -> None:
    system, user = get_preset("pairwise-job-first").render(
        {"resume_1": "R1", "resume_2": "R2", "job_description": "JD"}
    )
    assert "JD" in system and "R1" not in system and user.index("R1") < user.index("R2")


def test_d3_yes_no_asks_for_log_probabilities_and_few_tokens() -> None:
    preset = get_preset("d3-yes-no")
    assert preset.kind == "yes_no" and preset.logprobs > 0 and preset.max_tokens == 3


def test_placeholders_are_checked_per_kind() -> None:
    with pytest.raises(PromptError, match="missing"):
        Preset("x", "x", "yes_no", "", "{resume} only").check()
    with pytest.raises(PromptError, match="unknown placeholder"):
        Preset("x", "x", "rating", "{job_description}", "{resume} {resume_2}").check()
    with pytest.raises(PromptError, match="unknown kind"):
        Preset("x", "x", "essay", "", "{resume}").check()
    Preset("x", "x", "ranking", "{job_description}", "{count} {resumes}").check()
    Preset("x", "x", "manipulation", "", "{resume}").check()


def _write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def test_a_users_own_presets_load_and_broken_ones_are_reported_not_fatal() -> None:
    folder = user_presets_dir()
    _write(
        folder,
        "mine.toml",
        'id = "my-yes-no"\nkind = "yes_no"\nlogprobs = true\n'
        'user = "Job: {job_description}\\nResume: {resume}\\nHire? Yes or No."\n',
    )
    _write(
        folder, "typo.toml", 'id = "typo"\nkind = "yes_no"\nuser = "{resume} {job_descripton}"\n'
    )
    _write(
        folder,
        "clash.toml",
        'id = "d1-baseline"\nkind = "yes_no"\nuser = "{resume} {job_description}"\n',
    )
    _write(folder, "garbage.toml", "this is = = not toml")
    reload_presets()
    mine = get_preset("my-yes-no")
    assert mine.source.endswith("mine.toml") and mine.logprobs == 5
    assert get_preset("d1-baseline").source == "shipped"
    problems = "\n".join(preset_problems())
    assert "typo.toml" in problems and "job_descripton" in problems
    assert "clash.toml" in problems and "taken by a shipped preset" in problems
    assert "garbage.toml" in problems
    assert "typo" not in presets()


def test_bodies_carry_settings_logprobs_and_the_local_grammar() -> None:
    remote = ModelSpec(provider="openai", model="gpt-4o-mini", temperature=0.0, max_tokens=160)
    body = build_body(remote, get_preset("d3-yes-no"), {"resume": "R", "job_description": "J"})
    assert body["max_tokens"] == 3 and body["top_logprobs"] == 10 and "grammar" not in body
    assert body["model"] == "gpt-4o-mini" and "R" in body["user"] and "J" in body["system"]
    local = ModelSpec()
    ranked = build_body(
        local,
        get_preset("d4-ranking"),
        {"resumes": render_resumes(["a", "b", "c"]), "job_description": "J", "count": "3"},
        context={"count": 3},
    )
    assert '"3\\": "' in ranked["grammar"] and "Resume C:\nc" in ranked["user"]
    d1 = build_body(
        local,
        get_preset("d1-baseline"),
        {"resume_1": "A", "resume_2": "B", "job_description": "J"},
    )
    assert set(d1) == {"model", "system", "user", "temperature", "max_tokens", "seed", "grammar"}
