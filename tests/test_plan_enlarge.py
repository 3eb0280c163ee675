"""The plan offers to make the audit large enough, and says what that costs first (issue 25).

With the resumes there are, the app can raise repeats (at a temperature that makes
them differ: at temperature 0 they are one answer) and D3's rounds. The offer
counts the enlarged audit's requests with the same code as Start, changes nothing
until accepted, and once accepted saves the settings and builds the cases again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from resume_auditor.cli import main
from resume_auditor.designs.registry import by_label
from resume_auditor.domain.study import StudyConfig
from resume_auditor.stats.power_sim import Sizing
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.plan import (
    ENLARGE_TEMPERATURE,
    apply_enlargement,
    enlarged_study,
    plan_enlargement,
    plan_run,
)
from resume_auditor.workflow.prepare import study_of

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "resources" / "sample"


@pytest.fixture
def prepared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path / "data"))
    study = tmp_path / "study.toml"
    text = (SAMPLE / "study.toml").read_text(encoding="utf-8")
    text = text.replace('file = "job.md"', f'file = "{SAMPLE / "job.md"}"')
    text = text.replace('files = ["resumes/*.pdf"]', f'files = ["{SAMPLE}/resumes/*.pdf"]')
    study.write_text(text, encoding="utf-8")
    out = tmp_path / "a.audit"
    args = ["--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1"]
    assert (
        main(["audit", str(study), "--out", str(out), "--prepare-only", *args, "--model", "m"]) == 0
    )
    return out


def _short(design: str, units: int, repeats: int | None) -> Sizing:
    return Sizing(
        design,
        0.3,
        0.2,
        units,
        units * 5,
        5.0,
        repeats_needed=repeats,
        power_repeats=0.85 if repeats else None,
    )


def _rounds(study: StudyConfig) -> int:
    """D3's rounds, as its design reads them from the study's `[designs.d3]`."""
    spec = by_label()["D3"].spec(study)
    return int(spec.rounds) if spec is not None else 0


def test_the_enlargement_raises_repeats_at_a_temperature_and_rounds(prepared: Path) -> None:
    with ResultFile(prepared, readonly=True) as result:
        study = study_of(result)
        before = plan_run(result, study).requests
    assert study.model.temperature == 0 and study.run.repeats == 1 and _rounds(study)
    sizing = [_short("D2", 4, 3), _short("D1", 4, 2), _short("D3", 5, None), _short("D4", 4, None)]
    enlarged, changes, short = enlarged_study(study, sizing)
    assert enlarged.run.repeats == 3  # the most any design needs
    assert enlarged.model.temperature == ENLARGE_TEMPERATURE  # else repeats are one answer
    assert _rounds(enlarged) == _rounds(study) * 5
    assert any("temperature" in c for c in changes) and any("D3 rounds" in c for c in changes)
    assert short and short[0].startswith("D4")  # said, not hidden

    found = plan_enlargement(prepared, sizing)
    assert found is not None and found.preview is not None
    assert found.preview.open > 2.5 * before  # every request three times, more pools
    lines = found.lines()
    assert "request(s)" in lines[1] and "Still under 80%: D4" in lines[-1]
    with ResultFile(prepared, readonly=True) as result:  # nothing changed before accepting
        assert study_of(result) == study
        assert plan_run(result, study).requests == before

    apply_enlargement(prepared, found)
    with ResultFile(prepared, readonly=True) as result:
        now = study_of(result)
        assert now.run.repeats == 3 and now.model.temperature == ENLARGE_TEMPERATURE
        assert _rounds(now) == _rounds(study) * 5
        assert len([c for c in result.cases() if c.design == "D3"]) == _rounds(now)


def test_nothing_to_change_offers_nothing(prepared: Path) -> None:
    enough = Sizing("D2", 0.3, 0.9, 4, 4, 1.0)
    assert plan_enlargement(prepared, [enough]) is None


def test_the_power_widget_offers_and_applies_only_when_accepted(prepared: Path, qtbot: Any) -> None:
    from resume_auditor.ui.widgets.power_plan import PowerPlan

    def sizing(path: Path) -> Any:
        with ResultFile(path, readonly=True) as result:
            plan = plan_run(result, study_of(result))
        plan.sizing = [_short("D2", 4, 2)]
        plan.sizing_lines = ["D2: 20% chance to flag a 0.3 SD difference with 4 source resumes"]
        return plan

    answers: list[bool] = [False, True]
    shown: list[list[str]] = []

    def confirm(_parent: Any, found: Any) -> bool:
        shown.append(found.lines())
        return answers.pop(0)

    widget = PowerPlan(sizing=sizing, confirm=confirm)
    qtbot.addWidget(widget)
    widget.show_audit(prepared, editable=True)
    widget.check()
    qtbot.waitUntil(lambda: widget.check_button.isEnabled(), timeout=20_000)
    assert "20% chance" in widget.text.text()
    assert not widget.enlarge_button.isHidden()
    widget.offer()
    qtbot.waitUntil(lambda: len(shown) == 1, timeout=60_000)
    assert "request(s)" in shown[0][1]
    with ResultFile(prepared, readonly=True) as result:
        assert study_of(result).run.repeats == 1  # declined: nothing changed
    with qtbot.waitSignal(widget.enlarged, timeout=60_000):
        widget.offer()
    with ResultFile(prepared, readonly=True) as result:
        assert study_of(result).run.repeats == 2


def test_the_cli_sizes_an_ll144_impact_ratio_the_user_chooses(
    prepared: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    seen: list[tuple[str, float]] = []

    def sized(size: Any, effect: float, share: float, **_: Any) -> Sizing:
        seen.append((size.design, effect))
        return Sizing(size.design, effect, 0.9, size.units, size.units, 1.0)

    monkeypatch.setattr("resume_auditor.workflow.plan.size_for_power", sized)
    capsys.readouterr()
    assert main(["cases", str(prepared), "--power", "--effect-ir", "0.75", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    by_design = {z["design"]: z for z in out["sizing"]}
    assert by_design["IR"]["effect"] == 0.75  # LL144's ratio, beside D1's gap test
    assert by_design["D1"]["effect"] == 0.10 and by_design["D2"]["effect"] == 0.3
    assert ("IR", 0.75) in seen
    assert any("impact ratio of 0.75" in line for line in out["power"])


def test_the_app_says_the_sizing_in_its_own_words(prepared: Path) -> None:
    """The CLI's flags and the study file's keys are for the CLI; the screen names the
    designs as its tabs do and the settings a user can change there."""
    from resume_auditor.ui.plain_words import power_words
    from resume_auditor.workflow.plan import sizing_lines

    with ResultFile(prepared, readonly=True) as result:
        plan = plan_run(result, study_of(result))
    plan.sizing = [
        _short("D1", 4, None),
        _short("IR", 4, None),
        _short("D2", 4, 3),
        _short("D3", 5, None),
        _short("D4", 4, None),
    ]
    cli = "\n".join(sizing_lines(plan))
    assert "--effect-d1" in cli and "[designs.d3]" in cli  # the CLI keeps them
    said = power_words(cli)
    for jargon in ("--effect", "[designs", "`", "\nD1:", "\nIR:", "\nD4:"):
        assert jargon not in said, jargon
    for name in (
        "Who is better? (pairs):",
        "Local Law 144",
        "Ratings by group:",
        "Candidate pools tab",
        "Scores and rankings tab",
        "standard deviations",
    ):
        assert name in said, name
    found = plan_enlargement(prepared, plan.sizing)
    assert found is not None
    dialog = power_words("\n\n".join(found.lines()))
    assert "D3 rounds" not in dialog and "Still under 80%: D" not in dialog


@pytest.fixture
def short_sizing(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every design short of 80% at this size, 2 informative repeats enough: the
    simulation itself is tested in test_stats_power_sim.py, not here."""
    sized: list[str] = []

    def size_for_power(size: Any, effect: float, share: float, **_: Any) -> Sizing:
        sized.append(size.design)
        return Sizing(size.design, effect, 0.3, size.units, size.units * 5, 5.0)

    monkeypatch.setattr("resume_auditor.workflow.plan.size_for_power", size_for_power)
    monkeypatch.setattr("resume_auditor.workflow.plan.repeats_for_power", lambda *a, **k: (2, 0.85))
    monkeypatch.setattr("resume_auditor.workflow.plan.simulated_power", lambda *a, **k: 0.6)
    return sized


