"""The plan, the store and the CLI's design options ask the designs through the interface
(issue 27): D1's sizing, its counts, its CLI effects and how a pair is told from other
cases come from its folder and the case's kind, not from the label "D1" in the caller."""

from __future__ import annotations

import argparse
from dataclasses import replace

import pytest

from resume_auditor import cli
from resume_auditor.designs.d1_castleman import DESIGN_D1
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.domain.case import Case, CaseKind, Truth
from resume_auditor.domain.study import JobSpec, RunSpec, StudyConfig
from resume_auditor.stats.power_sim import ABSTAINING, DEFAULT_ASSUMPTIONS, Size, default_effects
from resume_auditor.store.requests import PendingRequest


def _pair(cluster: int, a: str, b: str, kind: CaseKind = CaseKind.EQUAL) -> Case:
    truth = Truth.EQUAL if kind == CaseKind.EQUAL else Truth.A
    return Case.pair("D1", kind, 1, 2, truth, cluster, group_a=a, group_b=b)


def _study(orders: str = "both", repeats: int = 1) -> StudyConfig:
    return StudyConfig(
        name="t",
        seed=1,
        job=JobSpec(text="x"),
        resumes=(),
        run=RunSpec(orders=orders, repeats=repeats),
    )


def test_d1_counts_its_equal_cross_group_pairs_in_the_runs_orders_and_repeats() -> None:
    cases = [
        _pair(1, "black_woman", "white_man"),
        _pair(1, "black_woman", "white_woman"),
        _pair(2, "white_man", "white_woman"),
        _pair(2, "white_man", "white_man"),  # same group: not a comparison of groups
        _pair(3, "", "", CaseKind.UNEQUAL),
    ]
    counts = DESIGN_D1.run_counts(cases, _study("both", 3))
    # black_woman 2 pairs, white_man 2, white_woman 2; each in 2 orders, 3 repeats
    assert counts == {"answers_per_group": 12, "groups": 3, "resumes": 2, "asked_per_group": 4}
    assert DESIGN_D1.run_counts(cases, _study("ab", 1))["answers_per_group"] == 2
    assert DESIGN_D1.run_counts(cases[-1:], _study()) is None  # no equal pair: nothing
    # two informative repeats double the comparisons per group per resume
    assert DESIGN_D1.plan_size(counts, 2) == Size("D1", 2, 3, 4)


def test_d1_is_sized_for_its_gap_and_its_impact_ratio() -> None:
    size = Size("D1", 40, 4, 6)
    gap, impact = DESIGN_D1.sized_tests(size, "d1-baseline")
    assert gap == size and impact == replace(size, design="IR", assume=ABSTAINING)
    forced = DESIGN_D1.sized_tests(size, "d1-forced-choice")[1]
    assert forced.assume == DEFAULT_ASSUMPTIONS  # forced choice cannot abstain
    assert set(DESIGN_D1.power_codes) == {"D1", "IR"} <= set(default_effects())
    assert "LL144" in DESIGN_D1.power_note("IR", 0.8) and DESIGN_D1.power_note("D1", 0.1) == ""


def test_every_simulated_test_has_a_design_and_a_default_effect() -> None:
    """What the plan's lines look up by a sizing's code is there for every design."""
    for design in DESIGNS:
        if design.simulated_power:
            assert design.power_codes[0] == design.label
            assert all(code in default_effects() for code in design.power_codes)
            # each test it is sized for is simulated by its own folder's model
            assert tuple(m.code for m in design.power_models) == design.power_codes
            assert {o[0].upper() for o in design.effect_options} == set(design.power_codes)
        else:
            assert design.power_models == ()


def test_the_cli_offers_each_designs_effects_and_passes_them_in_its_units(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: dict[str, object] = {}
    monkeypatch.setattr(cli, "_print_plan", lambda path, js, sim, eff: seen.update(eff=eff))
    argv = ["cases", "x.audit", "--effect-d1", "15", "--effect-ir", "0.7", "--effect-d3", "0.2"]
    args = cli._parser(argv).parse_args(argv)
    assert cli.cmd_cases(args) == cli.EXIT_OK
    assert seen["eff"] == {"D1": 0.15, "D3": 0.2, "IR": 0.7}  # a gap typed in points
    actions = _sub(cli._parser(["cases"]), "cases")._actions
    options = [o for a in actions for o in a.option_strings[:1]]
    assert [o for o in options if o.startswith("--effect-")] == [
        "--effect-d1",
        "--effect-d2",
        "--effect-d3",
        "--effect-d4",
        "--effect-ir",
    ]


def test_other_commands_do_not_build_the_cases_effect_options() -> None:
    """The registry takes a second to load: `keys`, `doctor`... do not wait for it."""
    parser = cli._parser(["keys", "status"])
    assert not any(
        a.option_strings and a.option_strings[0].startswith("--effect-")
        for a in _sub(parser, "cases")._actions
    )


def _sub(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found = action.choices[name]
    assert isinstance(found, argparse.ArgumentParser)
    return found


def test_a_pending_request_is_a_pair_by_its_cases_kind() -> None:
    def request(kind: str) -> PendingRequest:
        return PendingRequest(
            id=1, case_id=7, order=None, rep=0, body={}, attempts=0, design="", case_kind=kind
        )

    assert request("equal").pair_id == 7 and request("unequal").pair_id == 7
    assert request("pool").pair_id is None and request("ranking").pair_id is None
    assert request("").pair_id is None  # a request of no case
