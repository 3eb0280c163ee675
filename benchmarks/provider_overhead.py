"""What each wire format costs on this machine, with the model taken out of the picture.

Run: .venv/bin/python benchmarks/provider_overhead.py [N_REQUESTS] [CONCURRENCY]

For every provider, sends N requests (default 400) at the given concurrency
(default 8) to the loopback provider simulator, which answers at once, with a
resume-sized prompt (about 2,500 tokens) and log-probabilities asked for. Prints
requests/s and the median and 95th-percentile round trip. The numbers bound the
app's own share of a request (build the body, send, parse, normalise
log-probabilities, check the capability memory); a real API adds its model time
on top. Every request must succeed, or the script says so and exits 1.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from resume_auditor.providers.base import ChatRequest, ProviderError
from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.providers.registry import make_provider

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped
from devtools.simulator import Simulator  # noqa: E402

PROVIDERS = ("openai", "anthropic", "gemini", "openrouter", "azure", "openai-compatible")
RESUME = ("Led a team of five analysts; built SQL reporting pipelines; " * 90).strip()
USER = f"Resume 1: {RESUME}\nResume 2: {RESUME[:-200]}\nJob description: Data analyst."


async def _one_provider(pid: str, sim: Simulator, n: int, concurrency: int) -> list[float]:
    provider = make_provider(
        pid,
        base_url=sim.url_for(pid),
        api_key="bench-key-0123456789",
        capabilities=CapabilityCache(Path(tempfile.mkdtemp()) / "caps.json"),
    )
    request = ChatRequest("sim-model", "You screen resumes.", USER, top_logprobs=5)
    sem = asyncio.Semaphore(concurrency)
    times: list[float] = []

    async def one() -> None:
        async with sem:
            t0 = time.perf_counter()
            await provider.chat(request)
            times.append(time.perf_counter() - t0)

    try:
        await asyncio.gather(*(one() for _ in range(n)))
    finally:
        await provider.aclose()
    return times


def main(argv: list[str]) -> int:
    n = int(argv[1]) if len(argv) > 1 else 400
    concurrency = int(argv[2]) if len(argv) > 2 else 8
    print(f"{n} requests per provider, {concurrency} at once, prompt {len(USER)} characters")
    print(f"{'provider':<18} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8}")
    with Simulator(api_key="bench-key-0123456789") as sim:
        for pid in PROVIDERS:
            started = time.perf_counter()
            try:
                times = asyncio.run(_one_provider(pid, sim, n, concurrency))
            except ProviderError as exc:
                print(f"{pid}: a request failed: {exc}")
                return 1
            elapsed = time.perf_counter() - started
            q = statistics.quantiles(times, n=20)
            print(f"{pid:<18} {n / elapsed:>8.0f} {q[9] * 1000:>8.1f} {q[18] * 1000:>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
