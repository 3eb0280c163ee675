"""The shared response cache: an identical request is answered from disk, free, and says so."""

from __future__ import annotations

from pathlib import Path

from devtools.simulator import Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.paths import data_dir
from resume_auditor.runner import RunState
from resume_auditor.store.cache import CACHE_FILE, CachedAnswer, ResponseCache, request_key
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import make_runner


def _model(sim: Simulator) -> ModelSpec:
    return ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")


def test_a_second_audit_with_the_same_requests_buys_nothing(tmp_path: Path) -> None:
    with Simulator(policy=kind_policy) as sim:
        model = _model(sim)
        first, second = tmp_path / "a.audit", tmp_path / "b.audit"
        for out in (first, second):
            run_id, (a, b, c) = new_audit(out, model)
            queue(out, run_id, [spec(model, "d3-yes-no", [v]) for v in (a, b, c)])
        make_runner(first, 1).run()
        assert sim.received == 3
        status = make_runner(second, 1).run()
        assert sim.received == 3  # nothing sent
    assert status.state is RunState.FINISHED and status.cache_hits == 3 and status.done == 3
    assert status.cost_usd == 0.0 and status.input_tokens == 0
    with ResultFile(first) as a_file, ResultFile(second) as b_file:
        bought = a_file.answers(1)
        served = b_file.answers(1)
        note = b_file.response_record(int(served.iloc[0].request_id))
    assert list(served["label"]) == list(bought["label"])
    assert [p["score"] for p in served["parsed"]] == [p["score"] for p in bought["parsed"]]
    assert set(served["source"]) == {"cache"}
    assert note is not None and "Served from the response cache" in note["notes"][0]


def test_sampled_repeats_are_not_served_each_others_answer(tmp_path: Path) -> None:
    with Simulator(policy=kind_policy) as sim:
        model = _model(sim)
        out = tmp_path / "r.audit"
        run_id, (a, _b, _c) = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [a], rep=r) for r in range(3)])
        status = make_runner(out, run_id).run()
        assert sim.received == 3 and status.cache_hits == 0


def test_the_cache_can_be_turned_off(tmp_path: Path) -> None:
    with Simulator(policy=kind_policy) as sim:
        model = _model(sim)
        for name in ("a.audit", "b.audit"):
            out = tmp_path / name
            run_id, (a, _b, _c) = new_audit(out, model)
            queue(out, run_id, [spec(model, "d3-yes-no", [a])])
            make_runner(out, run_id, use_cache=False).run()
        assert sim.received == 2
    assert not (data_dir() / CACHE_FILE).exists()


def test_no_cache_asks_identical_prompts_of_one_run_each_time(tmp_path: Path) -> None:
    # Issue 25: --no-cache still answered a byte-identical D3 prompt from its twin.
    for use_cache, expected in ((False, 2), (True, 1)):
        with Simulator(policy=kind_policy) as sim:
            model = _model(sim)
            out = tmp_path / f"{use_cache}.audit"
            run_id, (a, _b, _c) = new_audit(out, model)
            twins = [spec(model, "d3-yes-no", [a], key=k) for k in ("one", "two")]
            assert twins[0].body == twins[1].body
            queue(out, run_id, twins)
            make_runner(out, run_id, use_cache=use_cache).run()
            assert sim.received == expected


def test_keys_entries_age_and_a_damaged_file_is_set_aside(tmp_path: Path) -> None:
    body = {"model": "m", "system": "s", "user": "u", "temperature": 0.0}
    key = request_key("openai", "https://api.openai.com/v1/", body, 0)
    assert key == request_key("openai", "https://api.openai.com/v1", dict(body), 0)
    assert key != request_key("openai", "https://api.openai.com/v1", body, 1)
    assert key != request_key("anthropic", "https://api.openai.com/v1", body, 0)
    assert key != request_key("openai", "https://api.openai.com/v1", {**body, "seed": 2}, 0)
    now = [1000.0]
    path = tmp_path / "cache.sqlite"
    with ResponseCache(path, max_age_days=1, clock=lambda: now[0]) as cache:
        cache.put(key, "openai", "m", CachedAnswer("Yes", {"id": 1}, (5, 1, 0, 0)))
        hit = cache.get(key)
        assert hit is not None and hit.text == "Yes" and hit.usage == (5, 1, 0, 0)
        now[0] += 2 * 86400
        assert cache.get(key) is None
    path.write_bytes(b"not a database at all" * 50)
    with ResponseCache(path) as cache:
        assert cache.get(key) is None
        assert cache.stats() == (0, 0)
    assert list(tmp_path.glob("cache.sqlite.broken-*"))
