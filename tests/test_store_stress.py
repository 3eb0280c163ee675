"""The one-writer rule under load: a writing app, 100 CLI reads, kill -9 of either at random.

The writer stands in for the app (its own connection reading progress while the
runner answers against the provider simulator); readers run `metrics`, `cases`,
`report --csv` and `variants list` as a user would. See
tests/devtools/store_stress.py; benchmarks/store_stress.py runs more.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from devtools.store_stress import run_round

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_no_answer_lost_and_the_file_stays_sound(tmp_path: Path) -> None:
    result = run_round(
        tmp_path / "round",
        repeats=8,  # 80 requests
        reads=100,
        readers=4,
        kills=4,
        seed=16,
        deadline_s=400,
        root=ROOT,
    )
    assert result.integrity == "ok"
    assert result.lost == [] and result.committed > 0
    assert result.answered == result.requests == 80
    assert result.read_failures == [] and result.reads_ok >= 100
    assert result.writer_failures == []
    assert result.writer_kills + result.reader_kills == 4
    assert result.second_writer_admitted == 0
    assert result.ok
