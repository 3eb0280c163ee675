"""The simulator's requests/min and tokens/min limits, on a clock the test controls."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from devtools.simulator import Simulator, neutral_body

from resume_auditor.providers.base import ChatRequest, ErrorKind, ProviderError
from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.providers.registry import make_provider

WIRES = ("openai", "anthropic", "gemini", "openrouter", "azure", "openai-compatible")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _send(pid: str, sim: Simulator, n: int, user: str = "hello", max_tokens: int = 10) -> list:
    provider = make_provider(
        pid, base_url=sim.url_for(pid), api_key="k" * 12, capabilities=CapabilityCache()
    )

    async def go() -> list:
        out: list = []
        try:
            for _ in range(n):
                try:
                    out.append(
                        await provider.chat(ChatRequest("m", "", user, max_tokens=max_tokens))
                    )
                except ProviderError as exc:
                    out.append(exc)
        finally:
            await provider.aclose()
        return out

    return asyncio.run(go())


@pytest.mark.parametrize("pid", WIRES)
def test_requests_per_minute_answers_429_with_the_wait_until_the_window_frees(
    pid: str, tmp_path: Path
) -> None:
    clock = FakeClock()
    with Simulator(rpm=3, clock=clock) as sim:
        results = _send(pid, sim, 3)
        assert all(not isinstance(r, ProviderError) for r in results)
        clock.now += 20.0
        (limited,) = _send(pid, sim, 1)
        assert isinstance(limited, ProviderError)
        assert limited.kind is ErrorKind.RATE_LIMIT
        # the oldest request leaves the 60 s window 40 s from now
        assert limited.retry_after_s == pytest.approx(40.0, abs=1.0)
        clock.now += 40.0
        (again,) = _send(pid, sim, 1)
        assert not isinstance(again, ProviderError)
        assert sim.rate_limited == 1 and sim.answered == 4


def test_tokens_per_minute_counts_the_prompt_and_the_token_limit() -> None:
    clock = FakeClock()
    user = "x" * 400  # 100 prompt tokens, plus max_tokens 100: 200 per request
    with Simulator(tpm=500, clock=clock) as sim:
        results = _send("openai", sim, 3, user=user, max_tokens=100)
        assert [isinstance(r, ProviderError) for r in results] == [False, False, True]
        assert results[2].kind is ErrorKind.RATE_LIMIT
        assert results[2].retry_after_s == pytest.approx(60.0, abs=1.0)
        clock.now += 61.0
        assert not isinstance(_send("openai", sim, 1, user=user, max_tokens=100)[0], ProviderError)


def test_a_single_request_above_the_token_limit_is_always_refused() -> None:
    with Simulator(tpm=50, clock=FakeClock()) as sim:
        (result,) = _send("anthropic", sim, 1, user="y" * 400, max_tokens=10)
        assert isinstance(result, ProviderError) and result.kind is ErrorKind.RATE_LIMIT


def test_without_limits_nothing_is_refused() -> None:
    with Simulator(clock=FakeClock()) as sim:
        assert not any(isinstance(r, ProviderError) for r in _send("gemini", sim, 12))
        assert sim.rate_limited == 0


def test_every_wire_format_reads_as_one_neutral_request() -> None:
    openai = {
        "model": "m",
        "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "U"}],
        "max_completion_tokens": 9,
        "logprobs": True,
        "top_logprobs": 4,
    }
    anthropic = {
        "model": "m",
        "system": "S",
        "max_tokens": 9,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "U"}]}],
    }
    gemini = {
        "systemInstruction": {"parts": [{"text": "S"}]},
        "contents": [{"role": "user", "parts": [{"text": "U"}]}],
        "generationConfig": {"maxOutputTokens": 9, "responseLogprobs": True, "logprobs": 4},
    }
    views = [
        neutral_body("openai", openai),
        neutral_body("anthropic", anthropic),
        neutral_body("gemini", gemini, "m"),
    ]
    for view in views:
        assert view["model"] == "m" and view["max_tokens"] == 9
        assert [m["content"] for m in view["messages"]] == ["S", "U"]
    assert views[0]["top_logprobs"] == 4 and views[2]["top_logprobs"] == 4
    assert views[1]["top_logprobs"] is None
