"""Stopping the bundled model's server never waits on work nobody wants (issue 18).

No model here: a child process stands in for the llama.cpp server, one that
ignores SIGTERM the way uvicorn does while a request is in progress.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator

import pytest

from resume_auditor.providers.base import ChatRequest
from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.providers.local import LocalModelServer, LocalProvider

STUBBORN = (
    "import signal, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "print('ready', flush=True)\n"
    "time.sleep(600)\n"
)


@pytest.fixture()
def stubborn() -> Iterator[LocalModelServer]:
    server = LocalModelServer(threads=1)
    proc = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    proc.stdout.close()  # it has said it ignores SIGTERM now
    server._proc = proc  # noqa: SLF001 - the stand-in server
    server.port = 9  # never contacted
    try:
        yield server
    finally:
        if proc.poll() is None:  # a failed test leaves nothing behind
            proc.kill()
            proc.wait()


class _Waits:
    """The server process, recording how long stop() lets it finish on its own."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.timeouts: list[float | None] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.proc, name)

    def wait(self, timeout: float | None = None) -> int:
        self.timeouts.append(timeout)
        return self.proc.wait(timeout)


def test_stop_ends_a_server_that_would_finish_its_request_first(stubborn: LocalModelServer) -> None:
    server = stubborn
    proc = server._proc  # noqa: SLF001
    assert proc is not None
    spy = _Waits(proc)
    server._proc = spy  # type: ignore[assignment]  # noqa: SLF001
    server.stop()
    assert proc.poll() is not None, "the server is gone once stop() returns"
    assert not server.running()
    assert spy.timeouts[0] is not None and spy.timeouts[0] <= 1.0, (
        "a request in progress is not waited for: the app's exit and Stop stay within a second"
    )


def test_a_request_cancelled_while_the_event_loop_shuts_down_still_stops_the_server(
    stubborn: LocalModelServer,
) -> None:
    """A task cancelled after the loop's thread pool closed must still stop the server."""
    server = stubborn
    proc = server._proc  # noqa: SLF001
    assert proc is not None
    provider = LocalProvider(server, capabilities=CapabilityCache(), timeout_s=300)
    started = asyncio.Event()

    async def hanging_chat(self: object, request: ChatRequest) -> None:
        started.set()
        await asyncio.sleep(600)

    async def go() -> None:
        asyncio.create_task(provider.chat(ChatRequest("m", "", "hello", max_tokens=3)))
        await started.wait()  # left running: cancelled on the way out
        # As when the runner's loop ends: no worker thread can start after this.
        await asyncio.get_running_loop().shutdown_default_executor()

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("resume_auditor.providers.openai_compat.OpenAICompatProvider.chat", hanging_chat)
        asyncio.run(go())
    assert proc.poll() is not None, "the cancelled request's work was stopped"
    assert server.interruptions == 1
