"""Settings a model refuses: dropped, said, remembered; log-probabilities probed once."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from devtools.simulator import Simulator
from fake_keys import fake_key

from resume_auditor.providers.base import ChatRequest, ChatResponse
from resume_auditor.providers.capabilities import (
    CACHE_FILE,
    REASONING_HEADROOM_TOKENS,
    CapabilityCache,
    Support,
    default_cache,
    model_key,
    rejected_feature,
)
from resume_auditor.providers.probe import probe_logprobs
from resume_auditor.providers.registry import make_provider, model_capabilities
from resume_auditor.providers.wire import WireProvider

KEY = fake_key("caps")
USER = "Resume 1: a. Resume 2: bb. Job description: c"


def _provider(pid: str, sim: Simulator, cache: CapabilityCache) -> WireProvider:
    provider = make_provider(pid, base_url=sim.url_for(pid), api_key=KEY, capabilities=cache)
    assert isinstance(provider, WireProvider)
    return provider


def _chats(provider: WireProvider, *requests: ChatRequest) -> list[ChatResponse]:
    async def go() -> list[ChatResponse]:
        try:
            return [await provider.chat(r) for r in requests]
        finally:
            await provider.aclose()

    return asyncio.run(go())


def test_a_reasoning_model_is_sent_no_temperature_and_given_room_to_think(
    tmp_path: Path,
) -> None:
    with Simulator(api_key=KEY, models=("o3-mini",)) as sim:
        provider = _provider("openai", sim, CapabilityCache(tmp_path / "c.json"))
        (answer,) = _chats(provider, ChatRequest("o3-mini", "", USER, top_logprobs=5))
        body = sim.bodies[-1]
    assert sim.received == 1  # known by its name: no wasted request
    assert "temperature" not in body and "logprobs" not in body
    assert body["max_completion_tokens"] == 256 + REASONING_HEADROOM_TOKENS
    assert set(answer.unsupported) == {"temperature", "logprobs"}
    assert any("does not accept a temperature" in n for n in answer.notes)
    assert any("token limit was raised" in n for n in answer.notes)


def test_an_unknown_model_that_refuses_temperature_is_retried_without_it_once(
    tmp_path: Path,
) -> None:
    cache_file = tmp_path / "caps.json"
    # An Azure deployment's name does not say it is a reasoning model.
    with Simulator(
        api_key=KEY, models=("my-deployment",), reasoning_models={"my-deployment"}
    ) as sim:
        provider = _provider("azure", sim, CapabilityCache(cache_file))
        first, second = _chats(
            provider,
            ChatRequest("my-deployment", "", USER, temperature=0.0),
            ChatRequest("my-deployment", "", USER, temperature=0.0),
        )
        assert sim.received == 3  # refused, retried, then sent right the first time
        assert "temperature" in sim.bodies[0] and "temperature" not in sim.bodies[1]
        assert "temperature" not in sim.bodies[2]
    for answer in (first, second):
        assert answer.text and answer.unsupported == ("temperature",)
        assert any("does not accept a temperature" in n for n in answer.notes)
    assert second.usage.reasoning_tokens > 0
    assert any("tokens reasoning" in n for n in second.notes)
    # remembered across sessions, in the data folder's file
    later = CapabilityCache(cache_file)
    key = model_key("azure", sim.url_for("azure") + "/openai/v1", "my-deployment")
    assert later.get(key, "temperature") is False


def test_logprobs_are_probed_once_and_remembered_on_disk(tmp_path: Path) -> None:
    cache_file = tmp_path / "caps.json"
    with Simulator(api_key=KEY, models=("good", "plain"), logprobs={"good"}) as sim:

        async def go() -> tuple[bool, bool, bool, bool]:
            provider = _provider("openai", sim, CapabilityCache(cache_file))
            try:
                return (
                    await probe_logprobs(provider, "good"),
                    await probe_logprobs(provider, "plain"),
                    await probe_logprobs(provider, "good"),
                    await probe_logprobs(provider, "plain"),
                )
            finally:
                await provider.aclose()

        assert asyncio.run(go()) == (True, False, True, False)
        # good: one probe; plain: a refusal, then a retry without log-probabilities
        assert sim.received == 3
        again = _provider("openai", sim, CapabilityCache(cache_file))
        assert asyncio.run(probe_logprobs(again, "plain")) is False
        asyncio.run(again.aclose())
        assert sim.received == 3  # known from the file: nothing sent
    stored = json.loads(cache_file.read_text())
    assert {v["logprobs"]["ok"] for v in stored["models"].values()} == {True, False}


def test_a_server_that_silently_ignores_logprobs_is_remembered_as_without(
    tmp_path: Path,
) -> None:
    with Simulator(logprobs=False, unsupported_logprobs="ignore") as sim:
        provider = _provider("openai-compatible", sim, CapabilityCache(tmp_path / "c.json"))
        first, second = _chats(
            provider,
            ChatRequest("sim-model", "", USER, top_logprobs=2),
            ChatRequest("sim-model", "", USER, top_logprobs=2),
        )
        assert sim.bodies[0].get("logprobs") is True and "logprobs" not in sim.bodies[1]
    assert first.logprobs is None and first.unsupported == ("logprobs",)
    assert second.logprobs is None and second.unsupported == ("logprobs",)


def test_gemini_logprobs_not_enabled_falls_back_cleanly(tmp_path: Path) -> None:
    with Simulator(api_key=KEY, logprobs=False) as sim:
        provider = _provider("gemini", sim, CapabilityCache(tmp_path / "c.json"))
        (answer,) = _chats(provider, ChatRequest("sim-model", "", USER, top_logprobs=3))
        assert sim.received == 2
        assert "responseLogprobs" not in sim.bodies[-1]["generationConfig"]
    assert answer.text and answer.logprobs is None and answer.unsupported == ("logprobs",)


def test_openrouter_no_endpoint_for_logprobs_is_not_an_unknown_model(tmp_path: Path) -> None:
    with Simulator(api_key=KEY, logprobs=False) as sim:
        provider = _provider("openrouter", sim, CapabilityCache(tmp_path / "c.json"))
        (answer,) = _chats(provider, ChatRequest("meta/llama", "", USER, top_logprobs=3))
        assert sim.bodies[0]["provider"] == {"require_parameters": True}
        assert "provider" not in sim.bodies[1]
    assert answer.text and answer.unsupported == ("logprobs",)


def test_openrouters_model_list_teaches_which_models_lack_logprobs(tmp_path: Path) -> None:
    cache = CapabilityCache(tmp_path / "c.json")
    with Simulator(models=("a/with", "b/without"), logprobs={"a/with"}) as sim:
        provider = _provider("openrouter", sim, cache)

        async def go() -> list[str]:
            try:
                return await provider.list_models()
            finally:
                await provider.aclose()

        assert asyncio.run(go()) == ["a/with", "b/without"]
        base = sim.url_for("openrouter")
    caps = model_capabilities("openrouter", "b/without", base, cache)
    assert caps.logprobs is Support.NO
    assert model_capabilities("openrouter", "a/with", base, cache).logprobs is Support.SOME


def test_model_capabilities_for_the_ui() -> None:
    cache = CapabilityCache()
    o3 = model_capabilities("openai", "o3", cache=cache)
    assert (o3.temperature, o3.logprobs) == (Support.NO, Support.NO)
    gpt = model_capabilities("openai", "gpt-4.1-mini", cache=cache)
    assert gpt.temperature is Support.SOME
    cache.set(model_key("openai", "https://api.openai.com/v1", "gpt-4.1-mini"), "logprobs", True)
    assert model_capabilities("openai", "gpt-4.1-mini", cache=cache).logprobs is Support.YES
    claude = model_capabilities("anthropic", "claude-sonnet-4-5", cache=cache)
    assert (claude.seed, claude.logprobs) == (Support.NO, Support.NO)
    assert model_capabilities("azure", "x", "https://r.openai.azure.com").lists_models is False
    assert model_capabilities("local", "smollm2-135m-instruct").as_dict()["logprobs"] == "yes"


def test_findings_expire_so_a_changed_model_is_looked_at_again(tmp_path: Path) -> None:
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    cache = CapabilityCache(tmp_path / "c.json", now=lambda: now[0])
    cache.set("k", "logprobs", False)
    now[0] += timedelta(days=3)
    assert cache.get("k", "logprobs") is False
    now[0] += timedelta(days=30)
    assert cache.get("k", "logprobs") is None


def test_an_unreadable_capability_file_is_ignored_and_replaced(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text("{not json")
    cache = CapabilityCache(path)
    assert cache.get("k", "seed") is None
    cache.set("k", "seed", False)
    assert json.loads(path.read_text())["models"]["k"]["seed"]["ok"] is False


def test_the_default_cache_lives_in_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path))
    default_cache().set("k", "seed", True)
    assert (tmp_path / CACHE_FILE).exists()


def test_cache_keys_carry_no_credentials() -> None:
    key = model_key("openai-compatible", "http://user:secret@host:8080/v1/?token=abc", "m")
    assert key == "openai-compatible|http://host:8080/v1|m"


@pytest.mark.parametrize(
    ("message", "param", "sent", "expected"),
    [
        (
            "Unsupported parameter: 'temperature' is not supported.",
            "temperature",
            {"temperature"},
            "temperature",
        ),
        ("Logprobs is not enabled for models/x", "", {"logprobs", "seed"}, "logprobs"),
        ("seed: Extra inputs are not permitted", "", {"seed"}, "seed"),
        ("temperature must be between 0 and 2", "", {"temperature"}, None),  # a user error
        ("The model is overloaded", "", {"temperature"}, None),
        (
            "'response_format' of type 'json_schema' is not supported",
            "",
            {"structured_output"},
            "structured_output",
        ),
    ],
)
def test_which_setting_a_refusal_names(
    message: str, param: str, sent: set[str], expected: Any
) -> None:
    assert rejected_feature(message, param, sent) == expected
