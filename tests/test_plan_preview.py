"""What Start would send, told before it is pressed, without writing to the audit file."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from devtools.simulator import Simulator
from devtools.simulator_kinds import every_kind_policy

from resume_auditor.cli import main
from resume_auditor.domain.study import ModelSpec
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.plan import look_start, plan_run, preview_start
from resume_auditor.workflow.prepare import study_of
from tests.test_designs_e2e import SAMPLE, STUDY

policy = every_kind_policy()


def dump(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return list(db.iterdump())


@pytest.fixture
def audit(tmp_path: Path) -> Iterator[tuple[Path, ModelSpec]]:
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes"))
    out = tmp_path / "all.audit"
    with Simulator(policy=policy) as sim:
        model = ModelSpec("openai-compatible", sim.base_url, "sim")
        args = ["--provider", model.provider, "--base-url", model.base_url, "--model", "sim"]
        assert main(["audit", str(study), "--out", str(out), *args]) == 0
        yield out, model


def test_a_finished_run_is_run_again_for_nothing_and_the_file_is_unchanged(
    audit: tuple[Path, ModelSpec],
) -> None:
    out, model = audit
    before = dump(out)
    preview = preview_start(out, model, "d1-baseline")
    assert preview.action == "again" and preview.to_queue == 0 and preview.estimate is None
    assert preview.reuses_run and preview.answered == preview.plan.requests
    assert dump(out) == before


def test_another_prompt_is_a_new_run_with_every_design_counted(
    audit: tuple[Path, ModelSpec],
) -> None:
    out, model = audit
    before = dump(out)
    preview = preview_start(out, model, "d1-human-rephrased", concurrency=4)
    assert preview.action == "start" and not preview.reuses_run
    with ResultFile(out) as result:
        plan = plan_run(result, study_of(result), model)
        finished = result.progress(result.runs()[-1].id).total
    # every design's requests, not only D1's pairs x orders
    assert set(preview.plan.by_design()) == {"D1", "D2", "D3", "D4"}
    assert preview.to_queue == preview.open == preview.plan.requests == plan.requests == finished
    assert preview.estimate is not None
    # identical D2-D4 requests come from the cache; D1's new prompt is sent
    assert 0 < preview.estimate.to_send < preview.open
    assert dump(out) == before  # the estimate wrote no run


def test_a_changed_model_is_a_new_run_too(audit: tuple[Path, ModelSpec]) -> None:
    out, model = audit
    other = ModelSpec(model.provider, model.base_url, "another-model")
    preview = preview_start(out, other, "d1-baseline", estimate=False)
    assert preview.action == "start" and preview.open == preview.plan.requests


def test_small_cells_are_one_sentence_per_design(audit: tuple[Path, ModelSpec]) -> None:
    out, model = audit
    with ResultFile(out) as result:
        plan = plan_run(result, study_of(result), model)
    grouped = plan.grouped_warnings()
    assert len(plan.warnings()) > len(grouped) == len(plan.by_design()) == 4
    for design, line in zip(plan.by_design(), grouped, strict=True):
        cells = plan.by_design()[design]["cells"]
        small = [c.requests for c in plan.cells if c.design == design and c.warning]
        share = "All" if len(small) == cells else f"{len(small)} of"
        assert line.startswith(f"{design}: {share} {cells} cell(s) get fewer than 30 answers")
        assert f"(the smallest {min(small)})" in line
    total = sum(d["requests"] for d in plan.by_design().values())
    assert plan.summary().startswith(f"{total:,} request(s) in all (D1 ")


def test_the_lock_free_look_agrees_with_the_preview(audit: tuple[Path, ModelSpec]) -> None:
    out, model = audit
    other = ModelSpec(model.provider, model.base_url, "another-model")
    for spec, prompt in ((model, "d1-baseline"), (model, "d1-human-rephrased"), (other, "")):
        look, preview = look_start(out, spec, prompt), preview_start(out, spec, prompt)
        assert (look.action, look.reuses_run, look.answered, look.to_queue, look.open) == (
            preview.action,
            preview.reuses_run,
            preview.answered,
            preview.to_queue,
            preview.open,
        )
        assert look.plan.requests == preview.plan.requests
    # a run half answered: the look counts what is left, as the run would
    with ResultFile(out) as result, result.transaction() as db:
        db.execute("UPDATE request SET status = 'pending' WHERE id % 3 = 0")
        db.execute("DELETE FROM response WHERE request_id % 3 = 0")
    look, preview = look_start(out, model, "d1-baseline"), preview_start(out, model, "d1-baseline")
    assert look.action == preview.action == "resume"
    assert look.open == preview.open > 0 and look.answered == preview.answered
