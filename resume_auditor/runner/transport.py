"""An HTTP client that lets the runner see every answer's headers.

Providers read the body of an answer; the rate-limit headers that come with it
(`x-ratelimit-*`, `anthropic-ratelimit-*`) are the runner's business. Giving the
provider an httpx client with a response hook hands them to the rate limiter
without the providers knowing, and `ObservedProvider` closes that client when
the provider is closed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import httpx

from resume_auditor.providers.base import ChatRequest, ChatResponse, Provider

HeaderSink = Callable[[Mapping[str, str]], None]


def observing_client(
    on_headers: HeaderSink, timeout_s: float, connections: int = 100
) -> httpx.AsyncClient:
    async def hook(response: httpx.Response) -> None:
        on_headers(response.headers)

    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout_s, connect=10.0),
        limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
        event_hooks={"response": [hook]},
    )


class ObservedProvider:
    """A provider and the client it was given; `inner` is the provider itself."""

    def __init__(self, inner: Provider, client: httpx.AsyncClient) -> None:
        self.inner = inner
        self.name = inner.name
        self._client = client

    async def chat(self, request: ChatRequest) -> ChatResponse:
        return await self.inner.chat(request)

    async def list_models(self) -> list[str]:
        return await self.inner.list_models()

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            await self._client.aclose()
