"""D5 replicates Bloomberg (2024) on their real answers (benchmarks/d5_replication.py).

Bloomberg's 1,000 GPT-3.5 rankings of one job (shared/data/answers-dev, skipped when
absent) are replayed, group for group in the model's own words, to the app's own D5
requests through the loopback simulator and the CLI. What must hold:

- every request gets its scheduled answer and the replay moves no reading: the app's
  reading of each replayed answer is, group for group, our reader's reading of
  Bloomberg's original;
- their reader, emulated on their answers, gives their published counts exactly;
- our top-1 count per group differs from the published one by exactly the answers
  the two readers put a different group first in (each listed with a cause), and
  those are few.

The transfer of names itself is checked on all 3,000 answers without a server.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest
from devtools.simulator_d5 import Recorded, transfer
from shared_data import corpus_dir

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from d5_replication import CODES, load, published, render, replicate_job  # noqa: E402
from real_answers import read_line  # noqa: E402

# Ours, a fixed set of names of our own lists, one per group.
OURS = {
    "white_man": "Alec Krueger",
    "white_woman": "Kari Stone",
    "black_man": "Antwon McKoy",
    "black_woman": "Earnestine Abdi",
    "asian_man": "Anil Singh",
    "asian_woman": "Lien Huang",
    "hispanic_man": "Humberto Sanchez",
    "hispanic_woman": "Guillermina Martinez",
}


@pytest.fixture(scope="module")
def data() -> Path:
    path = corpus_dir("answers-dev")
    if not (path / "bloomberg-gpt35-rankings.jsonl").is_file():
        pytest.skip("Bloomberg's answers are not in answers-dev")
    return path


def test_moving_the_names_changes_no_reading_on_any_of_the_3000_answers(data: Path) -> None:
    rows = [r for job in load(data).values() for r in job]
    assert len(rows) == 3000
    how: Counter[str] = Counter()
    differ = []
    for r in rows:
        groups = tuple(CODES[g] for g in r["groups"])
        moved = transfer(Recorded(r["id"], tuple(r["names"]), groups, r["answer"]), OURS)
        how.update(s.how for s in moved.swaps)
        before = read_line(r)["order"]
        after = read_line({"names": [OURS[g] for g in groups], "answer": moved.text})["order"]
        if (before and [groups[i] for i in before]) != (after and [groups[i] for i in after]):
            differ.append(r["id"])
    assert differ == []
    assert how["exact"] > 23_000  # the answers name the candidates as shown, mostly
    assert how["re-spelt"] > 50  # and real re-spellings were moved too, not skipped


@pytest.mark.parametrize("job", ["HR specialist", "software engineer", "retail"])
def test_the_replay_gives_the_published_counts_up_to_the_answers_read_differently(
    data: Path, job: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = load(data)[job]
    counts = published(data)
    rep = replicate_job(job, rows, counts, tmp_path)
    assert rep.requests == rep.answers == len(rows) == 1000
    assert rep.unscheduled == 0
    assert rep.replay_mismatch == []
    assert rep.emulated == Counter(rep.published)  # their reader, emulated, is theirs
    for code in CODES:
        plus = sum(1 for d in rep.differing if d.ours == code)
        minus = sum(1 for d in rep.differing if d.theirs == code)
        assert rep.ours[code] - rep.published[code] == plus - minus, code
    assert sum(rep.ours.values()) == rep.answers - rep.unreadable
    assert 0 < len(rep.differing) <= 20
    assert all(d.cause for d in rep.differing)
    d5 = rep.metrics
    for key, m in d5["top1"].items():
        assert m["ci"][0] <= m["value"] <= m["ci"][1], key
    text = render([rep], "the test")
    assert f"## {job}" in text and "| H_W |" in text
