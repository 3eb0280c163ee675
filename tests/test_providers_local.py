"""The OpenAI-compatible path against a real server: llama.cpp running SmolLM2 on loopback."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from resume_auditor.providers.base import ChatRequest, ErrorKind, ProviderError
from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.providers.local import (
    MODEL_ID,
    LocalModelServer,
    LocalProvider,
    local_model_available,
)
from resume_auditor.providers.probe import probe_logprobs

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(not local_model_available(), reason="the 'local' extra is not installed"),
]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalModelServer]:
    server = LocalModelServer(threads=2)
    server.ensure_started()
    try:
        yield server
    finally:
        server.stop()


def _run(server: LocalModelServer, call: Any) -> Any:
    provider = LocalProvider(server, capabilities=CapabilityCache(), timeout_s=300)

    async def go() -> Any:
        try:
            return await call(provider)
        finally:
            await provider.aclose()

    return asyncio.run(go())


def test_a_turn_with_usage_version_and_logprobs(server: LocalModelServer) -> None:
    request = ChatRequest(
        MODEL_ID,
        "Answer in one word.",
        "Is the sky blue? Yes or No?",
        max_tokens=5,
        top_logprobs=3,
    )
    response = _run(server, lambda p: p.chat(request))
    assert response.text.strip()
    assert response.usage.input_tokens > 5 and response.usage.output_tokens >= 1
    assert MODEL_ID in response.model_version
    assert response.finish_reason in ("stop", "length")
    assert response.logprobs, "llama.cpp gives log-probabilities"
    first = response.logprobs[0]
    assert first.logprob <= 0.0 and 1 <= len(first.top) <= 3
    assert [lp for _, lp in first.top] == sorted((lp for _, lp in first.top), reverse=True)
    assert response.unsupported == ()


def test_the_same_seed_gives_the_same_sampled_answer(server: LocalModelServer) -> None:
    request = ChatRequest(
        MODEL_ID,
        "",
        "Write a short sentence about hiring.",
        temperature=1.0,
        seed=11,
        max_tokens=20,
    )
    first = _run(server, lambda p: p.chat(request))
    second = _run(server, lambda p: p.chat(request))
    assert first.text == second.text


def test_model_list_and_logprob_probe(server: LocalModelServer) -> None:
    assert _run(server, lambda p: p.list_models()) == [MODEL_ID]
    assert _run(server, lambda p: probe_logprobs(p, MODEL_ID)) is True


def test_a_prompt_beyond_the_context_window_is_a_context_error(server: LocalModelServer) -> None:
    request = ChatRequest(MODEL_ID, "", "resume " * 20000, max_tokens=5)

    async def call(p: Any) -> ProviderError:
        try:
            await p.chat(request)
        except ProviderError as exc:
            return exc
        raise AssertionError("a 20,000-token prompt was accepted")

    err = _run(server, call)
    assert err.kind is ErrorKind.CONTEXT, err.message


def test_a_cancelled_request_stops_the_servers_work_and_the_next_one_restarts_it(
    server: LocalModelServer,
) -> None:
    """Cancelling must free the CPU at once: llama.cpp alone would finish the answer."""
    long = ChatRequest(MODEL_ID, "", "Write a very long story about hiring.", max_tokens=2000)
    provider = LocalProvider(server, capabilities=CapabilityCache(), timeout_s=300)
    before = server.interruptions

    async def go() -> str:
        try:
            task = asyncio.create_task(provider.chat(long))
            await asyncio.sleep(2.0)  # the server is generating by now
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert server.interruptions == before + 1
            assert not server.running(), "the server's work in progress was stopped"
            short = ChatRequest(MODEL_ID, "Answer in one word.", "Yes or No?", max_tokens=3)
            return (await provider.chat(short)).text
        finally:
            await provider.aclose()

    assert asyncio.run(go()).strip(), "the next request restarted the server"
    assert server.running()
