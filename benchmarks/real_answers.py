"""Read real model answers with the app's readers, one JSON line in, one JSON line out.

Run: PYTHONPATH=$PWD .venv/bin/python benchmarks/real_answers.py IN.jsonl OUT.jsonl

A stable way to measure the answer readers from outside (issue 29): anyone with
real answers and their own truth can score the readers without knowing their code.

Input, one JSON object a line (other fields are ignored):

    {"id": ..., "kind": "ranking", "names": [names in the order the prompt showed
     the candidates], "answer": "the model's answer, verbatim"}

Output, one JSON object a line, in input order:

- kind "ranking": {"id", "order", "reason"}. `order` is the candidates' indices into
  `names`, best first, as far as the answer gives them (shorter than `names` when
  the answer stops early or turns ambiguous; a candidate the answer leaves out
  entirely is never added), or null when nothing can be read. `reason` says in
  words what was read and, when the list stops early or nothing is read, why.
- every other kind (pairwise_abstain, forced_choice, yes_no, rating, dimensions,
  manipulation, judge): {"id", "label", "value", "reason"}. `label` is the kind's
  closed set as the app stores it ("invalid" when unreadable); `value` is what the
  label stands for: "first"/"second"/"abstain", "yes"/"no", the 1-5 rating as a
  number, the five scores as {"relevance": 4, ...}, {"race", "gender"} as perceived
  ("unknown" when the model said it could not tell), the judge's [true, false, ...];
  null when unreadable. For pairwise kinds give the two candidates' `names` (first
  shown first) so an answer that names a candidate is read; for "judge" a `count`.

Any kind: `"refused": "<the sentence in which it declined>"` is added when an answer
that cannot be read is a refusal.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from resume_auditor.prompts import read_answer  # noqa: E402
from resume_auditor.prompts.read_scores import DIMENSIONS  # noqa: E402
from resume_auditor.prompts.reading import INVALID, Reading  # noqa: E402


def _context(row: dict[str, Any]) -> dict[str, Any]:
    names = [str(n) for n in row.get("names") or []]
    ctx: dict[str, Any] = {"names": names}
    if names:
        ctx["count"] = len(names)
    if "count" in row:
        ctx["count"] = int(row["count"])
    return ctx


def _ranking(reading: Reading) -> dict[str, Any]:
    p = reading.parsed
    if reading.label == INVALID:
        return {"order": None, "reason": str(p.get("error") or "no ranking found")}
    order = [int(i) for i in p.get("order") or []]
    reason = f"read {len(order)} ranks"
    if p.get("stopped"):
        reason += f"; stopped: {p['stopped']}"
    if p.get("inferred"):
        reason += "; the one candidate left out would come last (not included in order)"
    return {"order": order, "reason": reason}


def _value(kind: str, reading: Reading) -> Any:
    p = reading.parsed
    if reading.label == INVALID:
        return None
    if kind in ("pairwise_abstain", "forced_choice", "yes_no"):
        return reading.label
    if kind == "rating":
        return int(reading.label)
    if kind == "dimensions":
        return {d: p[d] for d in DIMENSIONS if d in p}
    if kind == "manipulation":
        return {
            "race": p.get("perceived_race") or None,
            "gender": p.get("perceived_gender") or None,
        }
    if kind == "judge":
        return p.get("met")
    return p or reading.label


def read_line(row: dict[str, Any]) -> dict[str, Any]:
    """One output object for one input object (see the module docstring)."""
    kind = str(row.get("kind") or "ranking")
    reading = read_answer(kind, str(row.get("answer") or ""), context=_context(row))
    out: dict[str, Any] = {"id": row.get("id")}
    if kind == "ranking":
        out |= _ranking(reading)
    else:
        reason = str(reading.parsed.get("error") or "")
        if not reason:
            reason = "read" if reading.label != INVALID else "no answer found"
        missing = reading.parsed.get("missing")
        if missing and reading.label != INVALID:
            reason += f"; nothing read for {', '.join(str(m) for m in missing)}"
        out |= {"label": reading.label, "value": _value(kind, reading), "reason": reason}
    if reading.parsed.get("refused"):
        out["refused"] = str(reading.parsed["refused"])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="answers, one JSON object a line")
    parser.add_argument("target", type=Path, help="readings, one JSON object a line")
    args = parser.parse_args(argv)
    bad = 0
    with (
        args.source.open(encoding="utf-8") as src,
        args.target.open("w", encoding="utf-8") as dst,
    ):
        for number, line in enumerate(src, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                print(f"{args.source}:{number}: not JSON ({exc}); skipped", file=sys.stderr)
                bad += 1
                continue
            dst.write(json.dumps(read_line(row), ensure_ascii=False) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
