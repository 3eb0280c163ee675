"""The quick demo on the bundled model, against what this machine's CPU allows.

Run: .venv/bin/python benchmarks/quick_demo.py [STUDY]   (default resources/sample/quick.toml)

1. The physical limit: llama.cpp itself (the same library and GGUF the app serves),
   with the app's thread count, timing prompt processing of ~500 tokens and 60
   one-token decode steps, best of three: prompt and generated tokens per second.
2. The demo as a user runs it: `resume-auditor audit STUDY` in a fresh data folder
   (so no remembered pace and no cached answers), timing the first verdict and the
   last one from the command's start (answer times read back from the result file).
3. The share of the limit: the answers' own token counts at the measured speeds give
   the time the CPU needs at the least; divided by the time the answers took.
4. The estimate before the run against the real time (issue: within +-30%).

Quit other work first: timings on a shared 2-core machine mean little.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def llama_speed(threads: int) -> tuple[float, float]:
    """(prompt tokens/s, generated tokens/s), best of three."""
    from llama_cpp import Llama

    from resume_auditor.providers.local import find_gguf

    llm = Llama(
        model_path=str(find_gguf()),
        n_ctx=4096,
        n_threads=threads,
        n_threads_batch=threads,
        flash_attn=True,
        verbose=False,
    )
    text = (ROOT / "resources" / "sample" / "job.md").read_text() * 3
    prompt = llm.tokenize(text.encode())[:500]
    best_pp = best_gen = 0.0
    for _ in range(3):
        llm.reset()
        t = time.perf_counter()
        llm.eval(prompt)
        best_pp = max(best_pp, len(prompt) / (time.perf_counter() - t))
        t = time.perf_counter()
        for _ in range(60):  # one token at a time, as generation decodes (no sampling cost)
            llm.eval(prompt[-1:])
        best_gen = max(best_gen, 60 / (time.perf_counter() - t))
    return best_pp, best_gen


def _when(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def main(argv: list[str]) -> int:
    from resume_auditor.providers.local import LocalModelServer

    study = Path(argv[1]) if len(argv) > 1 else ROOT / "resources" / "sample" / "quick.toml"
    threads = LocalModelServer().threads
    pp, gen = llama_speed(threads)
    print(
        f"llama.cpp on this machine ({threads} threads): {pp:.0f} prompt tokens/s, "
        f"{gen:.0f} generated tokens/s"
    )

    tmp = Path(tempfile.mkdtemp(prefix="ra-quick-"))
    out = tmp / "quick.audit"
    env = {**os.environ, "RESUME_AUDITOR_DATA_DIR": str(tmp / "data")}
    start = time.time()
    proc = subprocess.run(
        [sys.executable, "-m", "resume_auditor", "audit", str(study), "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    end = time.time()
    if proc.returncode != 0:
        print(proc.stdout[-2000:], proc.stderr[-2000:])
        return 1
    estimate = re.search(r"Time: about (\d+) (min|s)", proc.stdout + proc.stderr)
    db = sqlite3.connect(f"file:{out}?mode=ro", uri=True)
    times, tokens_in, tokens_out = zip(
        *db.execute("SELECT received_at, input_tokens, output_tokens FROM response"), strict=True
    )
    first_sent = min(_when(r[0]) for r in db.execute("SELECT sent_at FROM request") if r[0])
    first, last = min(map(_when, times)), max(map(_when, times))
    n = len(times)
    answering = last - first_sent
    needed = sum(tokens_in) / pp + sum(tokens_out) / gen
    print(f"{study.name}: {n} answers")
    print(f"  first verdict {first - start:.1f} s after the command started")
    print(f"  last verdict  {last - start:.1f} s after (command ended at {end - start:.1f} s)")
    print(
        f"  answering: {answering:.1f} s = {n / answering:.3f} requests/s "
        f"({answering / n:.2f} s each; {sum(tokens_in) / n:.0f} prompt and "
        f"{sum(tokens_out) / n:.0f} generated tokens on average)"
    )
    print(
        f"  the CPU needs at least {needed:.1f} s for these tokens at llama.cpp's speed: "
        f"the app runs at {needed / answering:.0%} of the limit"
    )
    if estimate:
        value = float(estimate.group(1)) * (60 if estimate.group(2) == "min" else 1)
        print(
            f"  estimate before the run: {value:.0f} s ({value / answering - 1:+.0%} "
            "against the answering time)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
