"""A new audit from an answered one keeps its inputs, including the generator's texts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from devtools.simulator import Simulator
from devtools.simulator_gen import generator_policy

from resume_auditor.domain.generation import GenerationSpec
from resume_auditor.domain.study import ModelSpec
from resume_auditor.resources import sample_study
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.variants.generate import generate_for_audit
from resume_auditor.workflow.execute import make_runner
from resume_auditor.workflow.prepare import fork_audit, prepare, queue_run
from resume_auditor.workflow.studyfile import read_study


def test_fork_keeps_generated_texts_and_their_runs(tmp_path: Path) -> None:
    path = tmp_path / "a.audit"
    study = read_study(sample_study())
    prepare(study, path)
    with Simulator(policy=generator_policy()) as sim:
        model = ModelSpec("openai-compatible", sim.base_url, "sim-model", max_tokens=4096)
        config = dataclasses.replace(
            study.config, generation=GenerationSpec(generators=(model,), k=(1,), reworded=0)
        )
        assert generate_for_audit(path, config).made > 0
        run_id, _ = queue_run(path, model)
        make_runner(path, run_id, concurrency=4).run()
    with ResultFile(path) as rf:
        texts = rf.qual_texts()
        gen_runs = rf.runs(purpose="generation")
        assert rf.answered_count() > 0

    fork = fork_audit(path, tmp_path / "b.audit")
    with ResultFile(fork) as rf:
        assert rf.answered_count() == 0 and rf.runs() == [] and rf.case_count("D1") == 0
        assert rf.qual_texts() == texts
        assert [r.id for r in rf.runs(purpose="generation")] == [r.id for r in gen_runs]
        # every request a text's provenance names is still in the file, with its answer
        for q in texts:
            for request_id in q.provenance.get("requests", []):
                assert rf.raw_response(int(request_id)) is not None
