"""The Test cases page: design settings, the plan per cell, and reviewing generated texts."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from devtools.simulator import Simulator
from devtools.simulator_gen import generator_policy
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from resume_auditor.designs.registry import enabled
from resume_auditor.domain.generation import GenerationSpec
from resume_auditor.domain.qualtext import QualStatus
from resume_auditor.domain.study import ModelSpec
from resume_auditor.resources import sample_study
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui.main_window import MainWindow
from resume_auditor.ui.plain_words import plain_words, readable_cell
from resume_auditor.ui.widgets.qual_review import COL_USED
from resume_auditor.variants.generate import generate_for_audit
from resume_auditor.workflow.prepare import prepare, study_of
from resume_auditor.workflow.studyfile import read_study


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample audit (nothing answered) with texts from the simulator's generator."""
    path = tmp_path_factory.mktemp("gen") / "sample.audit"
    study = read_study(sample_study())
    prepare(study, path)
    with Simulator(policy=generator_policy()) as sim:
        model = ModelSpec("openai-compatible", sim.base_url, "sim-model", max_tokens=4096)
        config = dataclasses.replace(
            study.config, generation=GenerationSpec(generators=(model,), k=(1,), reworded=1)
        )
        report = generate_for_audit(path, config)
    assert report.made > 0
    return path


