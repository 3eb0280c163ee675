"""The bundled local model as a generator: its variants are poor, and must be flagged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from generator_fixtures import new_audit

from resume_auditor.domain.study import study_from_dict
from resume_auditor.providers.local import local_model_available
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.variants.generate import generate_for_audit

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not local_model_available(), reason="the 'local' extra is not installed"),
]


def test_the_tiny_local_models_variant_is_flagged_and_not_used(tmp_path: Path) -> None:
    path = tmp_path / "g.audit"
    new_audit(path)
    table = {
        "generators": [{"provider": "local", "model": "smollm2-135m-instruct", "max_tokens": 700}],
        "k": [1],
        "reworded": 0,
        "complete_base": False,
        "max_attempts": 1,
    }
    data = json.loads(json.dumps({"study": {"name": "g", "seed": 1}, "generation": table}))
    config = study_from_dict(data, require_sources=False)
    report = generate_for_audit(path, config)
    assert report.complete, report.notes
    with ResultFile(path) as rf:
        texts = rf.qual_texts()
    assert len(texts) == 2  # one c+ and one c-
    for q in texts:
        assert q.generator == "local:smollm2-135m-instruct"
        failed = [c.name for c in q.checks if not c.passed]
        assert failed and not q.verified and not q.usable(), (q.kind, q.checks)
    assert report.flagged == 2 and report.verified == 0
