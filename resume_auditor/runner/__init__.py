"""The one owner of concurrency: scheduling, rate limits, retries, cache, cost, batches.

- runner.py — Runner: sends a run's requests, records every answer (docs/runner.md)
- events.py — RunStatus and Answer, what listeners see
- answering.py — read, price, commit and cache one answer
- ratelimit.py — requests/min and tokens/min, from settings and response headers
- window.py — how many requests at once, learnt from the provider (AIMD)
- prices.py, tokens.py, estimate.py — the price table, token counts, the pre-run estimate
- batch.py, batch_openai.py, batch_anthropic.py — provider batch APIs
- early_stop.py — skip the rest of a cell once its interval is narrow enough
"""

from resume_auditor.runner.events import Answer, Event, RunState, RunStatus
from resume_auditor.runner.runner import Runner

__all__ = ["Answer", "Event", "RunState", "RunStatus", "Runner"]
