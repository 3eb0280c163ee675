"""D1 as a registered design (issue 27): first in the registry, placed "head" so its
blocks stay among the report's fixed keys, its `[designs.d1]` table read as it always
was, and what the workflow needs of it (the run's prompt, its cases' texts, its unbuilt
questions, its share of alpha) asked through the interface rather than by name."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd

from resume_auditor.designs.base import OtherRun, RunContext
from resume_auditor.designs.d1_castleman import DESIGN_D1
from resume_auditor.designs.d1_castleman.spec import D1Spec, d1_to_table
from resume_auditor.designs.registry import (
    DESIGNS,
    enabled,
    head,
    run_prompt_design,
    schemas,
)
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import study_from_dict, study_to_dict
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS
from resume_auditor.workflow.studyfile import read_study

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample" / "study.toml"


def _study(designs: dict[str, object]) -> dict[str, object]:
    return {
        "study": {"name": "x"},
        "job": {"text": "A job."},
        "resumes": {"files": ["a.pdf"]},
        "designs": designs,
    }


def test_d1_is_first_placed_head_and_owns_the_run_prompt() -> None:
    assert DESIGNS[0] is DESIGN_D1
    assert head() == (DESIGN_D1,)
    assert run_prompt_design() is DESIGN_D1
    assert DESIGN_D1.on_page_one  # page 1 sums it up; the Report page does not repeat it
    assert DESIGN_D1.block_path == ()
    assert DESIGN_D1.head_keys[0] == DESIGN_D1.key == "d1"


# `[designs.d1]`'s schema as domain/study.py's SCHEMA had it before D1's settings moved
ALWAYS = {
    "groups": "strs",
    "equal_pairs": "bool",
    "unequal_pairs": "bool",
    "k": "ints",
    "signals": "strs",
    "unequal_groups": "str",
    "pair_types": "strs",
    "summary_block": "str",
}


def test_its_settings_have_the_schema_the_study_file_always_had() -> None:
    assert DESIGN_D1.schema() == ALWAYS
    assert schemas()["d1"] == ALWAYS
    defaults = {s.name: s.default for s in DESIGN_D1.settings}
    assert DESIGN_D1.parse(defaults, study_from_dict(_study({}))) == D1Spec()


def test_it_is_on_unless_the_study_lists_only_other_designs() -> None:
    assert DESIGN_D1.spec(study_from_dict(_study({}), extra_designs=schemas())) == D1Spec()
    only_d5 = study_from_dict(_study({"d5": {}}), extra_designs=schemas())
    assert DESIGN_D1.spec(only_d5) is None
    sample = read_study(SAMPLE).config
    assert DESIGN_D1.spec(sample) == DESIGN_D1.spec(
        study_from_dict(tomllib.loads(SAMPLE.read_text()), strict=False)
    )
    # the audit file keeps its whole table, first, and reads back the same designs
    kept = study_to_dict(sample)["designs"]
    assert list(kept)[0] == "d1" and set(kept["d1"]) == set(ALWAYS)
    again = study_from_dict(study_to_dict(sample), require_sources=False)
    assert [(d.key, s) for d, s in enabled(again)] == [(d.key, s) for d, s in enabled(sample)]


def test_a_study_that_names_no_design_gets_d1_and_leaving_it_out_names_them() -> None:
    bare = study_from_dict(_study({}), extra_designs=schemas())
    assert not bare.designs_named and DESIGN_D1.table(bare) == {}
    assert [d.key for d, _ in enabled(bare)] == ["d1"]
    off = DESIGN_D1.with_table(bare, None)
    assert off.designs_named and enabled(off) == []
    # another design switched on beside it leaves D1 on, as StudyConfig.d1 did
    both = DESIGN_D1.with_table(bare, {"k": 2})
    assert DESIGN_D1.spec(both) == D1Spec(k=(2,))
    assert both.more["d1"] == d1_to_table(D1Spec(k=(2,)))  # written whole, as it always was


def test_its_block_is_the_map_of_its_top_level_blocks() -> None:
    report = {"counts": {}, "d1": {"judgments": 0}, "impact_ratio": {"flags": []}}
    report["error_agreement"] = []
    block = DESIGN_D1.block(report)
    assert block == {"d1": {"judgments": 0}, "impact_ratio": {"flags": []}, "error_agreement": []}
    assert DESIGN_D1.block({"d3": {}}) is None


def test_the_run_prompt_must_ask_pairs() -> None:
    assert DESIGN_D1.run_prompt_problem("d1-baseline") is None
    problem = DESIGN_D1.run_prompt_problem("d2-rating")
    assert problem is not None and "validity pairs need a pairwise prompt" in problem


def test_unbuilt_questions_say_why_in_its_words() -> None:
    no_checklist = Job(title="Cook", text="Cook.")
    found = DESIGN_D1.unbuilt_for(D1Spec(), no_checklist)
    assert [u.kind for u in found] == ["unequal", "equal"]
    assert "checklist has no required or preferred" in found[0].reason
    never = DESIGN_D1.unbuilt_for(D1Spec(summary_block="never"), None)
    assert 'summary_block = "missing"' in never[0].fix
    assert DESIGN_D1.unbuilt_for(D1Spec(equal_pairs=False, unequal_pairs=False), None) == []
    assert DESIGN_D1.less_ks(D1Spec(k=(1, 2))) == (1, 2)
    assert DESIGN_D1.less_ks(D1Spec(k=(1, 2), unequal_pairs=False)) == ()


def test_a_run_without_its_answers_still_has_its_blocks() -> None:
    """`always`: every report has `d1`, `impact_ratio` and `error_agreement`, and its gap
    tests' share of alpha follows the number of designs in the run."""
    read: list[int] = []

    def others() -> list[tuple[OtherRun, pd.DataFrame]]:
        read.append(1)
        return []

    def context(designs: int) -> RunContext:
        return RunContext(
            cases={},
            answers=pd.DataFrame(),
            thresholds=DEFAULT_THRESHOLDS,
            run_id=1,
            model="m",
            prompt="d1-forced-choice",
            designs=designs,
            details=dict,
            others=others,
        )

    assert DESIGN_D1.always
    result = DESIGN_D1.compute_run(context(3))
    assert result is not None and result.answers == 0 and result.flags() == []
    blocks = DESIGN_D1.blocks(result)
    assert list(blocks) == ["d1", "impact_ratio", "error_agreement"]
    assert blocks["d1"]["abstain_allowed"] is False  # a forced-choice run prompt
    assert blocks["error_agreement"] == [] and read == []  # nothing to compare: not read


