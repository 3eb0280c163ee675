"""Start the desktop app: `resume-auditor`, `resume-auditor gui [FILE]`, `resume-auditor-gui`."""

from __future__ import annotations

import sys
from pathlib import Path

from resume_auditor import APP_NAME


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
    return code


if __name__ == "__main__":
    raise SystemExit(main())