def _settings(path: Path) -> tuple[int, float, int]:
    with ResultFile(path, readonly=True) as result:
        study = study_of(result)
        return study.run.repeats, study.model.temperature, len(result.runs())


def test_the_cli_enlarges_only_when_told_yes_and_never_waits_without_a_terminal(
    prepared: Path,
    short_sizing: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import sys

    before = _settings(prepared)
    assert before[:2] == (1, 0.0)
    with ResultFile(prepared, readonly=True) as result:
        queued = result.progress(result.runs()[-1].id).total
    capsys.readouterr()
    # no terminal on stdin (as under pytest, cron or CI) and no --yes: the offer is
    # shown, nothing changes, exit 2 with what to do
    assert main(["cases", str(prepared), "--enlarge"]) == 2
    err = capsys.readouterr().err
    assert "Enlarge: To reach 80% power" in err and "request(s)" in err
    assert "--yes" in err and "nothing was changed" in err
    assert _settings(prepared) == before

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())
    asked: list[str] = []
    monkeypatch.setattr("builtins.input", lambda q: asked.append(q) or "n")
    assert main(["cases", str(prepared), "--enlarge"]) == 0
    assert asked and "build the test cases again" in asked[0]
    assert _settings(prepared) == before  # declined

    monkeypatch.setattr("builtins.input", lambda q: "y")
    assert main(["cases", str(prepared), "--enlarge"]) == 0
    repeats, temperature, runs = _settings(prepared)
    assert (repeats, temperature) == (2, ENLARGE_TEMPERATURE)
    err = capsys.readouterr().err
    assert "The audit was enlarged" in err and "resume-auditor run" in err
    # the run queued by --prepare-only is queued again with the enlarged settings, so
    # `run` sends every request twice at the new temperature (and D3's added rounds)
    with ResultFile(prepared, readonly=True) as result:
        run = result.runs()[-1]
        assert run.params["repeats"] == 2 and run.params["temperature"] == ENLARGE_TEMPERATURE
        total = result.progress(run.id).total
    assert total > 2 * queued and f"({total:,} requests)" in err


