"""Run a prepared audit: the provider for the model under test, and the runner."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from resume_auditor.domain.study import ModelSpec
from resume_auditor.prompts import parse_pairwise
from resume_auditor.providers.base import Provider
from resume_auditor.providers.keys import KeyStore, default_store
from resume_auditor.providers.registry import make_provider
from resume_auditor.runner import Event, Runner
from resume_auditor.store.resultfile import ResultFile, RunRecord


def provider_factory(
    spec: ModelSpec, timeout_s: float = 120.0, *, keys: KeyStore | None = None
) -> Callable[[], Provider]:
    """A function that makes the provider (it may block: the runner calls it off the UI).

    The key is looked up when the provider is made, not before, so a key entered
    after the audit was prepared is used; a missing key raises a ProviderError
    that says where to put one.
    """

    def make() -> Provider:
        store = keys or default_store()
        return make_provider(
            spec.provider,
            base_url=spec.base_url,
            api_key=store.get(spec.provider, spec.base_url),
            timeout_s=timeout_s,
        )

    return make


def model_of(run: RunRecord) -> ModelSpec:
    params = run.params
    return ModelSpec(
        provider=run.provider,
        base_url=run.base_url,
        model=run.model,
        temperature=float(params.get("temperature", 0.0)),
        max_tokens=int(params.get("max_tokens", 160)),
        seed=params.get("seed"),
    )


def make_runner(
    path: str | Path,
    run_id: int | None = None,
    *,
    concurrency: int = 2,
    timeout_s: float = 120.0,
    on_event: Callable[[Event], None] | None = None,
    factory: Callable[[], Provider] | None = None,
) -> Runner:
    with ResultFile(path) as result:
        runs = result.runs()
    if not runs:
        raise ValueError(f"{path} has no run to resume.")
    run = next((r for r in runs if r.id == run_id), None) if run_id else runs[-1]
    if run is None:
        raise ValueError(f"{path} has no run {run_id}.")
    return Runner(
        path,
        run.id,
        factory or provider_factory(model_of(run), timeout_s),
        parse_pairwise,
        concurrency=concurrency,
        timeout_s=timeout_s if run.provider != "local" else max(timeout_s, 300.0),
        on_event=on_event,
    )
