"""What a run tells its listeners: status snapshots and committed answers.

Both are frozen dataclasses sent from the runner's thread; the UI copies them to
its own thread on a timer (ui/run_controller.py). Fields are only ever added,
with defaults, so older listeners keep working.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from resume_auditor.domain.case import Label


class RunState(StrEnum):
    STARTING = "starting"
    RUNNING = "running"
    PAUSED = "paused"  # by the user, or by the budget cap (budget_reached)
    CANCELLED = "cancelled"
    FINISHED = "finished"
    STOPPED = "stopped"  # stopped by an error every request would hit


@dataclass(frozen=True)
class RunStatus:
    state: RunState
    total: int
    done: int
    failed: int
    in_flight: int
    invalid: int
    input_tokens: int
    output_tokens: int
    elapsed_s: float
    eta_s: float | None
    message: str = ""
    # Spend so far on this run, in US dollars, from the answers' usage and the
    # price table (None: this model has no price in the table).
    cost_usd: float | None = 0.0
    budget_usd: float | None = None  # the cap, if one is set
    budget_reached: bool = False  # the run paused because the next request would pass it
    cached_tokens: int = 0  # prompt tokens the provider billed at its cached rate
    reasoning_tokens: int = 0  # hidden reasoning, inside output_tokens
    cache_hits: int = 0  # answers served from the shared response cache (free)
    refused: int = 0  # answers in which the model refused (kept, counted as invalid)
    reasked: int = 0  # unreadable answers asked once more
    skipped: int = 0  # requests an early stop left out
    rate_limit_waits: int = 0  # requests that waited for the provider's rate limit
    rate_limited_s: float = 0.0  # seconds spent waiting for it, all requests together
    throttled_s: float = 0.0  # how long the next request would wait right now
    rpm_limit: float | None = None  # requests/min in force (configured or from headers)
    tpm_limit: float | None = None  # tokens/min in force
    batch_message: str = ""  # where a provider batch stands, in words
    batched: int = 0  # requests waiting inside provider batches
    # Requests allowed at once right now: learnt from the provider's answers (it
    # grows until the rate limit holds the run back, halves on a 429), never above
    # the user's ceiling `concurrency_ceiling`.
    concurrency: int = 0
    concurrency_ceiling: int = 0
    shared: int = 0  # answers shared with an identical request sent once (free)
    # Requests sent and not yet answered: never more than `concurrency`. (`in_flight`
    # also counts requests of this run still waiting for their turn to be sent.)
    at_provider: int = 0
    # Sends the provider may have answered and billed without the answer arriving (a
    # stall past its bound, a cut-off or dropped answer, a stop's abort, in flight at
    # an abrupt end): each may be a request paid twice. `unseen_before` are those found
    # at the start of this session (the last one ended abruptly with them in flight).
    maybe_paid_twice: int = 0
    unseen_before: int = 0
    stalls: int = 0  # requests treated as stalled (past the learnt bound) this session
    hedged: int = 0  # copies sent early at the run's tail (Runner `hedge`), this session
    # answers of the run whose token counts (and so cost_usd's share) are estimates:
    # the provider sent them without counts (parsed.tokens_estimated)
    estimated_usage: int = 0
    pacing: bool = False  # the app is holding requests to keep under the rate limit now

    @property
    def remaining(self) -> int:
        return self.total - self.done - self.failed - self.skipped


@dataclass(frozen=True)
class Answer:
    """One committed response, for live views.

    `label` is the pairwise reading (first/second/abstain/invalid) for pairwise
    kinds. Requests of other kinds have `pair_id` None and carry INVALID or
    ABSTAIN there only as a fallback: read `kind`, `value` and `parsed` instead.
    """

    request_id: int
    pair_id: int | None
    order: str
    label: Label
    justification: str
    kind: str = "pairwise_abstain"
    value: str = ""  # the kind's label: first, yes, "4", ok, ranked, invalid...
    parsed: dict[str, Any] = field(default_factory=dict)
    source: str = "api"  # api | cache | batch
    cost_usd: float | None = 0.0
    notes: tuple[str, ...] = ()  # e.g. a setting the model refused
    variants: tuple[int, ...] = ()
    cell: str = ""  # the request's cell ("D2 black_woman"): names its design
    model: str = ""  # the model that answered, when several run at once (ui/run_controller.py)


Event = RunStatus | Answer
