"""Real answers of the bundled model (SmolLM2-135M-Instruct), read as a person read them.

tests/real_answers/smollm2/<kind>.jsonl holds the bundled model's own answers to the
app's prompts of each kind it is asked (taken from real audits by
devtools/harvest_answers.py), each with the label and fields a person checked by
hand. The model answers under a grammar, so its answers are few in shape; what
they test is that none of them is lost (its "Unknown" to the manipulation check
was counted unreadable before issue 29: 40-48 answers per audit).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from resume_auditor.prompts import read_answer

CORPUS = Path(__file__).resolve().parent / "real_answers" / "smollm2"


def _entries() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        out += [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]
    return out


ENTRIES = _entries()


def test_every_kept_answer_was_checked_by_a_person() -> None:
    if not ENTRIES:
        pytest.skip("no bundled-model answers kept yet")
    assert all(e["checked"] is True for e in ENTRIES)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_each_bundled_model_answer_is_read_as_checked(entry: dict[str, Any]) -> None:
    reading = read_answer(entry["kind"], entry["answer"], context=entry["context"])
    assert reading.label == entry["label"], entry["answer"]
    for key, want in entry["parsed"].items():
        assert reading.parsed.get(key) == want, (key, entry["answer"])
