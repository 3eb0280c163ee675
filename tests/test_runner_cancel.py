"""Cancel aborts what is still at the provider, keeps what has arrived, and loses nothing.

The provider here answers the first requests at once and never answers the rest
(a slow model): a cancel must not wait for those, must put them back in the
queue as pending (not "sent", which means "at the provider now"), and a resume
must send exactly them.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.base import ChatRequest, ChatResponse, Usage
from resume_auditor.runner import Answer, Event, Runner, RunState
from resume_auditor.store.resultfile import ResultFile

MODEL = ModelSpec(provider="openai-compatible", base_url="http://fake/v1", model="fake")


class HangingProvider:
    """Answers `quick` requests, then holds every other one until it is cancelled."""

    name = "fake"

    def __init__(self, quick: int, held: int = 1) -> None:
        self.quick = quick
        self.answered = 0
        self.aborted = 0
        self.holding = 0
        self.held = held
        self.waiting = threading.Event()  # set once `held` requests are held

    async def chat(self, request: ChatRequest) -> ChatResponse:
        if self.answered < self.quick:
            self.answered += 1
            body = {"messages": [{"role": "user", "content": request.user}]}
            return ChatResponse(kind_policy(body), {"model": "fake"}, Usage(10, 2))
        self.holding += 1
        if self.holding >= self.held:
            self.waiting.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.aborted += 1
            raise
        raise AssertionError("unreachable")

    async def list_models(self) -> list[str]:
        return ["fake"]

    async def aclose(self) -> None:
        return None


def test_cancel_aborts_requests_in_flight_and_puts_them_back_in_the_queue(
    tmp_path: Path,
) -> None:
    out = tmp_path / "c.audit"
    run_id, ids = new_audit(out, MODEL)
    queue(out, run_id, [spec(MODEL, "d3-yes-no", [ids[i % 3]], rep=i) for i in range(12)])
    provider = HangingProvider(quick=5, held=4)
    events: list[Event] = []
    runner = Runner(
        out,
        run_id,
        lambda: provider,
        concurrency=4,
        adaptive=False,
        use_cache=False,
        on_event=events.append,
        cancel_grace_s=0.0,
    )
    runner.start()
    assert provider.waiting.wait(timeout=10)
    runner.cancel()
    # The held requests never answer: the run ends because they are aborted.
    assert runner.join(timeout=10)
    final = runner.final_status
    assert final is not None and final.state is RunState.CANCELLED
    assert final.done == 5 and provider.aborted == 4
    assert "5 answer(s) kept" in final.message and "7 request(s) left" in final.message
    assert final.message.count("Cancelled") == 0  # the page says "Cancelled" once itself
    assert sum(isinstance(e, Answer) for e in events) == 5
    with ResultFile(out) as rf:
        progress = rf.progress(run_id)
        assert (progress.done, progress.pending, progress.failed) == (5, 7, 0)
        statuses = {r[0] for r in rf._db.execute("SELECT status FROM request")}  # noqa: SLF001
        assert "sent" not in statuses
    # Resuming sends only the seven that had no answer.
    again = HangingProvider(quick=100)
    status = Runner(out, run_id, lambda: again, concurrency=4, use_cache=False).run()
    assert status.state is RunState.FINISHED and status.done == 12 and again.answered == 7


def test_a_cancel_before_the_first_request_sends_nothing(tmp_path: Path) -> None:
    out = tmp_path / "d.audit"
    run_id, ids = new_audit(out, MODEL)
    queue(out, run_id, [spec(MODEL, "d3-yes-no", [ids[0]], rep=i) for i in range(3)])
    provider = HangingProvider(quick=100)
    runner = Runner(out, run_id, lambda: provider, use_cache=False)
    runner.cancel()
    status = runner.run()
    assert status.state is RunState.CANCELLED and provider.answered == 0
