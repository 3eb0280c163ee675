"""The bundled local model, for real: SmolLM2-135M served by llama-cpp-python on loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from resume_auditor.providers.local import local_model_available
from resume_auditor.workflow.design_tables import pair_table

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not local_model_available(), reason="the 'local' extra is not installed"),
]


def test_local_model_audit_end_to_end(small_study: Path, tmp_path: Path) -> None:
    import json

    from resume_auditor.cli import main
    from resume_auditor.providers.local import LocalModelServer
    from resume_auditor.store.resultfile import ResultFile

    out = tmp_path / "local.audit"
    try:
        assert main(["audit", str(small_study), "--out", str(out)]) == 0
    finally:
        LocalModelServer.shared().stop()
    with ResultFile(out) as rf:
        run = rf.latest_run()
        assert run is not None and run.provider == "local"
        progress = rf.progress(run.id)
        frame = pair_table(rf, rf.answers(run.id, design="D1"))
        raw = rf.raw_response(int(frame.iloc[0]["request_id"]))
    assert progress.total == 10 and progress.done == 10
    # grammar-constrained: the tiny model always gives a readable label
    assert progress.invalid == 0
    assert set(frame["label"]) <= {"first", "second", "abstain"}
    assert raw is not None and raw["usage"]["prompt_tokens"] > 300
    assert "smollm2" in json.dumps(raw).lower()
