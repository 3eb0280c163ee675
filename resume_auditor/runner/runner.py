"""The one owner of concurrency: sends an audit's requests, records every answer.

A `Runner` works in its own thread with its own asyncio loop and its own
connection to the result file. It reads the open requests a page at a time,
serves what the shared response cache already has (free, and said so), sends a
body that several requests ask only once and shares the answer (single flight),
and sends the rest with as many in flight as the provider allows — a window that
grows until the provider's limits hold it back and halves on a 429 (window.py),
never above the user's ceiling — paced under the requests/min and tokens/min
limits (configured, or learnt from the rate-limit headers). Each request is
marked sent before it goes out and back to pending while it waits to retry, and
each answer is committed before it is counted, so after a crash — even
`kill -9` — a run resumes with only the requests that have no answer, and only
those that were at the provider can have been answered unseen. A 429 re-queues
the request after its retry-after and uses up no retry; other retryable failures
are retried a bounded number of times; an error every request would hit (a wrong
key, no credit) stops the run after the answers already on their way are in. A
budget cap pauses the run before a request could pass it.

The UI and the CLI only see `RunStatus` snapshots and `Answer` events through a
callback; pause, resume and cancel are thread-safe and take effect within a
second. Batch mode (provider batch APIs at their discount) is in batch.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import logging
import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from resume_auditor.prompts import INVALID, KINDS
from resume_auditor.providers.base import (
    RETRYABLE,
    ChatRequest,
    ChatResponse,
    ErrorKind,
    Provider,
    ProviderError,
)
from resume_auditor.providers.capabilities import REASONING_HEADROOM_TOKENS, model_traits
from resume_auditor.providers.streaming import PULSE, Pulse
from resume_auditor.runner import limits_memory, speed_memory
from resume_auditor.runner.answering import (
    Parser,
    Recorder,
    RunIdentity,
    request_from_body,
)
from resume_auditor.runner.early_stop import EarlyStop
from resume_auditor.runner.events import Answer, Event, RunState, RunStatus
from resume_auditor.runner.latency import LatencyModel
from resume_auditor.runner.prices import PriceTable
from resume_auditor.runner.ratelimit import Limiter, RateLimiter
from resume_auditor.runner.tokens import body_input_tokens
from resume_auditor.runner.window import AUTO_CEILING, INITIAL, ConcurrencyWindow
from resume_auditor.store.cache import ResponseCache
from resume_auditor.store.packing import pack
from resume_auditor.store.resultfile import PendingRequest, ResultFile

if TYPE_CHECKING:
    from resume_auditor.runner.batch import BatchOptions

logger = logging.getLogger(__name__)

# Errors after which every other request would fail the same way: stop the run.
# (Kept for callers; the runner asks ProviderError.fatal, which also covers TLS.)
FATAL = {ErrorKind.AUTH, ErrorKind.QUOTA, ErrorKind.NOT_FOUND, ErrorKind.TLS}
PAGE = 256  # open requests read from the file at a time
REASK_REMINDER = "\n\nReminder: give your final answer exactly in the format requested above."
# 429s in a row after which one request is given up (each honoured its retry-after
# and shrank the window; it is tried again on resume). Never reached by a limit the
# runner can learn.
MAX_RATE_LIMITED = 30
NOTE_S = 3.0  # how long a passing event (a 429, a retry) stays on the status line
# Requests a learnt window keeps at the provider at least, over what the rate limit and
# the model's answer time need (Little's law: rate x time per answer): the pace keeps the
# run under the limit, so a 429 need not cut the window below what the limit allows.
LITTLE_MARGIN = 1.25
# While a request's class has no learnt stall bound yet, how often its wait looks
# again at the bound learnt meanwhile (_race).
RELEARN_S = 1.0
# Copies of one stalled request sent while its first send may still answer (_race).
MAX_HEDGES = 2
# The longest a stop waits for answers on their way (drain_s): under the 10 s that
# `docker stop` (and most service managers by default) allow before they kill.
DRAIN_MOST_S = 10.0

__all__ = ["FATAL", "Answer", "Event", "RunState", "RunStatus", "Runner", "backoff_delay"]


def backoff_delay(attempt: int, rng: random.Random, base: float = 1.0, cap: float = 60.0) -> float:
    """Random exponential back-off: ~1 s, 2 s, 4 s ... capped at 60 s."""
    return float(min(cap, base * (2**attempt)) * (0.5 + rng.random() / 2))


def body_key(req: PendingRequest) -> tuple[str, int]:
    """What makes two requests of a run the same: the stored body (as the result file
    hashes it, `body_sha256`) and the sample number."""
    return hashlib.sha256(pack(req.body)).hexdigest(), req.rep


@dataclass
class _Flight:
    """One body on its way for every request that asks it (single flight)."""

    leader: int  # the request that is sent (and paid)
    done: asyncio.Event = field(default_factory=asyncio.Event)
    outcome: ChatResponse | ProviderError | None = None  # an answer, or a refusal with a body
    failure: tuple[str, str] | None = None  # (kind, message) it failed with


@dataclass
class _Race:
    """How often one request stalled and was sent once more (over its retries)."""

    stalls: int = 0
    hedges: int = 0  # copies sent, early ones included
    early: int = 0  # copies sent before it was judged stalled (`hedge`)


class _Slot:
    """A request's place in the concurrency window, given back while it waits to retry."""

    def __init__(self, window: ConcurrencyWindow, owner: object) -> None:
        self.window = window
        self.owner = owner
        self.held = True

    def release(self) -> None:
        if self.held:
            self.held = False
            self.window.release(self.owner)


@dataclass
class _Counters:
    total: int = 0
    done: int = 0
    failed: int = 0
    invalid: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = 0.0
    cache_hits: int = 0
    shared: int = 0
    refused: int = 0
    reasked: int = 0
    skipped: int = 0
    batched: int = 0
    in_flight: int = 0
    reserved: float = 0.0  # worst-case cost of the requests in flight
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=50))
    # the model's own answers (not cache hits or shared ones) and when the last came,
    # for the pace remembered for the next estimate (speed_memory)
    paid: int = 0
    paid_input_tokens: int = 0
    paid_output_tokens: int = 0
    last_paid_at: float = 0.0
    maybe_paid_twice: int = 0  # sends whose answer may have been billed but never came
    unseen_before: int = 0  # of those, in flight when the last session ended abruptly
    stalls: int = 0
    hedged: int = 0  # copies sent early at the run's tail (`hedge`): each may be paid twice
    estimated_usage: int = 0  # answers whose token counts (and cost) are estimates


