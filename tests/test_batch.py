"""Batch mode against the simulator's OpenAI Batch and Anthropic Message Batches APIs."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from devtools.simulator import Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.registry import make_provider
from resume_auditor.runner import RunState
from resume_auditor.runner.answering import request_from_body
from resume_auditor.runner.batch import BatchOptions
from resume_auditor.runner.batch_backends import backend_for
from resume_auditor.runner.prices import Price, PriceTable
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import make_runner

FAST = BatchOptions(poll_s=0.05)
PRICES = PriceTable(
    {
        "openai": {"gpt-4o-mini": Price(100.0, 100.0, 100.0)},
        "anthropic": {"claude-haiku-4-5": Price(100.0, 100.0, 100.0)},
    },
    {"openai": 0.5, "anthropic": 0.5},
)


def _setup(sim: Simulator, tmp_path: Path, provider: str, n: int = 6) -> tuple[Path, int]:
    model_id = "gpt-4o-mini" if provider == "openai" else "claude-haiku-4-5"
    model = ModelSpec(provider=provider, base_url=sim.url_for(provider), model=model_id)
    out = tmp_path / f"{provider}.audit"
    run_id, ids = new_audit(out, model)
    presets = ["d3-yes-no", "d2-rating", "d4-direct-scoring"]
    queue(out, run_id, [spec(model, presets[i % 3], [ids[i % 3]], rep=i) for i in range(n)])
    return out, run_id


def _factory(sim: Simulator, provider: str):  # type: ignore[no-untyped-def]
    return lambda: make_provider(provider, base_url=sim.url_for(provider), api_key="k")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_batch_is_submitted_polled_and_collected_at_half_price(
    tmp_path: Path, provider: str
) -> None:
    with Simulator(policy=kind_policy, batch_delay_s=0.2) as sim:
        out, run_id = _setup(sim, tmp_path, provider)
        status = make_runner(
            out, run_id, batch=FAST, prices=PRICES, factory=_factory(sim, provider)
        ).run()
        assert sim.received == 0  # nothing went through the synchronous API
        assert sim.batch_store.created == 1 and sim.batch_store.lines_answered == 6
        assert sum(sim.paid.values()) == 6  # each line paid once
    assert status.state is RunState.FINISHED and status.done == 6 and status.invalid == 0
    with ResultFile(out) as rf:
        frame = rf.answers(run_id)
        (batch,) = rf.batches(run_id)
        usage = rf._db.execute(  # noqa: SLF001
            "SELECT sum(input_tokens + output_tokens) FROM response"
        ).fetchone()[0]
    assert set(frame["source"]) == {"batch"} and batch.state == "collected"
    assert {p.get("rating") for p in frame["parsed"]} >= {4}
    assert status.cost_usd == pytest.approx(usage * 100 / 1e6 * 0.5)


def test_closing_the_app_while_a_batch_runs_loses_nothing(tmp_path: Path) -> None:
    with Simulator(policy=kind_policy, batch_delay_s=1.0) as sim:
        out, run_id = _setup(sim, tmp_path, "openai")
        runner = make_runner(out, run_id, batch=FAST, factory=_factory(sim, "openai"))
        runner.start()
        deadline = time.monotonic() + 5
        while runner.status().batched == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        runner.cancel()
        assert runner.join(3)
        final = runner.final_status
        assert final is not None and final.state is RunState.CANCELLED
        assert "keep running there" in final.message and final.batched == 6
        time.sleep(1.1)  # the batch finishes at the provider while the app is closed
        # A new session, without --batch: the run remembers its mode and collects.
        status = make_runner(out, run_id, factory=_factory(sim, "openai")).run()
        assert sim.batch_store.created == 1 and sim.received == 0
    assert status.state is RunState.FINISHED and status.done == 6


def test_failed_lines_go_back_to_the_queue_with_their_cause(tmp_path: Path) -> None:
    with Simulator(policy=kind_policy, batch_error_every=3) as sim:
        out, run_id = _setup(sim, tmp_path, "anthropic")
        status = make_runner(out, run_id, batch=FAST, factory=_factory(sim, "anthropic")).run()
        assert (status.done, status.failed) == (4, 2)
        with ResultFile(out) as rf:
            failures = rf.failures(run_id)
        assert {kind for _, kind, _ in failures} == {"server"}
        # Resumed without batches, the two are sent one by one.
        again = make_runner(out, run_id, batch=False, factory=_factory(sim, "anthropic")).run()
        assert sim.received == 2
    assert again.state is RunState.FINISHED and again.done == 6 and again.failed == 0


def test_an_expired_batch_releases_its_requests(tmp_path: Path) -> None:
    with Simulator(policy=kind_policy, batch_expire=True) as sim:
        out, run_id = _setup(sim, tmp_path, "openai", n=3)
        status = make_runner(out, run_id, batch=FAST, factory=_factory(sim, "openai")).run()
    assert (status.done, status.failed) == (0, 3)
    with ResultFile(out) as rf:
        assert all("expired" in msg for _, _, msg in rf.failures(run_id))
        assert rf.batches(run_id)[0].state == "collected"
        assert len(rf.open_requests(run_id)) == 3


def test_a_batch_submitted_just_before_a_crash_is_found_again_not_bought_twice(
    tmp_path: Path,
) -> None:
    with Simulator(policy=kind_policy) as sim:
        out, run_id = _setup(sim, tmp_path, "openai", n=3)
        # What a crash between "submit" and "store the batch id" leaves behind.
        with ResultFile(out) as rf:
            pending = rf.open_requests(run_id)
            batch_id = rf.add_batch(run_id, "openai", [r.id for r in pending])
            rf.set_meta("uuid", "f" * 32)
        items = [(f"r{r.id}", request_from_body(r.body)) for r in pending]

        async def submit_and_crash() -> None:
            provider = _factory(sim, "openai")()
            try:
                await backend_for(provider).submit(items, f"{'f' * 32}-{batch_id}")
            finally:
                await provider.aclose()

        asyncio.run(submit_and_crash())
        status = make_runner(out, run_id, batch=FAST, factory=_factory(sim, "openai")).run()
        assert sim.batch_store.created == 1 and sim.batch_store.lines_answered == 3
    assert status.state is RunState.FINISHED and status.done == 3


def test_batch_mode_needs_a_provider_with_a_batch_api(tmp_path: Path) -> None:
    with Simulator(policy=kind_policy) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        out = tmp_path / "n.audit"
        run_id, (a, _b, _c) = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [a])])
        status = make_runner(out, run_id, batch=FAST).run()
    assert status.state is RunState.STOPPED and "OpenAI and Anthropic only" in status.message
