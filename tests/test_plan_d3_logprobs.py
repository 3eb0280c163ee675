"""The plan says before a run when D3's scores will be bare Yes/No answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from resume_auditor.domain.study import D3Spec, JobSpec, ModelSpec, StudyConfig
from resume_auditor.providers.capabilities import LOGPROBS, default_cache, model_key
from resume_auditor.providers.openai_compat import OpenAICompatProvider
from resume_auditor.workflow.plan import _d3_logprob_notes


def _study() -> StudyConfig:
    return StudyConfig(name="t", seed=1, job=JobSpec(text="x"), resumes=(), d3=D3Spec())


def test_a_model_known_to_give_no_logprobs_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path))
    url = "http://127.0.0.1:8000/v1"
    model = ModelSpec("openai-compatible", url, "plain-model")
    assert _d3_logprob_notes(_study(), model) == []  # not known yet: asked, not warned
    key = model_key(
        "openai-compatible", OpenAICompatProvider.canonical_base_url(url), "plain-model"
    )
    default_cache().set(key, LOGPROBS, False)
    (note,) = _d3_logprob_notes(_study(), model)
    assert "bare answers" in note and "plain-model" in note
