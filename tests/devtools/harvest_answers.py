"""Real answers of a model, taken from result files into the reader corpus's format.

Run: PYTHONPATH=tests .venv/bin/python -m devtools.harvest_answers OUT_DIR AUDIT...
         [--append] [--personal DIR]

Each answered request becomes one line of OUT_DIR/<kind>.jsonl:

    {"id", "kind", "model", "grammar" (whether the answer was written under the
     app's grammar: the bundled model run by the app; false for a model behind an
     OpenAI-compatible server, which gets no grammar), "temperature", "context"
     (what the reader was given: names, count, labels), "answer" (the model's
     text, verbatim), "label" and "parsed" (what the reader read then, to be
     checked by hand before the file is kept), "checked"}

`checked` starts false; a person reads each answer, corrects `label`/`parsed` where
the reader was wrong and sets it true. tests/test_model_answers.py reads only
checked lines, so nothing unread by a person passes for truth.

`--append` adds the answers whose id is not in OUT_DIR yet (kept lines are never
rewritten). `--personal DIR` reads every `*.truth.json` of a resume corpus (such as
shared/data/resumes-dev) and leaves out, with a line on stderr, any answer that
quotes a real name, e-mail or phone number of those resumes: the answers are the
project's, the people in the resumes are not.
"""

from __future__ import annotations

import argparse
import json
import re
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


def personal_details(folder: Path) -> list[str]:
    """The names, e-mails and phone numbers of a resume corpus's truth files, lower-cased
    (phone numbers as digits only)."""
    found: list[str] = []
    for path in sorted(folder.glob("*.truth.json")):
        truth = json.loads(path.read_text(encoding="utf-8"))
        for key in ("name", "email"):
            value = str(truth.get(key) or "").strip().lower()
            if len(value) >= 4:
                found.append(value)
        digits = re.sub(r"\D", "", str(truth.get("phone") or ""))
        if len(digits) >= 7:
            found.append(digits)
    return found


def quotes_personal(text: str, details: list[str]) -> str | None:
    """The first detail `text` quotes, or None."""
    lower = text.lower()
    digits = re.sub(r"\D", "", text)
    for detail in details:
        if (detail.isdigit() and detail in digits) or (not detail.isdigit() and detail in lower):
            return detail
    return None


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
                            "grammar": run.provider == "local",
                            "temperature": run.params.get("temperature"),
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", type=Path)
    parser.add_argument("audits", type=Path, nargs="+")
    parser.add_argument("--append", action="store_true", help="add only ids not kept yet")
    parser.add_argument("--personal", type=Path, help="a resume corpus with *.truth.json")
    args = parser.parse_args(argv[1:])
    args.target.mkdir(parents=True, exist_ok=True)
    details = personal_details(args.personal) if args.personal else []
    for kind, rows in harvest(args.audits).items():
        path = args.target / f"{kind}.jsonl"
        kept: list[str] = []
        if args.append and path.exists():
            kept = [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        known = {json.loads(x)["id"] for x in kept}
        new = []
        for row in rows:
            if row["id"] in known:
                continue
            detail = quotes_personal(row["answer"], details)
            if detail is not None:
                print(f"{row['id']}: left out, it quotes {detail!r}", file=sys.stderr)
                continue
            new.append(json.dumps(row, ensure_ascii=False))
        path.write_text("\n".join(kept + new) + "\n", encoding="utf-8")
        print(f"{kind}: {len(new)} new answers, {len(kept) + len(new)} in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
