"""Batch mode: a run's requests through the provider's batch API, at its discount.

The driver works inside a `Runner` (same counters, events, cache, budget). It
first looks after batches an earlier session left (collects finished ones, keeps
waiting for running ones), then serves what the response cache has, puts the
rest into batches — each recorded in the result file with its requests *before*
it is submitted, and its provider id stored the moment it is known — and polls
until every batch has ended, committing each answer as it is collected.

Closing the app loses nothing: the next run (GUI or `resume-auditor run`) finds
the batches in the result file and carries on. A batch submitted in the instant
before a crash, before its id was stored, is found again by its metadata on
OpenAI; Anthropic batches carry none, so such a batch's requests are sent again
(docs/runner.md says so).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from resume_auditor.providers.base import ChatRequest, ChatResponse, Provider, ProviderError
from resume_auditor.runner.answering import Recorder, RunIdentity, request_from_body
from resume_auditor.runner.batch_backends import BatchBackend, backend_for
from resume_auditor.runner.events import RunState
from resume_auditor.store.resultfile import PendingRequest, ResultFile

if TYPE_CHECKING:
    from resume_auditor.runner.runner import Runner

logger = logging.getLogger(__name__)

PAGE = 256


@dataclass(frozen=True)
class BatchOptions:
    poll_s: float = 30.0  # how often to ask the provider how a batch is doing
    max_requests: int | None = None  # per batch (default: the provider's maximum)
    submit: bool = True  # False: only collect batches already submitted


class BatchDriver:
    def __init__(
        self,
        runner: Runner,
        store: ResultFile,
        recorder: Recorder,
        provider: Provider,
        identity: RunIdentity,
        options: BatchOptions | None,
    ) -> None:
        self.runner = runner
        self.store = store
        self.recorder = recorder
        self.provider = provider
        self.identity = identity
        self.options = options or BatchOptions()
        self._budget_stopped = False

    # -- the whole run ------------------------------------------------------------

    async def run(self) -> None:
        runner = self.runner
        try:
            backend = backend_for(self.provider)
        except ProviderError as exc:
            runner.set_state(RunState.STOPPED, exc.message)
            return
        stop = asyncio.Event()
        watcher = asyncio.create_task(runner.watch_cancel(stop))
        try:
            await self._recover(backend)
            if self.options.submit:
                await self._submit_all(backend, stop)
            await self._wait_and_collect(backend, stop)
        except ProviderError as exc:
            runner.set_state(RunState.STOPPED, exc.message)
        finally:
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
        runner.counters.batched = self.store.progress(runner.run_id).batched
        if runner.cancelled and runner.state is not RunState.STOPPED:
            waiting = runner.counters.batched
            runner.end_cancelled(
                f"Stopped waiting. {waiting} request(s) are still in batches at "
                f"{backend.name}; they keep running there — resume the run to collect them."
                if waiting
                else "Cancelled; resume the run to finish it."
            )
        elif self._budget_stopped and runner.state is RunState.RUNNING:
            runner.pause_for_budget()

    def _status(self, message: str) -> None:
        self.runner.set_batch_message(message)

    # -- after a restart -------------------------------------------------------------

    def _key(self, batch_id: int) -> str:
        file_id = self.store.meta("uuid")
        if file_id is None:
            file_id = uuid.uuid4().hex
            self.store.set_meta("uuid", file_id)
        return f"{file_id}-{batch_id}"

    async def _recover(self, backend: BatchBackend) -> None:
        """Batches recorded but never known to be submitted (a crash at that instant)."""
        for batch in self.store.batches(self.runner.run_id, open_only=True):
            if batch.state != "preparing":
                continue
            remote = await backend.find(self._key(batch.id))
            if remote is not None:
                self.store.set_batch(batch.id, state="submitted", remote_id=remote)
                continue
            message = "The batch was not submitted (the app stopped first); sent again."
            self.store.release_batch(batch.id, message)
            self.store.set_batch(batch.id, state="failed", message=message)

    # -- submitting ------------------------------------------------------------------

    async def _submit_all(self, backend: BatchBackend, stop: asyncio.Event) -> None:
        runner = self.runner
        limit = min(self.options.max_requests or backend.max_requests, backend.max_requests)
        chunk: list[tuple[PendingRequest, ChatRequest]] = []
        size = 0
        reserved = 0.0
        last_id = 0
        while not stop.is_set() and not self._budget_stopped:
            page = self.store.open_requests(runner.run_id, after_id=last_id, limit=PAGE)
            if not page:
                break
            for req in page:
                last_id = req.id
                if stop.is_set() or not await runner.gate(stop, None):
                    break
                cached = self.recorder.serve_cached(req)
                if cached is not None:
                    runner.count_answer(
                        req,
                        cached,
                        (0, 0, 0, 0),
                        from_cache=True,
                        was_failed=req.status == "failed",
                    )
                    continue
                worst = runner.worst_case(req.body) if runner.worst_case else 0.0
                if runner.budget is not None:
                    spent = runner.counters.cost or 0.0
                    if spent + runner.counters.reserved + reserved + worst > runner.budget:
                        self._budget_stopped = True
                        break
                try:
                    chat = request_from_body(req.body)
                except (KeyError, TypeError, ValueError) as exc:
                    self.store.record_failure(req.id, "bad_request", f"Incomplete request ({exc}).")
                    continue
                line = backend.line_size(f"r{req.id}", chat)
                if chunk and (len(chunk) >= limit or size + line > backend.max_bytes):
                    await self._submit(backend, chunk)
                    chunk, size = [], 0
                chunk.append((req, chat))
                size += line
                reserved += worst
            else:
                continue
            break
        if chunk and not stop.is_set():
            await self._submit(backend, chunk)
        runner.counters.reserved += reserved  # until collected

    async def _submit(
        self, backend: BatchBackend, chunk: list[tuple[PendingRequest, ChatRequest]]
    ) -> None:
        runner = self.runner
        ids = [req.id for req, _ in chunk]
        batch_id = self.store.add_batch(runner.run_id, self.identity.provider, ids)
        self._status(f"Submitting a batch of {len(ids)} request(s) to {backend.name}...")
        try:
            remote = await backend.submit([(f"r{r.id}", c) for r, c in chunk], self._key(batch_id))
        except ProviderError as exc:
            self.store.release_batch(batch_id, exc.message)
            self.store.set_batch(batch_id, state="failed", message=exc.message)
            raise
        self.store.set_batch(batch_id, state="submitted", remote_id=remote)
        runner.counters.batched += len(ids)
        self._status(f"Submitted batch {remote} ({len(ids)} requests) to {backend.name}.")

    # -- waiting and collecting ---------------------------------------------------------

    async def _wait_and_collect(self, backend: BatchBackend, stop: asyncio.Event) -> None:
        runner = self.runner
        while not stop.is_set():
            waiting = [b for b in self.store.batches(runner.run_id, open_only=True) if b.remote_id]
            if not waiting:
                return
            parts = []
            for batch in waiting:
                if stop.is_set() or not await runner.gate(stop, None):
                    return
                try:
                    poll = await backend.poll(str(batch.remote_id))
                except ProviderError as exc:
                    if exc.fatal:
                        raise
                    parts.append(f"{batch.remote_id}: could not check ({exc.message})")
                    continue
                self.store.set_batch(batch.id, remote_status=poll.status)
                if poll.failed:
                    self.store.release_batch(batch.id, f"The batch failed: {poll.message}")
                    self.store.set_batch(batch.id, state="failed", message=poll.message)
                    parts.append(f"{batch.remote_id} failed: {poll.message}")
                    continue
                if poll.ended:
                    await self._collect(backend, batch.id, str(batch.remote_id))
                    continue
                parts.append(f"{batch.remote_id}: {poll.status}, {poll.done} of {poll.total} done")
            if parts:
                self._status(
                    f"Waiting for {len(parts)} batch(es) at {backend.name} — "
                    + "; ".join(parts)
                    + f". Checking every {self.options.poll_s:g} s; you can close the app "
                    "and resume later."
                )
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=self.options.poll_s)

    async def _collect(self, backend: BatchBackend, batch_id: int, remote: str) -> None:
        runner = self.runner
        c = runner.counters
        pending = self.store.open_requests(runner.run_id, batch_id=batch_id)
        by_cid = {f"r{r.id}": r for r in pending}
        chats = {cid: request_from_body(r.body) for cid, r in by_cid.items()}
        results = await backend.results(remote, chats)
        for cid, result in results:
            req = by_cid.pop(cid, None)
            if req is None:
                continue
            worst = runner.worst_case(req.body) if runner.worst_case else 0.0
            c.reserved = max(0.0, c.reserved - worst)
            was_failed = req.status == "failed"
            if isinstance(result, ChatResponse):
                answer = self.recorder.accept(req, result, source="batch")
                u = result.usage
                runner.count_answer(
                    req,
                    answer,
                    (u.input_tokens, u.output_tokens, u.cached_tokens, u.reasoning_tokens),
                    was_failed=was_failed,
                )
            elif result.raw is not None and result.kind.value == "refused":
                answer = self.recorder.record_refusal(req, result, source="batch")
                runner.count_answer(req, answer, (0, 0, 0, 0), was_failed=was_failed)
            else:
                self.store.record_failure(req.id, result.kind.value, result.message)
                c.failed += not was_failed
        missing = self.store.release_batch(
            batch_id, "The batch ended without an answer to this request."
        )
        c.failed += missing
        self.store.set_batch(batch_id, state="collected")
        c.batched = self.store.progress(runner.run_id).batched
        self._status(
            f"Collected batch {remote} from {backend.name}"
            + (
                f"; {missing} request(s) had no answer and go back to the queue."
                if missing
                else "."
            )
        )
