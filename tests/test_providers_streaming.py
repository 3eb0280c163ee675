"""Streamed answers read exactly like unstreamed ones, for every vendor that streams;
a stream cut short or stalled is a retryable error; log-probability requests are not
streamed; a server that will not stream (or streams no token counts) is asked plainly.

The simulator speaks each vendor's server-sent events (tests/devtools/simulator.py
`stream_frames`); hand-made streams cover what it does not do (refusals, in-stream
errors, a server that ignores `stream`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from devtools.simulator import Fault, Simulator

from resume_auditor.providers.anthropic import AnthropicProvider
from resume_auditor.providers.azure import AzureOpenAIProvider
from resume_auditor.providers.base import ChatRequest, ChatResponse, ErrorKind, ProviderError
from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.providers.gemini import GeminiProvider
from resume_auditor.providers.openai import OpenAIProvider
from resume_auditor.providers.openai_compat import OpenAICompatProvider
from resume_auditor.providers.openrouter import OpenRouterProvider
from resume_auditor.providers.streaming import PULSE, Pulse
from resume_auditor.providers.wire import WireProvider

REQUEST = ChatRequest(
    model="sim-model",
    system="You screen resumes.",
    user="Resume A: ten years of Python\nResume B: two years\nWhich is the better fit?",
)
VENDORS: dict[str, Callable[[Simulator], WireProvider]] = {
    "openai": lambda sim: OpenAIProvider(sim.url_for("openai"), api_key="k"),
    "openai-compatible": lambda sim: OpenAICompatProvider(sim.base_url, api_key="k"),
    "azure": lambda sim: AzureOpenAIProvider(sim.url_for("azure"), api_key="k"),
    "openrouter": lambda sim: OpenRouterProvider(sim.url_for("openrouter"), api_key="k"),
    "anthropic": lambda sim: AnthropicProvider(sim.url_for("anthropic"), api_key="k"),
    "gemini": lambda sim: GeminiProvider(sim.url_for("gemini"), api_key="k"),
}


async def _watched(provider: WireProvider, request: ChatRequest) -> tuple[ChatResponse, Pulse]:
    """One chat as the runner sends it: with a pulse watching for signs of life."""
    pulse = Pulse()
    token = PULSE.set(pulse)
    try:
        return await provider.chat(request), pulse
    finally:
        PULSE.reset(token)


def _same(a: ChatResponse, b: ChatResponse) -> None:
    assert a.text == b.text and a.text
    assert a.usage == b.usage and a.usage.input_tokens and a.usage.output_tokens
    assert a.finish_reason == b.finish_reason
    assert a.model_version == b.model_version
    assert a.notes == b.notes and a.unsupported == b.unsupported


@pytest.mark.parametrize("vendor", list(VENDORS))
@pytest.mark.parametrize("reasoning", [False, True])
def test_a_streamed_answer_reads_exactly_like_the_unstreamed_one(
    vendor: str, reasoning: bool
) -> None:
    models = ("sim-model", "o3-sim") if reasoning else ("sim-model",)
    request = ChatRequest(
        model=models[-1], system=REQUEST.system, user=REQUEST.user, temperature=None
    )

    async def go(sim: Simulator) -> tuple[ChatResponse, ChatResponse, Pulse]:
        provider = VENDORS[vendor](sim)
        try:
            plain = await provider.chat(request)
            streamed, pulse = await _watched(provider, request)
        finally:
            await provider.aclose()
        return plain, streamed, pulse

    with Simulator(
        api_key="k", models=models, reasoning_models=models[1:] if reasoning else ()
    ) as sim:
        plain, streamed, pulse = asyncio.run(go(sim))
        bodies = sim.bodies
        paths = [r.path for r in sim.requests]
    _same(streamed, plain)
    if reasoning and vendor != "anthropic":  # the simulator's Claude does not think
        assert streamed.usage.reasoning_tokens == plain.usage.reasoning_tokens > 0
    assert pulse.streamed and pulse.beats >= 5  # headers and several pieces
    if vendor == "gemini":
        assert ":streamGenerateContent" in paths[1] and "alt=sse" in paths[1]
        assert ":generateContent" in paths[0]
    else:
        assert not bodies[0].get("stream") and bodies[1]["stream"] is True
    if vendor not in ("anthropic", "gemini"):  # exact token counts from the last chunk
        assert bodies[1]["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("vendor", list(VENDORS))
def test_log_probabilities_arrive_whole_streamed_or_not(vendor: str) -> None:
    """OpenAI and Azure stream them in the chunks (joined here); the vendors that do not
    document them in streams are asked plainly when they are wanted."""
    request = ChatRequest(model="sim-model", system="s", user=REQUEST.user, top_logprobs=5)

    async def go(sim: Simulator) -> tuple[ChatResponse, ChatResponse, Pulse]:
        provider = VENDORS[vendor](sim)
        try:
            plain = await provider.chat(request)
            watched, pulse = await _watched(provider, request)
            return plain, watched, pulse
        finally:
            await provider.aclose()

    with Simulator(api_key="k") as sim:
        plain, watched, pulse = asyncio.run(go(sim))
        body, path = sim.bodies[1], sim.requests[1].path
    if vendor == "anthropic":  # Claude gives none, streamed or not
        assert plain.logprobs is None and watched.logprobs is None
        return
    assert plain.logprobs and watched.logprobs == plain.logprobs
    streams = vendor in ("openai", "azure")
    assert pulse.streamed is streams
    assert bool(body.get("stream")) is streams and ("stream" in path) is False


def test_a_stream_without_the_log_probabilities_asked_for_proves_nothing() -> None:
    """A server that drops them from streams only: the model is not remembered as
    lacking them, and it is asked plainly from then on, where they come."""
    sent: list[bool] = []
    chunks = _sse(
        (None, {"id": "c", "choices": [{"index": 0, "delta": {"content": "Yes"}}]}),
        (None, {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        (None, {"id": "c", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1}}),
        (None, "[DONE]"),
    )
    token = {"token": "Yes", "logprob": -0.1, "top_logprobs": [{"token": "Yes", "logprob": -0.1}]}
    plain = {
        "choices": [
            {
                "index": 0,
                "message": {"content": "Yes"},
                "finish_reason": "stop",
                "logprobs": {"content": [token]},
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1},
    }

    def handler(request: httpx.Request) -> httpx.Response:
        streamed = bool(json.loads(request.content).get("stream"))
        sent.append(streamed)
        return _stream_response(chunks) if streamed else httpx.Response(200, json=plain)

    caps = CapabilityCache(None)
    provider = OpenAIProvider(
        "http://x/v1", api_key="k", client=_client(handler), capabilities=caps
    )
    request = ChatRequest(model="gpt-4o", system="s", user="u", top_logprobs=3)

    async def go() -> list[ChatResponse]:
        try:
            return [(await _watched(provider, request))[0] for _ in range(2)]
        finally:
            await provider.aclose()

    first, second = asyncio.run(go())
    assert sent == [True, False]
    assert first.logprobs is None and second.logprobs is not None
    assert caps.get(provider.key("gpt-4o"), "logprobs") is True


@pytest.mark.parametrize("vendor", list(VENDORS))
@pytest.mark.parametrize("kind", ["stall_mid", "drop_mid"])
def test_a_stream_cut_mid_answer_is_a_retryable_error_and_billed(vendor: str, kind: str) -> None:
    async def go(sim: Simulator) -> tuple[ProviderError, Pulse]:
        provider = VENDORS[vendor](sim)
        pulse = Pulse()
        token = PULSE.set(pulse)
        try:
            with pytest.raises(ProviderError) as caught:
                await provider.chat(REQUEST)
            return caught.value, pulse
        finally:
            PULSE.reset(token)
            await provider.aclose()

    with Simulator(api_key="k") as sim:
        sim.inject(Fault(kind=kind, delay_s=0.2))
        error, pulse = asyncio.run(go(sim))
        paid = sum(sim.paid.values())
    assert error.retryable and error.kind in (ErrorKind.MALFORMED, ErrorKind.CONNECTION)
    assert pulse.streamed and pulse.beats >= 2  # the first pieces came, then nothing
    assert paid == 1  # the provider made it: the runner counts it as maybe paid twice


def test_pieces_keep_a_slow_answer_alive() -> None:
    """A trickling answer beats its pulse with each piece: its silences stay short even
    though it takes long in all (what the runner's stall bound looks at)."""

    async def go(sim: Simulator) -> tuple[ChatResponse, Pulse]:
        provider = OpenAICompatProvider(sim.base_url)
        try:
            return await _watched(provider, REQUEST)
        finally:
            await provider.aclose()

    with Simulator() as sim:
        sim.inject(Fault(kind="trickle", delay_s=0.15))
        answer, pulse = asyncio.run(go(sim))
    assert answer.text
    total = pulse.last - pulse.started
    assert total >= 0.15 * 4 and pulse.longest_silence < total / 2


# -- hand-made streams: what the simulator does not act out ---------------------------------


def _sse(*events: tuple[str | None, Any]) -> bytes:
    out = []
    for event, data in events:
        head = f"event: {event}\n" if event else ""
        payload = data if isinstance(data, str) else json.dumps(data)
        out.append(f"{head}data: {payload}\n\n")
    return "".join(out).encode()


def _client(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def _run(provider: WireProvider, request: ChatRequest = REQUEST) -> ChatResponse:
    async def go() -> ChatResponse:
        try:
            return (await _watched(provider, request))[0]
        finally:
            await provider.aclose()

    return asyncio.run(go())


def _stream_response(body: bytes) -> httpx.Response:
    return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})


