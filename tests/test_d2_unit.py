"""D2 as a design kept as a unit (issue 27): `[designs.d2]` reads and refuses as it always
did (the messages below were recorded from the app before the move, 6a7f0b1), D2 is
registered before D3 with its block at the top level, and what the plan, the drill-down,
page 1 and the Test cases step ask of it goes through the interface."""

from __future__ import annotations

from pathlib import Path

import pytest

from resume_auditor.designs.d2_correspondence import DESIGN_D2
from resume_auditor.designs.d2_correspondence.settings import D2Spec
from resume_auditor.designs.registry import DESIGNS, schemas
from resume_auditor.domain.case import Case
from resume_auditor.domain.groups import ALL_GROUPS, Group
from resume_auditor.domain.study import StudyError, study_from_dict
from resume_auditor.ui.plain_words import readable_cell
from resume_auditor.workflow.studyfile import read_study, study_from_text

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample" / "study.toml"

# `[designs.d2]` as domain/study.py's SCHEMA had it before the move, in its order (a
# typo's "Known keys here" lists them so)
SCHEMA_BEFORE = {
    "groups": "strs",
    "prompts": "strs",
    "manipulation_check": "bool",
    "blinded": "bool",
    "blind_college": "bool",
}
STUDY = '[study]\nname = "x"\n[job]\ntext = "A job"\n[resumes]\nfiles = ["a.txt"]\n[designs.d2]\n'


def _read(line: str) -> D2Spec | None:
    config = study_from_text(Path("study.toml"), STUDY + line + "\n").config
    return DESIGN_D2.spec(config)


def test_the_registry_shows_d2_before_d3_and_keeps_its_block_at_the_top() -> None:
    labels = [d.label for d in DESIGNS]
    assert labels[labels.index("D2") :] == ["D2", "D3", "D4", "D5"]
    assert DESIGN_D2.schema() == SCHEMA_BEFORE
    assert list(DESIGN_D2.schema()) == list(SCHEMA_BEFORE)
    assert DESIGN_D2.block_path == ("d2",)
    block = {"reference": "white_man"}
    assert DESIGN_D2.block({"d2": block, "designs": {"d2": {}}}) is block
    assert DESIGN_D2.block({"designs": {"d2": block}}) is None


def test_the_sample_studys_d2_settings_read_as_before() -> None:
    spec = DESIGN_D2.spec(read_study(SAMPLE).config)
    groups = ("black_woman", "white_man", "asian_woman", "hispanic_man")
    assert spec == D2Spec(groups=tuple(Group.parse(g) for g in groups))


def test_defaults_and_the_study_files_spellings() -> None:
    assert _read("") == D2Spec()
    assert D2Spec() == D2Spec(ALL_GROUPS, ("d2-rating",), True, True, True)  # the old defaults
    assert _read("groups = []") == D2Spec()
    assert _read('groups = [" Black_Woman", "white_man"]') == D2Spec(
        groups=(Group("black", "woman"), Group("white", "man"))
    )
    assert _read('prompts = "d2-rating-eeoc"') == D2Spec(prompts=("d2-rating-eeoc",))
    assert _read("blinded = false") == D2Spec(blinded=False)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (
            'grops = ["black_woman"]',
            "designs.d2.grops is not a study-file setting. Did you mean 'designs.d2.groups'?",
        ),
        (
            'prompt = ["d2-rating"]',
            "designs.d2.prompt is not a study-file setting. Did you mean 'designs.d2.prompts'?",
        ),
        (
            "zzz = 1",
            "designs.d2.zzz is not a study-file setting. Known keys here: groups, prompts, "
            "manipulation_check, blinded, blind_college.",
        ),
        ('blinded = "yes"', "designs.d2.blinded should be true or false, not the string 'yes'"),
        ("blind_college = 1", "designs.d2.blind_college should be true or false, not the number 1"),
        (
            "groups = 3",
            "designs.d2.groups should be a string or a list of strings, not the number 3",
        ),
        ('groups = ["foo"]', "designs.d2.groups: group key 'foo' should look like 'black_woman'"),
        (
            'groups = ["purple_woman"]',
            "designs.d2.groups: unknown race/ethnicity 'purple'; expected one of ('white', "
            "'black', 'asian', 'hispanic')",
        ),
        ('groups = ["black_woman", "Black_Woman"]', "designs.d2.groups lists a group twice"),
        ("prompts = []", "designs.d2.prompts needs at least one rating prompt, e.g. d2-rating"),
        (
            "prompts = 5",
            "designs.d2.prompts should be a string or a list of strings, not the number 5",
        ),
    ],
)
def test_settings_that_cannot_be_used_say_what_they_always_said(line: str, says: str) -> None:
    with pytest.raises(StudyError) as error:
        _read(line)
    assert str(error.value) == says


