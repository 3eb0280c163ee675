"""How much prompt the bundled model must read per request, and what that allows.

Run: .venv/bin/python benchmarks/local_prefill.py [STUDY] [--pp TOK/S] [--gen TOK/S]

llama.cpp keeps the previous request's prompt in its KV cache and reads only what
follows the longest common prefix (llama_cpp.Llama.generate), so with one request at
a time the cost of a request is its tokens after the prefix it shares with the one
before. This builds the study's requests (`resume-auditor audit --prepare-only`, in a
temporary folder, nothing sent), tokenizes each as the server's chat template lays it
out, and prints:

- prompt tokens in all, and tokens to read in the app's send order (request id);
- the same in the best order a scheduler could pick (sorted by tokens: neighbours
  share the longest prefixes), i.e. what reordering could still save;
- with prompt/generation speeds (defaults: this machine's quiet figures from
  benchmarks/quick_demo.py) and the output tokens the estimate expects, the least
  time per request this CPU needs: the ceiling on requests per second.

Counts tokens, not seconds: the same on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def chatml(body: dict[str, object]) -> str:
    """The prompt as SmolLM2's chat template (ChatML) lays it out for the server."""
    parts = []
    if body.get("system"):
        parts.append(f"<|im_start|>system\n{body['system']}<|im_end|>\n")
    parts.append(f"<|im_start|>user\n{body['user']}<|im_end|>\n")
    return "".join(parts) + "<|im_start|>assistant\n"


def to_read(sequences: list[list[int]]) -> int:
    total, previous = 0, []
    for tokens in sequences:
        shared = 0
        for a, b in zip(previous, tokens, strict=False):
            if a != b:
                break
            shared += 1
        total += len(tokens) - shared
        previous = tokens
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("study", nargs="?", default=str(ROOT / "resources" / "sample" / "quick.toml"))
    ap.add_argument("--pp", type=float, default=270.0, help="prompt tokens/s (quick_demo.py)")
    ap.add_argument("--gen", type=float, default=74.0, help="generated tokens/s (quick_demo.py)")
    opts = ap.parse_args()

    from llama_cpp import Llama

    from resume_auditor.providers.local import find_gguf
    from resume_auditor.store.packing import unpack

    exe = Path(sys.executable).with_name("resume-auditor")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "plan.audit"
        env = dict(os.environ, XDG_DATA_HOME=f"{tmp}/data", XDG_CACHE_HOME=f"{tmp}/cache")
        done = subprocess.run(
            [str(exe), "audit", opts.study, "--out", str(out), "--prepare-only"],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(done.stderr[-800:])
            return 1
        with sqlite3.connect(out) as db:
            rows = db.execute("SELECT id, body FROM request ORDER BY id").fetchall()
    llm = Llama(model_path=str(find_gguf()), vocab_only=True, verbose=False)
    bodies = [unpack(body) for _, body in rows]
    sequences = [llm.tokenize(chatml(b).encode(), special=True) for b in bodies]
    out_tokens = sum(int(b.get("max_tokens") or 0) for b in bodies)
    total = sum(len(s) for s in sequences)
    in_order = to_read(sequences)
    best = to_read(sorted(sequences))
    n = len(sequences)
    print(f"{n} requests, {total:,} prompt tokens")
    print(f"to read in send order: {in_order:,} ({100 * (1 - in_order / total):.0f}% reused)")
    print(f"to read in the best order: {best:,} (reordering would save {in_order - best:,})")
    expected_out = 0.5 * out_tokens  # the estimate's usual share of max_tokens; see below
    least = in_order / opts.pp + expected_out / opts.gen
    print(
        f"least CPU time at {opts.pp:.0f} prompt tok/s and {opts.gen:.0f} generated tok/s, "
        f"with half of max_tokens ({out_tokens:,}) generated: {least:.0f} s, "
        f"{least / n:.1f} s a request, at most {n / least:.2f} requests/s"
    )
    print(
        f"prompt reading alone: {in_order / opts.pp / n:.1f} s a request "
        f"(at most {n * opts.pp / in_order:.2f} requests/s even with one-token answers)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
