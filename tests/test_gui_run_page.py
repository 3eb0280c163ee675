"""The Run page with all four designs: the feed in words, Start's label, Estimate, Cancel."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from devtools.simulator import Simulator
from devtools.simulator_kinds import every_kind_policy
from pytestqt.qtbot import QtBot

from resume_auditor.runner import RunState
from resume_auditor.ui.main_window import MainWindow
from tests.test_designs_e2e import SAMPLE, STUDY

policy = every_kind_policy()


@pytest.fixture
def every_design(tmp_path: Path) -> Path:
    study = tmp_path / "study.toml"
    study.write_text(STUDY.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes"))
    return study


def _open(qtbot: QtBot, win: MainWindow, path: Path) -> None:
    with qtbot.waitSignal(win.session.loaded, timeout=60000):
        win.open_path(path)
    win.show_page(3)


def _point_at(win: MainWindow, sim: Simulator) -> None:
    page = win.run_page
    page.provider.setCurrentIndex(page.provider.findData("openai-compatible"))
    page.base_url.setText(sim.base_url)
    page.model_id.setText("sim-model")
    page.model_id.editingFinished.emit()


def dump(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return list(db.iterdump())


def test_every_design_in_words_and_the_start_label_follows_the_settings(
    qtbot: QtBot, window: MainWindow, every_design: Path
) -> None:
    win, page = window, window.run_page
    _open(qtbot, win, every_design)
    # slow enough that no tick brings more answers than the feed adds at once (40)
    with Simulator(policy=policy, latency_s=0.03) as sim:
        _point_at(win, sim)
        page.concurrency.setValue(2)
        # every design's requests are counted, not only D1's pairs (D1: 48, 16 of them the
        # qualifications block's (c+, c) and (c+, c-) pairs)
        qtbot.waitUntil(
            lambda: "Start sends 136 request(s)" in page.plan_text.text(), timeout=20000
        )
        assert "Requests: 136 request(s) in all (D1 " in page.plan_text.text()
        assert page.plan_text.text().count("fewer than 30 answers") == 4  # one per design
        assert page.start_button.text() == "Start"
        path = win.session.data.path if win.session.data else Path()
        before = dump(path)
        page.estimate_button.click()
        qtbot.waitUntil(lambda: "request(s) to send" in page.plan_text.text(), timeout=20000)
        assert dump(path) == before  # estimating wrote no run
        with qtbot.waitSignal(win.controller.finished, timeout=60000) as blocker:
            page.start_button.click()
        assert blocker.args[0].state is RunState.FINISHED
    lines = [page.feed.item(i).text() for i in range(page.feed.count())]
    assert len(lines) == 136
    assert not [line for line in lines if "Pair None" in line or "unreadable" in line]
    for words in ("rated ", "said Yes", "said No", "scored relevance", "ranked 1. ", "picked "):
        assert any(words in line for line in lines), words
    assert any(line.startswith("D3 pool of candidates, two at a time") for line in lines)
    qtbot.waitUntil(
        lambda: page.start_button.text() == "Run again (sends nothing new)", timeout=20000
    )
    # another prompt is another run: the label says so, and so does the plan
    page.preset.setCurrentIndex(page.preset.findData("d1-human-rephrased"))
    qtbot.waitUntil(lambda: page.start_button.text() == "Start", timeout=20000)
    assert "A new run for this prompt and model: Start sends 136" in page.plan_text.text()
    page.preset.setCurrentIndex(page.preset.findData("d1-baseline"))
    qtbot.waitUntil(
        lambda: page.start_button.text() == "Run again (sends nothing new)", timeout=20000
    )


def test_cancel_says_stopping_at_once_then_cancelled_once(
    qtbot: QtBot, window: MainWindow, every_design: Path
) -> None:
    win, page = window, window.run_page
    _open(qtbot, win, every_design)
    with Simulator(policy=policy, latency_s=0.3) as sim:
        _point_at(win, sim)
        page.concurrency.setValue(2)
        page.start_button.click()
        qtbot.waitUntil(lambda: page.progress.value() >= 3, timeout=30000)
        with qtbot.waitSignal(win.controller.finished, timeout=5000) as blocker:
            page.cancel_button.click()
            assert page.state_text.text().startswith("Stopping…")
            assert not page.cancel_button.isEnabled()
        final = blocker.args[0]
    assert final.state is RunState.CANCELLED
    text = page.state_text.text()
    assert text.count("Cancelled") == 1 and text.startswith("Cancelled.")
    assert f"{final.done} answer(s) kept" in text
    assert page.start_button.text() == "Resume"


def test_presenter_opened_after_answers_starts_with_them_full_screen(
    qtbot: QtBot, window: MainWindow, every_design: Path
) -> None:
    win, page = window, window.run_page
    _open(qtbot, win, every_design)
    with Simulator(policy=policy) as sim:
        _point_at(win, sim)
        qtbot.waitUntil(lambda: page.start_button.text() == "Start", timeout=20000)
        with qtbot.waitSignal(win.controller.finished, timeout=60000):
            page.start_button.click()
    presenter = win.open_presenter(full_screen=True)
    qtbot.addWidget(presenter)
    screen = win.screen().geometry()
    qtbot.waitUntil(lambda: presenter.geometry() == screen, timeout=5000)
    assert presenter.isFullScreen()
    qtbot.waitUntil(lambda: presenter.feed.count() == 60, timeout=20000)
    items = [presenter.feed.item(i).text() for i in range(presenter.feed.count())]
    assert not [t for t in items if "Pair None" in t or "abstained" in t]
    running = presenter.running.text()
    for line in ("D1 calls equal candidates equal: ", "D2 average rating", "D3 share answered"):
        assert line in running, line
    assert "D4 average rank" in running
    # numbers over every answer of the run, not only the 60 shown
    assert "of 24" in running  # the audit's 24 equal-pair answers


@pytest.mark.parametrize("gives", [True, False])
def test_start_asks_the_server_once_for_log_probabilities_off_the_ui_thread(
    qtbot: QtBot,
    window: MainWindow,
    every_design: Path,
    monkeypatch: pytest.MonkeyPatch,
    gives: bool,
) -> None:
    """Issue 25: D3 scores a candidate by how sure the model is of its Yes; an
    OpenAI-compatible server gives that only if it was started to. Start asks once, as
    `resume-auditor audit` does, off the UI thread, and says what it found in words."""
    import threading

    import resume_auditor.ui.pages.run_page as run_page
    from resume_auditor.workflow.plan import probe_logprobs

    threads: list[bool] = []

    def probe(*args: object, **kwargs: object) -> bool | None:
        threads.append(threading.current_thread() is threading.main_thread())
        return probe_logprobs(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(run_page, "probe_logprobs", probe)
    win, page = window, window.run_page
    _open(qtbot, win, every_design)
    with Simulator(policy=policy, logprobs=gives) as sim:
        _point_at(win, sim)
        qtbot.waitUntil(lambda: page.start_button.text() == "Start", timeout=20000)
        with qtbot.waitSignal(win.controller.finished, timeout=60000) as blocker:
            page.start_button.click()
        assert blocker.args[0].state is RunState.FINISHED
        asked = [r.body for r in sim.requests if r.body and r.body.get("logprobs")]
        said = page.plan_text.text()
        # the run's own requests read the finding: with a server that gives none, only
        # the probe asked (and was asked again without); otherwise D3's requests ask too
        if gives:
            assert len(asked) > 1
        else:
            assert len(asked) == 1
        # pressing Start again asks nothing more: the finding is kept
        before = len(sim.requests)
        qtbot.waitUntil(
            lambda: page.start_button.text() == "Run again (sends nothing new)", timeout=20000
        )
        with qtbot.waitSignal(win.controller.finished, timeout=60000):
            page.start_button.click()
        assert len(sim.requests) == before
    assert threads and not any(threads)  # never on the UI thread
    assert "Checked: sim-model" in said
    if gives:
        assert "says how sure it is" in said
    else:
        assert "does not say how sure" in said and "rough" in said
    for jargon in ("RABBI", "D3", "logprobs", "d3-rating"):
        assert jargon not in said, jargon


def test_the_faster_end_setting_reaches_the_runner_and_the_status_counts_its_copies(
    qtbot: QtBot, window: MainWindow, every_design: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: the GUI offers the CLI's `--hedge` (off by default), and the Run page
    says what it and any stall cost: copies sent early, sends that may be paid twice,
    and after an abrupt end how many may already have been paid."""
    from dataclasses import replace

    import resume_auditor.ui.pages.run_page as run_page
    from resume_auditor.runner import RunStatus

    seen: list[float] = []
    real = run_page.make_runner

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(float(kwargs.get("hedge", 0.0)))  # type: ignore[arg-type]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(run_page, "make_runner", spy)
    win, page = window, window.run_page
    assert page.hedge.value() == 0 and page.hedge.text() == "off"
    _open(qtbot, win, every_design)
    with Simulator(policy=policy) as sim:
        _point_at(win, sim)
        qtbot.waitUntil(lambda: page.start_button.text() == "Start", timeout=20000)
        page.hedge.setValue(3)
        with qtbot.waitSignal(win.controller.finished, timeout=60000) as blocker:
            page.start_button.click()
        assert blocker.args[0].state is RunState.FINISHED
    assert seen == [0.03]
    base = {"total": 4, "done": 4, "failed": 0, "in_flight": 0, "invalid": 0}
    base |= {"input_tokens": 0, "output_tokens": 0, "elapsed_s": 1.0, "eta_s": None}
    status = RunStatus(RunState.RUNNING, **base, cost_usd=0.5)
    page._on_status(replace(status, hedged=2, maybe_paid_twice=5, unseen_before=4))
    said = page.state_text.text()
    assert "2 early copy(ies) sent to end the run sooner" in said
    assert "5 send(s) whose answer never arrived were sent again and may be billed twice" in said
    assert "ended abruptly with 4 request(s) at the provider" in said