def test_a_preset_that_cannot_rate_is_refused_before_anything_is_written() -> None:
    from resume_auditor.workflow.design_requests import check_design_presets

    spec = _read('prompts = ["d3-yes-no"]')
    assert spec is not None
    config = study_from_text(Path("s.toml"), STUDY + 'prompts = ["d3-yes-no"]\n').config
    with pytest.raises(Exception, match="designs.d2.prompts"):
        check_design_presets(config)


def test_what_the_plan_and_the_drilldown_ask_of_d2_go_through_the_interface() -> None:
    cases = [
        Case(
            "D2", "copies", [1, 2, 3], cluster=c, meta={"groups": ["black_woman", "white_man", ""]}
        )
        for c in (10, 11)
    ]
    counts = DESIGN_D2.power_counts(cases)
    assert counts == {"resumes": 2, "groups": 2}
    size = DESIGN_D2.plan_size(counts, 3)
    assert size is not None and (size.design, size.units, size.groups, size.per_unit) == (
        "D2",
        2,
        2,
        3,
    )
    assert DESIGN_D2.power_counts([]) is None
    assert DESIGN_D2.cautious and DESIGN_D2.power_share == 0.8  # as the plan sized D2 before
    assert readable_cell("D2 black_woman") == "Rated as Black woman"
    assert readable_cell("D2 check black_woman") == "Which group the model reads: Black woman"
    assert readable_cell("D2 blinded") == "Rated with no identity"
    facts = DESIGN_D2.answer_facts("copies", lambda key: ["named", "blinded"])
    assert facts == {"conditions": ["named", "blinded"], "roles": ["", "blinded"]}
    # by prompt: the ratings under that preset of the group and of the reference group
    drill = DESIGN_D2.drill(["d2", "by_prompt", "d2-rating-eeoc", "black_woman"])
    assert drill is not None

    def answer(group: str, preset: str, kind: str = "rating") -> bool:
        facts = {"groups": [group], "conditions": ["named"], "preset": preset}
        return drill.keep(kind, facts, 1)

    assert answer("black_woman", "d2-rating-eeoc") and answer("white_man", "d2-rating-eeoc")
    assert not answer("black_woman", "d2-rating") and not answer("asian_man", "d2-rating-eeoc")
    assert not answer("black_woman", "d2-rating-eeoc", "manipulation")


def test_page_one_and_the_limitations_read_d2s_block_typed() -> None:
    m = {"title": "Perceived race", "reading": "90% as meant.", "value": -0.5}
    block = {"reference": "white_man", "smd": {"black_woman": m, "asian_man": {**m, "value": 0.1}},
             "manipulation": {"race": m}}  # fmt: skip
    worst = DESIGN_D2.worst_group(block)
    assert worst is not None and worst[1] == ("d2", "smd", "black_woman")
    assert "(Black woman) rated than White man candidates" in worst[0]
    assert DESIGN_D2.perceived(block) == "Perceived race: 90% as meant."
    assert DESIGN_D2.counts({"ratings": 12, "unreadable": 2}) == (12, 2, "ratings")


def test_the_generic_form_offers_what_the_old_tab_did_and_keeps_other_prompts(
    qtbot: object,
) -> None:
    from PySide6.QtWidgets import QCheckBox

    from resume_auditor.ui.widgets.design_form import Choices, DesignForm

    d2 = {"groups": ["black_woman", "white_man"], "prompts": ["d2-rating-eeoc", "my-own"],
          "blinded": True, "blind_college": False}  # fmt: skip
    study = study_from_dict(
        {"study": {"name": "x"}, "job": {"text": "A job."}, "resumes": {"files": ["a.pdf"]},
         "designs": {"d2": d2}},
        extra_designs=schemas(),
    )  # fmt: skip
    form = DesignForm(DESIGN_D2)
    qtbot.addWidget(form)  # type: ignore[attr-defined]
    form.fill(study)
    groups, prompts = form.fields["groups"], form.fields["prompts"]
    assert isinstance(groups, Choices) and isinstance(prompts, Choices)
    assert list(groups.boxes) == [g.key for g in ALL_GROUPS]  # the eight groups, as before
    assert [b.text() for b in prompts.boxes.values()] == [
        "Rating 1–5 with a summary first",
        "Rating without scratchpad",
        "Rating with an equal-opportunity reminder",
    ]
    assert {k for k, w in form.fields.items() if isinstance(w, QCheckBox)} == {
        "blinded",
        "blind_college",
        "manipulation_check",
    }
    # the groups in the study's order (the order names are drawn in: the app builds what
    # the same study file builds; the old tab wrote the grid's order)
    assert form.apply(study) == {**d2, "manipulation_check": True}
    prompts.boxes["d2-rating"].setChecked(True)
    # the study's ticked presets first, a newly ticked one after them, and a preset the
    # study file names that no box shows is kept, last
    assert form.values(study)["prompts"] == ["d2-rating-eeoc", "d2-rating", "my-own"]
    prompts.set_value([])
    assert form.problem(study) == (
        "Ratings by group (D2): designs.d2.prompts needs at least one rating prompt, e.g. d2-rating"
    )
