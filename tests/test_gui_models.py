"""The Run page's models (issue 28): a study's [[models]] listed, the estimate in all, and
"start the next one" running each model of the list in turn, over HTTP, as a user would."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from devtools.simulator import Simulator, longer_resume_policy
from devtools.simulator_policies import ByModel
from pytestqt.qtbot import QtBot
from report_fixtures import study_with_models

from resume_auditor.runner import RunState
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.ui.main_window import MainWindow


def _study(folder: Path, base_url: str) -> Path:
    return study_with_models(
        folder, [("openai-compatible", base_url, m) for m in ("sim-right", "sim-first")]
    )


def test_the_models_of_the_study_run_in_turn(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    policy = ByModel(
        {"sim-right": longer_resume_policy, "sim-first": lambda body: "<answer>A</answer>"}
    )
    win, page = window, window.run_page
    with Simulator(policy, models=("sim-right", "sim-first")) as sim:
        study = _study(tmp_path, sim.base_url)
        with qtbot.waitSignal(win.session.loaded, timeout=60000):
            win.open_path(study)
        win.show_page(3)
        listed = lambda: [page.models.list.item(i).text() for i in range(page.models.list.count())]  # noqa: E731
        qtbot.waitUntil(lambda: len(listed()) == 2, timeout=20000)
        assert listed()[0].startswith("sim-right (openai-compatible)")
        assert page.model_id.text() == "sim-right"  # before any answer: the first model
        assert listed()[1] == (
            "sim-first (openai-compatible): not started (run 2, prompt d1-baseline)"
        )
        assert page.models.chain.isVisible() or not page.isVisible()
        page.estimate_button.click()
        qtbot.waitUntil(
            lambda: "In all, 2 models one after another: 352 request(s)" in page.plan_text.text(),
            timeout=30000,
        )
        page.models.chain.setChecked(True)
        qtbot.waitUntil(lambda: page.start_button.isEnabled(), timeout=20000)
        finished = []
        win.controller.finished.connect(lambda status: finished.append(status))
        page.start_button.click()
        qtbot.waitUntil(lambda: len(finished) == 2, timeout=60000)
        assert [s.state for s in finished] == [RunState.FINISHED, RunState.FINISHED]
    path = win.session.data.path if win.session.data else Path()
    with ResultFile(path, readonly=True) as result:
        runs = result.runs()
        assert [r.model for r in runs] == ["sim-right", "sim-first"]
        assert all(result.progress(r.id).done == result.progress(r.id).total for r in runs)
    qtbot.waitUntil(lambda: all("176 answered" in line for line in listed()), timeout=20000)


def test_start_all_runs_the_models_at_the_same_time(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """One click: both models asked at once (answers of both arrive before either ends),
    each line of the list shows its own progress, and both runs finish."""
    import threading

    seen: list[str] = []
    lock = threading.Lock()

    def noting(answer: Callable[[dict[str, Any]], str]) -> Callable[[dict[str, Any]], str]:
        def policy(body: dict[str, Any]) -> str:
            with lock:
                seen.append(str(body.get("model")))
            return answer(body)

        return policy

    policy = ByModel(
        {
            "sim-right": noting(longer_resume_policy),
            "sim-first": noting(lambda body: "<answer>A</answer>"),
        }
    )
    win, page = window, window.run_page
    with Simulator(policy, models=("sim-right", "sim-first"), latency_s=0.01) as sim:
        study = _study(tmp_path, sim.base_url)
        with qtbot.waitSignal(win.session.loaded, timeout=60000):
            win.open_path(study)
        win.show_page(3)
        listed = lambda: [page.models.list.item(i).text() for i in range(page.models.list.count())]  # noqa: E731
        qtbot.waitUntil(lambda: len(listed()) == 2, timeout=20000)
        assert not page.start_all_button.isHidden()
        # usable as soon as the audit shows, without pressing Estimate first
        assert page.start_all_button.isEnabled() and page.start_button.isEnabled()
        page.estimate_button.click()
        qtbot.waitUntil(
            lambda: "In all, 2 models at the same time: 352 request(s)" in page.plan_text.text(),
            timeout=30000,
        )
        qtbot.waitUntil(lambda: page.start_all_button.isEnabled(), timeout=20000)
        progress: list[dict[int, Any]] = []
        win.controller.models_changed.connect(progress.append)
        finished = []
        win.controller.finished.connect(lambda status: finished.append(status))
        said: list[tuple[str, bool, bool]] = []  # the status line, Start, Cancel
        win.controller.status_changed.connect(
            lambda _s: said.append(
                (
                    page.state_text.text(),
                    page.start_button.isEnabled(),
                    page.cancel_button.isEnabled(),
                )
            )
        )
        page.start_all_button.click()
        qtbot.waitUntil(lambda: len(finished) == 1, timeout=120000)
    assert finished[0].state is RunState.FINISHED and finished[0].done == 352
    running = [(on, off) for text, on, off in said if text.startswith("Running 2 models at once: ")]
    assert running and all(not start and cancel for start, cancel in running)
    # Both were asked at the same time: the first 176 answers are not all one model's.
    assert len(set(seen[:176])) == 2
    assert any(len(p) == 2 for p in progress)  # each run's own status reached the list
    feed = [page.feed.item(i).text() for i in range(page.feed.count())]
    assert feed and all(line.startswith(("sim-right · ", "sim-first · ")) for line in feed)
    path = win.session.data.path if win.session.data else Path()
    with ResultFile(path, readonly=True) as result:
        runs = result.runs()
        assert all(result.progress(r.id).done == result.progress(r.id).total for r in runs)
    qtbot.waitUntil(lambda: all("176 answered" in line for line in listed()), timeout=20000)
