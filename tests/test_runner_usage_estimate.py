"""An answer that came without the provider's token counts is estimated, never free.

A stream cut of its usage chunk (OpenAI documents that an interrupted stream may lack
it; some OpenAI-compatible servers never send it) used to be stored with 0 tokens and
cost 0: spend was understated, silently. Its tokens are now estimated with the app's
estimator (runner/tokens.py), priced, and marked as estimated in the answer
(`parsed.tokens_estimated`, a note), the run's status and the audit's progress.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from runner_fixtures import new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.base import ChatRequest, ChatResponse, Usage
from resume_auditor.providers.openai_compat import OpenAICompatProvider
from resume_auditor.providers.streaming import PULSE, Pulse
from resume_auditor.runner import RunState
from resume_auditor.runner.prices import Price, PriceTable
from resume_auditor.runner.tokens import approx_tokens, body_input_tokens
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import make_runner

PRICE = Price(input=2.0, cached_input=1.0, output=8.0)  # dollars per million tokens


class _Counts:
    """Answers every request; the ones marked `bare` come without token counts."""

    name = "counts"

    def __init__(self, bare: str) -> None:
        self.bare = bare

    async def chat(self, request: ChatRequest) -> ChatResponse:
        if self.bare in request.user:
            return ChatResponse(text="Yes, a good fit.", raw={}, usage_reported=False)
        return ChatResponse(text="No", raw={}, usage=Usage(100, 2))

    async def list_models(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None


def test_an_answer_without_token_counts_is_estimated_priced_and_marked(tmp_path: Path) -> None:
    model = ModelSpec(provider="openai", base_url="https://api.openai.com/v1", model="sim-model")
    out = tmp_path / "u.audit"
    run_id, ids = new_audit(out, model)
    specs = []
    for i in range(4):
        s = spec(model, "d3-yes-no", [ids[i % 3]], key=f"q{i}")
        specs.append(replace(s, body={**s.body, "user": s.body["user"] + f"\n(case {i})"}))
    queue(out, run_id, specs)
    prices = PriceTable({"openai": {"sim-model": PRICE}})
    runner = make_runner(
        out, run_id, use_cache=False, prices=prices, factory=lambda: _Counts("(case 2)")
    )
    status = runner.run()
    assert status.state is RunState.FINISHED and status.done == 4
    assert status.estimated_usage == 1
    body = specs[2].body
    tokens_in = body_input_tokens(body, "openai")
    tokens_out = approx_tokens("Yes, a good fit.", "openai")
    assert tokens_in > 50 and tokens_out > 0
    with ResultFile(out) as rf:
        answers = rf.answers(run_id).set_index("request_id")
        progress = rf.progress(run_id)
        record = rf.response_record(3)
    parsed = answers.loc[3, "parsed"]
    assert parsed.get("tokens_estimated") is True
    assert all(not answers.loc[i, "parsed"].get("tokens_estimated") for i in (1, 2, 4))
    assert record is not None
    assert "estimated from the text" in str(record)
    expected = (tokens_in * PRICE.input + tokens_out * PRICE.output) / 1_000_000
    reported = 3 * (100 * PRICE.input + 2 * PRICE.output) / 1_000_000
    assert progress.estimated_usage == 1
    assert progress.input_tokens == 300 + tokens_in and progress.output_tokens == 6 + tokens_out
    assert progress.cost_usd == pytest.approx(expected + reported)
    assert status.cost_usd == pytest.approx(expected + reported)  # never 0 for it


def test_a_stream_without_its_usage_chunk_says_its_counts_were_not_reported() -> None:
    chunks = (
        b'data: {"id": "c", "choices": [{"index": 0, "delta": {"content": "Yes"}}]}\n\n'
        b'data: {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
        b"data: [DONE]\n\n"
    )
    plain = {
        "choices": [{"index": 0, "message": {"content": "Yes"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1},
    }

    def handler(request: httpx.Request) -> httpx.Response:
        if json.loads(request.content).get("stream"):
            return httpx.Response(
                200, content=chunks, headers={"content-type": "text/event-stream"}
            )
        return httpx.Response(200, json=plain)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    provider = OpenAICompatProvider("http://x/v1", client=client)
    request = ChatRequest(model="m", system="s", user="u", max_tokens=5)

    async def go() -> list[ChatResponse]:
        out = []
        try:
            for _ in range(2):
                token = PULSE.set(Pulse())
                try:
                    out.append(await provider.chat(request))
                finally:
                    PULSE.reset(token)
        finally:
            await provider.aclose()
        return out

    first, second = asyncio.run(go())
    assert not first.usage_reported and first.usage.input_tokens == 0
    assert second.usage_reported and second.usage.input_tokens == 5  # asked plainly after


def test_the_run_page_says_spend_is_about_when_some_counts_are_estimated() -> None:
    from resume_auditor.runner import RunStatus
    from resume_auditor.ui.pages.run_page import spend_text

    base = {"total": 4, "done": 4, "failed": 0, "in_flight": 0, "invalid": 0}
    base |= {"input_tokens": 0, "output_tokens": 0, "elapsed_s": 1.0, "eta_s": None}
    exact = RunStatus(RunState.RUNNING, **base, cost_usd=0.5)
    assert spend_text(exact).startswith("Spent so far: $0.50.")
    rough = RunStatus(RunState.RUNNING, **base, cost_usd=0.5, estimated_usage=1)
    text = spend_text(rough)
    assert text.startswith("Spent so far: about $0.50")
    assert "1 answer(s) came without the provider's token counts" in text


def test_the_report_says_the_spend_is_partly_estimated_and_what_may_be_paid_twice(
    tmp_path: Path,
) -> None:
    from resume_auditor.report.facts import gather_facts
    from resume_auditor.workflow.reporting import report_html

    model = ModelSpec(provider="openai", base_url="https://api.openai.com/v1", model="sim-model")
    out = tmp_path / "u.audit"
    run_id, ids = new_audit(out, model)
    specs = []
    for i in range(3):
        s = spec(model, "d3-yes-no", [ids[i]], key=f"q{i}")
        specs.append(replace(s, body={**s.body, "user": s.body["user"] + f"\n(case {i})"}))
    queue(out, run_id, specs)
    prices = PriceTable({"openai": {"sim-model": PRICE}})
    make_runner(
        out, run_id, use_cache=False, prices=prices, factory=lambda: _Counts("(case 1)")
    ).run()
    with ResultFile(out) as rf:
        plain = report_html(out, run_id)
        assert "partly estimated" in plain and "Not included" not in plain
        rf.note_unseen_sends(run_id, [2, 2, 3])  # e.g. two stalls and a send cut by a crash
        facts = gather_facts(rf, run_id)
    assert facts.estimated_usage == 1 and facts.maybe_paid_twice == 3
    html = report_html(out, run_id)
    assert "for 1 answer(s) the server sent no counts" in html
    assert "about US$" in html
    assert "Not included: 3 send(s) whose answer never reached the app" in html
