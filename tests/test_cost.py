"""Prices, the estimate before a run, spend during it, and the budget cap."""

from __future__ import annotations

from pathlib import Path

import pytest
from devtools.simulator import Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor import cli
from resume_auditor.domain.study import ModelSpec
from resume_auditor.paths import data_dir
from resume_auditor.providers.registry import make_provider
from resume_auditor.runner import RunState
from resume_auditor.runner.estimate import estimate_run
from resume_auditor.runner.prices import Price, PriceError, PriceTable, load_prices
from resume_auditor.store.cache import ResponseCache
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import make_runner


def test_models_are_found_with_dates_versions_and_vendors() -> None:
    prices = load_prices()
    mini = prices.lookup("openai", "gpt-4o-mini")
    assert mini is not None and prices.lookup("openai", "gpt-4o-mini-2024-07-18") == mini
    assert prices.lookup("openai", "gpt-4o") != mini  # the longest name wins, not a prefix
    assert prices.lookup("openai", "o3-pro") is None  # not priced as o3
    sonnet = prices.lookup("anthropic", "claude-sonnet-4-5-20250929")
    assert sonnet is not None and sonnet.output == 15.0
    assert prices.lookup("openrouter", "anthropic/claude-sonnet-4-5") == sonnet
    assert prices.lookup("gemini", "models/gemini-2.5-flash") is not None
    assert prices.lookup("azure", "gpt-4o-mini") == mini  # a deployment named after its model
    assert prices.lookup("openai", "my-fine-tune") is None
    assert prices.batch_share("openai") == 0.5 and prices.batch_share("gemini") == 0.5
    assert prices.updated


def test_cost_counts_cached_prompt_tokens_at_their_rate_and_batches_at_a_discount() -> None:
    table = PriceTable({"openai": {"m": Price(2.0, 0.5, 8.0)}}, {"openai": 0.5})
    usage = (1_000_000, 100_000, 400_000, 50_000)  # input (incl. cached), output, cached, reasoning
    assert table.cost("openai", "m", usage) == pytest.approx(0.6 * 2 + 0.4 * 0.5 + 0.1 * 8)
    assert table.cost("openai", "m", usage, batch=True) == pytest.approx(1.1)
    assert table.cost("openai", "other", usage) is None
    assert table.cost("local", "anything", usage) == 0.0
    assert table.cost("openrouter", "x/y", usage, raw={"usage": {"cost": 0.0123}}) == 0.0123


def test_the_users_price_file_wins_and_a_broken_one_says_where() -> None:
    user = data_dir() / "prices.toml"
    user.write_text(
        '[meta]\nupdated = "2027-01-01"\n[openai]\n'
        '"gpt-4o-mini" = { input = 9, output = 9 }\n'
        '"house-model" = { input = 1, output = 2 }\n'
    )
    prices = load_prices()
    assert prices.lookup("openai", "gpt-4o-mini") == Price(9.0, 9.0, 9.0)
    assert prices.lookup("openai", "house-model") == Price(1.0, 1.0, 2.0)
    assert prices.lookup("anthropic", "claude-haiku-4-5") is not None  # shipped entries stay
    assert prices.updated == "2027-01-01" and str(user) in prices.files
    user.write_text('[openai]\n"m" = { input = "cheap" }\n')
    with pytest.raises(PriceError, match="prices.toml"):
        load_prices()
    user.write_text("[openai\n")
    with pytest.raises(PriceError, match="not valid TOML"):
        load_prices()


def _priced(sim: Simulator) -> tuple[ModelSpec, PriceTable]:
    model = ModelSpec(provider="openai", base_url=sim.url_for("openai"), model="gpt-4o-mini")
    # A dear price so that a few requests reach a small budget.
    table = PriceTable({"openai": {"gpt-4o-mini": Price(1000.0, 1000.0, 1000.0)}}, {"openai": 0.5})
    return model, table


def test_estimate_counts_the_real_prompts_the_cache_and_the_worst_case(tmp_path: Path) -> None:
    out = tmp_path / "e.audit"
    with Simulator(policy=kind_policy) as sim:
        model, table = _priced(sim)
        run_id, (a, b, c) = new_audit(out, model)
        queue(out, run_id, [spec(model, "d2-rating", [v]) for v in (a, b, c)])
        with ResultFile(out) as rf:
            before = estimate_run(rf, run_id, prices=table, concurrency=2, rpm=60)
        assert before.to_send == 3 and before.cache_hits == 0
        body_chars = sum(
            len(s.body["system"]) + len(s.body["user"])
            for s in [spec(model, "d2-rating", [v]) for v in (a, b, c)]
        )
        assert before.input_tokens == pytest.approx(body_chars / 4 + 3 * 8, abs=3)
        assert before.output_tokens == 3 * 220 and before.output_tokens_max == 3 * 400
        assert before.cost_usd == pytest.approx((before.input_tokens + before.output_tokens) / 1000)
        assert before.batch_cost_usd == pytest.approx(before.cost_usd / 2)
        assert before.eta_s == pytest.approx(3 / (2 * 60 / 2.5) * 60)
        assert any("Cost: about $" in line for line in before.lines())
        make_runner(
            out,
            run_id,
            prices=table,
            factory=lambda: make_provider("openai", base_url=sim.url_for("openai"), api_key="k"),
        ).run()
        other = tmp_path / "o.audit"
        run2, _ = new_audit(other, model)
        queue(other, run2, [spec(model, "d2-rating", [v]) for v in (a, b, c)])
        with ResultFile(other) as rf, ResponseCache() as cache:
            after = estimate_run(rf, run2, prices=table, cache=cache)
        assert after.to_send == 0 and after.cache_hits == 3 and after.cost_usd == 0.0