def test_the_cli_enlarges_with_yes_and_no_terminal(
    prepared: Path, short_sizing: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["cases", str(prepared), "--enlarge", "--yes"]) == 0
    assert _settings(prepared)[:2] == (2, ENLARGE_TEMPERATURE)
    assert "The audit was enlarged" in capsys.readouterr().err


def test_the_cli_refuses_to_enlarge_an_audit_with_answers_before_sizing(
    tmp_path: Path,
    simulator: Any,
    short_sizing: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    study = tmp_path / "study.toml"
    text = (SAMPLE / "study.toml").read_text(encoding="utf-8")
    text = text.replace('file = "job.md"', f'file = "{SAMPLE / "job.md"}"')
    text = text.replace('files = ["resumes/*.pdf"]', f'files = ["{SAMPLE}/resumes/*.pdf"]')
    study.write_text(text, encoding="utf-8")
    out = tmp_path / "answered.audit"
    sim = ["--provider", "openai-compatible", "--base-url", simulator.base_url, "--model", "m"]
    assert main(["audit", str(study), "--out", str(out), *sim]) in (0, 1)
    before = _settings(out)
    with ResultFile(out, readonly=True) as result:
        assert result.answered_count() > 0
    capsys.readouterr()
    assert main(["cases", str(out), "--enlarge", "--yes"]) == 2
    assert "already has answers" in capsys.readouterr().err
    assert short_sizing == []  # refused before minutes of simulation
    assert _settings(out) == before