class Runner:
    def __init__(
        self,
        result_path: str | Path,
        run_id: int,
        provider_factory: Callable[[], Provider],
        parse: Parser | None = None,
        *,
        concurrency: int | None = None,
        adaptive: bool = True,
        timeout_s: float = 120.0,
        max_retries: int = 5,
        on_event: Callable[[Event], None] | None = None,
        cancel_grace_s: float = 0.5,
        seed: int | None = None,
        limiter: Limiter | None = None,
        budget_usd: float | None = None,
        prices: PriceTable | None = None,
        use_cache: bool = True,
        cache_path: str | Path | None = None,
        reask_invalid: bool = False,
        early_stop: EarlyStop | None = None,
        batch: BatchOptions | None = None,
        hedge: float = 0.0,
        window: ConcurrencyWindow | None = None,
        spend: Callable[[], float] | None = None,
    ) -> None:
        """
        concurrency: the most requests at once (None or 0: no ceiling of the user's,
            AUTO_CEILING). Below it the number follows the provider (window.py).
        adaptive: False keeps exactly `concurrency` at once (a local model).
        parse: a pairwise reader that overrides the kind's own for pairwise_abstain
            requests (None: every kind is read by prompts.read_answer).
        limiter: requests/min and tokens/min (make one with the provider's limits;
            it also learns them from the answers' headers when it sees them).
        budget_usd: pause before a request could take spend past this.
        prices: the price table for spend and the budget (None: only free
            providers are priced).
        use_cache, cache_path: serve identical requests from the shared response
            cache (default file in the data folder) and add new answers to it.
        reask_invalid: ask once more, with a format reminder, when an answer
            cannot be read; both answers are kept.
        early_stop: skip the rest of a cell once its interval is narrow enough.
        batch: send through the provider's batch API instead (batch.py).
        hedge: the share of the run's requests (0.02: up to 2 in 100) that may have a
            copy sent *before* they are judged stalled, at the run's tail only (nothing
            is left waiting for its first send), once their silence passes what 99% of
            their kind took (latency.py `hedge_after`). It buys a shorter tail with
            money: the provider may bill both sends, and each copy is counted in
            `RunStatus.hedged` and as maybe paid twice. 0 (the default): never; a copy
            then goes only at the stall bound. A budget cap still holds every copy.
        window: a concurrency window shared with other runs of the same provider or
            machine (runner/group.py); `concurrency` and `adaptive` are then its own.
        spend: what every run under the same budget has spent and reserved (a group of
            runs shares one budget, group.py); None: this run's own spend.
        cancel_grace_s: how long a cancel waits for answers already on their way
            before it aborts the rest (they go back to the queue, unpaid answers
            are never waited for): Cancel must be done within a second.
        """
        self.result_path = Path(result_path)
        self.run_id = run_id
        self._provider_factory = provider_factory
        self._parse = parse
        self.window = window or ConcurrencyWindow(concurrency or AUTO_CEILING, adaptive=adaptive)
        self._spend = spend
        self._timeout_s = timeout_s
        self.latency = LatencyModel(timeout_s)
        # A passing event for the status line (a 429, a retry) and until when it shows.
        self._note = ("", 0.0)
        # request id -> sends that may have been billed unseen (store.unseen_sends)
        self._unseen: dict[int, int] = {}
        self._failure_summary = ""
        # the window jumped to what the limit needs (_update_floor): 0 not yet, 1 on the
        # first answers' time, 2 on the learnt time
        self._jumped = 0
        self.left_sent = 0  # requests still marked sent when the run ended (0 when orderly)
        self._max_retries = max_retries
        self._on_event = on_event or (lambda _e: None)
        self._cancel_grace_s = cancel_grace_s
        self._grace_s = cancel_grace_s  # this stop's grace (cancel(grace_s=...))
        self._hurry = threading.Event()  # a second cancel: stop waiting for answers
        self._rng = random.Random(seed)
        self.limiter = limiter or RateLimiter(smooth=True)
        self._budget = budget_usd
        self._prices = prices
        self._use_cache = use_cache
        self._cache_path = cache_path
        self._reask = reask_invalid
        self._early_stop = early_stop
        self._batch = batch
        if not 0.0 <= hedge <= 1.0:
            raise ValueError(f"hedge is a share of the requests, 0 to 1 (got {hedge})")
        self._hedge = hedge
        self._feed_over = False  # every open request has had its first send (the tail)
        # every send at the provider now: its signs of life, kind, size and race (drain_s)
        self._flying: dict[asyncio.Future[ChatResponse], tuple[Pulse, str, int, _Race]] = {}
        self._cancel = threading.Event()
        # The running loop and its stop event, so cancel() wakes the run at once
        # instead of at the watcher's next poll.
        self._wake: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None
        self._resume = threading.Event()
        self._resume.set()
        self._thread: threading.Thread | None = None
        self.counters = _Counters()
        self._state = RunState.STARTING
        self._message = ""
        self._batch_message = ""
        self._budget_blocked = False
        self._draining = False  # a fatal error: no new requests, in-flight ones finish
        self._started = 0.0
        self._dispatch_started = 0.0  # when the first request could go out (pace memory)
        self.worst_case: Callable[[dict[str, Any]], float] | None = None
        self.final_status: RunStatus | None = None

    # -- control (any thread) ----------------------------------------------------

    def start(self) -> None:
        """Run in a background thread; events arrive through `on_event` from that thread."""
        if self._thread is not None:
            raise RuntimeError("this runner was already started")
        self._thread = threading.Thread(target=self.run, name="audit-runner", daemon=True)
        self._thread.start()

    def pause(self) -> None:
        self._resume.clear()
        self.set_state(RunState.PAUSED)

    def resume(self) -> None:
        if self._state is RunState.PAUSED and not self._budget_blocked:
            self.set_state(RunState.RUNNING)
        self._resume.set()

    def cancel(self, grace_s: float | None = None) -> None:
        """Stop: answers on their way get `grace_s` (default `cancel_grace_s`) to come in,
        then the rest go back to the queue. Called again, it stops waiting for them."""
        if self._cancel.is_set():
            self._hurry.set()
        elif grace_s is not None:
            self._grace_s = grace_s
        self._cancel.set()
        self._resume.set()
        wake = self._wake
        if wake is not None:
            loop, stop = wake
            with contextlib.suppress(RuntimeError):  # the loop has already ended
                loop.call_soon_threadsafe(stop.set)

    def set_budget(self, budget_usd: float | None) -> None:
        """Raise (or remove) the budget cap; a run paused by the cap goes on if it fits."""
        self._budget = budget_usd

    @property
    def budget(self) -> float | None:
        return self._budget

    @property
    def state(self) -> RunState:
        return self._state

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def set_batch_message(self, message: str) -> None:
        self._batch_message = message
        self.emit(self.status())

    def end_cancelled(self, message: str) -> None:
        self._state = RunState.CANCELLED
        self._message = message

    def pause_for_budget(self) -> None:
        self._budget_blocked = True
        self.set_state(RunState.PAUSED, self.budget_message())

    def join(self, timeout: float | None = None) -> bool:
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- the run -------------------------------------------------------------------

    def run(self) -> RunStatus:
        """Run to the end in the calling thread (the CLI's way); returns the final status."""
        return asyncio.run(self.run_async())

    async def run_async(self) -> RunStatus:
        """Run to the end on the running event loop (a group of runs shares one, group.py);
        returns the final status."""
        try:
            await self._main()
        except Exception as exc:  # never leave the caller without a final status
            logger.exception("the run stopped on an unexpected error")
            self._message = f"The run stopped on an unexpected error: {exc}"
            self._state = RunState.STOPPED
        status = self.status()
        self.final_status = status
        self.emit(status)
        return status

    def status(self) -> RunStatus:
        c = self.counters
        elapsed = time.monotonic() - self._started if self._started else 0.0
        eta = None
        remaining = c.total - c.done - c.failed - c.skipped
        if len(c.recent) >= 2 and remaining > 0:
            span = c.recent[-1] - c.recent[0]
            if span > 0:
                eta = remaining / ((len(c.recent) - 1) / span)
        limits = self.limiter.state()
        pacing = self._state is RunState.RUNNING and limits.waiting_s > 0.0
        return RunStatus(
            state=self._state,
            total=c.total,
            done=c.done,
            failed=c.failed,
            in_flight=c.in_flight,
            at_provider=self.window.at_provider,
            invalid=c.invalid,
            input_tokens=c.input_tokens,
            output_tokens=c.output_tokens,
            elapsed_s=elapsed,
            eta_s=eta,
            message=self._status_message(pacing),
            cost_usd=c.cost,
            budget_usd=self._budget,
            budget_reached=self._budget_blocked,
            cached_tokens=c.cached_tokens,
            reasoning_tokens=c.reasoning_tokens,
            cache_hits=c.cache_hits,
            refused=c.refused,
            reasked=c.reasked,
            skipped=c.skipped,
            rate_limit_waits=limits.waits,
            rate_limited_s=limits.waited_s,
            throttled_s=limits.waiting_s,
            rpm_limit=limits.rpm,
            tpm_limit=limits.tpm,
            batch_message=self._batch_message,
            batched=c.batched,
            concurrency=self.window.limit,
            concurrency_ceiling=self.window.ceiling,
            shared=c.shared,
            maybe_paid_twice=c.maybe_paid_twice,
            unseen_before=c.unseen_before,
            stalls=c.stalls,
            hedged=c.hedged,
            estimated_usage=c.estimated_usage,
            pacing=pacing,
        )

    def _status_message(self, pacing: bool) -> str:
        """What the status line says: why the run stopped or paused, else what is happening
        now (a 429 or a retry for a few seconds, the app's own pacing), in words that match
        the state: pacing is the app keeping itself under the limit, never "the provider's
        rate limit was reached"."""
        if self._message or self._state is not RunState.RUNNING:
            return self._message
        note, until = self._note
        if note and time.monotonic() < until:
            return note
        if pacing:
            rpm = self.limiter.rpm
            limit = f" of {rpm:,.0f} requests/min" if rpm else ""
            return f"Pacing to the limit{limit}."
        return ""

    def drain_s(self, most_s: float = DRAIN_MOST_S) -> float:
        """How long a stop waits for the answers on their way: until every send at the
        provider now has answered or has been silent past its own stall bound (the
        learnt bound of its kind, size and phase, latency.py: past it, it is judged
        stalled and would not come), at least `cancel_grace_s` and at most `most_s`.

        So the grace follows what is in flight, not a run-wide figure: a send just
        gone out gets its class's whole bound, one about to be judged stalled gets
        nothing more, and a provider that slowed down (a loaded machine, a queue)
        has taught longer bounds. Before a class is learnt its bound is the run's
        timeout, so the grace is `most_s`; the stop ends as soon as the answers are
        in. `most_s` (10 s) stays under the time `docker stop` and most service
        managers allow before they kill; a second signal stops waiting at once."""
        try:
            left = self._drain_left()
        except RuntimeError:  # the runner's thread changed what this one was reading
            left = most_s
        if left is None:
            return self._cancel_grace_s
        return max(self._cancel_grace_s, min(most_s, left))

    def _drain_left(self) -> float | None:
        """Seconds until every send at the provider is answered or past its stall bound
        (None: nothing at the provider). Read from another thread (a signal handler)
        it may meet a table the runner's thread is changing: `drain_s` catches that."""
        flying = list(self._flying.values())
        if not flying:
            return None
        now = time.monotonic()
        return max(
            0.0,
            max(
                silent_since(pulse)
                + self.latency.bound(kind, tokens, race.stalls, writing=pulse.writing)
                - now
                for pulse, kind, tokens, race in flying
            ),
        )

    def note(self, text: str, seconds: float = NOTE_S) -> None:
        """Show a passing event on the status line for `seconds` (at least NOTE_S)."""
        self._note = (text, time.monotonic() + max(NOTE_S, seconds))

    def emit(self, event: Event) -> None:
        try:
            self._on_event(event)
        except Exception:  # a broken listener must not break the run
            logger.exception("run event listener failed")

    def set_state(self, state: RunState, message: str | None = None) -> None:
        self._state = state
        if message is not None:
            self._message = message
        self.emit(self.status())

    def _load_counters(self, store: ResultFile) -> None:
        p = store.progress(self.run_id)
        c = self.counters
        c.total, c.done, c.invalid, c.skipped = p.total, p.done, p.invalid, p.skipped
        c.failed = p.failed
        c.input_tokens, c.output_tokens = p.input_tokens, p.output_tokens
        c.cached_tokens, c.reasoning_tokens = p.cached_tokens, p.reasoning_tokens
        c.cost, c.cache_hits, c.refused, c.batched = p.cost_usd, p.cache_hits, p.refused, p.batched
        c.estimated_usage = p.estimated_usage

    def _open_cache(self) -> ResponseCache | None:
        if not self._use_cache:
            return None
        try:
            return ResponseCache(self._cache_path)
        except Exception as exc:  # a cache must never stop a run
            logger.warning("the response cache cannot be used: %s", exc)
            return None

    async def _main(self) -> None:
        self._started = time.monotonic()
        store = ResultFile(self.result_path)
        cache = self._open_cache()
        provider: Provider | None = None
        identity: RunIdentity | None = None
        try:
            run = next((r for r in store.runs(purpose=None) if r.id == self.run_id), None)
            if run is None:
                self.set_state(RunState.STOPPED, f"This audit has no run {self.run_id}.")
                return
            identity = RunIdentity(run.provider, run.base_url, run.model)
            self._load_counters(store)
            recorder = Recorder(
                store, identity, prices=self._prices, cache=cache, parse=self._parse
            )
            if self._early_stop is not None:
                self._early_stop.load(store, self.run_id)
            if not self._budget_usable(identity):
                return
            open_batches = store.batches(self.run_id, open_only=True)
            if not store.open_count(self.run_id) and not open_batches:
                self._state = RunState.FINISHED  # run() reports it
                self._message = "Nothing to send: every request has an answer."
                return
            self.set_state(RunState.STARTING, "Connecting to the model...")
            try:
                provider = await asyncio.to_thread(self._provider_factory)
            except ProviderError as exc:
                self.set_state(RunState.STOPPED, exc.message)
                return
            self.set_state(RunState.RUNNING, "")
            if self._batch is not None or open_batches:
                from resume_auditor.runner.batch import BatchDriver

                driver = BatchDriver(self, store, recorder, provider, identity, self._batch)
                await driver.run()
            else:
                await self._dispatch(store, recorder, provider)
            self._failure_summary = failure_summary(store.failures(self.run_id))
        finally:
            if provider is not None:
                await provider.aclose()
            if cache is not None:
                cache.close()
            with contextlib.suppress(Exception):  # a courtesy count; the file may be gone
                self.left_sent = len(store.sent_unanswered(self.run_id))
            store.close()
            if identity is not None:
                self._remember_pace(identity)
            if identity is not None and (self.limiter.learned_rpm or self.limiter.learned_tpm):
                limits_memory.remember(
                    identity.provider,
                    identity.base_url,
                    identity.model,
                    self.limiter.learned_rpm,
                    self.limiter.learned_tpm,
                )
        if self._state is RunState.RUNNING:
            self._state = RunState.FINISHED
            self._message = self._failure_summary

    def _remember_pace(self, identity: RunIdentity) -> None:
        """Write down how fast the model answered, for the next run's estimate."""
        c = self.counters
        if not self._dispatch_started or not c.last_paid_at:
            return
        speed_memory.remember(
            identity.provider,
            identity.base_url,
            identity.model,
            speed_memory.Pace(
                answers=c.paid,
                seconds=c.last_paid_at - self._dispatch_started,
                input_tokens=c.paid_input_tokens,
                output_tokens=c.paid_output_tokens,
            ),
        )

    # -- budget --------------------------------------------------------------------

    def _budget_usable(self, run: RunIdentity) -> bool:
        """A budget needs prices: without one for this model the run does not start."""
        if self._budget is None:
            return True
        price = None if self._prices is None else self._prices.lookup(run.provider, run.model)
        free = run.provider in ("local", "openai-compatible")
        if price is None and not free:
            self.set_state(
                RunState.STOPPED,
                f"A budget was set, but the price table has no price for {run.model} "
                f"({run.provider}), so spend cannot be counted. Add the model to prices.toml "
                "in the data folder, or run without a budget.",
            )
            return False
        reasoning = model_traits(_wire(run.provider), run.model).reasoning
        share = 1.0
        if self._batch is not None and self._prices is not None:
            share = self._prices.batch_share(run.provider)

        def worst(body: dict[str, Any]) -> float:
            if price is None:
                return 0.0
            out = int(body.get("max_tokens", 256)) + (REASONING_HEADROOM_TOKENS if reasoning else 0)
            # Token counts before sending are approximate: allow a quarter more.
            usage = (int(body_input_tokens(body, run.provider) * 1.25), out, 0, 0)
            return PriceTable.cost_of(price, usage, batch_share=share)

        self.worst_case = worst
        return True

    def _worst(self, body: dict[str, Any]) -> float:
        """The most this request can cost (0 without a budget: nothing to reserve)."""
        if self._budget is None or self.worst_case is None:
            return 0.0
        return self.worst_case(body)

    def committed(self) -> float:
        """This run's spend and the worst case of its requests in flight."""
        return (self.counters.cost or 0.0) + self.counters.reserved

    def _fits_budget(self, worst: float) -> bool:
        if self._budget is None or self.worst_case is None:
            return True
        committed = self._spend() if self._spend is not None else self.committed()
        return committed + worst <= self._budget

    def budget_message(self) -> str:
        spent = self.counters.cost or 0.0
        if self._spend is not None:
            return (
                f"Paused: the audit's budget of ${self._budget:.2f} for all its models is "
                f"reached (${self._spend():.2f} spent or on its way, ${spent:.2f} of it by "
                "this model; the next request could cost more than what is left). Raise the "
                "budget to go on; nothing is lost."
            )
        return (
            f"Paused: the budget of ${self._budget:.2f} is reached (${spent:.2f} spent; the next "
            "request could cost more than what is left). Raise the budget to go on; "
            "nothing is lost."
        )

    async def gate(self, stop: asyncio.Event, worst: float | None) -> bool:
        """Wait while paused (by the user or the budget); False when the run should stop.

        `worst`: what the request about to go can cost at most (None: not a new request).
        """
        try:
            while not stop.is_set():
                if self._draining:
                    return False
                if not self._resume.is_set():
                    self.window.step_aside(self, True)  # runs sharing it use its share
                    await asyncio.sleep(0.05)
                    continue
                if worst is not None and not self._fits_budget(worst):
                    if not self._budget_blocked:
                        self._budget_blocked = True
                        self.set_state(RunState.PAUSED, self.budget_message())
                    self.window.step_aside(self, True)
                    await asyncio.sleep(0.1)
                    continue
                if self._budget_blocked:
                    self._budget_blocked = False
                    self.set_state(RunState.RUNNING, "")
                return True
            return False
        finally:
            self.window.step_aside(self, False)

    # -- synchronous requests -------------------------------------------------------

    async def _take_slot(self, stop: asyncio.Event) -> bool:
        """A place in the concurrency window; False if the run stops first."""
        window = self.window
        if not stop.is_set() and window.try_take(self):
            return True
        acquire = asyncio.ensure_future(window.acquire(self))
        stopper = asyncio.ensure_future(stop.wait())
        await asyncio.wait({acquire, stopper}, return_when=asyncio.FIRST_COMPLETED)
        stopper.cancel()
        if not acquire.done():
            acquire.cancel()
        await asyncio.gather(acquire, stopper, return_exceptions=True)
        got = acquire.done() and not acquire.cancelled() and acquire.exception() is None
        if got and stop.is_set():
            window.release(self)
            return False
        return got

    def _spawn(self, tasks: set[asyncio.Task[None]], coro: Any) -> None:
        task: asyncio.Task[None] = asyncio.create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    def _find_unseen(self, store: ResultFile) -> None:
        """Requests still marked sent were at the provider when the last session ended
        abruptly (an orderly stop puts them back): they are sent again, and the provider
        may have answered and billed them already. Counted, kept in the file, and said."""
        self._unseen = store.unseen_sends(self.run_id)
        orphans = store.sent_unanswered(self.run_id)
        if not orphans:
            return
        store.note_unseen_sends(self.run_id, orphans)
        for request_id in orphans:
            self._unseen[request_id] = self._unseen.get(request_id, 0) + 1
        c = self.counters
        c.unseen_before = len(orphans)
        c.maybe_paid_twice += len(orphans)
        text = unseen_before_message(len(orphans))
        logger.info("%s", text)
        self.note(text, 10.0)

    async def _dispatch(self, store: ResultFile, recorder: Recorder, provider: Provider) -> None:
        self._dispatch_started = time.monotonic()
        self._find_unseen(store)
        tasks: set[asyncio.Task[None]] = set()
        stop = asyncio.Event()
        watcher = asyncio.create_task(self.watch_cancel(stop))
        self.window.join(self)
        self._wake = (asyncio.get_running_loop(), stop)
        if self._cancel.is_set():
            stop.set()
        # Bodies asked more than once (D2-D4 ask the same about the same text): each is
        # sent once and its answer shared (single flight). Samples (`rep`) differ. With
        # the cache off (--no-cache) every request is asked: the user wants the model's
        # answer each time, not one answer shared across identical prompts.
        duplicates = store.duplicate_bodies(self.run_id) if self._use_cache else set()
        flights: dict[tuple[str, int], _Flight] = {}
        try:
            last_id = 0
            feeding = True
            while feeding:
                page = store.open_requests(self.run_id, after_id=last_id, limit=PAGE)
                if not page:
                    self._feed_over = True  # the run's tail: only retries and copies left
                    self.window.leave(self)  # runs sharing the window may use its share
                    if tasks and not stop.is_set() and not self._draining:
                        # Answers still on their way may queue more (sampled repeats).
                        await asyncio.wait(set(tasks), return_when=asyncio.FIRST_COMPLETED)
                        continue
                    break
                for req in page:
                    last_id = req.id
                    if not await self.gate(stop, None):
                        feeding = False
                        break
                    if self._skip_if_closed(store, req):
                        continue
                    answer = recorder.serve_cached(req)
                    if answer is not None:
                        self.count_answer(
                            req,
                            answer,
                            (0, 0, 0, 0),
                            from_cache=True,
                            was_failed=req.status == "failed",
                        )
                        await asyncio.sleep(0)  # let answers in flight be recorded
                        continue
                    key = body_key(req) if duplicates else None
                    flight: _Flight | None = None
                    if key is not None and key in duplicates:
                        earlier = flights.get(key)
                        if earlier is not None and earlier.outcome is not None:
                            self._share(recorder, req, earlier)
                            await asyncio.sleep(0)
                            continue
                        if earlier is not None and not earlier.done.is_set():
                            self._spawn(tasks, self._follow(recorder, req, earlier, stop))
                            continue
                        flight = _Flight(req.id)
                    if not await self._take_slot(stop):
                        feeding = False
                        break
                    # The budget is checked with a slot in hand, so every request it let
                    # through is already reserved for: spend can never pass the cap.
                    reserve = self._worst(req.body)  # estimated once per request
                    if not await self.gate(stop, reserve):
                        self.window.release(self)
                        feeding = False
                        break
                    if self._skip_if_closed(store, req):  # answers that came in meanwhile
                        self.window.release(self)
                        continue
                    if key is not None and flight is not None:
                        flights[key] = flight
                    self.counters.reserved += reserve
                    self._spawn(tasks, self._one(recorder, provider, req, stop, reserve, flight))
            await self._finish_tasks(tasks, stop)
        finally:
            self.window.leave(self)
            self._wake = None
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
        self._after_dispatch()

    def _after_dispatch(self) -> None:
        if self._cancel.is_set() and self._state is not RunState.STOPPED:
            c = self.counters
            left = c.total - c.done - c.skipped
            self._state = RunState.CANCELLED
            self._message = (
                f"{c.done} answer(s) kept, {left} request(s) left, back in the queue: resume "
                "to send them (nothing answered is sent again)."
            )

    async def _finish_tasks(self, tasks: set[asyncio.Task[None]], stop: asyncio.Event) -> None:
        if not tasks:
            return
        waiter: asyncio.Future[Any] = asyncio.gather(*tasks, return_exceptions=True)
        stopper: asyncio.Future[Any] = asyncio.create_task(stop.wait())
        await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if stop.is_set() and tasks:
            # Give answers already on their way a moment, then let go: at most the grace,
            # and no longer than until every send still out is past its stall bound.
            deadline = time.monotonic() + self._grace_s
            while tasks and not self._hurry.is_set() and time.monotonic() < deadline:
                left = self._drain_left()
                if left is not None and left <= 0.0:
                    break  # what is still out has stalled: it will not come
                await asyncio.wait(set(tasks), timeout=min(0.1, deadline - time.monotonic()))
            for task in list(tasks):
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        stopper.cancel()
        await asyncio.gather(waiter, stopper, return_exceptions=True)

    def _skip_if_closed(self, store: ResultFile, req: PendingRequest) -> bool:
        if self._early_stop is None or not req.cell:
            return False
        reason = self._early_stop.closed(req.cell)
        if reason is None:
            return False
        store.mark_skipped([req.id], reason)
        self.counters.skipped += 1
        if req.status == "failed":
            self.counters.failed -= 1
        return True

    async def watch_cancel(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if self._cancel.is_set():
                stop.set()
                return
            await asyncio.sleep(0.05)

    async def _sleep_unless_stopped(self, delay: float, stop: asyncio.Event) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=delay)

    def count_answer(
        self,
        req: PendingRequest,
        answer: Answer,
        usage: tuple[int, int, int, int],
        *,
        from_cache: bool = False,
        was_failed: bool = False,
    ) -> None:
        """Count an answer that is already committed, and tell the listeners."""
        c = self.counters
        c.done += 1
        if was_failed:
            c.failed -= 1
        c.invalid += answer.value == INVALID
        c.refused += "refused" in answer.parsed
        c.cache_hits += from_cache
        if not from_cache:
            c.estimated_usage += bool(answer.parsed.get("tokens_estimated"))
            c.paid += 1
            c.paid_input_tokens += usage[0]
            c.paid_output_tokens += usage[1]
            c.last_paid_at = time.monotonic()
        c.input_tokens += usage[0]
        c.output_tokens += usage[1]
        c.cached_tokens += usage[2]
        c.reasoning_tokens += usage[3]
        if c.cost is not None:
            c.cost = None if answer.cost_usd is None else c.cost + answer.cost_usd
        c.recent.append(time.monotonic())
        if self._early_stop is not None:
            self._early_stop.observe(req, answer)
        self.emit(answer)
        self.emit(self.status())

    def _share(self, recorder: Recorder, req: PendingRequest, flight: _Flight) -> None:
        """Commit and count the answer an identical request bought (free, marked shared)."""
        assert flight.outcome is not None
        answer = recorder.share(req, flight.leader, flight.outcome)
        self.counters.shared += 1
        self.count_answer(
            req, answer, (0, 0, 0, 0), from_cache=True, was_failed=req.status == "failed"
        )
        self._queue_samples(recorder, req, answer)

    async def _follow(
        self, recorder: Recorder, req: PendingRequest, flight: _Flight, stop: asyncio.Event
    ) -> None:
        """Wait for the identical request on its way; share its answer (or its failure)."""
        waiter = asyncio.ensure_future(flight.done.wait())
        stopper = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            stopper.cancel()
            await asyncio.gather(waiter, stopper, return_exceptions=True)
        if flight.outcome is not None:
            self._share(recorder, req, flight)
        elif flight.failure is not None and not stop.is_set():
            kind, message = flight.failure
            recorder.store.record_failure(
                req.id, kind, f"{message} (the identical request {flight.leader} failed so)"
            )
            self.counters.failed += req.status != "failed"
        # else: the run stopped before an answer came; this one stays in the queue

    async def _one(
        self,
        recorder: Recorder,
        provider: Provider,
        req: PendingRequest,
        stop: asyncio.Event,
        reserve: float,
        flight: _Flight | None,
    ) -> None:
        c = self.counters
        c.in_flight += 1
        was_failed = req.status == "failed"
        slot = _Slot(self.window, self)
        try:
            await self._attempts(recorder, provider, req, stop, was_failed, slot, flight)
        except Exception as exc:  # a bug must not make a request vanish silently
            logger.exception("request %s failed unexpectedly", req.id)
            recorder.store.record_failure(req.id, "internal", f"Unexpected error: {exc}")
            c.failed += not was_failed
            if flight is not None:
                flight.failure = ("internal", f"Unexpected error: {exc}")
        finally:
            c.in_flight -= 1
            c.reserved -= reserve
            slot.release()
            if flight is not None:
                flight.done.set()

    async def _attempts(
        self,
        recorder: Recorder,
        provider: Provider,
        req: PendingRequest,
        stop: asyncio.Event,
        was_failed: bool,
        slot: _Slot,
        flight: _Flight | None,
    ) -> None:
        c = self.counters
        try:
            request = request_from_body(req.body)
        except (KeyError, TypeError, ValueError) as exc:
            message = f"This request's stored body is incomplete ({exc})."
            recorder.store.record_failure(req.id, "bad_request", message)
            c.failed += not was_failed
            if flight is not None:
                flight.failure = ("bad_request", message)
            return
        tokens = body_input_tokens(req.body, recorder.run.provider) + request.max_tokens
        attempt = 0  # failures that count against max_retries (a 429 does not)
        limited = 0  # 429s this request met
        race = _Race()  # stalls past the learnt bound (each doubles the next) and copies sent
        while True:
            # Wait for a place in the window (given back while it waited for a retry),
            # then for the rate limit; a pause holds it before it is sent.
            while True:
                if stop.is_set() or not await self.gate(stop, None):
                    if self._draining and not stop.is_set() and attempt > 0:
                        recorder.store.record_failure(req.id, "stopped", self._message)
                        c.failed += not was_failed
                    return
                if not slot.held:
                    if not await self._take_slot(stop):
                        return
                    slot.held = True
                await self.limiter.acquire(tokens, stop)
                if stop.is_set():
                    return
                if self._resume.is_set() and not self._draining:
                    break  # not paused while it waited for the rate limit
            recorder.store.mark_sent(req.id)  # recorded before it goes out
            number = self.window.on_send()
            try:
                response, took, pulse = await self._race(
                    recorder, provider, request, req, tokens, race
                )
            except ProviderError as exc:
                error = exc
            except BaseException:  # cancelled (the run stops): it is no longer out
                self.window.on_return()
                # No answer came: back in the queue, so `sent` keeps meaning "at the
                # provider now" and a resume sends it again like any pending one. The
                # provider may still finish (and bill) it: counted as such.
                recorder.store.mark_unsent(req.id)
                self._unseen_send(recorder.store, req.id)
                raise
            else:
                out = self.window.at_provider  # it included: was the window full?
                self.window.on_return()
                self.window.on_answer(out)
                self.latency.observe(
                    req.kind, tokens, took, first=pulse.first_wait(), gap=pulse.gap()
                )
                self._update_floor(tokens)
                answer = recorder.accept(req, response, **self._unseen_marks(req.id))
                if flight is not None:
                    flight.outcome = response
                usage = recorder.usage_of(req, response)[0]  # estimated if not given
                # Counted only now that it is committed.
                self.count_answer(req, answer, usage, was_failed=was_failed)
                await self._after_answer(recorder, provider, req, answer, stop)
                return
            self.window.on_return()
            if _maybe_billed(error):
                self._unseen_send(recorder.store, req.id)
            if error.kind is ErrorKind.RATE_LIMIT and not self._draining:
                limited += 1
                if self._requeue_after_429(recorder, req, error, tokens, limited, number):
                    slot.release()  # re-queued: the limiter holds it until the cool-down ends
                    continue
                error = self._never_fits(error, tokens, limited)
            if self._handle_error(recorder, req, error, attempt, was_failed):
                if flight is not None:
                    if error.kind is ErrorKind.REFUSED and error.raw is not None:
                        flight.outcome = error
                    elif self._state is not RunState.STOPPED:
                        flight.failure = (error.kind.value, error.message)
                return
            delay = error.retry_after_s
            if delay is None:
                delay = backoff_delay(attempt, self._rng)
            recorder.store.mark_unsent(req.id)  # not at the provider while it waits
            slot.release()  # its place goes to a request that can be sent now
            self.note(f"{error.message} (retry {attempt + 1} in {delay:.1f} s)", delay)
            self.emit(self.status())
            await self._sleep_unless_stopped(delay, stop)
            attempt += 1

    async def _race(
        self,
        recorder: Recorder,
        provider: Provider,
        request: ChatRequest,
        req: PendingRequest,
        tokens: int,
        race: _Race,
    ) -> tuple[ChatResponse, float, Pulse]:
        """Send; past the stall bound, send once more *without dropping the first*; the
        first answer wins and the other send is let go. (the answer, its own latency,
        its signs of life)

        The bound applies to silence: the time since anything of the answer arrived.
        A streamed answer beats its `Pulse` with every piece, so a slow reasoning
        model that is still writing is never cut, and a connection that died (no
        first byte, or nothing more mid-answer) is found within the bound. An
        unstreamed send is silent until its whole answer arrives: its bound is on
        the total time, as before.

        Dropping a stalled send does not stop a hosted provider from finishing and
        billing it, so abandoning it and sending again pays twice whenever it was only
        slow; keeping it costs nothing more and lets a slow answer still win. A copy
        goes out only within the rate limit and the budget (its worst case must fit),
        at most MAX_HEDGES per request; after that, or without room, the request waits
        out the learnt bound and fails as a timeout (a retry). The bundled model is
        never hedged: a second copy would only take turns with the first.
        """
        started: dict[asyncio.Future[ChatResponse], Pulse] = {}

        def send() -> None:
            # Each send watches its own signs of life: a provider that streams beats the
            # pulse on every piece, so the bound applies to silence, not to total time.
            pulse = Pulse()
            context = contextvars.copy_context()
            context.run(PULSE.set, pulse)
            task = asyncio.get_running_loop().create_task(provider.chat(request), context=context)
            started[task] = pulse
            self._flying[task] = (pulse, req.kind, tokens, race)

        def stalled_at() -> float:
            """When every send still out will have been silent past its bound."""
            return max(
                silent_since(started[t])
                + self.latency.bound(req.kind, tokens, race.stalls, writing=started[t].writing)
                for t in pending
            )

        def hedge_at() -> float | None:
            """When an early copy may go (None: not now, or not at all)."""
            if not self._may_hedge(race) or not self._fits_budget(self._worst(req.body)):
                return None
            at = []
            for t in pending:
                after = self.latency.hedge_after(req.kind, tokens, writing=started[t].writing)
                if after is None:
                    return None
                at.append(silent_since(started[t]) + after)
            return max(at)

        send()
        pending = set(started)
        answered = False
        error: BaseException | None = None
        # sends the caller counts as possibly billed when this ends without an answer:
        # one for a stop (it aborts the request) or a stall timeout (it stands for them)
        caller_counts = 1
        reserved = 0.0  # the worst case of the copies sent, held against the budget
        try:
            while pending:
                now = time.monotonic()
                wait = max(0.0, stalled_at() - now)
                early = hedge_at()
                if early is not None:
                    wait = min(wait, max(0.0, early - now))
                if (
                    self.latency.p99(req.kind, tokens) is None
                    or self._hedge > 0
                    or not all(started[t].writing for t in pending)
                ):
                    # Look again soon: a bound not learnt yet (the long first timeout)
                    # is judged by the bound learnt meanwhile, not held to the timeout
                    # it was sent under; a stream whose first piece arrives is judged by
                    # the gaps between pieces from then on (a shorter bound); and when
                    # early copies are allowed, the run's tail may begin.
                    wait = min(wait, RELEARN_S)
                if self._cancel.is_set():
                    wait = max(wait, 0.1)  # stopping: no copy; wait for the answer or the end
                done, pending = await asyncio.wait(
                    pending, timeout=wait, return_when=asyncio.FIRST_COMPLETED
                )
                newest = list(started)[-1]
                for task in done:
                    exc = task.exception()
                    if exc is None:
                        answered = True
                        pulse = started[task]
                        return task.result(), time.monotonic() - pulse.started, pulse
                    if pending and isinstance(exc, ProviderError) and _maybe_billed(exc):
                        self._unseen_send(recorder.store, req.id)  # a copy is still out
                    error = exc
                if done and newest in done:
                    live = race.early and not race.stalls and pending
                    if live and time.monotonic() < stalled_at():
                        # An early copy failed; the first is still live. Another early
                        # copy may go (within MAX_HEDGES copies for the request).
                        continue
                    # The latest copy failed; the sends still out have stalled already:
                    # a retry (after its back-off) does better than waiting on them.
                    caller_counts = 0  # the caller counts the failed copy, if at all
                    break
                if done:
                    continue  # a stalled send failed while a newer copy is on its way
                now = time.monotonic()
                worst = self._worst(req.body)
                if self._cancel.is_set():
                    continue  # stopping: no copy goes out; the stop's grace decides
                if now < stalled_at():
                    # Live, or not silent long enough to be judged stalled: pieces of a
                    # streamed answer still arrive, however slow. At the run's tail a
                    # user who pays for speed may have an early copy sent (`hedge`).
                    early = hedge_at()
                    if early is None or now < early:
                        continue
                    race.early += 1
                    race.hedges += 1
                    self.counters.hedged += 1
                    logger.info("request %s: an early copy at the tail", req.id)
                    self.note(
                        "A request was slower than 99% of its kind at the end of the run; a "
                        "copy was sent early, as allowed (--hedge): the provider may bill both."
                    )
                else:
                    race.stalls += 1
                    self.counters.stalls += 1
                    if (
                        not self.window.adaptive
                        or race.hedges >= MAX_HEDGES
                        or not self._fits_budget(worst)
                    ):
                        writing = any(started[t].writing for t in pending)
                        error = ProviderError(
                            ErrorKind.TIMEOUT,
                            self._stall_message(req, tokens, race.stalls - 1, writing),
                        )
                        caller_counts = 1
                        break
                    race.hedges += 1
                    bound = self.latency.bound(req.kind, tokens, race.stalls - 1)
                    logger.info(
                        "request %s stalled (copy %d; early copies %d; tail %s; writing %s)",
                        req.id,
                        race.hedges,
                        race.early,
                        self._feed_over,
                        [started[t].writing for t in pending],
                    )
                    self.note(
                        f"A request stalled past {bound:.0f} s; sent once more while the first "
                        "may still answer (the first answer is kept)."
                    )
                reserved += worst
                self.counters.reserved += worst
                await self.limiter.acquire(tokens)  # the copy counts against the limit
                send()
                pending = {t for t in started if not t.done()}
            assert error is not None
            raise error
        finally:
            for task in started:
                self._flying.pop(task, None)
            self.counters.reserved -= reserved
            out = [t for t in started if not t.done()]
            for task in out:
                task.cancel()
            await asyncio.gather(*out, return_exceptions=True)
            # Each send let go may still be finished and billed by the provider; the
            # caller counts one of them when the request is aborted or times out.
            for _ in range(len(out) if answered else max(0, len(out) - caller_counts)):
                self._unseen_send(recorder.store, req.id)

    def _may_hedge(self, race: _Race) -> bool:
        """May this request have a copy sent before it is judged stalled? Only when the
        user allows it (`hedge`, a share of the run's requests), at the run's tail (no
        request is left waiting for its first send: a copy then takes no request's
        place in the limit), within MAX_HEDGES copies for the request (a copy that is
        itself silent past what 99% took may get the second), and never to the
        bundled model (a second copy would only take turns with the first)."""
        if self._hedge <= 0 or not self._feed_over or not self.window.adaptive:
            return False
        if not self._resume.is_set() or self._cancel.is_set():
            return False  # paused or stopping: nothing new goes out
        if race.hedges >= MAX_HEDGES:
            return False
        return self.counters.hedged < math.ceil(self._hedge * max(1, self.counters.total))

    def _stall_message(self, req: PendingRequest, tokens: int, stalls: int, writing: bool) -> str:
        bound = self.latency.bound(req.kind, tokens, stalls, writing=writing)
        p99 = self.latency.p99(req.kind, tokens, writing=writing)
        if p99 is None and writing:
            p99 = self.latency.p99(req.kind, tokens)
        if p99 is None or bound >= self._timeout_s:
            return f"Nothing of the answer arrived for {bound:.0f} s (the timeout); trying again."
        wait = "between two pieces of" if writing else "for the first piece of"
        return (
            f"Nothing of the answer arrived for {bound:.0f} s, far past this model's usual "
            f"wait {wait} such answers (99% within {p99:.1f} s): treated as stalled and sent "
            "again; the provider may bill the first one too."
        )

    def _unseen_send(self, store: ResultFile, request_id: int) -> None:
        """A send whose answer may have been billed but never arrived: kept in the file."""
        store.note_unseen_sends(self.run_id, [request_id])
        self._unseen[request_id] = self._unseen.get(request_id, 0) + 1
        self.counters.maybe_paid_twice += 1

    def _unseen_marks(self, request_id: int) -> dict[str, Any]:
        """What an answer carries when earlier sends of its request may have been paid."""
        sends = self._unseen.get(request_id, 0)
        if not sends:
            return {}
        return {
            "extra_notes": (
                f"Sent {sends} time(s) before without the answer arriving (in flight when "
                "the app stopped, stalled, cut off or dropped): the provider may have billed "
                "those too.",
            ),
            "extra_parsed": {"may_be_paid_twice": sends},
        }

    def _update_floor(self, tokens: int) -> None:
        """Keep at least what the known rate limit and the answer time need at once.

        The window jumps to that need as soon as the first window's worth of answers
        (INITIAL) gives a first answer time, and once more when the time is learnt
        (jumps only grow it); the floor waits for the learnt time. The climb from 4
        at 3,000/min cost the first tenth of a run a quarter of the limit (benchmark
        `limits`, the feed's first tenth at 74%): sends stay paced by the limiter,
        so a window sized from a rough first time holds no more at the provider
        than the limit lets through, only more waiting for the pace."""
        mean = self.latency.mean_s()
        estimate = mean if mean is not None else self.latency.mean_s(at_least=INITIAL)
        if estimate is None:
            return
        rates = []
        if self.limiter.rpm:
            rates.append(self.limiter.rpm / 60.0)
        if self.limiter.tpm and tokens:
            rates.append(self.limiter.tpm / 60.0 / tokens)
        if rates:
            need = math.ceil(min(rates) * estimate * LITTLE_MARGIN)
            if mean is not None:
                self.window.set_floor(need)
            stage = 2 if mean is not None else 1  # a first time, then the learnt one
            if self._jumped < stage:  # the start's slow climb is skipped
                self._jumped = stage
                self.window.jump_to(need)

    def _requeue_after_429(
        self,
        recorder: Recorder,
        req: PendingRequest,
        error: ProviderError,
        tokens: int,
        limited: int,
        number: int,
    ) -> bool:
        """A 429: fewer at once, everyone waits the retry-after, this one goes again.

        It uses up no retry: a rate limit says "later", not "no". Only a request
        the provider can never take (bigger than its tokens/min) or one refused
        MAX_RATE_LIMITED times in a row is given up (and tried again on resume).
        """
        tpm = self.limiter.tpm
        if limited > MAX_RATE_LIMITED or (tpm is not None and tokens > tpm):
            return False
        delay = error.retry_after_s
        if delay is None:
            delay = backoff_delay(min(limited - 1, 6), self._rng)
        self.window.on_rate_limited(number)
        self.limiter.cool_down(delay)
        recorder.store.mark_unsent(req.id)
        self.note(
            f"The provider refused (rate limit): waiting {delay:.1f} s, then "
            f"{self.window.limit} request(s) at once.",
            delay,
        )
        self.emit(self.status())
        return True

    def _never_fits(self, error: ProviderError, tokens: int, limited: int) -> ProviderError:
        """The failure recorded for a request the rate limit will never let through."""
        tpm = self.limiter.tpm
        if tpm is not None and tokens > tpm:
            message = (
                f"This request (about {tokens:,} tokens with its answer) is larger than the "
                f"provider's limit of {tpm:,.0f} tokens per minute, so it is always refused. "
                "Shorten the prompt or lower max_tokens, or ask the provider for a higher limit."
            )
        else:
            message = (
                f"The provider refused this request {limited} times for its rate limit "
                "although the run waited each time as asked; resume the run to try again."
            )
        return ProviderError(ErrorKind.BAD_REQUEST, message, status=error.status)

    def _handle_error(
        self,
        recorder: Recorder,
        req: PendingRequest,
        error: ProviderError,
        attempt: int,
        was_failed: bool,
    ) -> bool:
        """Record what must be recorded; True when this request is finished with."""
        c = self.counters
        if error.kind is ErrorKind.REFUSED and error.raw is not None:
            answer = recorder.record_refusal(req, error)
            self.count_answer(req, answer, (0, 0, 0, 0), was_failed=was_failed)
            return True
        if error.fatal:
            recorder.store.record_failure(req.id, error.kind.value, error.message)
            c.failed += not was_failed
            self._state = RunState.STOPPED
            if not self._draining:  # the first cause is the one the user must fix
                self._message = error.message
            self._draining = True  # answers already on their way still come in
            self.emit(self.status())
            return True
        if not error.retryable or attempt >= self._max_retries or self._draining:
            recorder.store.record_failure(req.id, error.kind.value, error.message)
            c.failed += not was_failed
            if not self._draining:  # a stopped run keeps saying why it stopped
                self.note(error.message, 10.0)
            self.emit(self.status())
            return True
        return False

    async def _after_answer(
        self,
        recorder: Recorder,
        provider: Provider,
        req: PendingRequest,
        answer: Answer,
        stop: asyncio.Event,
    ) -> None:
        """Re-ask an unreadable answer once; queue samples where log-probabilities are missing."""
        if (
            answer.value == INVALID
            and self._reask
            and "refused" not in answer.parsed
            and self._fits_budget(self._worst(req.body))
            and self._resume.is_set()
        ):
            await self._reask_once(recorder, provider, req, stop)
        self._queue_samples(recorder, req, answer)

    def _queue_samples(self, recorder: Recorder, req: PendingRequest, answer: Answer) -> None:
        samples = int(req.context.get("samples_without_logprobs", 0) or 0)
        kind = KINDS.get(req.kind)
        if (
            samples > 1
            and req.rep == 0
            and kind is not None
            and kind.wants_logprobs
            and answer.parsed.get("logprobs") == "not given"
        ):
            body = dict(req.body)
            if not body.get("temperature"):
                body["temperature"] = 1.0  # samples at temperature 0 would all be the same
            added = sum(
                1 for rep in range(1, samples) if recorder.store.add_repeat(req.id, rep, body)
            )
            self.counters.total += added

    async def _reask_once(
        self, recorder: Recorder, provider: Provider, req: PendingRequest, stop: asyncio.Event
    ) -> None:
        body = dict(req.body)
        body["user"] = str(body["user"]) + REASK_REMINDER
        request = request_from_body(body)
        tokens = body_input_tokens(body, recorder.run.provider) + request.max_tokens
        await self.limiter.acquire(tokens, stop)
        if stop.is_set():
            return
        try:
            response = await asyncio.wait_for(provider.chat(request), timeout=self._timeout_s)
        except (TimeoutError, ProviderError) as exc:
            logger.info("re-asking request %s failed: %s", req.id, exc)
            return
        answer = recorder.accept(
            req,
            response,
            extra_notes=("Asked a second time because the first answer could not be read.",),
            extra_parsed={"reasked": True},
            cache_variant="reask",
        )
        c = self.counters
        c.reasked += 1
        c.invalid -= 1  # the first answer moved to the history
        c.done -= 1  # _count adds it back
        self.count_answer(req, answer, recorder.usage_of(req, response)[0])


