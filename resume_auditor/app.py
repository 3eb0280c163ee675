"""Start the desktop app: `resume-auditor`, `resume-auditor gui [FILE]`, `resume-auditor-gui`.

SIGTERM, SIGHUP and Ctrl-C end it in order (ui/signal_stop.py): a run stops like
Cancel, the audit is backed up and closed, and the exit code is 128 + the signal.
"""

from __future__ import annotations

import logging
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from resume_auditor import APP_NAME

if TYPE_CHECKING:
    from resume_auditor.ui.main_window import MainWindow

logger = logging.getLogger(__name__)
# How often the app looks whether a run stopped by a signal has ended.
SIGNAL_POLL_MS = 50
# Waited past the runner's own grace before quitting anyway (its thread is a daemon).
SIGNAL_SLACK_S = 5.0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from resume_auditor.ui.platform_check import qt_start_problem

    problem = qt_start_problem()  # before Qt, which would abort with a misleading hint
    if problem:
        print(problem, file=sys.stderr)
        return 3
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from resume_auditor.resources import resource, sample_study
    from resume_auditor.store import writelock
    from resume_auditor.ui.errors import ErrorReporter, setup_logging
    from resume_auditor.ui.main_window import MainWindow
    from resume_auditor.ui.tasks import wait_for_background

    setup_logging()  # before anything can fail: the log is where the details go
    writelock.set_program("the Resume Auditor app")

    quit_after_load = "--quit-after-load" in args  # for smoke tests and start-up timing
    qt_args = [a for a in args if a.startswith("-") and a != "--quit-after-load"]
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([sys.argv[0], *qt_args])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName("resume-auditor")
    app.setDesktopFileName("resume-auditor")
    icon = resource("icons", "resume-auditor.png")
    if icon.exists():
        app.setWindowIcon(QIcon(str(icon)))
    window = MainWindow()
    stop = _SignalQuit(app, window)
    reporter = ErrorReporter(lambda: window)
    reporter.install()  # unexpected errors: a dialog and the log, never only stderr
    window.show()
    if quit_after_load:

        def report(data: object) -> None:
            print(
                f"loaded {getattr(data, 'path', '')}: {len(getattr(data, 'pairs', []))} pairs, "
                f"{getattr(data, 'case_count', 0)} other case sets",
                flush=True,
            )
            app.exit(0)

        window.session.loaded.connect(report)
        window.session.failed.connect(lambda msg: (print(msg, file=sys.stderr), app.exit(2)))
    files = [a for a in args if not a.startswith("-")]
    window.open_path(Path(files[0]) if files else sample_study())
    code = int(app.exec())
    window.controller.shutdown()
    wait_for_background(10000)
    window.session.close_audit()  # backs the audit up and lets other programs write it
    reporter.uninstall()
    stop.uninstall()
    if stop.signum is not None:
        print(stop.summary(), file=sys.stderr, flush=True)
        return 128 + stop.signum
    return code


class _SignalQuit:
    """A stop signal: the run stops like Cancel (its answers on their way get the run's
    drain time), then the event loop ends and `main` closes the audit as on a close."""

    def __init__(self, app: object, window: MainWindow) -> None:
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication

        from resume_auditor.ui.signal_stop import SignalStop

        assert isinstance(app, QApplication)
        self._app = app
        self._window = window
        self.signum: int | None = None
        self._deadline = 0.0
        self._progress: tuple[int, int] | None = None
        self._stopper = SignalStop(self._on_signal)
        self._stopper.install()
        self._timer = QTimer()
        self._timer.setInterval(SIGNAL_POLL_MS)
        self._timer.timeout.connect(self._poll)

    def _on_signal(self, signum: int) -> None:
        import time

        runner = self._window.controller.runner
        running = self._window.controller.running and runner is not None
        if self.signum is not None:  # a second signal: no more waiting
            if running and runner is not None:
                runner.cancel()
            return
        self.signum = signum
        name = signal.Signals(signum).name
        if running and runner is not None:
            grace = runner.drain_s()
            print(
                f"{name}: stopping like Cancel — no new requests; answers already on their "
                f"way get up to {grace:.1f} s; the rest go back to the queue (send the "
                "signal again to stop waiting).",
                file=sys.stderr,
                flush=True,
            )
            runner.cancel(grace_s=grace)
            self._deadline = time.monotonic() + grace + SIGNAL_SLACK_S
        else:
            logger.info("%s: closing", name)
        self._timer.start()
        self._poll()

    def _poll(self) -> None:
        import time

        runner = self._window.controller.runner
        if runner is not None and runner.running and time.monotonic() < self._deadline:
            return
        self._timer.stop()
        status = runner.final_status if runner is not None else None
        if status is not None:
            self._progress = (status.done, status.remaining)
        self._app.exit(0)

    def summary(self) -> str:
        name = signal.Signals(self.signum).name if self.signum is not None else "a signal"
        if self._progress is None:
            return f"Stopped by {name}; the audit was saved and closed."
        done, left = self._progress
        return (
            f"Stopped by {name}: {done} answer(s) kept, {left} request(s) left, back in the "
            "queue; the audit was saved and closed. Resume the run to send them."
        )

    def uninstall(self) -> None:
        self._timer.stop()
        self._stopper.uninstall()


if __name__ == "__main__":
    raise SystemExit(main())
