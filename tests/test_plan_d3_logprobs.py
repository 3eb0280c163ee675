"""The plan says before a run when a design's scores will be bare Yes/No answers (D3's
pointwise prompt scores a candidate by the probability of Yes: `Design.logprob_note`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from resume_auditor.domain.study import JobSpec, ModelSpec, StudyConfig
from resume_auditor.providers.capabilities import LOGPROBS, default_cache, model_key
from resume_auditor.providers.openai_compat import OpenAICompatProvider
from resume_auditor.workflow.plan import logprob_notes


def _study() -> StudyConfig:
    return StudyConfig(name="t", seed=1, job=JobSpec(text="x"), resumes=(), more={"d3": {}})


def test_a_model_known_to_give_no_logprobs_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path))
    url = "http://127.0.0.1:8000/v1"
    model = ModelSpec("openai-compatible", url, "plain-model")
    assert logprob_notes(_study(), model) == []  # not known yet: asked, not warned
    key = model_key(
        "openai-compatible", OpenAICompatProvider.canonical_base_url(url), "plain-model"
    )
    default_cache().set(key, LOGPROBS, False)
    (note,) = logprob_notes(_study(), model)
    assert "bare answers" in note and "plain-model" in note


def _probe_study() -> StudyConfig:
    return StudyConfig(
        name="t", seed=1, job=JobSpec(text="x"), resumes=(), more={"d3": {"prompt": "d3-yes-no"}}
    )


@pytest.mark.parametrize("gives", [True, False])
def test_the_server_is_probed_once_before_a_d3_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gives: bool
) -> None:
    # Issue 25: an OpenAI-compatible server's log-probabilities depend on how it was
    # started; one short request before the run settles it, the plan then says it, and
    # the finding is cached so the next plan asks nothing.
    from devtools.simulator import Simulator

    from resume_auditor.workflow.plan import probe_logprobs

    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path))
    with Simulator(logprobs=gives) as sim:
        model = ModelSpec("openai-compatible", sim.base_url, "probe-model")
        assert probe_logprobs(_probe_study(), model) is gives
        asked = len(sim.requests)
        assert asked == (1 if gives else 2)  # a refusal is asked again without them
        assert probe_logprobs(_probe_study(), model) is None  # known: not asked again
        assert len(sim.requests) == asked
    notes = logprob_notes(_probe_study(), model)
    assert bool(notes) is (not gives)


def test_no_probe_without_a_d3_prompt_that_uses_log_probabilities(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from resume_auditor.workflow.plan import probe_logprobs

    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path))
    model = ModelSpec("openai-compatible", "http://127.0.0.1:9/v1", "m")
    bare = StudyConfig(name="t", seed=1, job=JobSpec(text="x"), resumes=())
    assert probe_logprobs(bare, model) is None
    # an unreachable server: the probe says nothing and never stops the run
    assert probe_logprobs(_probe_study(), model, timeout_s=2) is None
