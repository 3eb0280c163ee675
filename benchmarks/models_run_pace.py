"""Three models at once: as fast in the app as in the CLI, the window live? (issue 28)

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/models_run_pace.py [--latency S]

Two loopback provider simulators, each in its own process (tests/devtools/simulator.py:
one serving two models, one serving a third; answers after `--latency` seconds), and the
sample study's D1 pairs sent to all three models at once (176 requests each):

- the CLI: `resume-auditor audit STUDY --out FILE --no-cache`, its wall time (the whole
  command: starting Python and building the audit's cases too);
- the app: the same study opened in the main window, "Start all models" pressed, the
  time until the run group finishes, and the largest stall of the window meanwhile (a
  5 ms heartbeat on the UI thread).

The app is driven by Qt event loops (QEventLoop with a timer), as a user's clicks are.
Not by QTest.qWait: it keeps the interpreter while it sleeps, so every worker thread
(the runners) waits for it, and a run seemed 20 times slower in the app than in the
CLI (issue 28's closing note of session 8, corrected in session 9).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

SERVERS = """
import sys, time
sys.path.insert(0, {tests!r})
from devtools.simulator import Simulator, longer_resume_policy
latency = float(sys.argv[1])
with Simulator(longer_resume_policy, models=("model-a", "model-b"), latency_s=latency,
               keep_requests=False) as one, \\
     Simulator(longer_resume_policy, models=("model-c",), latency_s=latency,
               keep_requests=False) as two:
    print(one.base_url, two.base_url, flush=True)
    time.sleep(3600)
"""


def _study(tmp: Path, one: str, two: str) -> Path:
    from report_fixtures import study_with_models

    kind = "openai-compatible"
    return study_with_models(
        tmp, [(kind, one, "model-a"), (kind, one, "model-b"), (kind, two, "model-c")]
    )


def cli(study: Path, out: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "resume_auditor", "audit", str(study), "--out", str(out)]
        + ["--no-cache"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the CLI failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return time.perf_counter() - started


def app(study: Path) -> tuple[float, float, int]:
    from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from resume_auditor.ui.main_window import MainWindow
    from resume_auditor.ui.tasks import wait_for_background

    qt = QApplication.instance() or QApplication(["models-run-pace"])

    def wait(ms: int) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def until(condition: object, limit_s: float) -> None:
        started = time.perf_counter()
        while not condition() and time.perf_counter() - started < limit_s:  # type: ignore[operator]
            wait(20)

    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    window.open_path(study)
    until(lambda: window.session.data is not None, 120)
    window.show_page(3)
    page = window.run_page
    until(lambda: page.models.list.count() == 3 and page.start_all_button.isEnabled(), 60)
    if not page.start_all_button.isEnabled():
        raise SystemExit("'Start all models' never became usable")
    clock = QElapsedTimer()
    clock.start()
    last, worst = [clock.nsecsElapsed()], [0.0]

    def beat() -> None:
        now = clock.nsecsElapsed()
        worst[0] = max(worst[0], (now - last[0]) / 1e6 - 5)
        last[0] = now

    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(5)
    heartbeat.timeout.connect(beat)
    finished: list[object] = []
    window.controller.finished.connect(finished.append)
    heartbeat.start()
    last[0] = clock.nsecsElapsed()
    started = time.perf_counter()
    page.start_all_button.click()
    until(lambda: bool(finished), 600)
    took = time.perf_counter() - started
    heartbeat.stop()
    data = window.session.data
    answered = sum(data.answered_by_run.values()) if data else 0
    window.controller.shutdown()
    wait_for_background()
    window.close()
    _ = qt
    return took, worst[0], answered


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.1, help="each answer's delay (s)")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="models-run-pace-"))
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(tmp / "data")
    os.environ.setdefault("OPENAI_API_KEY", "sk-loopback")
    servers = subprocess.Popen(
        [sys.executable, "-c", SERVERS.format(tests=str(ROOT / "tests")), str(args.latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert servers.stdout is not None
        one, two = servers.stdout.readline().split()
        study = _study(tmp, one, two)
        cli_s = cli(study, tmp / "cli.audit")
        app_s, stall_ms, answered = app(study)
    finally:
        servers.kill()
    print(
        f"3 models x 176 requests, answers after {args.latency:.2f} s: the CLI {cli_s:.1f} s "
        "(the whole command, the audit's building included), "
        f"the app {app_s:.1f} s ({answered} answers), its largest stall meanwhile "
        f"{stall_ms:.0f} ms; load average {os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
