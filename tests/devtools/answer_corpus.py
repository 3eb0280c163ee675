"""The answer-style corpus: answers as real models write them, each with what it means.

tests/answers_corpus/*.json hold, per kind of prompt, answers in the styles
models use (the requested tags, JSON with the answer field beside prose that
discusses both candidates, JSON in fences or with single quotes, markdown,
"Final answer:" lines, "[[A]]", names, negations, <think> blocks, refusals,
hedges) and the label each one means; a genuinely ambiguous answer means
`invalid`. Each entry:

    {"id", "model" (whose style it imitates), "style", "kind", "text",
     "context" (names, count, labels: what the runner passes), "label",
     "parsed" (optional: fields the reading must hold, e.g. ranks)}

The tests read every entry and the benchmark (benchmarks/answer_readers.py)
reports accuracy per kind and style.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resume_auditor.prompts import Reading, read_answer

CORPUS_DIR = Path(__file__).resolve().parents[2] / "tests" / "answers_corpus"


@dataclass(frozen=True)
class Entry:
    id: str
    kind: str
    style: str
    model: str
    text: str
    label: str
    context: dict[str, Any] = field(default_factory=dict)
    parsed: dict[str, Any] = field(default_factory=dict)
    source: str = ""

    @property
    def key(self) -> str:
        return f"{self.source}:{self.id}"


def load_corpus(directory: Path = CORPUS_DIR) -> list[Entry]:
    """Every entry of every file in `directory`, in file order."""
    out: list[Entry] = []
    for path in sorted(directory.glob("*.json")):
        for raw in json.loads(path.read_text(encoding="utf-8"))["answers"]:
            out.append(
                Entry(
                    id=raw["id"],
                    kind=raw["kind"],
                    style=raw["style"],
                    model=raw.get("model", ""),
                    text=raw["text"],
                    label=raw["label"],
                    context=raw.get("context", {}),
                    parsed=raw.get("parsed", {}),
                    source=path.stem,
                )
            )
    return out


def problems(entry: Entry, reading: Reading | None = None) -> list[str]:
    """What the reader got wrong about `entry` (empty when it read it right)."""
    if reading is None:
        reading = read_answer(entry.kind, entry.text, context=entry.context)
    out = []
    if reading.label != entry.label:
        out.append(f"label {reading.label!r}, meant {entry.label!r}")
    for key, want in entry.parsed.items():
        got = reading.parsed.get(key)
        if got != want:
            out.append(f"{key} {got!r}, meant {want!r}")
    return out