def test_a_streamed_refusal_is_a_refusal_with_its_body() -> None:
    chunks = _sse(
        (None, {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"refusal": "No."}}]}),
        (None, {"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        (None, {"id": "c1", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}}),
        (None, "[DONE]"),
    )
    provider = OpenAICompatProvider(
        "http://x/v1", client=_client(lambda r: _stream_response(chunks))
    )
    with pytest.raises(ProviderError) as caught:
        _run(provider)
    assert caught.value.kind is ErrorKind.REFUSED and caught.value.raw is not None


def test_an_error_met_mid_stream_is_read_as_the_vendors_error() -> None:
    openrouter = _sse(
        (None, {"id": "g", "choices": [{"index": 0, "delta": {"content": "Par"}}]}),
        (None, {"error": {"code": 502, "message": "upstream provider went away"}}),
    )
    provider = OpenRouterProvider(
        "http://x/api/v1", api_key="k", client=_client(lambda r: _stream_response(openrouter))
    )
    with pytest.raises(ProviderError) as caught:
        _run(provider)
    assert caught.value.kind is ErrorKind.SERVER and caught.value.retryable
    anthropic = _sse(
        ("message_start", {"type": "message_start", "message": {"id": "m", "usage": {}}}),
        ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Busy"}}),
    )
    claude = AnthropicProvider(
        "http://x", api_key="k", client=_client(lambda r: _stream_response(anthropic))
    )
    with pytest.raises(ProviderError) as caught:
        _run(claude)
    assert caught.value.kind is ErrorKind.OVERLOADED


def test_a_stream_that_ends_without_its_end_marker_is_cut_off() -> None:
    chunks = _sse((None, {"id": "c", "choices": [{"index": 0, "delta": {"content": "Yes"}}]}))
    provider = OpenAICompatProvider(
        "http://x/v1", client=_client(lambda r: _stream_response(chunks))
    )
    with pytest.raises(ProviderError) as caught:
        _run(provider)
    assert caught.value.kind is ErrorKind.MALFORMED and "cut off" in caught.value.message


def test_a_server_that_ignores_stream_is_read_as_a_plain_answer() -> None:
    body = {
        "id": "c",
        "model": "m",
        "choices": [{"index": 0, "message": {"content": "Yes"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1},
    }
    provider = OpenAICompatProvider(
        "http://x/v1", client=_client(lambda r: httpx.Response(200, json=body))
    )
    answer = _run(provider)
    assert answer.text == "Yes" and answer.usage.input_tokens == 5


def test_a_server_that_refuses_stream_options_is_asked_plainly_and_remembered() -> None:
    sent: list[dict[str, Any]] = []
    answer = {
        "choices": [{"index": 0, "message": {"content": "No"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1},
    }

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body)
        if body.get("stream_options"):
            error = {"message": "Unknown parameter: 'stream_options'.", "param": "stream_options"}
            return httpx.Response(400, json={"error": error})
        return httpx.Response(200, json=answer)

    provider = AzureOpenAIProvider(
        "https://r.openai.azure.com/openai?api-version=2024-06-01",
        api_key="k",
        client=_client(handler),
        capabilities=CapabilityCache(None),
    )

    async def go() -> list[ChatResponse]:
        try:
            return [(await _watched(provider, REQUEST))[0] for _ in range(2)]
        finally:
            await provider.aclose()

    answers = asyncio.run(go())
    assert [a.text for a in answers] == ["No", "No"]
    assert [bool(b.get("stream")) for b in sent] == [True, False, False]  # asked once


def test_a_stream_without_token_counts_says_so_and_the_model_is_asked_plainly_after() -> None:
    sent: list[bool] = []
    chunks = _sse(
        (None, {"id": "c", "choices": [{"index": 0, "delta": {"content": "Yes"}}]}),
        (None, {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        (None, "[DONE]"),
    )
    plain = {
        "choices": [{"index": 0, "message": {"content": "Yes"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1},
    }

    def handler(request: httpx.Request) -> httpx.Response:
        streamed = bool(json.loads(request.content).get("stream"))
        sent.append(streamed)
        return _stream_response(chunks) if streamed else httpx.Response(200, json=plain)

    provider = OpenAICompatProvider("http://x/v1", client=_client(handler))

    async def go() -> list[ChatResponse]:
        try:
            return [(await _watched(provider, REQUEST))[0] for _ in range(2)]
        finally:
            await provider.aclose()

    first, second = asyncio.run(go())
    assert any("without its token counts" in n for n in first.notes)
    assert second.usage.input_tokens == 5 and not second.notes
    assert sent == [True, False]


def test_nothing_is_streamed_when_nobody_watches() -> None:
    """Probes, batch bodies and tools call `chat` without a pulse: plain answers."""
    with Simulator() as sim:

        async def go() -> ChatResponse:
            provider = OpenAICompatProvider(sim.base_url)
            try:
                return await provider.chat(REQUEST)
            finally:
                await provider.aclose()

        asyncio.run(go())
        assert sim.bodies[0]["stream"] is False and "stream_options" not in sim.bodies[0]
