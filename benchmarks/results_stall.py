"""Largest UI stall while the Results page builds every design's panels on a big audit.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/results_stall.py [ANSWERS]

Runs the sample study (D1-D4) against the provider simulator, then repeats every
answer as further repeats of the same requests until the run holds about ANSWERS
answers (default 100,000): the statistics use every repeat, so the metrics, the
panels and the drill-down work on that many answers. Then it opens the app
offscreen on the Results page and, with a 5 ms heartbeat timer on the UI thread,
records every gap while it waits for the panels, shows each design's tab at
1280x800 and 1920x1080 (charts drawn again at each size), and opens the answers
behind the first number of each design. Prints the largest stall per phase, and
the longest single call of each UI-thread handler of the page, in wall time and in
the UI thread's own CPU time (on a loaded machine the heartbeat also counts the time
the thread waited to be scheduled: the "idle" phase measures that noise).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parent.parent


def build(folder: Path, answers: int) -> Path:
    sys.path.insert(0, str(ROOT / "tests"))
    from results_fixtures import make_all_designs_audit

    from resume_auditor.store.resultfile import ResultFile

    path = make_all_designs_audit(folder)
    with ResultFile(path) as rf, rf.transaction() as db:
        run_id = db.execute("SELECT max(id) FROM run").fetchone()[0]
        base = db.execute("SELECT count(*) FROM request WHERE run_id = ?", (run_id,)).fetchone()[0]
        repeats = max(0, answers // base - 1)
        columns = (
            "run_id, ukey, kind, preset, pair_id, set_id, ord, variants_json, context_json, cell"
        )
        for rep in range(1, repeats + 1):
            db.execute(
                f"INSERT INTO request ({columns}, rep, body, body_sha256, status, done_at) "
                f"SELECT {columns}, ?, X'', body_sha256, status, done_at FROM request "
                "WHERE run_id = ? AND rep = 0",
                (rep, run_id),
            )
        db.execute(
            "INSERT INTO response (request_id, raw, text, label, justification, parsed_json, "
            "input_tokens, output_tokens, source, received_at) "
            "SELECT r.id, CAST('{}' AS BLOB), o.text, o.label, o.justification, o.parsed_json, "
            "o.input_tokens, o.output_tokens, o.source, o.received_at "
            "FROM request r JOIN request b ON b.run_id = r.run_id AND b.ukey = r.ukey "
            "AND b.rep = 0 JOIN response o ON o.request_id = b.id "
            "WHERE r.run_id = ? AND r.rep > 0",
            (run_id,),
        )
        total = db.execute("SELECT count(*) FROM response").fetchone()[0]
    print(f"audit with {total} answers ({base} requests x {repeats + 1} repeats)")
    return path


def _time_handlers() -> dict[str, tuple[float, float]]:
    """Wrap the page's UI-thread handlers to record their longest call (wall, CPU ms)."""
    import functools

    from resume_auditor.ui.pages.results_page import ResultsPage
    from resume_auditor.ui.widgets.answers_dialog import AnswersDialog
    from resume_auditor.ui.widgets.charts import ChartView
    from resume_auditor.ui.widgets.design_panel import DesignPanel

    out: dict[str, tuple[float, float]] = {}
    targets = {
        ResultsPage: ("_loaded", "_drill", "_select", "_filter", "refresh", "show_audit"),
        DesignPanel: ("show_rows", "_filter", "_explain"),
        ChartView: ("show_image", "resizeEvent"),
        AnswersDialog: ("show_answers",),
    }
    for cls, names in targets.items():
        for name in names:
            original = getattr(cls, name)

            def timed(*args: Any, _f: Any = original, _k: str = f"{cls.__name__}.{name}") -> Any:
                wall, cpu = time.perf_counter(), time.thread_time()
                try:
                    return _f(*args)
                finally:
                    took = (
                        (time.perf_counter() - wall) * 1000,
                        (time.thread_time() - cpu) * 1000,
                    )
                    old = out.get(_k, (0.0, 0.0))
                    out[_k] = (max(old[0], took[0]), max(old[1], took[1]))

            setattr(cls, name, functools.wraps(original)(timed))
    return out


def main(argv: list[str]) -> int:
    answers = int(argv[1]) if len(argv) > 1 else 100_000
    tmp = Path(tempfile.mkdtemp(prefix="ra-results-stall-"))
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(tmp / "data")
    t0 = time.perf_counter()
    path = build(tmp, answers)
    print(f"built in {time.perf_counter() - t0:.1f} s")

    from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from resume_auditor.ui.main_window import MainWindow
    from resume_auditor.ui.tasks import wait_for_background

    handlers = _time_handlers()
    app = QApplication.instance() or QApplication(["results-stall"])
    clock = QElapsedTimer()
    clock.start()
    last = [clock.nsecsElapsed()]
    phase = ["open"]
    worst: dict[str, float] = {}

    def beat() -> None:
        now = clock.nsecsElapsed()
        stall = (now - last[0]) / 1e6 - 5
        worst[phase[0]] = max(worst.get(phase[0], 0.0), stall)
        last[0] = now

    def wait(ms: int, until: Any = None) -> None:
        loop = QEventLoop()
        if until is not None:
            until.connect(loop.quit)
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(5)
    heartbeat.timeout.connect(beat)

    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    window.open_path(path)  # reading the audit file itself is the session's, not measured
    wait(60_000, window.session.loaded)
    page = window.results_page
    heartbeat.start()
    last[0] = clock.nsecsElapsed()
    phase[0] = "idle (the machine's own noise)"
    wait(3000)
    phase[0] = "metrics and panels"
    started = time.perf_counter()
    window.show_page(4)
    wait(600_000, page.updated)
    print(f"panels ready in {time.perf_counter() - started:.1f} s: {page.tabs.count()} tabs")
    for w, h in ((1280, 800), (1920, 1080)):
        phase[0] = f"tabs at {w}x{h}"
        window.resize(w, h)
        for i in range(page.tabs.count()):
            page.tabs.setCurrentIndex(i)
            wait(1500)
    phase[0] = "drill-down"
    for design, panel in page.panels.items():
        if panel.model.rowCount() == 0:
            continue
        page.tabs.setCurrentWidget(page._tab_of[design][0][0])  # noqa: SLF001 - benchmark
        panel.table.selectRow(0)
        started = time.perf_counter()
        panel._drill_current()  # noqa: SLF001 - benchmark
        dialog = page._last_dialog  # noqa: SLF001 - benchmark
        while dialog.model.rowCount() == 0 and time.perf_counter() - started < 300:
            wait(50)
        rows = dialog.model.rowCount()
        took = time.perf_counter() - started
        print(f"{design}: {rows} answers behind the first number in {took:.1f} s")
        dialog.close()
    heartbeat.stop()
    window.controller.shutdown()
    wait_for_background()
    window.close()
    for name, ms in worst.items():
        print(f"largest UI stall, {name}: {ms:.0f} ms")
    for name, (wall, cpu) in sorted(handlers.items(), key=lambda kv: -kv[1][1])[:8]:
        print(f"longest call of {name}: {cpu:.0f} ms CPU, {wall:.0f} ms wall")
    _ = app
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