def _copy(src: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy.audit"
    with ResultFile(src) as rf:
        rf.copy_to(target)
    return target


def _open(qtbot: QtBot, win: MainWindow, path: Path) -> None:
    with qtbot.waitSignal(win.session.loaded, timeout=20000):
        win.open_path(path)
    win.show_page(2)


def _status(path: Path, qual_id: int) -> QualStatus:
    with ResultFile(path) as rf:
        q = rf.qual_text(qual_id)
    assert q is not None
    return q.status


def test_review_accept_reject_and_undo(
    qtbot: QtBot, window: MainWindow, generated: Path, tmp_path: Path
) -> None:
    path = _copy(generated, tmp_path)
    _open(qtbot, window, path)
    review = window.variants_page.review
    with ResultFile(path) as rf:
        texts = rf.qual_texts()
    assert review.table.rowCount() == len(texts) > 0
    assert review.accept_button.isEnabled()

    # a text no check failed is used until the user rejects it
    row = next(i for i, q in enumerate(review._texts) if q.usable())
    qual_id = review._texts[row].id
    assert qual_id is not None
    review.table.selectRow(row)
    with qtbot.waitSignal(window.session.loaded, timeout=20000):
        review.reject_button.click()
    assert _status(path, qual_id) is QualStatus.REJECTED
    row = next(i for i, q in enumerate(review._texts) if q.id == qual_id)
    assert review.table.item(row, COL_USED).text() == "no"
    # the cases are built again from the reviewed texts
    qtbot.waitUntil(lambda: bool(window.session.data and window.session.data.pairs), timeout=20000)

    # Edit > Undo puts it back
    with qtbot.waitSignal(window.session.loaded, timeout=20000):
        window.undo.undo()
    assert _status(path, qual_id) is QualStatus.PENDING

    # a flagged text can be accepted after reading it, and is then used
    flagged = [i for i, q in enumerate(review._texts) if not q.usable()]
    assert flagged  # the simulator's c+ copies overshoot the length rule on these resumes
    review.table.selectRow(flagged[0])
    flagged_id = review._texts[flagged[0]].id
    assert flagged_id is not None
    with qtbot.waitSignal(window.session.loaded, timeout=20000):
        review.accept_button.click()
    assert _status(path, flagged_id) is QualStatus.ACCEPTED
    row = next(i for i, q in enumerate(review._texts) if q.id == flagged_id)
    assert review.table.item(row, COL_USED).text() == "yes"


def _design(page: Any, row: int) -> str:
    """The design code behind a plan row (the cell shows its plain name)."""
    return str(page.plan_table.item(row, 0).data(Qt.ItemDataRole.UserRole))


def test_design_settings_are_saved_and_the_plan_counts_cells(
    qtbot: QtBot, window: MainWindow, generated: Path, tmp_path: Path
) -> None:
    path = _copy(generated, tmp_path)
    _open(qtbot, window, path)
    page = window.variants_page
    qtbot.waitUntil(lambda: page.plan_table.rowCount() > 0, timeout=20000)
    designs = {_design(page, r) for r in range(page.plan_table.rowCount())}
    with ResultFile(path) as rf:
        study = study_of(rf)
    expected = {d.label for d, _spec in enabled(study)}
    assert designs == expected
    requests = sum(
        int(page.plan_table.item(r, 3).text()) for r in range(page.plan_table.rowCount())
    )
    assert f"{requests} requests per model" in page.summary.text()

    # switching D2 off (its generic form) is saved at once, and clears the cases until they
    # are built again
    (d2_form,) = [f for f in page.settings.forms if f.design.key == "d2"]
    assert d2_form.on.isChecked()
    with qtbot.waitSignal(window.session.loaded, timeout=20000):
        d2_form.on.setChecked(False)
    with ResultFile(path) as rf:
        assert "d2" not in study_of(rf).more
        assert rf.case_count("D1") == 0
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        page.build_button.click()
    qtbot.waitUntil(lambda: page.plan_table.rowCount() > 0, timeout=20000)
    designs = {_design(page, r) for r in range(page.plan_table.rowCount())}
    assert "D2" not in designs and designs

    # settings that cannot build say why instead of saving
    units = [f.on for f in page.settings.forms if f.design.key in ("d1", "d2", "d3", "d4")]
    for cb in units:
        cb.setChecked(False)
    assert page.summary.text() == "Include at least one kind of test."
    with ResultFile(path) as rf:
        assert enabled(study_of(rf))


JARGON = ("c+", "c−", "c-", "k=", "k =", "D1", "D2", "D3", "D4", "_woman", "_man")


@pytest.mark.parametrize(
    ("cell", "shown"),
    [
        (
            "D1 equal pairs, k=0, black_woman vs white_man",
            "Equally qualified: Black woman vs White man",
        ),
        (
            "D1 unequal pairs, k=2, black_man vs black_man, explicit signals",
            "Unequal, 2 qualifications apart: Black man vs Black man (awards and memberships)",
        ),
        ("D2 blinded", "Rated with no identity"),
        ("D2 check asian_woman", "Which group the model reads: Asian woman"),
        ("D3 hispanic_man", "Pools: Hispanic man"),
        ("D3 pairwise", "Pools, two at a time"),
        ("D4 name white_man", "Scored: another name, White man"),
        ("D4 original", "Scored: the original resume"),
        ("D4 ranking by race", "Ranked in batches by race"),
    ],
)
def test_plan_cells_are_named_in_plain_words(cell: str, shown: str) -> None:
    assert readable_cell(cell) == shown
    assert not any(term in shown for term in JARGON)


def test_builder_notes_lose_the_papers_shorthand() -> None:
    note = (
        "All 4 resumes: No (c+, c) pairs with k=1: there is no c+ copy (it needs a generator "
        "model to add preferred qualifications). No (c, c-) pairs with k=3: there is no c- "
        "copy. no c+ with k=2: only 1 preferred qualification(s) to add. They fall back to "
        "the deterministic variants (name swaps, lexical c-). Read them with "
        "`resume-auditor variants list` and accept any you judge correct."
    )
    shown = plain_words(note)
    assert not any(term in shown for term in JARGON), shown
    assert "“extra skills vs just qualified” pairs differing by 1 qualification" in shown
    assert "copy missing a requirement" in shown


def test_instructions_in_resumes_are_kept_only_when_the_box_is_ticked(
    qtbot: QtBot, window: MainWindow, generated: Path, tmp_path: Path
) -> None:
    """The checkbox for `[variants] keep_instructions`: off by default (removed), saved
    to the audit's study at once when ticked, and shown again when the audit is opened."""
    path = _copy(generated, tmp_path)
    _open(qtbot, window, path)
    box = window.variants_page.settings.keep_instructions
    assert not box.isChecked()
    assert "taken out of every test copy" in box.toolTip()
    assert "report" in box.toolTip()
    with ResultFile(path) as rf:
        assert study_of(rf).keep_instructions is False
    with qtbot.waitSignal(window.session.loaded, timeout=20000):
        box.setChecked(True)
    with ResultFile(path) as rf:
        kept = study_of(rf)
    assert kept.keep_instructions is True
    window.variants_page.settings.show_config(
        dataclasses.replace(kept, keep_instructions=False), True
    )
    assert not box.isChecked()


def test_a_registry_design_has_its_own_settings_tab_built_from_its_settings(
    qtbot: QtBot, window: MainWindow, generated: Path, tmp_path: Path
) -> None:
    """D5 (designs/d5_bloomberg) appears on the Test cases step without UI code of its
    own: its tab is built from its `Setting`s, saved into the study, and its problems
    are said in its words."""
    path = _copy(generated, tmp_path)
    _open(qtbot, window, path)
    page = window.variants_page
    qtbot.waitUntil(lambda: page.plan_table.rowCount() > 0, timeout=20000)
    (form,) = [f for f in page.settings.forms if f.design.key == "d5"]
    assert not form.on.isChecked()
    titles = [page.settings.tabText(i) for i in range(page.settings.count())]
    assert "Eight names ranked together" in titles
    with qtbot.waitSignal(window.session.loaded, timeout=20000):
        form.on.setChecked(True)
    with ResultFile(path) as rf:
        table = study_of(rf).more["d5"]
    assert table["batches"] == 1 and table["orders"] == 8 and len(table["groups"]) == 8
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        page.build_button.click()
    qtbot.waitUntil(lambda: page.plan_table.rowCount() > 0, timeout=20000)
    shown = {page.plan_table.item(r, 1).text() for r in range(page.plan_table.rowCount())}
    assert "One resume under eight names, ranked together" in shown, shown
    groups = form.fields["groups"]
    for key, cb in groups.boxes.items():  # type: ignore[attr-defined]
        cb.setChecked(key == "black_woman")
    assert "at least two groups" in page.summary.text()
