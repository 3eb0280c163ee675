"""Every provider the app offers, in one list the rest of the app reads.

The UI builds its provider dropdown, key fields and capability badges from
`PROVIDERS`; the workflow builds a provider for a study with `make_provider`.
Adding a vendor means one entry here and one wire module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import httpx

from resume_auditor.domain.study import base_url_problem, url_credentials
from resume_auditor.providers.anthropic import AnthropicProvider
from resume_auditor.providers.azure import AzureOpenAIProvider
from resume_auditor.providers.base import ErrorKind, Provider, ProviderError
from resume_auditor.providers.capabilities import (
    LOGPROBS,
    SEED,
    STRUCTURED,
    TEMPERATURE,
    Capabilities,
    CapabilityCache,
    Support,
    default_cache,
    model_key,
)
from resume_auditor.providers.gemini import GeminiProvider
from resume_auditor.providers.openai import OpenAIProvider
from resume_auditor.providers.openai_compat import OpenAICompatProvider
from resume_auditor.providers.openrouter import OpenRouterProvider
from resume_auditor.providers.wire import WireProvider

Y, N, SOME = Support.YES, Support.NO, Support.SOME


@dataclass(frozen=True)
class ProviderInfo:
    """What the UI and CLI need to know about one provider."""

    id: str  # as stored in study and result files
    label: str  # for the dropdown
    wire: str  # openai | anthropic | gemini | local
    env_var: str  # the standard environment variable for its key ("" if none)
    needs_key: bool  # True: required; False: optional (local servers) or never (local)
    needs_base_url: bool
    default_base_url: str
    base_url_hint: str  # a placeholder for the base-URL field
    model_hint: str  # a placeholder for the model field
    key_per_base_url: bool  # one keyring entry per server address
    capabilities: Capabilities
    note: str  # one plain sentence for the settings page
    key_url: str = ""  # where to get a key


PROVIDERS: tuple[ProviderInfo, ...] = (
    ProviderInfo(
        id="local",
        label="Bundled local model — SmolLM2-135M (this computer, no key, no network)",
        wire="local",
        env_var="",
        needs_key=False,
        needs_base_url=False,
        default_base_url="",
        base_url_hint="",
        model_hint="smollm2-135m-instruct",
        key_per_base_url=False,
        capabilities=Capabilities(Y, Y, Y, Y, lists_models=True),
        note="Runs on this computer; a very small model to try the workflow, not to judge.",
    ),
    ProviderInfo(
        id="openai",
        label="OpenAI (GPT)",
        wire="openai",
        env_var="OPENAI_API_KEY",
        needs_key=True,
        needs_base_url=False,
        default_base_url="https://api.openai.com/v1",
        base_url_hint="https://api.openai.com/v1",
        model_hint="gpt-4.1-mini",
        key_per_base_url=False,
        capabilities=Capabilities(SOME, SOME, SOME, Y),
        note="Reasoning models (o-series, gpt-5) refuse temperature and log-probabilities.",
        key_url="https://platform.openai.com/api-keys",
    ),
    ProviderInfo(
        id="anthropic",
        label="Anthropic (Claude)",
        wire="anthropic",
        env_var="ANTHROPIC_API_KEY",
        needs_key=True,
        needs_base_url=False,
        default_base_url="https://api.anthropic.com",
        base_url_hint="https://api.anthropic.com",
        model_hint="claude-sonnet-4-5",
        key_per_base_url=False,
        capabilities=Capabilities(Y, N, N, SOME),
        note="No seed and no log-probabilities: repeat requests to measure consistency.",
        key_url="https://console.anthropic.com/settings/keys",
    ),
    ProviderInfo(
        id="gemini",
        label="Google Gemini",
        wire="gemini",
        env_var="GEMINI_API_KEY",
        needs_key=True,
        needs_base_url=False,
        default_base_url="https://generativelanguage.googleapis.com",
        base_url_hint="https://generativelanguage.googleapis.com",
        model_hint="gemini-2.5-flash",
        key_per_base_url=False,
        capabilities=Capabilities(Y, Y, SOME, Y),
        note="Log-probabilities on some models only; thinking models use extra tokens.",
        key_url="https://aistudio.google.com/apikey",
    ),
    ProviderInfo(
        id="openrouter",
        label="OpenRouter (many vendors, one key)",
        wire="openai",
        env_var="OPENROUTER_API_KEY",
        needs_key=True,
        needs_base_url=False,
        default_base_url="https://openrouter.ai/api/v1",
        base_url_hint="https://openrouter.ai/api/v1",
        model_hint="openai/gpt-4.1-mini",
        key_per_base_url=False,
        capabilities=Capabilities(SOME, SOME, SOME, SOME),
        note="Model ids are vendor/model; settings depend on the upstream that answers.",
        key_url="https://openrouter.ai/settings/keys",
    ),
    ProviderInfo(
        id="azure",
        label="Azure OpenAI (your own deployment)",
        wire="openai",
        env_var="AZURE_OPENAI_API_KEY",
        needs_key=True,
        needs_base_url=True,
        default_base_url="",
        base_url_hint="https://YOUR-RESOURCE.openai.azure.com",
        model_hint="your deployment name",
        key_per_base_url=True,
        capabilities=Capabilities(SOME, SOME, SOME, Y, lists_models=False),
        note="Type the deployment name; Azure does not list deployments for an API key.",
    ),
    ProviderInfo(
        id="openai-compatible",
        label="OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio...)",
        wire="openai",
        env_var="RESUME_AUDITOR_API_KEY",
        needs_key=False,
        needs_base_url=True,
        default_base_url="",
        base_url_hint="http://localhost:11434/v1",
        model_hint="llama3.2",
        key_per_base_url=True,
        capabilities=Capabilities(Y, SOME, SOME, SOME),
        note="Any server with an OpenAI-style /v1/chat/completions; a key only if it needs one.",
    ),
)

_BY_ID = {p.id: p for p in PROVIDERS}


def provider_info(provider_id: str) -> ProviderInfo:
    """The registry entry; a plain error naming the known providers otherwise."""
    try:
        return _BY_ID[provider_id]
    except KeyError:
        known = ", ".join(_BY_ID)
        raise ProviderError(
            ErrorKind.NOT_FOUND, f"Unknown provider {provider_id!r}; use one of: {known}."
        ) from None


_CLASSES: dict[str, type[WireProvider]] = {
    "openai": OpenAIProvider,
    "anthropic": AnthropicProvider,
    "gemini": GeminiProvider,
    "openrouter": OpenRouterProvider,
    "azure": AzureOpenAIProvider,
    "openai-compatible": OpenAICompatProvider,
}


def make_provider(
    provider_id: str,
    *,
    base_url: str = "",
    api_key: str | None = None,
    client: httpx.AsyncClient | None = None,
    timeout_s: float = 120.0,
    capabilities: CapabilityCache | None = None,
    require_key: bool = True,
) -> Provider:
    """A ready provider. Blocking for "local" (it starts the bundled model server).

    `require_key=False` lets a provider be made without its key, for calls that
    need none (OpenRouter's model list).
    """
    info = provider_info(provider_id)
    clean, secrets = url_credentials(base_url)
    if secrets or clean != base_url:
        # The address is printed in messages and stored with the run: refuse, do not send.
        raise ProviderError(
            ErrorKind.BAD_REQUEST,
            f"The server address holds a key or password ({clean} with credentials). "
            "Remove them from the address and store the key in Settings (or: "
            f"resume-auditor keys set {provider_id} --base-url {clean}).",
        )
    problem = base_url_problem(base_url)
    if problem is not None:
        # Every request would fail the same way, and resuming could not help: say it now.
        raise ProviderError(
            ErrorKind.BAD_REQUEST,
            f"The server address (base URL {clean}) cannot be used: {problem}. Fix it in the "
            "study (model.base_url), with --base-url, or on the Run page.",
        )
    if info.needs_base_url and not base_url.strip():
        raise ProviderError(
            ErrorKind.BAD_REQUEST,
            f"{info.label} needs a base URL, for example {info.base_url_hint}.",
        )
    if info.needs_key and require_key and not api_key:
        how = f"set {info.env_var} or run: resume-auditor keys set {info.id}"
        if info.key_per_base_url:
            how += f" --base-url {base_url}"
        raise ProviderError(
            ErrorKind.AUTH,
            f"No API key for {info.label}. Add it in Settings, or {how}.",
        )
    if provider_id == "local":
        from resume_auditor.providers.local import local_provider

        return local_provider(timeout_s=max(timeout_s, 300.0))
    if provider_id == "openai-compatible":
        return OpenAICompatProvider(
            base_url,
            api_key=api_key,
            client=client,
            name=f"The server at {base_url}",
            timeout_s=timeout_s,
            capabilities=capabilities,
        )
    cls: Callable[..., Provider] = _CLASSES[provider_id]
    return cls(
        base_url,
        api_key=api_key,
        client=client,
        timeout_s=timeout_s,
        capabilities=capabilities,
    )


def model_capabilities(
    provider_id: str,
    model: str,
    base_url: str = "",
    cache: CapabilityCache | None = None,
) -> Capabilities:
    """The provider's flags narrowed by what is known about this model (for the UI)."""
    info = provider_info(provider_id)
    caps = info.capabilities
    if provider_id == "local":
        return caps
    cls = _CLASSES[provider_id]
    traits = cls.traits_for(model)
    cache = cache if cache is not None else default_cache()
    key = model_key(provider_id, cls.canonical_base_url(base_url), model)

    def narrowed(feature: str, flag: Support) -> Support:
        if flag is N or feature in traits.refuses:
            return N
        known = cache.get(key, feature)
        if known is None:
            return flag
        return Y if known else N

    return Capabilities(
        temperature=narrowed(TEMPERATURE, caps.temperature),
        seed=narrowed(SEED, caps.seed),
        logprobs=narrowed(LOGPROBS, caps.logprobs),
        structured_output=narrowed(STRUCTURED, caps.structured_output),
        lists_models=caps.lists_models,
    )
