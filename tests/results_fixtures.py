"""An audit with every design answered, for the Results page and drill-down tests.

The sample study (D1-D4 on the four sample resumes) run against the simulator:
D1 pairs by the report tests' biased screener, D2-D4 prompts each in their own
format (simulator_kinds). The model's words name a real sample candidate now and
then ("much like Jordan Ellery"), as a model that saw the real name might, so the
tests can check that what the app shows is masked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from devtools.simulator import Simulator
from devtools.simulator_kinds import every_kind_policy
from report_fixtures import SAMPLE_STUDY, biased_policy, run_audit

# A real candidate of the sample resumes (01-jordan-ellery.pdf); the tests check it
# is one of the source resumes' identities before relying on it.
REAL_NAME = "Jordan Ellery"


def _naming(body: dict[str, Any]) -> str:
    answer = every_kind_policy(biased_policy)(body)
    if "<answer>" in answer:
        return f"Much like {REAL_NAME}. {answer}"
    return answer.replace("a plausible candidate.", f"a plausible candidate, like {REAL_NAME}.")


def make_all_designs_audit(folder: Path, models: tuple[str, ...] = ("sim-model",)) -> Path:
    out = folder / "all.audit"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESUME_AUDITOR_DATA_DIR", str(folder / "data"))
        with Simulator(_naming, models=models) as sim:
            for model in models:
                run_audit(SAMPLE_STUDY, out, sim, model)
    return out
