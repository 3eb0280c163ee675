"""Accuracy of the answer readers on the answer-style corpus, per kind and per style.

Run: PYTHONPATH=$PWD .venv/bin/python benchmarks/answer_readers.py [--corpus DIR] [--audit]

Reads every answer of tests/answers_corpus (answers in the styles real models
write, each with the label it means; see tests/devtools/answer_corpus.py)
with prompts.read_answer and counts an answer right only when its label and every
field the corpus names (ranks, perceived race, the extracted resume...) match.
Then reads each answer again wrapped the ways models wrap answers (a code fence,
an opening line, a closing pleasantry, a <think> block before it, CRLF line ends)
and counts the readings that changed. Prints every misread in full.

--audit also runs a D1 audit of the three sample resumes against the provider
simulator twice, over HTTP: once answering in every style of
devtools/simulator_styles.py, once in the requested tags, with the same
group-blind policy; it counts stored labels that differ from what the simulator
meant and compares DiscrimValidity and CriterionValidity between the two.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped

SAMPLE = Path(__file__).resolve().parent.parent / "resources" / "sample"
STUDY = """
format = 1
[study]
name = "Answer styles benchmark"
seed = 11
[job]
file = "{sample}/job.md"
[resumes]
files = ["{sample}/resumes/01-jordan-ellery.pdf", "{sample}/resumes/02-morgan-tate.pdf",
         "{sample}/resumes/03-riley-castell.pdf"]
[run]
prompt = "d1-baseline"
[designs.d1]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
signals = ["name"]
"""


def _audit(folder: Path, styles: tuple[str, ...]) -> dict[str, Any]:
    """One D1 audit answered in `styles`: misreads, answers, styles used and D1's metrics."""
    from devtools.simulator import Simulator
    from devtools.simulator_styles import StyledPolicy, leaning_choice

    from resume_auditor.cli import main
    from resume_auditor.store.resultfile import ResultFile

    study, out = folder / "study.toml", folder / f"{len(styles)}.audit"
    study.write_text(STUDY.format(sample=SAMPLE))
    policy = StyledPolicy(styles=styles, decide=leaning_choice)
    quiet = io.StringIO()
    with (
        Simulator(policy=policy) as sim,
        contextlib.redirect_stdout(quiet),
        contextlib.redirect_stderr(quiet),
    ):
        args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", "sim"]
        main(["audit", str(study), "--out", str(out), "--concurrency", "4", *args])
    with ResultFile(out) as rf:
        frame = rf.answers(rf.runs()[-1].id, design="D1")
        meant = [policy.meant_for(rf.request_body(int(r)) or {}) for r in frame["request_id"]]
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        main(["metrics", str(out), "--json"])
    d1 = json.loads(report.getvalue())["d1"]
    wrong = sum(1 for label, want in zip(frame["label"], meant, strict=True) if label != want)
    return {"answers": len(frame), "misreads": wrong, "styles": policy.styles_used, "d1": d1}


def audit_section() -> None:
    from devtools.simulator_styles import PAIRWISE_STYLES

    with tempfile.TemporaryDirectory() as tmp:
        styled = _audit(Path(tmp), PAIRWISE_STYLES)
        tagged = _audit(Path(tmp), ("tag",))
    print("\nD1 audit over HTTP (3 sample resumes, 4 groups, both orders):")
    for name, run in (("every style", styled), ("tags only", tagged)):
        metrics = run["d1"]["metrics"]
        dv, cv = metrics["discrim_validity"], metrics["criterion_validity"]
        print(
            f"  {name:12} answers {run['answers']}, misreads {run['misreads']}, "
            f"invalid {run['d1']['invalid']}, DiscrimValidity {dv['value']:.3f} (n={dv['n']}), "
            f"CriterionValidity {cv['value']:.3f} (n={cv['n']})"
        )
    print(f"  styles written: {dict(sorted(styled['styles'].items()))}")
    print(f"  D1 metrics identical: {styled['d1'] == tagged['d1']}")


def _wrappings(text: str) -> dict[str, str]:
    return {
        "fenced": f"```\n{text}\n```" if text.lstrip().startswith("{") else text,
        "opening": f"Here is my evaluation:\n\n{text}",
        "closing": f"{text}\n\nI hope this helps!",
        "thinking": f"<think>\nResume 1? <answer>first</answer> Yes. 5.\n</think>\n\n{text}",
        "crlf": text.replace("\n", "\r\n"),
    }


def main() -> int:
    from devtools.answer_corpus import CORPUS_DIR, load_corpus, problems

    from resume_auditor.prompts import read_answer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR)
    parser.add_argument("--audit", action="store_true", help="also run two D1 audits (~20 s)")
    args = parser.parse_args()
    entries = load_corpus(args.corpus)
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_style: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misreads = []
    started = time.perf_counter()
    for e in entries:
        wrong = problems(e)
        for table, key in ((by_kind, e.kind), (by_style, e.style)):
            table[key][0] += not wrong
            table[key][1] += 1
        if wrong:
            misreads.append((e, wrong))
    elapsed = time.perf_counter() - started
    changed, wrapped = [], 0
    for e in entries:
        if e.kind == "generate":
            continue
        base = read_answer(e.kind, e.text, context=e.context).label
        for how, text in _wrappings(e.text).items():
            if how == "closing" and e.label == "invalid":
                continue  # "I hope this helps!" is not an answer, but nor was the text
            wrapped += 1
            got = read_answer(e.kind, text, context=e.context).label
            if got != base:
                changed.append((e, how, base, got))
    right = sum(v[0] for v in by_kind.values())
    print(f"corpus: {args.corpus} ({len(entries)} answers)")
    print(f"overall: {right}/{len(entries)} = {right / max(1, len(entries)):.1%}")
    print(f"read in {elapsed * 1000:.0f} ms ({elapsed / max(1, len(entries)) * 1e6:.0f} us each)")
    print("\nper kind:")
    for kind, (ok, n) in sorted(by_kind.items()):
        print(f"  {kind:18} {ok:3}/{n:<3} {ok / n:7.1%}")
    print("\nper style:")
    for style, (ok, n) in sorted(by_style.items()):
        print(f"  {style:32} {ok:3}/{n:<3} {ok / n:7.1%}")
    print(f"\nwrapped readings unchanged: {wrapped - len(changed)}/{wrapped}")
    for e, how, base, got in changed:
        print(f"  ! {e.key} wrapped {how}: {base} -> {got}")
    if misreads:
        print("\nmisreads:")
        for e, wrong in misreads:
            print(f"  ! {e.key} [{e.style}, {e.model}]: {'; '.join(wrong)}")
            print("    " + e.text.replace("\n", "\n    ")[:600])
    if args.audit:
        audit_section()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
