"""Batch code uses providers only through their public batch interface (issue 19).

runner/batch_backends.py once reached into provider privates (`_send`, `_parse`,
`_finish`, `_headers`, `_client`); a refactor of a provider could then break
batches silently. Two checks: an AST walk that fails on any `x._name` (or
getattr(x, "_name")) in batch code where x is not the backend's own `self`, shown
failing on planted code; and a full batch (submit, find, poll, collect) against the
simulator with each provider behind a guard that lets through only the members of
providers.base.BatchProvider.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest
from devtools.simulator import Simulator

from resume_auditor.providers.base import BatchProvider, ChatRequest, ChatResponse
from resume_auditor.providers.registry import make_provider
from resume_auditor.runner.batch_backends import AnthropicBatch, OpenAIBatch

ROOT = Path(__file__).resolve().parent.parent
BATCH_CODE = (
    ROOT / "resume_auditor" / "runner" / "batch_backends.py",
    ROOT / "resume_auditor" / "runner" / "batch.py",
)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_reaches(source: str) -> list[str]:
    """`line: expression` for every private attribute used on anything but bare `self`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
        ):
            found.append((node.lineno, ast.unparse(node)))
    return [f"{line}: {text}" for line, text in sorted(found)]


@pytest.mark.parametrize("path", BATCH_CODE, ids=lambda p: p.name)
def test_batch_code_touches_no_private_provider_attribute(path: Path) -> None:
    assert private_reaches(path.read_text(encoding="utf-8")) == []


def test_the_walk_catches_a_reach_into_a_provider() -> None:
    planted = (
        "class B:\n"
        "    async def f(self, provider):\n"
        "        await self.provider._send('GET', 'x')\n"
        "        self._own = 1\n"
        "        h = getattr(self.provider, '_headers')()\n"
        "        return provider._client, self.provider.__class__\n"
    )
    assert private_reaches(planted) == [
        "3: self.provider._send",
        "5: getattr(self.provider, '_headers')",
        "6: provider._client",
    ]


PUBLIC = {
    name
    for name, _ in inspect.getmembers(BatchProvider)
    if not name.startswith("_") and name in vars(BatchProvider)
} | set(BatchProvider.__annotations__)


class Guard:
    """A provider seen only through BatchProvider: any other attribute is an error."""

    def __init__(self, inner: Any) -> None:
        object.__setattr__(self, "_inner", inner)
        object.__setattr__(self, "touched", set())

    def __getattr__(self, name: str) -> Any:
        if name not in PUBLIC:
            raise AssertionError(f"batch code used provider.{name}, outside BatchProvider")
        self.touched.add(name)
        return getattr(object.__getattribute__(self, "_inner"), name)


def test_the_interface_names_what_batches_need() -> None:
    assert {
        "name",
        "base_url",
        "batch_body",
        "batch_answer",
        "batch_error",
        "batch_call",
        "batch_download",
        "batch_upload",
    } == PUBLIC


@pytest.mark.parametrize(
    ("provider", "model", "backend"),
    [("openai", "gpt-4o-mini", OpenAIBatch), ("anthropic", "claude-haiku-4-5", AnthropicBatch)],
)
def test_a_whole_batch_runs_through_the_public_interface_only(
    provider: str, model: str, backend: type[OpenAIBatch] | type[AnthropicBatch]
) -> None:
    requests = {
        f"r{i}": ChatRequest(
            model=model,
            system="You screen resumes.",
            user=f"Is candidate {i} a good fit for the job position? Answer Yes or No.",
        )
        for i in range(3)
    }

    async def batch(sim: Simulator) -> tuple[Guard, list[Any], str | None, int]:
        real = make_provider(provider, base_url=sim.url_for(provider), api_key="k")
        guard = Guard(real)
        try:
            b = backend(guard)  # type: ignore[arg-type]
            size = sum(b.line_size(cid, req) for cid, req in requests.items())
            remote = await b.submit(list(requests.items()), "key-1")
            found = await b.find("key-1")
            for _ in range(200):
                if (await b.poll(remote)).ended:
                    break
                await asyncio.sleep(0.02)
            return guard, await b.results(remote, requests), found, size
        finally:
            await real.aclose()

    with Simulator() as sim:
        guard, results, found, size = asyncio.run(batch(sim))
        assert sim.batch_store.created == 1 and sim.batch_store.lines_answered == 3
    assert size > 0
    assert sorted(cid for cid, _ in results) == sorted(requests)
    assert all(isinstance(answer, ChatResponse) and answer.text for _, answer in results)
    assert {"batch_body", "batch_answer", "batch_call", "batch_download"} <= guard.touched
    if provider == "openai":
        assert found is not None and "batch_upload" in guard.touched


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_batched_error_that_echoes_the_key_never_shows_it(provider: str) -> None:
    """Batch errors are read by the provider, so they are scrubbed like synchronous ones."""
    from fake_keys import fake_key

    key = fake_key("batch-error")
    real = make_provider(provider, base_url="http://127.0.0.1:9", api_key=key)
    try:
        err = real.batch_error(401, {"error": {"message": f"Incorrect API key: {key}"}})
    finally:
        asyncio.run(real.aclose())
    assert key not in str(err) and key[-8:] not in str(err)
    assert err.fatal  # a wrong key stops the run, as it does synchronously
