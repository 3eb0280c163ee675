"""Every provider against the simulator, in its own wire format: the happy path."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from devtools.simulator import Simulator
from fake_keys import fake_key

from resume_auditor.domain.study import PROVIDERS as STUDY_PROVIDERS
from resume_auditor.providers.base import ChatRequest, ChatResponse, Provider
from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.providers.registry import PROVIDERS, make_provider, provider_info

KEY = fake_key()
REMOTE = ("openai", "anthropic", "gemini", "openrouter", "azure", "openai-compatible")
USER = "Resume 1: short. Resume 2: a much longer resume text here. Job description: x"


@pytest.fixture
def sim() -> Iterator[Simulator]:
    with Simulator(api_key=KEY, models=("sim-model", "text-embedding-004")) as s:
        yield s


def _make(pid: str, sim: Simulator, tmp_path: Path, **kw: Any) -> Provider:
    return make_provider(
        pid,
        base_url=sim.url_for(pid),
        api_key=KEY,
        capabilities=CapabilityCache(tmp_path / "caps.json"),
        **kw,
    )


def _chat(provider: Provider, request: ChatRequest) -> ChatResponse:
    async def go() -> ChatResponse:
        try:
            return await provider.chat(request)
        finally:
            await provider.aclose()

    return asyncio.run(go())


def _models(provider: Provider) -> list[str]:
    async def go() -> list[str]:
        try:
            return await provider.list_models()
        finally:
            await provider.aclose()

    return asyncio.run(go())


def test_the_registry_and_the_study_format_list_the_same_providers() -> None:
    assert tuple(p.id for p in PROVIDERS) == STUDY_PROVIDERS
    for info in PROVIDERS:
        assert info.label and info.note
        assert not info.needs_key or info.env_var


@pytest.mark.parametrize("pid", REMOTE)
def test_one_system_and_user_turn_comes_back_as_text_usage_and_version(
    pid: str, sim: Simulator, tmp_path: Path
) -> None:
    response = _chat(
        _make(pid, sim, tmp_path),
        ChatRequest("sim-model", "You screen resumes.", USER, temperature=0.0, max_tokens=50),
    )
    assert response.text.endswith("<answer>second</answer>")
    assert response.usage.input_tokens > 0 and response.usage.output_tokens > 0
    assert "sim-model" in response.model_version
    assert response.finish_reason
    assert response.logprobs is None  # not asked for
    # the wire body carried the system prompt and the user turn, the vendor's way
    wire = json.dumps(sim.bodies[-1])
    assert "You screen resumes." in wire and "Resume 2: a much longer" in wire
    assert KEY not in wire


@pytest.mark.parametrize(
    ("pid", "header", "value"),
    [
        ("openai", "Authorization", f"Bearer {KEY}"),
        ("openrouter", "Authorization", f"Bearer {KEY}"),
        ("openai-compatible", "Authorization", f"Bearer {KEY}"),
        ("azure", "api-key", KEY),
        ("anthropic", "x-api-key", KEY),
        ("gemini", "x-goog-api-key", KEY),
    ],
)
def test_the_key_travels_in_the_vendors_header_and_never_in_the_url(
    pid: str, header: str, value: str, sim: Simulator, tmp_path: Path
) -> None:
    _chat(_make(pid, sim, tmp_path), ChatRequest("sim-model", "", USER))
    seen = sim.requests[-1]
    assert seen.headers.get(header) == value
    assert KEY not in seen.path


@pytest.mark.parametrize("pid", ["openai", "gemini", "openrouter", "azure", "openai-compatible"])
def test_logprobs_are_normalised_to_tokens_with_top_alternatives(
    pid: str, sim: Simulator, tmp_path: Path
) -> None:
    response = _chat(_make(pid, sim, tmp_path), ChatRequest("sim-model", "", USER, top_logprobs=3))
    assert response.logprobs is not None
    assert "".join(t.token for t in response.logprobs) == response.text
    last = response.logprobs[-1]
    assert last.token == " <answer>second</answer>"
    assert last.top[0] == (last.token, pytest.approx(-0.05))
    assert len(last.top) == 3 and last.top[1][1] < last.top[0][1]
    assert response.unsupported == ()


def test_temperature_and_seed_reach_each_wire_format(sim: Simulator, tmp_path: Path) -> None:
    request = ChatRequest("sim-model", "s", USER, temperature=0.7, seed=42, max_tokens=77)
    _chat(_make("openai", sim, tmp_path), request)
    body = sim.bodies[-1]
    assert (body["temperature"], body["seed"], body["max_completion_tokens"]) == (0.7, 42, 77)
    _chat(_make("openai-compatible", sim, tmp_path), request)
    assert sim.bodies[-1]["max_tokens"] == 77  # local servers read max_tokens
    _chat(_make("gemini", sim, tmp_path), request)
    config = sim.bodies[-1]["generationConfig"]
    assert (config["temperature"], config["seed"], config["maxOutputTokens"]) == (0.7, 42, 77)
    _chat(_make("anthropic", sim, tmp_path), request)
    body = sim.bodies[-1]
    assert (body["temperature"], body["max_tokens"], body["system"]) == (0.7, 77, "s")
    assert "seed" not in body


def test_anthropic_says_it_has_no_seed_and_caps_temperature(sim: Simulator, tmp_path: Path) -> None:
    response = _chat(
        _make("anthropic", sim, tmp_path),
        ChatRequest("sim-model", "", USER, temperature=1.5, seed=3, top_logprobs=5),
    )
    assert sim.bodies[-1]["temperature"] == 1.0
    assert set(response.unsupported) == {"seed", "logprobs"}
    assert response.logprobs is None
    assert any("sent as 1" in n for n in response.notes)
    assert any("does not accept a seed" in n for n in response.notes)


def test_structured_output_is_sent_in_each_vendors_field(sim: Simulator, tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    request = ChatRequest("sim-model", "", USER, json_schema=schema)
    _chat(_make("openai", sim, tmp_path), request)
    assert sim.bodies[-1]["response_format"]["json_schema"]["schema"] == schema
    _chat(_make("anthropic", sim, tmp_path), request)
    assert sim.bodies[-1]["output_config"]["format"] == {"type": "json_schema", "schema": schema}
    _chat(_make("gemini", sim, tmp_path), request)
    config = sim.bodies[-1]["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == schema


@pytest.mark.parametrize(
    ("pid", "expected"),
    [
        ("openai", ["sim-model"]),  # the embedding model cannot screen: left out
        ("openai-compatible", ["sim-model", "text-embedding-004"]),
        ("anthropic", ["sim-model", "text-embedding-004"]),
        ("gemini", ["sim-model"]),  # only generateContent models
        ("openrouter", ["sim-model", "text-embedding-004"]),
        ("azure", []),  # deployments cannot be listed with a key
    ],
)
def test_model_lists_for_the_dropdown(
    pid: str, expected: list[str], sim: Simulator, tmp_path: Path
) -> None:
    assert _models(_make(pid, sim, tmp_path)) == expected


def test_paged_model_lists_are_read_to_the_end(tmp_path: Path) -> None:
    models = tuple(f"model-{i:04d}" for i in range(2500))
    with Simulator(models=models) as sim:
        for pid in ("anthropic", "gemini"):
            got = _models(_make(pid, sim, tmp_path))
            assert got == sorted(models), pid
        gets = [r for r in sim.requests if r.method == "GET"]
        assert len(gets) == 6  # three pages of 1000 each


def test_azure_dated_api_uses_the_deployment_path(sim: Simulator, tmp_path: Path) -> None:
    provider = make_provider(
        "azure",
        base_url=f"{sim.root_url}/openai?api-version=2024-10-21",
        api_key=KEY,
        capabilities=CapabilityCache(),
    )
    response = _chat(provider, ChatRequest("my-deployment", "", USER))
    assert response.text
    assert sim.requests[-1].path == (
        "/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21"
    )


def test_openrouter_names_the_upstream_and_identifies_the_app(
    sim: Simulator, tmp_path: Path
) -> None:
    response = _chat(_make("openrouter", sim, tmp_path), ChatRequest("vendor/sim-model", "", USER))
    assert response.model_version.endswith("via SimUpstream")
    assert sim.requests[-1].headers.get("X-Title") == "Resume Auditor"


def test_a_provider_that_needs_a_key_says_where_to_put_one(sim: Simulator) -> None:
    from resume_auditor.providers.base import ErrorKind, ProviderError

    with pytest.raises(ProviderError) as err:
        make_provider("anthropic", api_key=None)
    assert err.value.kind is ErrorKind.AUTH
    assert "ANTHROPIC_API_KEY" in err.value.message
    assert "resume-auditor keys set anthropic" in err.value.message
    with pytest.raises(ProviderError, match="needs a base URL"):
        make_provider("azure", api_key=KEY)
    with pytest.raises(ProviderError, match="Unknown provider"):
        provider_info("watsonx")
    assert sim.received == 0
