"""Accuracy of the answer readers on the answer-style corpus, per kind and per style.

Run: PYTHONPATH=$PWD .venv/bin/python benchmarks/answer_readers.py [--corpus DIR]

Reads every answer of tests/answers_corpus (answers in the styles real models
write, each with the label it means; see resume_auditor/devtools/answer_corpus.py)
with prompts.read_answer and counts an answer right only when its label and every
field the corpus names (ranks, perceived race, the extracted resume...) match.
Then reads each answer again wrapped the ways models wrap answers (a code fence,
an opening line, a closing pleasantry, a <think> block before it, CRLF line ends)
and counts the readings that changed. Prints every misread in full.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path


def _wrappings(text: str) -> dict[str, str]:
    return {
        "fenced": f"```\n{text}\n```" if text.lstrip().startswith("{") else text,
        "opening": f"Here is my evaluation:\n\n{text}",
        "closing": f"{text}\n\nI hope this helps!",
        "thinking": f"<think>\nResume 1? <answer>first</answer> Yes. 5.\n</think>\n\n{text}",
        "crlf": text.replace("\n", "\r\n"),
    }


def main() -> int:
    from resume_auditor.devtools.answer_corpus import CORPUS_DIR, load_corpus, problems
    from resume_auditor.prompts import read_answer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR)
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
