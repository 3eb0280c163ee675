"""The one owner of concurrency: sends an audit's requests, records every answer.

A `Runner` works in its own thread with its own asyncio loop and its own
connection to the result file. It sends a bounded number of requests at once,
retries what may succeed later (honouring retry-after), records each request as
sent before it goes out and commits each response before counting it. The UI and
the CLI only see `RunStatus` snapshots and `Answer` events through a callback;
pause, resume and cancel are thread-safe and take effect within a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from resume_auditor.domain.case import Label
from resume_auditor.providers.base import ChatRequest, ErrorKind, Provider, ProviderError
from resume_auditor.store.resultfile import PendingRequest, ResultFile

logger = logging.getLogger(__name__)

# Errors after which every other request would fail the same way: stop the run.
FATAL = {ErrorKind.AUTH, ErrorKind.QUOTA, ErrorKind.NOT_FOUND}


class RunState(StrEnum):
    STARTING = "starting"
    RUNNING = "running"
    PAUSED = "paused"
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

    @property
    def remaining(self) -> int:
        return self.total - self.done - self.failed


@dataclass(frozen=True)
class Answer:
    """One committed response, for live views."""

    request_id: int
    pair_id: int
    order: str
    label: Label
    justification: str


Event = RunStatus | Answer
Parser = Callable[[str], tuple[Label, str]]


def request_from_body(body: dict[str, Any]) -> ChatRequest:
    return ChatRequest(
        model=str(body["model"]),
        system=str(body.get("system", "")),
        user=str(body["user"]),
        temperature=body.get("temperature"),
        max_tokens=int(body.get("max_tokens", 256)),
        seed=body.get("seed"),
        grammar=body.get("grammar"),
        json_schema=body.get("json_schema"),
    )


def backoff_delay(attempt: int, rng: random.Random, base: float = 1.0, cap: float = 60.0) -> float:
    """Random exponential back-off: ~1 s, 2 s, 4 s ... capped at 60 s."""
    return float(min(cap, base * (2**attempt)) * (0.5 + rng.random() / 2))


@dataclass
class _Counters:
    total: int = 0
    done: int = 0
    failed: int = 0
    invalid: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    in_flight: int = 0
    recent: deque[float] = field(default_factory=lambda: deque(maxlen=50))


class Runner:
    def __init__(
        self,
        result_path: str | Path,
        run_id: int,
        provider_factory: Callable[[], Provider],
        parse: Parser,
        *,
        concurrency: int = 2,
        timeout_s: float = 120.0,
        max_retries: int = 5,
        on_event: Callable[[Event], None] | None = None,
        cancel_grace_s: float = 0.8,
        seed: int | None = None,
    ) -> None:
        self.result_path = Path(result_path)
        self.run_id = run_id
        self._provider_factory = provider_factory
        self._parse = parse
        self._concurrency = max(1, concurrency)
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._on_event = on_event or (lambda _e: None)
        self._cancel_grace_s = cancel_grace_s
        self._rng = random.Random(seed)
        self._cancel = threading.Event()
        self._resume = threading.Event()
        self._resume.set()
        self._thread: threading.Thread | None = None
        self._counters = _Counters()
        self._state = RunState.STARTING
        self._message = ""
        self._started = 0.0
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
        self._set_state(RunState.PAUSED)

    def resume(self) -> None:
        if self._state is RunState.PAUSED:
            self._set_state(RunState.RUNNING)
        self._resume.set()

    def cancel(self) -> None:
        self._cancel.set()
        self._resume.set()

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
        try:
            asyncio.run(self._main())
        except Exception as exc:  # never leave the caller without a final status
            logger.exception("the run stopped on an unexpected error")
            self._message = f"The run stopped on an unexpected error: {exc}"
            self._state = RunState.STOPPED
        status = self.status()
        self.final_status = status
        self._emit(status)
        return status

    def status(self) -> RunStatus:
        c = self._counters
        elapsed = time.monotonic() - self._started if self._started else 0.0
        eta = None
        remaining = c.total - c.done - c.failed
        if len(c.recent) >= 2 and remaining > 0:
            span = c.recent[-1] - c.recent[0]
            if span > 0:
                eta = remaining / ((len(c.recent) - 1) / span)
        return RunStatus(
            state=self._state,
            total=c.total,
            done=c.done,
            failed=c.failed,
            in_flight=c.in_flight,
            invalid=c.invalid,
            input_tokens=c.input_tokens,
            output_tokens=c.output_tokens,
            elapsed_s=elapsed,
            eta_s=eta,
            message=self._message,
        )

    def _emit(self, event: Event) -> None:
        try:
            self._on_event(event)
        except Exception:  # a broken listener must not break the run
            logger.exception("run event listener failed")

    def _set_state(self, state: RunState, message: str | None = None) -> None:
        self._state = state
        if message is not None:
            self._message = message
        self._emit(self.status())

    async def _main(self) -> None:
        self._started = time.monotonic()
        store = ResultFile(self.result_path)
        provider: Provider | None = None
        try:
            progress = store.progress(self.run_id)
            c = self._counters
            c.total, c.done, c.invalid = progress.total, progress.done, progress.invalid
            c.input_tokens, c.output_tokens = progress.input_tokens, progress.output_tokens
            todo = store.open_requests(self.run_id)
            if not todo:
                self._set_state(RunState.FINISHED, "Nothing to send: every request has an answer.")
                return
            self._set_state(RunState.STARTING, "Connecting to the model...")
            try:
                provider = await asyncio.to_thread(self._provider_factory)
            except ProviderError as exc:
                self._set_state(RunState.STOPPED, exc.message)
                return
            self._set_state(RunState.RUNNING, "")
            await self._dispatch(store, provider, todo)
        finally:
            if provider is not None:
                await provider.aclose()
            store.close()
        if self._state is RunState.RUNNING:
            c = self._counters
            if c.failed:
                self._state = RunState.FINISHED
                self._message = f"{c.failed} request(s) failed; resume the run to try them again."
            else:
                self._state = RunState.FINISHED

    async def _dispatch(
        self, store: ResultFile, provider: Provider, todo: list[PendingRequest]
    ) -> None:
        sem = asyncio.Semaphore(self._concurrency)
        tasks: set[asyncio.Task[None]] = set()
        stop = asyncio.Event()
        watcher = asyncio.create_task(self._watch_cancel(stop))
        try:
            for req in todo:
                while not self._resume.is_set() and not stop.is_set():
                    await asyncio.sleep(0.05)
                if stop.is_set():
                    break
                await sem.acquire()
                if stop.is_set():
                    sem.release()
                    break
                task = asyncio.create_task(self._one(store, provider, req, sem, stop))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            if tasks:
                waiter: asyncio.Future[Any] = asyncio.gather(*tasks, return_exceptions=True)
                stopper: asyncio.Future[Any] = asyncio.create_task(stop.wait())
                await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if stop.is_set() and tasks:
                    # Give answers already on their way a moment, then let go.
                    await asyncio.wait(set(tasks), timeout=self._cancel_grace_s)
                    for task in list(tasks):
                        task.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                stopper.cancel()
                await asyncio.gather(waiter, stopper, return_exceptions=True)
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
        if self._cancel.is_set() and self._state not in (RunState.STOPPED,):
            left = self._counters.total - self._counters.done
            self._state = RunState.CANCELLED
            self._message = f"Cancelled. {left} request(s) left; resume to finish them."

    async def _watch_cancel(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if self._cancel.is_set():
                stop.set()
                return
            await asyncio.sleep(0.05)

    async def _sleep_unless_stopped(self, delay: float, stop: asyncio.Event) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=delay)

    async def _one(
        self,
        store: ResultFile,
        provider: Provider,
        req: PendingRequest,
        sem: asyncio.Semaphore,
        stop: asyncio.Event,
    ) -> None:
        c = self._counters
        c.in_flight += 1
        try:
            request = request_from_body(req.body)
            for attempt in range(self._max_retries + 1):
                if stop.is_set():
                    return
                while not self._resume.is_set() and not stop.is_set():
                    await asyncio.sleep(0.05)
                store.mark_sent(req.id)  # recorded before it goes out
                try:
                    response = await asyncio.wait_for(
                        provider.chat(request), timeout=self._timeout_s
                    )
                except TimeoutError:
                    error = ProviderError(
                        ErrorKind.TIMEOUT,
                        f"No answer within {self._timeout_s:.0f} s; trying again.",
                    )
                except ProviderError as exc:
                    error = exc
                else:
                    label, justification = self._parse(response.text)
                    usage = response.usage
                    store.record_response(
                        req.id,
                        response.raw,
                        response.text,
                        label.value,
                        justification,
                        (
                            usage.input_tokens,
                            usage.output_tokens,
                            usage.cached_tokens,
                            usage.reasoning_tokens,
                        ),
                        response.model_version,
                        response.latency_s,
                    )
                    # Counted only now that it is committed.
                    c.done += 1
                    c.invalid += label is Label.INVALID
                    c.input_tokens += usage.input_tokens
                    c.output_tokens += usage.output_tokens
                    c.recent.append(time.monotonic())
                    self._emit(Answer(req.id, req.pair_id, req.order.value, label, justification))
                    self._emit(self.status())
                    return
                if error.kind in FATAL:
                    store.record_failure(req.id, error.kind.value, error.message)
                    c.failed += 1
                    self._state = RunState.STOPPED
                    self._message = error.message
                    self._cancel.set()
                    stop.set()
                    self._emit(self.status())
                    return
                if not error.retryable or attempt == self._max_retries:
                    store.record_failure(req.id, error.kind.value, error.message)
                    c.failed += 1
                    self._message = error.message
                    self._emit(self.status())
                    return
                delay = error.retry_after_s
                if delay is None:
                    delay = backoff_delay(attempt, self._rng)
                self._message = f"{error.message} (retry {attempt + 1} in {delay:.1f} s)"
                self._emit(replace(self.status()))
                await self._sleep_unless_stopped(delay, stop)
        finally:
            c.in_flight -= 1
            sem.release()
