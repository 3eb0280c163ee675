"""Azure OpenAI: OpenAI's wire format on your own Azure resource.

Quirks: the key goes in an `api-key` header; the "model" is the name of *your
deployment*, which need not reveal the model behind it (so a reasoning model is
recognised by the server's refusals, not by its name); limits come back as
`retry-after-ms`; the content filter answers 400 `content_filter` or a
completion with finish_reason "content_filter". Deployments cannot be listed
with an API key (that needs Azure Resource Manager), so the user types the
deployment name.

Base URL forms accepted:
  https://NAME.openai.azure.com                    -> the v1 API (/openai/v1)
  https://NAME.openai.azure.com/openai/v1          -> as given
  https://NAME.openai.azure.com/openai?api-version=2024-10-21
                                                   -> the dated API, per deployment
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit, urlunsplit

import httpx

from resume_auditor.providers.base import ChatRequest
from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.providers.openai_compat import OpenAICompatProvider


def split_base_url(base_url: str) -> tuple[str, str | None]:
    """(endpoint for the v1 API or the resource root, api-version or None)."""
    parts = urlsplit(base_url.strip())
    version = parse_qs(parts.query).get("api-version", [None])[0]
    path = parts.path.rstrip("/")
    if version:
        root = path.split("/openai", 1)[0]
        return urlunsplit((parts.scheme, parts.netloc, root, "", "")), version
    if not path.endswith("/openai/v1"):
        path = path.split("/openai", 1)[0] + "/openai/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", "")), None


class AzureOpenAIProvider(OpenAICompatProvider):
    wire = "openai"
    provider_id = "azure"
    max_tokens_field = "max_completion_tokens"
    streams_logprobs = True  # OpenAI's models and chunks

    @classmethod
    def canonical_base_url(cls, base_url: str) -> str:
        return split_base_url(base_url)[0]

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        name: str = "Azure OpenAI",
        timeout_s: float = 120.0,
        capabilities: CapabilityCache | None = None,
    ) -> None:
        self.api_version = split_base_url(base_url)[1]
        super().__init__(
            base_url,
            api_key=api_key,
            client=client,
            name=name,
            timeout_s=timeout_s,
            capabilities=capabilities,
        )

    def _chat_url(self, request: ChatRequest) -> str:
        if self.api_version:
            return (
                f"{self.base_url}/openai/deployments/{request.model}/chat/completions"
                f"?api-version={self.api_version}"
            )
        return f"{self.base_url}/chat/completions"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["api-key"] = self._api_key
        return headers

    async def list_models(self) -> list[str]:
        """Always empty: deployments cannot be listed with an API key; type the name."""
        return []
