"""`resume-auditor variants ...` on the sample audit, against the simulator."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from devtools.simulator import Simulator
from devtools.simulator_gen import generator_policy

from resume_auditor.cli import main

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"


def test_generate_then_list_review_and_diff_on_the_sample_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = tmp_path / "sample"
    shutil.copytree(SAMPLE, study)
    audit = tmp_path / "sample.audit"
    assert main(["audit", str(study / "study.toml"), "--out", str(audit), "--prepare-only"]) == 0
    with Simulator(policy=generator_policy()) as sim:
        args = ["variants", "generate", str(audit), "--generator", "openai-compatible:sim-model"]
        args += ["--base-url", sim.base_url, "--k", "1", "--reworded", "1"]
        assert main(args) == 0
        answered = sim.answered
        assert answered > 0
        assert main(["variants", "generate", str(audit)]) == 0  # settings were saved
        assert sim.answered == answered  # and nothing is asked twice
    capsys.readouterr()
    assert main(["variants", "list", str(audit), "--json"]) == 0
    texts = json.loads(capsys.readouterr().out)
    assert texts and {t["kind"] for t in texts} >= {"more", "less", "reworded"}
    assert all(t["generator"] == "openai-compatible:sim-model" for t in texts)
    assert main(["variants", "list", str(audit)]) == 0
    listing = capsys.readouterr().out
    assert f"{texts[0]['id']:>4}" in listing
    first = str(texts[0]["id"])
    assert main(["variants", "reject", str(audit), first]) == 0
    assert "-> rejected" in capsys.readouterr().out
    assert main(["variants", "diff", str(audit), first]) == 0
    assert "+++ variant text" in capsys.readouterr().out
    assert main(["variants", "accept", str(audit), "9999"]) == 2
    assert "no variant text with id 9999" in capsys.readouterr().err


def test_a_bad_generator_is_explained_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    study = tmp_path / "sample"
    shutil.copytree(SAMPLE, study)
    audit = tmp_path / "sample.audit"
    assert main(["audit", str(study / "study.toml"), "--out", str(audit), "--prepare-only"]) == 0
    capsys.readouterr()
    assert main(["variants", "generate", str(audit), "--generator", "gpt-4o"]) == 2
    assert "provider:model" in capsys.readouterr().err
    assert main(["variants", "list", str(tmp_path / "missing.audit")]) == 2
