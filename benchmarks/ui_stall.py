"""Largest event-loop stall while a run feeds the Results page of a 100,000-pair audit.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/ui_stall.py [PAIRS] [REQUESTS]

Builds an audit with PAIRS pairs (default 100,000; the sample study's variants
reused), queues REQUESTS requests (default 3,000) against the provider simulator
(latency 0.05-0.5 s, 16 at once), opens the app offscreen on the Results page and
starts the run from the Run page, as a user would. A 5 ms heartbeat timer on the
UI thread records every gap; the script prints the largest stall (gap minus the
interval), the 99th percentile, and how long the run took.
"""

from __future__ import annotations

import dataclasses
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def build_audit(path: Path, pairs: int, requests: int) -> int:
    from resume_auditor.domain.case import CaseKind, Order, Truth
    from resume_auditor.domain.study import ModelSpec
    from resume_auditor.resources import sample_study
    from resume_auditor.store.resultfile import RequestSpec, ResultFile
    from resume_auditor.workflow.prepare import prepare, request_body
    from resume_auditor.workflow.studyfile import read_study

    study = read_study(sample_study())
    prepared = prepare(study, path)
    rng = random.Random(7)
    with ResultFile(path) as rf:
        variants = rf.variants()
        job_text = rf.job().text
        with rf.transaction() as db:
            db.execute("DELETE FROM request")
            db.execute("DELETE FROM run")
        template = rf.cases("D1")
        with rf.transaction():
            for i in range(pairs - len(template)):
                base = template[i % len(template)]
                rf.add_case(dataclasses.replace(base, variants=list(base.variants), id=None))
        model = ModelSpec("openai-compatible", "http://placeholder/v1", "sim-model")
        run_id = rf.add_run(model.provider, model.base_url, model.model, "d1-baseline", {})
        texts = {v.id: v.text for v in variants}
        all_pairs = rf.cases("D1")
        chosen = rng.sample(all_pairs, requests // 2)
        items = []
        for p in chosen:
            for order in (Order.AB, Order.BA):
                a, b = texts[p.variant_a], texts[p.variant_b]
                first, second = (a, b) if order is Order.AB else (b, a)
                body = request_body(model, "d1-baseline", job_text, first, second)
                shown = (p.variant_a, p.variant_b)
                items.append(
                    RequestSpec(
                        ukey=f"pair:{p.id}:{order.value}",
                        kind="pairwise_abstain",
                        body=body,
                        variants=shown if order is Order.AB else shown[::-1],
                        preset="d1-baseline",
                        case_id=p.id,
                        order=order.value,
                    )
                )
        with rf.transaction():
            rf.add_request_specs(run_id, items)
        _ = (prepared, CaseKind, Truth)
    return run_id


def main(argv: list[str]) -> int:
    pairs = int(argv[1]) if len(argv) > 1 else 100_000
    requests = int(argv[2]) if len(argv) > 2 else 3_000
    tmp = Path(tempfile.mkdtemp(prefix="ra-stall-"))
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(tmp / "data")

    from devtools.simulator import Simulator
    from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from resume_auditor.runner import RunState
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.ui.main_window import MainWindow
    from resume_auditor.workflow import execute

    t0 = time.perf_counter()
    path = tmp / "big.audit"
    run_id = build_audit(path, pairs, requests)
    print(f"built {pairs} pairs and {requests} requests in {time.perf_counter() - t0:.1f} s")

    app = QApplication.instance() or QApplication(["stall"])
    app.setApplicationName("Resume Auditor (stall benchmark)")
    rng = random.Random(1)
    with Simulator(latency_s=lambda: rng.uniform(0.05, 0.5)) as sim:
        with ResultFile(path) as rf, rf.transaction() as db:
            db.execute("UPDATE run SET base_url = ? WHERE id = ?", (sim.base_url, run_id))
        window = MainWindow()
        window.resize(1280, 800)
        window.show()
        window.open_path(path)
        loop = QEventLoop()
        window.results_page.updated.connect(loop.quit)
        window.show_page(4)
        QTimer.singleShot(120_000, loop.quit)
        loop.exec()
        rows = window.results_page.model.rowCount()
        print(f"results page shows {rows} rows")

        gaps: list[float] = []
        clock = QElapsedTimer()
        clock.start()
        last = [clock.nsecsElapsed()]
        interval_ms = 5

        times: list[float] = []

        def beat() -> None:
            now = clock.nsecsElapsed()
            gaps.append((now - last[0]) / 1e6)
            times.append(now / 1e9)
            last[0] = now

        heartbeat = QTimer()
        heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
        heartbeat.setInterval(interval_ms)
        heartbeat.timeout.connect(beat)
        heartbeat.start()

        run_page = window.run_page
        run_page.concurrency.setValue(16)
        runner = execute.make_runner(
            path, run_id, concurrency=16, timeout_s=60, on_event=window.controller.push
        )
        done = QEventLoop()
        window.controller.finished.connect(lambda _s: done.quit())
        started = time.perf_counter()
        window.controller.start(runner)
        done.exec()
        elapsed = time.perf_counter() - started
        # let the last refresh land
        settle = QEventLoop()
        QTimer.singleShot(3000, settle.quit)
        settle.exec()
        heartbeat.stop()
        status = runner.final_status
        window.close()
    stalls = [max(0.0, g - interval_ms) for g in gaps]
    stalls.sort()
    p99 = stalls[int(0.99 * (len(stalls) - 1))] if stalls else 0.0
    print(
        f"run: {status.done if status else 0}/{requests} answered, state "
        f"{status.state.value if status else '?'}, {elapsed:.1f} s "
        f"({(status.done if status else 0) / elapsed:.0f} requests/s)"
    )
    print(
        f"heartbeats: {len(gaps)}; largest stall {max(stalls):.1f} ms; "
        f"p99 {p99:.1f} ms; median gap {statistics.median(gaps):.1f} ms"
    )
    worst = sorted(range(len(gaps)), key=lambda i: -gaps[i])[:5]
    print("worst gaps (ms at s):", ", ".join(f"{gaps[i]:.0f}@{times[i]:.1f}" for i in worst))
    _ = app
    ok = status is not None and status.state is RunState.FINISHED
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
