"""Generation end to end against the provider simulator's generator policies."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from devtools.simulator import Simulator
from devtools.simulator_gen import generator_policy
from generator_fixtures import REQUIRED, config, new_audit, sim_factory

from resume_auditor.domain.case import VariantKind
from resume_auditor.domain.identity import Persona
from resume_auditor.domain.qualtext import QualStatus
from resume_auditor.domain.study import study_from_dict, study_to_dict
from resume_auditor.runner import Runner
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.variants import review
from resume_auditor.variants.generate import generate_for_audit

MISSING = "Looker semantic modeling"  # a requirement the resume lacks: a completion is asked


def _audit(tmp_path: Path) -> Path:
    path = tmp_path / "g.audit"
    new_audit(path, required=[*REQUIRED, MISSING])
    return path


def test_every_kind_is_generated_verified_stored_and_listed(tmp_path: Path) -> None:
    path = _audit(tmp_path)
    with Simulator(policy=generator_policy()) as sim:
        report = generate_for_audit(
            path, config(sim.base_url), runner_factory=sim_factory(sim.base_url)
        )
    assert report.complete and report.flagged == 0
    with ResultFile(path) as rf:
        texts = review.list_texts(rf)
        kinds = sorted((q.kind.value, q.k) for q in texts)
        assert kinds == [
            ("base", 0),
            ("less", 1),
            ("less", 2),
            ("more", 1),
            ("more", 2),
            ("reworded", 0),
        ]
        assert all(q.verified and q.usable() and q.attempts == 1 for q in texts)
        base = next(q for q in texts if q.kind is VariantKind.BASE)
        assert base.changes == (MISSING,)
        for q in texts:
            names = {c.name for c in q.checks}
            assert {"placeholders", "contact"} <= names
            assert q.generator == "openai-compatible:sim-model"
            assert q.provenance["requests"] and q.provenance["task"]
            if q.kind in (VariantKind.MORE, VariantKind.LESS):
                assert {"judge", "change_size", "length"} <= names
                assert q.provenance["source_id"] == base.id  # built on the completed base
        less = next(q for q in texts if q.kind is VariantKind.LESS and q.k == 1)
        # The identity placeholders came back as slots: a persona fills the variant.
        filled = less.template.fill(Persona("Ann", "Lee", "man"))
        assert filled.startswith("Ann Lee\nann.lee@example.com")
        assert "He enjoys" in filled and "Jane" not in filled and "[[" not in filled
        assert less.template.fill(None).startswith("Jane Roe\njane.roe@mail.com")
        assert review.counts(rf) and sum(r.count for r in review.counts(rf)) == 6
        # The generator runs are not the audit's runs.
        assert rf.runs() == [] and len(rf.runs(purpose="generation")) == 1
    # The generator never saw the real identity.
    sent = json.dumps(sim.bodies)
    assert "Jane Roe" not in sent and "jane.roe@mail.com" not in sent and "[[FULL_NAME]]" in sent


@pytest.mark.parametrize(
    ("flaw", "check"),
    [
        ("short", "change_size"),
        ("placeholders", "placeholders"),
        ("contact", "contact"),
        ("missing", "added_present"),
        ("long", "length"),
    ],
)
def test_a_broken_rule_is_caught_retried_then_flagged(
    tmp_path: Path, flaw: str, check: str
) -> None:
    path = tmp_path / "g.audit"
    new_audit(path)
    with Simulator(policy=generator_policy(flaw)) as sim:
        cfg = config(sim.base_url, k=[1], reworded=0, complete_base=False, max_attempts=2)
        report = generate_for_audit(path, cfg, runner_factory=sim_factory(sim.base_url))
        prompts = [b["messages"][-1]["content"] for b in sim.bodies]
    with ResultFile(path) as rf:
        more = next(q for q in rf.qual_texts() if q.kind is VariantKind.MORE)
    assert report.flagged >= 1 and not more.verified and not more.usable()
    assert more.attempts == 2
    assert any(c.name == check and not c.passed for c in more.checks)
    # The retry was told what failed.
    assert any(
        "previous attempt was rejected" in p and check.replace("_", " ") in p for p in prompts
    )
    assert any("fall back to the deterministic" in n for n in report.notes)


def test_a_retry_that_fixes_the_problem_is_verified(tmp_path: Path) -> None:
    path = tmp_path / "g.audit"
    new_audit(path)
    with Simulator(policy=generator_policy("placeholders", fix_on_retry=True)) as sim:
        cfg = config(sim.base_url, k=[1], reworded=0, complete_base=False)
        report = generate_for_audit(path, cfg, runner_factory=sim_factory(sim.base_url))
    assert report.flagged == 0 and report.verified == 2
    with ResultFile(path) as rf:
        assert all(q.verified and q.attempts == 2 for q in rf.qual_texts())


def test_accept_reject_reset_round_trip_and_diff(tmp_path: Path) -> None:
    path = tmp_path / "g.audit"
    new_audit(path)
    with Simulator(policy=generator_policy("long")) as sim:
        cfg = config(sim.base_url, k=[1], reworded=0, complete_base=False, max_attempts=1)
        generate_for_audit(path, cfg, runner_factory=sim_factory(sim.base_url))
    with ResultFile(path) as rf:
        q = next(q for q in rf.qual_texts() if q.kind is VariantKind.MORE)
        assert q.id is not None and not q.usable()
        assert review.accept(rf, q.id) is QualStatus.PENDING
        assert rf.qual_text(q.id).usable()  # type: ignore[union-attr]
        assert review.reject(rf, q.id) is QualStatus.ACCEPTED
        assert not rf.qual_text(q.id).usable()  # type: ignore[union-attr]
        assert review.set_status(rf, q.id, QualStatus.ACCEPTED) is QualStatus.REJECTED  # undo
        assert review.reset(rf, q.id) is QualStatus.ACCEPTED
        assert rf.qual_text(q.id).status is QualStatus.PENDING  # type: ignore[union-attr]
        d = review.diff(rf, q.id)
        assert d.source_label == "the resume as loaded" and d.source.startswith("Jane Roe")
        assert "".join(op.source for op in d.lines) == d.source
        assert "".join(op.variant for op in d.words) == d.variant
        assert any(op.tag == "insert" for op in d.lines)
        assert review.unified(d).startswith("---")


def test_a_killed_generation_resumes_and_pays_nothing_twice(tmp_path: Path) -> None:
    path = _audit(tmp_path)
    with Simulator(policy=generator_policy()) as sim:
        cfg = config(sim.base_url)
        cancel = threading.Event()
        stops = {"n": 0}

        def killing(p: Path, run_id: int, spec: Any, on_event: Any) -> Runner:
            stops["n"] += 1
            if stops["n"] == 3:  # the third round: cancel as it starts
                cancel.set()
            return sim_factory(sim.base_url)(p, run_id, spec, on_event)

        first = generate_for_audit(path, cfg, runner_factory=killing, cancel=cancel)
        assert not first.complete
        with ResultFile(path) as rf:
            partial = len(rf.qual_texts())
        second = generate_for_audit(path, cfg, runner_factory=sim_factory(sim.base_url))
        assert second.complete and second.reused == partial
        assert max(sim.paid.values()) == 1  # no request was bought twice
        with ResultFile(path) as rf:
            assert len(rf.qual_texts()) == 6
        answered = sim.answered
        # A third run finds everything stored and asks nothing.
        third = generate_for_audit(path, cfg, runner_factory=sim_factory(sim.base_url))
        assert third.made == 0 and third.reused == 6 and sim.answered == answered


def test_without_a_generator_nothing_is_generated_and_the_note_says_so(tmp_path: Path) -> None:
    path = _audit(tmp_path)
    cfg = study_from_dict({"study": {"name": "x"}}, require_sources=False)
    report = generate_for_audit(path, cfg)
    assert report.made == 0 and "name swaps" in report.notes[0]


def test_generation_settings_round_trip_and_bad_ones_are_explained() -> None:
    cfg = config("http://127.0.0.1:1/v1", judge=False, synthetic_base=True)
    assert study_from_dict(study_to_dict(cfg), require_sources=False) == cfg
    assert cfg.generation is not None and cfg.generation.generators[0].max_tokens == 4096
    from resume_auditor.domain.study import StudyError

    with pytest.raises(StudyError, match="provider:model|needs a model"):
        study_from_dict(
            {"generation": {"generators": [{"provider": "openai"}]}}, require_sources=False
        )
    with pytest.raises(StudyError, match="unknown provider"):
        study_from_dict(
            {"generation": {"generators": [{"provider": "nope", "model": "m"}]}},
            require_sources=False,
        )


def test_a_bundle_carries_generated_texts_without_the_identity(tmp_path: Path) -> None:
    import zipfile

    from resume_auditor.workflow.bundle import export_bundle

    path = tmp_path / "g.audit"
    new_audit(path)
    with Simulator(policy=generator_policy()) as sim:
        cfg = config(sim.base_url, k=[1], reworded=0, complete_base=False)
        generate_for_audit(path, cfg, runner_factory=sim_factory(sim.base_url))
    with ResultFile(path) as rf:
        rf.save_config(study_to_dict(cfg))
    out = export_bundle(path, tmp_path / "b.zip")
    with zipfile.ZipFile(out) as zf:
        rows = zf.read("tables/qual_text.jsonl").decode()
    assert rows.count("\n") == 2
    assert "Jane Roe" not in rows and "jane.roe@mail.com" not in rows
