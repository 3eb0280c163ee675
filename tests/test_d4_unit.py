"""D4 as a design kept as a unit (issue 27): its settings read as `[designs.d4]` always
did, it is registered between D3 and D5, and its block stays at the top level."""

from __future__ import annotations

from pathlib import Path

import pytest

from resume_auditor.designs.d4_faire import DESIGN_D4
from resume_auditor.designs.d4_faire.settings import D4Spec
from resume_auditor.designs.registry import DESIGNS, schemas
from resume_auditor.domain.groups import ALL_GROUPS, Group
from resume_auditor.domain.study import StudyError, check_schema, study_from_dict
from resume_auditor.workflow.studyfile import read_study

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample" / "study.toml"


def _study(d4: dict[str, object]) -> dict[str, object]:
    return {
        "study": {"name": "x"},
        "job": {"text": "A job."},
        "resumes": {"files": ["a.pdf"]},
        "designs": {"d4": d4},
    }


def _spec(d4: dict[str, object]) -> D4Spec | None:
    return DESIGN_D4.spec(study_from_dict(_study(d4), extra_designs=schemas()))


def test_the_registry_shows_d4_before_d5_and_keeps_its_block_at_the_top() -> None:
    labels = [d.label for d in DESIGNS]  # D1 (and D2) come first
    assert labels[labels.index("D3") :][:3] == ["D3", "D4", "D5"]
    assert DESIGN_D4.block_path == ("d4",)
    block = {"scores": 1}
    assert DESIGN_D4.block({"d4": block, "designs": {"d4": {}}}) is block
    assert DESIGN_D4.block({"designs": {"d4": block}}) is None


def test_the_sample_studys_d4_settings_read_as_before() -> None:
    spec = DESIGN_D4.spec(read_study(SAMPLE).config)
    groups = tuple(Group.parse(g) for g in ("black_woman", "white_man", "asian_woman"))
    assert spec == D4Spec(
        groups=(*groups, Group.parse("hispanic_man")), race_batches=3, gender_batches=3
    )


def test_defaults_and_the_study_files_spellings() -> None:
    assert _spec({}) == D4Spec()
    assert _spec({"groups": []}) == D4Spec(groups=ALL_GROUPS)
    # a group key has always been read trimmed and in any case
    assert _spec({"groups": [" Black_Woman", "white_man"]}) == D4Spec(
        groups=(Group("black", "woman"), Group("white", "man"))
    )
    assert _spec({"scoring_prompt": ""}) == D4Spec(scoring_prompt="")
    assert _spec({"perturbations": ["name"], "all_orders": True}) == D4Spec(
        perturbations=("name",), all_orders=True
    )


@pytest.mark.parametrize(
    ("d4", "says"),
    [
        ({"scoring_prompt": "", "ranking_prompt": ""}, "needs a scoring_prompt or a ranking"),
        ({"groups": ["black_woman", "black_woman"]}, "lists a group twice"),
        ({"groups": ["martian_woman"]}, "designs.d4.groups"),
        ({"perturbations": ["accent"]}, "designs.d4.perturbations: 'accent' is not one of"),
        ({"orders_per_batch": 0}, "designs.d4.orders_per_batch should be at least 1"),
        ({"race_batches": -1}, "designs.d4.race_batches should be at least 0"),
    ],
)
def test_settings_that_cannot_be_used_say_why(d4: dict[str, object], says: str) -> None:
    with pytest.raises(StudyError, match=says):
        _spec(d4)


def test_a_typod_key_is_named_with_the_key_it_meant() -> None:
    with pytest.raises(StudyError, match=r"designs\.d4\.race_batchs.*'designs\.d4\.race_batches'"):
        check_schema(_study({"race_batchs": 3}), schemas())
    with pytest.raises(StudyError, match=r"designs\.d4\.all_orders should be true or false"):
        check_schema(_study({"all_orders": 1}), schemas())


def test_the_power_figure_plants_its_effect_on_the_first_usable_name_test() -> None:
    """What workflow/metrics.power_targets did for D4 before the move: the first name
    perturbation's overall test that can fire, and the spread of its permutation
    values (so the planted effect is in score points)."""
    import numpy as np
    import pandas as pd

    from resume_auditor.designs.d4_faire import D4Outcome
    from resume_auditor.designs.d4_faire.inputs import D4_DIMENSIONS
    from resume_auditor.designs.d4_faire.stats import compute_d4

    rng = np.random.default_rng(4)
    rows = []
    for resume in range(40):
        base = float(rng.integers(2, 5))
        for variant, group in (("original", None), ("name", "black"), ("name", "white")):
            value = base + (0.6 if group == "black" else 0.0) + float(rng.normal(0, 0.3))
            rows.append(
                {"cluster": resume, "variant": variant, "group": group, "rep": 0}
                | dict.fromkeys(D4_DIMENSIONS, min(5.0, max(1.0, round(value))))
            )
    result = compute_d4(pd.DataFrame(rows))
    target = DESIGN_D4.power_target(D4Outcome(result))
    assert target is not None
    metric, spread = target
    usable = [
        m
        for m in result.differences["name"]["overall"].values()
        if m.test is not None and m.test.joint is not None and m.test.share is not None
        and not m.test.untestable
    ]  # fmt: skip
    assert metric is usable[0]
    assert metric.test is not None and metric.test.joint is not None
    values = np.asarray(metric.test.joint.blocks[0].values, dtype=float)
    assert spread == pytest.approx(float(np.nanstd(values))) and spread > 0


def test_the_report_and_the_apps_report_page_show_d4_through_the_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from results_fixtures import make_all_designs_audit

    from resume_auditor.report.document import build_document
    from resume_auditor.settings.thresholds import shipped_thresholds
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.ui.pages.report_page import design_blocks_html
    from resume_auditor.workflow.metrics import metrics_report

    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path / "data"))
    audit = make_all_designs_audit(tmp_path)
    with ResultFile(audit) as result:
        metrics = metrics_report(result, thresholds=shipped_thresholds())
        document = build_document(result, metrics)
    headings = [b.heading for b in document.fairness]
    d4 = [b for b in document.fairness if b.heading.startswith("Design D4")]
    assert len(d4) == 1 and headings[-1] == d4[0].heading  # after D2 and D3, as before
    rows = [r for t in d4[0].tables for r in t.rows]
    assert rows and all(r.path[0] == "d4" for r in rows)
    assert "Design D4: scores and rankings" in design_blocks_html(document)
    (unit,) = [u for u in document.facts.unit_designs if u.label == "D4"]
    assert "scored set(s)" in unit.sentence and unit.prompts
