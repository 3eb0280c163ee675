"""The feed's words over real stored answers of a simulated four-design audit.

The audit is the one tests/test_designs_e2e.py runs (two sample resumes, D1-D4,
the provider simulator answering each kind in its own format), with a pairwise
answer that repeats the source resume's real name, so masking is checked too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from devtools.simulator import Simulator
from devtools.simulator_kinds import every_kind_policy

from resume_auditor.cli import main
from resume_auditor.domain.groups import group_label
from resume_auditor.runner.events import Answer
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.feed import (
    DIMENSIONS,
    Roster,
    Tally,
    answer_from_row,
    describe,
    recent_answers,
)
from tests.test_designs_e2e import SAMPLE, STUDY

REAL_NAME = "Jordan Ellery"  # the first sample resume's owner, as its file is named
policy = every_kind_policy(
    lambda _body: f"{REAL_NAME}'s record is stronger. <answer>first</answer>"
)


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Roster, list[Answer]]]:
    tmp = tmp_path_factory.mktemp("feed")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp / "data"))
        study = tmp / "study.toml"
        study.write_text(STUDY.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes"))
        out = tmp / "all.audit"
        with Simulator(policy=policy) as sim:
            args = ["--provider", "openai-compatible", "--base-url", sim.base_url]
            assert main(["audit", str(study), "--out", str(out), *args, "--model", "sim"]) == 0
        with ResultFile(out) as result:
            run_id = result.runs()[-1].id
            yield Roster.load(result), recent_answers(result, run_id, 10_000)


def by_kind(answers: list[Answer], kind: str, design: str = "") -> list[Answer]:
    found = [a for a in answers if a.kind == kind and a.cell.startswith(design)]
    assert found, f"the audit has no {kind} answer in {design or 'any design'}"
    return found


def test_no_answer_is_called_a_pair_none_or_abstained_unless_it_abstained(
    audit: tuple[Roster, list[Answer]],
) -> None:
    roster, answers = audit
    assert {a.cell.split()[0] for a in answers} == {"D1", "D2", "D3", "D4"}
    for a in answers:
        line = describe(a, roster).text()
        assert "None" not in line and "unreadable" not in line
        assert ("equal" in describe(a, roster).verdict) == (a.value == "abstain"), line
        assert describe(a, roster).design == a.cell.split()[0]


def test_d1_names_both_candidates_the_pick_and_whether_it_was_right(
    audit: tuple[Roster, list[Answer]],
) -> None:
    roster, answers = audit
    for a in by_kind(answers, "pairwise_abstain", "D1"):
        line = describe(a, roster)
        first, second = (roster.candidates[v] for v in a.variants)
        assert first.name in line.shown and second.name in line.shown
        assert group_label(first.group) in line.shown
        picked = first if a.value == "first" else second
        where = "shown first" if a.value == "first" else "shown second"
        if first.name == second.name:  # explicit-signal copies share "Candidate"
            assert line.verdict == f"picked the resume {where}"
        else:
            assert line.verdict == f"picked {picked.name} ({where})"
        va, vb, truth = roster.pairs[a.pair_id or 0]
        better = {"a": va, "b": vb}.get(truth)
        assert line.right == (better is not None and a.variants[0] == better)
        # the real owner's name the model repeated is masked, as in the report
        assert REAL_NAME not in line.words
        assert "[Resume" in line.words


def test_ratings_yes_no_scores_rankings_and_checks_in_words(
    audit: tuple[Roster, list[Answer]],
) -> None:
    roster, answers = audit
    for a in by_kind(answers, "rating", "D2"):
        line = describe(a, roster)
        assert f"rated {a.parsed['rating']} out of 5" in line.verdict
        assert roster.candidates[a.variants[0]].resume in line.shown
    for a in by_kind(answers, "yes_no", "D3"):
        verdict = describe(a, roster).verdict
        assert verdict.startswith("said Yes" if a.value == "yes" else "said No")
        assert f"probability of Yes {a.parsed['score']:.0%}" in verdict
    for a in by_kind(answers, "forced_choice", "D3"):
        line = describe(a, roster)
        assert "two at a time" in line.title and " vs " in line.shown
        assert line.right is None  # D3 pairs have no right answer
    for a in by_kind(answers, "dimensions", "D4"):
        verdict = describe(a, roster).verdict
        for key, label in DIMENSIONS:
            assert f"{label} {a.parsed[key]}" in verdict
    for a in by_kind(answers, "ranking", "D4"):
        verdict = describe(a, roster).verdict
        names = [roster.candidates[a.variants[i]].name for i in a.parsed["order"]]
        places = re.findall(r"\d\. ([^,]+)", verdict)
        assert places == names
    for a in by_kind(answers, "manipulation", "D2"):
        verdict = describe(a, roster).verdict
        assert a.parsed["perceived_race"].capitalize() in verdict
        assert a.parsed["perceived_gender"] in verdict


def test_unreadable_and_refused_answers_say_so(audit: tuple[Roster, list[Answer]]) -> None:
    roster, answers = audit
    rating = by_kind(answers, "rating", "D2")[0]
    row = {
        "request_id": rating.request_id,
        "kind": "rating",
        "label": "invalid",
        "variants": list(rating.variants),
        "cell": rating.cell,
        "parsed": {"error": "no rating"},
    }
    assert describe(answer_from_row(row), roster).verdict == "gave no answer that could be read"
    row["parsed"] = {"refused": "I cannot help with that."}
    assert describe(answer_from_row(row), roster).verdict == "refused to answer"


def test_the_tally_counts_every_design(audit: tuple[Roster, list[Answer]]) -> None:
    roster, answers = audit
    tally = Tally()
    for a in answers:
        tally.add(a, roster)
    lines = tally.lines()
    equal = [a for a in answers if a.cell.startswith("D1 equal")]
    called = sum(a.value == "abstain" for a in equal)
    assert f"D1 calls equal candidates equal: {called} of {len(equal)}" in lines[1]
    for what in ("D2 average rating", "D3 share answered Yes", "D4 average score", "D4 average"):
        assert any(line.startswith(what) for line in lines), what
    ratings = [a for a in answers if a.kind == "rating" and a.cell.startswith("D2")]
    white = [float(a.parsed["rating"]) for a in ratings if "white_man" in a.cell]
    expected = f"White man {sum(white) / len(white):.1f}"
    assert expected in next(line for line in lines if line.startswith("D2 average rating"))


def test_the_tally_compares_both_orders_of_a_pair(audit: tuple[Roster, list[Answer]]) -> None:
    roster, answers = audit
    tally = Tally()
    first: dict[int, dict[str, int | None]] = {}
    for a in answers:
        tally.add(a, roster)
        if a.cell.startswith("D1") and a.pair_id is not None:
            pick = {"first": 0, "second": 1}.get(a.value)
            first.setdefault(a.pair_id, {}).setdefault(
                a.order, None if pick is None else a.variants[pick]
            )
    both = [v for v in first.values() if len(v) == 2]
    same = sum(v["ab"] == v["ba"] for v in both)
    assert both and tally.pairs["D1"].consistent == [same, len(both)]
    shares = tally.pair_shares()
    assert shares["order_consistency"] == same / len(both)
    right, n = tally.pairs["D1"].unequal
    assert shares["criterion_validity"] == right / n
