from __future__ import annotations

from pathlib import Path

import pytest

from resume_auditor.domain.case import Label
from resume_auditor.prompts import (
    Preset,
    PromptError,
    get_preset,
    load_preset_file,
    parse_pairwise,
    presets,
)


def test_the_three_d1_phrasings_ship_with_citations() -> None:
    ids = set(presets())
    assert {"d1-baseline", "d1-human-rephrased", "d1-llm-rephrased"} <= ids
    for pid in ("d1-baseline", "d1-human-rephrased", "d1-llm-rephrased"):
        preset = get_preset(pid)
        assert "Castleman" in preset.citation or "Appendix G" in preset.citation
        assert "ABSTAIN" in preset.user


def test_render_fills_placeholders_and_leaves_braces_in_values_alone() -> None:
    system, user = get_preset("d1-baseline").render(
        {"resume_1": "uses {json} braces", "resume_2": "R2", "job_description": "JD"}
    )
    assert "uses {json} braces" in user and "R2" in user and "JD" in user
    assert "{resume_1}" not in user
    assert system.startswith("You are an impartial hiring assistant")


def test_placeholders_are_checked(tmp_path: Path) -> None:
    bad = Preset("x", "x", "pairwise_abstain", "", "Resume 1: {resume_1} {job_description}")
    with pytest.raises(PromptError, match="missing"):
        bad.check()
    typo = Preset(
        "x", "x", "pairwise_abstain", "", "{resume_1} {resume_2} {job_description} {resume_3}"
    )
    with pytest.raises(PromptError, match="unknown placeholder"):
        typo.check()
    path = tmp_path / "p.toml"
    path.write_text('id = "p"\nkind = "pairwise_abstain"\nuser = "{resume_1}"\n')
    with pytest.raises(PromptError):
        load_preset_file(path)
    with pytest.raises(PromptError, match="unknown prompt preset"):
        get_preset("nope")


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Resume 1 has SQL. <answer>first</answer>", Label.FIRST),
        ("Both equal.\n<answer> ABSTAIN </answer>", Label.ABSTAIN),
        ("<answer>Second</answer>", Label.SECOND),
        ("I first thought X. <answer>second</answer>", Label.SECOND),
        ("Reasoning...\nAnswer: first", Label.FIRST),
        ("second", Label.SECOND),
        ("I cannot decide between them.", Label.INVALID),
        ("", Label.INVALID),
    ],
)
def test_parse_pairwise(text: str, label: Label) -> None:
    assert parse_pairwise(text)[0] is label


def test_justification_is_the_text_before_the_tag() -> None:
    label, why = parse_pairwise("Resume 2 lacks SQL.  <answer>first</answer>")
    assert label is Label.FIRST and why == "Resume 2 lacks SQL."