def test_the_generic_form_edits_d1_and_writes_the_study_back(qtbot: object) -> None:
    """D1's tab is the generic form: it shows the study's settings in the old tab's words,
    writes them back into `StudyConfig.d1` unchanged when nothing is edited, keeps a k
    it does not offer, and refuses, in the old tab's words, what would build nothing."""
    from dataclasses import replace

    from resume_auditor.ui.widgets.design_form import Choices, DesignForm

    d1 = {"groups": ["black_man", "white_woman"], "k": [1, 5], "signals": ["explicit"]}
    study = study_from_dict(_study({"d1": d1}), extra_designs=schemas())
    form = DesignForm(DESIGN_D1)
    qtbot.addWidget(form)  # type: ignore[attr-defined]
    form.fill(study)
    assert form.on.isChecked()
    ks, signals = form.fields["k"], form.fields["signals"]
    assert isinstance(ks, Choices) and isinstance(signals, Choices)
    assert [cb.text() for cb in ks.boxes.values()][0] == "1 qualification"
    assert signals.boxes["explicit"].text() == "through awards and memberships"
    assert signals.boxes["explicit"].isChecked() and not signals.boxes["name"].isChecked()
    assert form.problem(study) == ""
    written = DESIGN_D1.with_table(study, form.apply(study))
    assert DESIGN_D1.spec(written) == DESIGN_D1.spec(study)  # k = 5 is kept, unoffered
    ks.boxes[2].setChecked(True)
    edited = DESIGN_D1.spec(DESIGN_D1.with_table(study, form.apply(study)))
    assert edited is not None and sorted(edited.k) == [1, 2, 5]
    groups = form.fields["groups"]
    assert isinstance(groups, Choices)
    for cb in groups.boxes.values():
        cb.setChecked(False)
    assert "need at least two groups" in form.problem(study)
    form.fill(replace(study, more={"d1": {"k": [1]}}))
    for cb in ks.boxes.values():
        cb.setChecked(False)
    assert "Unequal pairs need a size of difference" in form.problem(study)
    form.on.setChecked(False)
    assert DESIGN_D1.spec(DESIGN_D1.with_table(study, form.apply(study))) is None
