"""`resume-auditor audit` with a [generation] table: variants written, checked, then used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from devtools.simulator import Simulator
from devtools.simulator_gen import generator_policy

from resume_auditor.cli import main
from resume_auditor.domain.case import CaseKind, VariantKind
from resume_auditor.store.resultfile import ResultFile

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
STUDY = """
format = 1
[study]
name = "Generated variants"
seed = 4
[job]
file = "{job}"
[resumes]
files = ["{resumes}/01-jordan-ellery.pdf", "{resumes}/02-morgan-tate.pdf"]
[model]
provider = "openai-compatible"
base_url = "{url}"
model = "sim"
[run]
prompt = "d1-baseline"
[designs.d1]
groups = ["black_woman", "white_man"]
k = [1]
pair_types = ["more_base", "base_less"]
[generation]
generators = [{{provider = "openai-compatible", base_url = "{url}", model = "sim"}}]
k = [1]
reworded = 1
"""


def test_audit_writes_the_variants_first_and_builds_cases_from_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "gen.audit"
    study = tmp_path / "study.toml"
    with Simulator(policy=generator_policy()) as sim:
        study.write_text(
            STUDY.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes", url=sim.base_url)
        )
        assert main(["audit", str(study), "--out", str(out)]) == 0
        paid_once = dict(sim.paid)
        # the same command again: nothing is generated or asked twice
        assert main(["audit", str(study), "--out", str(out)]) == 0
        paid_again = dict(sim.paid)
    assert paid_again == paid_once
    with ResultFile(out) as rf:
        texts = rf.qual_texts()
        generated = [q for q in texts if q.generator]
        assert generated, "the generator wrote nothing"
        assert len(rf.runs(purpose="generation")) >= 1 and len(rf.runs()) == 1
        used = {q.template.text for q in generated if q.usable()}
        variants = rf.variants()
        pairs = rf.cases("D1")
    # a c+ copy in the body can only come from the generator: its pairs exist iff a c+
    # text was usable; without one, the qualifications block gives them (summary_block)
    more_usable = any(q.kind is VariantKind.MORE and q.usable() for q in generated)
    more_pairs = [
        p
        for p in pairs
        if p.kind is CaseKind.UNEQUAL
        and VariantKind.MORE in {v.kind for v in variants if v.id in (p.variant_a, p.variant_b)}
    ]
    assert more_pairs
    assert any("generator" in p.construction for p in more_pairs) == more_usable
    assert all(p.construction == "summary_block" for p in more_pairs) != more_usable
    assert used  # some generated text passed its checks
    capsys.readouterr()
    assert main(["metrics", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["counts"]["answered"] == report["counts"]["requests"] > 0