def silent_since(pulse: Pulse) -> float:
    """Since when a send counts as silent: its last piece once its stream has begun (a
    gap), else its send (the wait for the first piece, headers or not)."""
    return pulse.last if pulse.writing else pulse.started


def _wire(provider: str) -> str:
    from resume_auditor.providers.registry import provider_info

    try:
        return provider_info(provider).wire
    except ProviderError:
        return "openai"


def _maybe_billed(error: ProviderError) -> bool:
    """Could the provider have made (and billed) the answer this error stands for?

    A stall, an answer cut off or unreadable, a connection that dropped after the
    request went out: the provider may well have finished it. A refusal to connect,
    a 4xx or 5xx answer, a 429: nothing was made.
    """
    if error.kind in (ErrorKind.TIMEOUT, ErrorKind.MALFORMED):
        return True
    cause = error.__cause__
    return error.kind is ErrorKind.CONNECTION and isinstance(
        cause, httpx.ReadError | httpx.RemoteProtocolError | httpx.WriteError
    )


def unseen_before_message(count: int) -> str:
    return (
        f"The last session ended abruptly with {count} request(s) at the provider: they are "
        f"sent again, and up to {count} may already have been paid (marked "
        "may_be_paid_twice in the exports)."
    )


def failure_summary(failures: list[tuple[int, str, str]]) -> str:
    """The failed requests by cause, and whether resuming can help."""
    if not failures:
        return ""
    kinds: dict[str, int] = {}
    first: dict[str, str] = {}
    for _, kind, message in failures:
        kinds[kind] = kinds.get(kind, 0) + 1
        first.setdefault(kind, message)
    parts = ", ".join(f"{n} {kind or 'unknown'}" for kind, n in sorted(kinds.items()))
    retryable = {k.value for k in RETRYABLE} | {"stopped", "internal"}
    hopeless = [k for k in kinds if k not in retryable]
    text = f"{len(failures)} request(s) failed ({parts})"
    if not hopeless:
        return text + "; resume the run to try them again."
    kind = hopeless[0]
    return f"{text}. For the {kinds[kind]} {kind} failure(s), fix the cause first: {first[kind]}"
