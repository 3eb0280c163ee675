"""The runner sends requests of every kind and stores each answer's parsed result."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from devtools.simulator import Fault, Simulator
from runner_fixtures import kind_policy, new_audit, queue, spec

from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.openai_compat import OpenAICompatProvider
from resume_auditor.runner import Answer, RunState, RunStatus
from resume_auditor.store.resultfile import RequestSpec, ResultFile
from resume_auditor.workflow.execute import make_runner


def _model(sim: Simulator) -> ModelSpec:
    return ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")


def test_every_kind_is_sent_read_and_stored(tmp_path: Path) -> None:
    out = tmp_path / "k.audit"
    with Simulator(policy=kind_policy) as sim:
        model = _model(sim)
        run_id, (a, b, c) = new_audit(out, model)
        specs = [
            spec(model, "d3-yes-no", [a]),
            spec(model, "d3-yes-no", [c]),
            spec(model, "d2-rating", [b]),
            spec(model, "d4-direct-scoring", [a]),
            spec(model, "d4-ranking", [a, b, c]),
            spec(model, "d2-manipulation-check", [c]),
            spec(model, "d3-pairwise", [a, b]),
        ]
        assert queue(out, run_id, specs) == 7
        events: list[object] = []
        status = make_runner(out, run_id, concurrency=3, on_event=events.append).run()
    assert status.state is RunState.FINISHED and status.done == 7 and status.invalid == 0
    with ResultFile(out) as rf:
        frame = rf.answers(run_id)
    by_preset = {row.preset: row for row in frame.itertuples()}
    yes = by_preset["d3-yes-no"]
    assert set(frame[frame["preset"] == "d3-yes-no"]["label"]) == {"yes", "no"}
    assert 0.95 < yes.parsed["score"] <= 1 or yes.parsed["score"] < 0.05
    rating = by_preset["d2-rating"]
    assert rating.label == "4" and rating.parsed["fit"] == 3 and "expected" in rating.parsed
    assert by_preset["d4-direct-scoring"].parsed["skill_relevance"] == 5
    ranking = by_preset["d4-ranking"]
    assert ranking.label == "ranked" and ranking.parsed["ranks"] == [3, 2, 1]
    assert ranking.variants == [a, b, c]
    check = by_preset["d2-manipulation-check"]
    assert (check.parsed["perceived_race"], check.parsed["perceived_gender"]) == ("white", "man")
    pairwise = by_preset["d3-pairwise"]
    assert pairwise.label == "first" and pd.isna(pairwise.case_id)
    answers = {e.request_id: e for e in events if isinstance(e, Answer)}
    assert {e.kind for e in answers.values()} == set(frame["kind"])
    for row in frame.itertuples():
        assert answers[row.request_id].value == row.label
        assert answers[row.request_id].parsed == row.parsed


def test_a_refusal_is_kept_as_an_unreadable_answer_and_never_bought_again(tmp_path: Path) -> None:
    out = tmp_path / "r.audit"
    with Simulator(policy=kind_policy) as sim:
        model = _model(sim)
        run_id, (a, b, _c) = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [a]), spec(model, "d3-yes-no", [b])])
        sim.inject(Fault(kind="refuse"))
        status = make_runner(out, run_id, concurrency=1).run()
        assert (status.done, status.invalid, status.refused, status.failed) == (2, 1, 1, 0)
        received = sim.received
        again = make_runner(out, run_id).run()
        assert again.state is RunState.FINISHED and sim.received == received
    with ResultFile(out) as rf:
        frame = rf.answers(run_id)
        refused = frame[frame["label"] == "invalid"].iloc[0]
        assert "refused" in refused.parsed["refused"]
        assert rf.raw_response(int(refused.request_id))["choices"][0]["message"]["refusal"]


def test_an_unreadable_answer_is_asked_once_more_and_both_are_kept(tmp_path: Path) -> None:
    calls = {"n": 0}

    def flaky(body: dict[str, object]) -> str:
        calls["n"] += 1
        return "Hmm, hard to say." if calls["n"] == 1 else "Yes"

    out = tmp_path / "q.audit"
    with Simulator(policy=flaky) as sim:
        model = _model(sim)
        run_id, (a, _b, _c) = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [a])])
        status = make_runner(out, run_id, reask_invalid=True).run()
        assert sim.received == 2
    assert (status.done, status.invalid, status.reasked) == (1, 0, 1)
    with ResultFile(out) as rf:
        rid = int(rf.answers(run_id).iloc[0].request_id)
        record = rf.response_record(rid)
        history = rf.response_history(rid)
    assert record is not None and record["label"] == "yes" and record["parsed"]["reasked"]
    assert "asked a second time" in " ".join(record["notes"]).lower()
    assert [h["label"] for h in history] == ["invalid"]
    assert rf.path.exists()


def test_without_log_probabilities_a_score_comes_from_sampled_repeats(tmp_path: Path) -> None:
    out = tmp_path / "s.audit"
    with Simulator(policy=kind_policy, logprobs=False, unsupported_logprobs="ignore") as sim:
        model = _model(sim)
        run_id, (a, _b, _c) = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [a], context={"samples_without_logprobs": 3})])
        status = make_runner(out, run_id).run()
        temperatures = sorted(b.get("temperature") for b in sim.bodies)
    assert status.state is RunState.FINISHED and (status.total, status.done) == (3, 3)
    assert temperatures == [0.0, 1.0, 1.0]
    with ResultFile(out) as rf:
        frame = rf.answers(run_id)
    assert sorted(frame["rep"]) == [0, 1, 2] and set(frame["label"]) == {"yes"}
    assert frame.iloc[0].parsed["logprobs"] == "not given"


def test_bad_requests_fail_visibly(tmp_path: Path) -> None:
    out = tmp_path / "b.audit"
    with Simulator(policy=kind_policy) as sim:
        model = _model(sim)
        run_id, (a, _b, _c) = new_audit(out, model)
        broken = RequestSpec(
            ukey="broken", kind="yes_no", body={"model": "sim-model"}, variants=(a,)
        )
        odd = spec(model, "d3-yes-no", [a], key="odd")
        odd = RequestSpec(**{**odd.__dict__, "kind": "essay"})
        queue(out, run_id, [broken, odd])
        status = make_runner(out, run_id).run()
    assert (status.done, status.failed, status.invalid) == (1, 1, 1)
    with ResultFile(out) as rf:
        ((_, kind, message),) = rf.failures(run_id)
        frame = rf.answers(run_id)
    assert kind == "bad_request" and "incomplete" in message
    assert "unknown prompt kind" in frame.iloc[0].parsed["error"]


@pytest.mark.parametrize("provider", ["local", "openai-compatible"])
def test_free_providers_cost_nothing(tmp_path: Path, provider: str) -> None:
    out = tmp_path / "f.audit"
    with Simulator(policy=kind_policy) as sim:
        model = _model(sim)
        run_id, (a, _b, _c) = new_audit(out, ModelSpec(provider=provider, base_url=sim.base_url))
        queue(out, run_id, [spec(model, "d3-yes-no", [a])])
        status = make_runner(out, run_id, factory=lambda: OpenAICompatProvider(sim.base_url)).run()
    assert isinstance(status, RunStatus) and status.cost_usd == 0.0
