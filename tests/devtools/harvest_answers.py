"""Real answers of a model, taken from result files into the reader corpus's format.

Run: PYTHONPATH=tests .venv/bin/python -m devtools.harvest_answers OUT_DIR AUDIT...

Each answered request becomes one line of OUT_DIR/<kind>.jsonl:

    {"id", "kind", "model", "context" (what the reader was given: names, count,
     labels), "answer" (the model's text, verbatim), "label" and "parsed" (what the
     reader read then, to be checked by hand before the file is kept), "checked"}

`checked` starts false; a person reads each answer, corrects `label`/`parsed` where
the reader was wrong and sets it true. tests/test_model_answers.py reads only the
checked lines, so nothing unread by a person passes for truth.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from resume_auditor.store.resultfile import ResultFile

KEEP = {
    "ranking": ("order",),
    "manipulation": ("perceived_race", "perceived_gender"),
    "dimensions": ("relevance", "impact", "skill_relevance", "achievements", "cultural_fit"),
    "rating": ("rating", "experience", "professionalism", "fit"),
}


def harvest(paths: list[Path]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for path in paths:
        with ResultFile(path) as result:
            for run in result.runs():
                answers = result.answers(run.id)
                for a in answers.to_dict("records"):
                    record = result.response_record(int(a["request_id"])) or {}
                    text = str(record.get("text") or "")
                    if not text:
                        continue
                    parsed = a["parsed"] or {}
                    out.setdefault(str(a["kind"]), []).append(
                        {
                            "id": f"{path.stem}-{a['request_id']}",
                            "kind": a["kind"],
                            "model": run.model,
                            "context": a["context"] or {},
                            "answer": text,
                            "label": a["label"],
                            "parsed": {
                                k: parsed[k] for k in KEEP.get(a["kind"], ()) if k in parsed
                            },
                            "checked": False,
                        }
                    )
    return out


def main(argv: list[str]) -> int:
    target = Path(argv[1])
    target.mkdir(parents=True, exist_ok=True)
    for kind, rows in harvest([Path(p) for p in argv[2:]]).items():
        with (target / f"{kind}.jsonl").open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{kind}: {len(rows)} answers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
