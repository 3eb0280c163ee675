"""D3 as a design kept as a unit (issue 27): its settings read as `[designs.d3]` always
did, it is registered first (before D4), its block stays at the top level, and what it
needs of the plan (c- copies, more rounds, log-probabilities) goes through the interface."""

from __future__ import annotations

from pathlib import Path

import pytest

from resume_auditor.designs.d3_rabbi import DESIGN_D3
from resume_auditor.designs.d3_rabbi.settings import D3Spec
from resume_auditor.designs.registry import DESIGNS, schemas
from resume_auditor.domain.groups import ALL_GROUPS, Group
from resume_auditor.domain.study import StudyError, check_schema, study_from_dict
from resume_auditor.stats.power_sim import MOST
from resume_auditor.ui.plain_words import power_words, readable_cell
from resume_auditor.workflow.studyfile import read_study

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample" / "study.toml"

# `[designs.d3]` as domain/study.py's SCHEMA had it before the move
SCHEMA_BEFORE = {
    "groups": "strs",
    "rounds": "int",
    "prompt": "str",
    "pairwise_prompt": "str",
    "unqualified_share": "number",
    "k": "int",
}


def _study(d3: dict[str, object]) -> dict[str, object]:
    return {
        "study": {"name": "x"},
        "job": {"text": "A job."},
        "resumes": {"files": ["a.pdf"]},
        "designs": {"d3": d3},
    }


def _spec(d3: dict[str, object]) -> D3Spec | None:
    return DESIGN_D3.spec(study_from_dict(_study(d3), extra_designs=schemas()))


def test_the_registry_shows_d3_after_d1_and_d2_and_keeps_its_block_at_the_top() -> None:
    assert [d.label for d in DESIGNS] == ["D1", "D2", "D3", "D4", "D5"]
    assert DESIGN_D3.schema() == SCHEMA_BEFORE
    assert DESIGN_D3.block_path == ("d3",)
    block = {"reference": "white_man"}
    assert DESIGN_D3.block({"d3": block, "designs": {"d3": {}}}) is block
    assert DESIGN_D3.block({"designs": {"d3": block}}) is None


def test_the_sample_studys_d3_settings_read_as_before() -> None:
    spec = DESIGN_D3.spec(read_study(SAMPLE).config)
    groups = ("black_woman", "white_man", "asian_woman", "hispanic_man")
    assert spec == D3Spec(groups=tuple(Group.parse(g) for g in groups), rounds=5)


def test_defaults_and_the_study_files_spellings() -> None:
    assert _spec({}) == D3Spec()
    assert D3Spec() == D3Spec(ALL_GROUPS, 10, "d3-yes-no", "", 0.5, 1)  # the old defaults
    assert _spec({"groups": []}) == D3Spec(groups=ALL_GROUPS)
    assert _spec({"groups": [" Black_Woman", "white_man"]}) == D3Spec(
        groups=(Group("black", "woman"), Group("white", "man"))
    )
    assert _spec({"unqualified_share": 0, "k": 2}) == D3Spec(unqualified_share=0.0, k=2)
    assert _spec({"prompt": "", "pairwise_prompt": "d3-pairwise"}) == D3Spec(
        prompt="", pairwise_prompt="d3-pairwise"
    )


@pytest.mark.parametrize(
    ("d3", "says"),
    [
        ({"prompt": ""}, r"^designs\.d3 needs a prompt or a pairwise_prompt$"),
        ({"groups": ["black_woman"]}, "^designs.d3.groups needs at least two groups to compare$"),
        ({"groups": ["black_woman", "black_woman"]}, "^designs.d3.groups lists a group twice$"),
        ({"unqualified_share": 1.0}, r"should be from 0 up to \(not including\) 1$"),
        ({"unqualified_share": "a"}, "^designs.d3.unqualified_share should be a number"),
        ({"rounds": 0}, "^designs.d3.rounds should be at least 1$"),
        ({"k": 0}, "^designs.d3.k should be at least 1$"),
    ],
)
def test_settings_that_cannot_be_used_say_what_they_always_said(
    d3: dict[str, object], says: str
) -> None:
    with pytest.raises(StudyError, match=says):
        check_schema(_study(d3), schemas())
        _spec(d3)


def test_a_typod_key_is_named_with_the_key_it_meant() -> None:
    with pytest.raises(StudyError, match=r"designs\.d3\.round .*'designs\.d3\.rounds'"):
        check_schema(_study({"round": 3}), schemas())


def test_what_the_plan_asks_of_d3_goes_through_the_interface() -> None:
    spec = D3Spec(k=2)
    assert DESIGN_D3.less_ks(spec) == (2,)  # its unqualified candidates need c- at k = 2
    assert DESIGN_D3.power_basis == "model"  # RABBI's power comes from the model
    raised = DESIGN_D3.enlarge({"rounds": 4, "k": 1}, 4, 10)
    assert raised == ({"rounds": 10, "k": 1}, "D3 rounds 10 (now 4)")
    assert DESIGN_D3.enlarge({}, 4, None) == (None, f"D3 (even {MOST} pools would not reach 80%).")
    note = DESIGN_D3.logprob_note("plain-model")
    assert "bare answers" in note and "plain-model" in note
    # the screen says the plan's D3 words without study-file keys or the code
    said = power_words("D3: Raise `rounds` in [designs.d3]. D3 rounds 10 (now 4)")
    assert "[designs.d3]" not in said and "Candidate pools: 10 rounds" in said
    assert said.startswith("Candidate pools:") and "Raise Rounds on the Candidate pools tab" in said
    assert readable_cell("D3 pairwise") == "Pools, two at a time"
    assert readable_cell("D3 black_woman") == "Pools: Black woman"


def test_the_generic_form_edits_d3s_share_and_keeps_the_study_files_table(qtbot: object) -> None:
    from PySide6.QtWidgets import QDoubleSpinBox

    from resume_auditor.ui.widgets.design_form import DesignForm

    study = study_from_dict(
        _study({"unqualified_share": 0.3, "rounds": 7}), extra_designs=schemas()
    )
    form = DesignForm(DESIGN_D3)
    qtbot.addWidget(form)  # type: ignore[attr-defined]
    form.fill(study)
    share = form.fields["unqualified_share"]
    assert isinstance(share, QDoubleSpinBox) and share.value() == pytest.approx(0.3)
    assert share.maximum() == pytest.approx(0.95)  # the old tab's bound
    share.setValue(0.25)
    table = form.apply(study)
    assert table is not None and table["unqualified_share"] == 0.25 and table["rounds"] == 7
    assert table["pairwise_prompt"] == "" and table["prompt"] == "d3-yes-no"
    assert form.problem(study) == ""


def test_the_results_warning_counts_d3s_unreadable_answers() -> None:
    """A D3 run whose answers could not be read must not look like a quiet one."""
    from resume_auditor.designs.d3_rabbi import DESIGN_D3

    block = {
        "pointwise": {"candidates": 10, "unreadable": 3},
        "pairwise": {"candidates": 4, "unreadable": 1},
    }
    assert DESIGN_D3.counts(block) == (18, 4, "scored candidates")
    nothing_read = {"pointwise": {"candidates": 0, "unreadable": 12}, "pairwise": None}
    answers, unread, _ = DESIGN_D3.counts(nothing_read)
    assert answers == unread == 12  # the page says none could be read