def test_estimate_for_a_reasoning_model_allows_for_hidden_reasoning(tmp_path: Path) -> None:
    out = tmp_path / "x.audit"
    model = ModelSpec(provider="openai", base_url="https://api.openai.com/v1", model="gpt-5-mini")
    run_id, (a, _b, _c) = new_audit(out, model)
    queue(out, run_id, [spec(model, "d3-yes-no", [a])])
    with ResultFile(out) as rf:
        estimate = estimate_run(rf, run_id, prices=load_prices())
    assert estimate.reasoning and estimate.output_tokens_max == 3 + 8192
    assert estimate.cost_max_usd is not None and estimate.cost_max_usd > estimate.cost_usd  # type: ignore[operator]
    unknown = ModelSpec(provider="anthropic", model="claude-future-9")
    out2 = tmp_path / "u.audit"
    run2, (a2, _b2, _c2) = new_audit(out2, unknown)
    queue(out2, run2, [spec(unknown, "d3-yes-no", [a2])])
    with ResultFile(out2) as rf:
        lines = estimate_run(rf, run2, prices=load_prices()).lines()
    assert any("no price for claude-future-9" in line for line in lines)


def test_spend_is_counted_and_the_budget_pauses_until_it_is_raised(tmp_path: Path) -> None:
    out = tmp_path / "b.audit"
    with Simulator(policy=kind_policy, latency_s=0.05) as sim:
        model, table = _priced(sim)
        run_id, ids = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [ids[i % 3]], rep=i) for i in range(6)])
        states: list[tuple[RunState, bool]] = []
        runner = make_runner(
            out,
            run_id,
            concurrency=1,
            prices=table,
            budget_usd=0.5,
            use_cache=False,
            factory=lambda: make_provider("openai", base_url=sim.url_for("openai"), api_key="k"),
            on_event=lambda e: (
                states.append((e.state, e.budget_reached)) if hasattr(e, "state") else None
            ),
        )
        runner.start()
        for _ in range(200):
            status = runner.status()
            if status.budget_reached and status.in_flight == 0:
                break
            runner.join(0.05)
        paused = runner.status()
        assert paused.state is RunState.PAUSED and paused.budget_reached
        assert "budget of $0.50 is reached" in paused.message
        assert 0 < paused.done < 6 and paused.cost_usd is not None and paused.cost_usd <= 0.5
        runner.set_budget(100.0)
        assert runner.join(10)
    final = runner.final_status
    assert final is not None and final.state is RunState.FINISHED and final.done == 6
    with ResultFile(out) as rf:
        frame = rf.answers(run_id)
        spent = float(frame["cost_usd"].sum())
        progress = rf.progress(run_id)
    assert final.cost_usd == pytest.approx(spent) == pytest.approx(progress.cost_usd)
    assert (RunState.PAUSED, True) in states


def test_a_budget_needs_a_price(tmp_path: Path) -> None:
    out = tmp_path / "n.audit"
    model = ModelSpec(provider="anthropic", model="claude-future-9")
    run_id, (a, _b, _c) = new_audit(out, model)
    queue(out, run_id, [spec(model, "d3-yes-no", [a])])
    status = make_runner(out, run_id, budget_usd=5.0, factory=lambda: None).run()  # type: ignore[arg-type,return-value]
    assert status.state is RunState.STOPPED and "no price for claude-future-9" in status.message


def test_cli_budget_stops_with_exit_code_1_and_says_how_to_go_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "c.audit"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with Simulator(policy=kind_policy) as sim:
        model = ModelSpec(provider="openai", base_url=sim.url_for("openai"), model="gpt-4o")
        run_id, ids = new_audit(out, model)
        queue(out, run_id, [spec(model, "d2-rating", [ids[i % 3]], rep=i) for i in range(40)])
        with ResultFile(out) as rf, rf.transaction():
            rf.save_config({"format": 1, "study": {"name": "x"}})
        code = cli.main(["run", str(out), "--budget", "0.01", "--concurrency", "1"])
        err = capsys.readouterr().err
    assert code == cli.EXIT_INCOMPLETE
    assert "Estimate: Cost: about $" in err and "Stopped at the budget" in err
    assert "--budget" in err
    with ResultFile(out) as rf:
        progress = rf.progress(run_id)
    assert 0 < progress.done < 40 and (progress.cost_usd or 0) <= 0.01
