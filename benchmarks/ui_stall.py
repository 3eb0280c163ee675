"""Largest event-loop stall of the app while the Run page shows a 100,000-request run.

Run:
  QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/ui_stall.py [REQUESTS] [--presenter]
      [--no-results-refresh]

Builds an audit of REQUESTS D1 requests (default 100,000: the sample study's
variants in REQUESTS/2 pairs, both orders, each request a short distinct body),
opens it in the main window on the Run page, and runs it with a provider that
answers at once in-process (no network: the run goes as fast as the runner can
commit answers, the hardest case for the UI). With --presenter the presenter is
open too. With --no-results-refresh the Results page is not refreshed during the
run (what the Run page, its feed and the controller cost alone). A 10 ms timer on
the UI thread records the time.monotonic() gap between its ticks; the script
prints the largest gap, the 99th percentile, when the worst ones happened, and
the run's pace. A gap of 60 ms is a stall of about 50 ms.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

INTERVAL_MS = 10


def build_audit(path: Path, requests: int) -> int:
    """An audit with requests/2 D1 pairs (both orders) and a run queued; the run's id."""
    from resume_auditor.domain.case import Order
    from resume_auditor.domain.study import ModelSpec
    from resume_auditor.resources import sample_study
    from resume_auditor.store.resultfile import RequestSpec, ResultFile
    from resume_auditor.workflow.prepare import prepare, request_body
    from resume_auditor.workflow.studyfile import read_study

    prepare(read_study(sample_study()), path)
    model = ModelSpec("openai-compatible", "http://in-process/v1", "fast-fake")
    with ResultFile(path) as rf:
        with rf.transaction() as db:
            db.execute("DELETE FROM request")
            db.execute("DELETE FROM run")
        template = rf.cases("D1")
        with rf.transaction():
            for i in range(requests // 2 - len(template)):
                base = template[i % len(template)]
                rf.add_case(dataclasses.replace(base, variants=list(base.variants), id=None))
        run_id = rf.add_run(model.provider, model.base_url, model.model, "d1-baseline", {})
        items = []
        for p in rf.cases("D1")[: requests // 2]:
            for order in (Order.AB, Order.BA):
                # short distinct bodies: the run is about the UI, not the prompt
                body = request_body(
                    model, "d1-baseline", "Analyst.", f"A{p.id}{order}", f"B{p.id}{order}"
                )
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
    return run_id


class FastProvider:
    """Answers every request at once, in words the pairwise reader understands."""

    name = "fast fake"

    async def chat(self, request: object) -> object:
        from resume_auditor.providers.base import ChatResponse, Usage

        await asyncio.sleep(0)
        text = "Resume 1 shows more of the required experience. <answer>first</answer>"
        return ChatResponse(text, {"model": "fast-fake"}, Usage(200, 20))

    async def list_models(self) -> list[str]:
        return ["fast-fake"]

    async def aclose(self) -> None:
        return None


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("--")]
    requests = int(args[0]) if args else 100_000
    presenter = "--presenter" in argv
    results_refresh = "--no-results-refresh" not in argv
    tmp = Path(tempfile.mkdtemp(prefix="ra-stall-"))
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(tmp / "data")

    from PySide6.QtCore import QEventLoop, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from resume_auditor.runner import Runner, RunState
    from resume_auditor.ui import tasks
    from resume_auditor.ui.main_window import MainWindow

    t0 = time.perf_counter()
    path = tmp / "big.audit"
    run_id = build_audit(path, requests)
    print(f"built {requests:,} requests in {time.perf_counter() - t0:.1f} s")

    app = QApplication.instance() or QApplication(["stall"])

    def wait(ms: int) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    loaded = QEventLoop()
    window.session.loaded.connect(lambda _d: loaded.quit())
    window.open_path(path)
    loaded.exec()
    window.show_page(3)
    if not results_refresh:
        window.run_page.answers_recorded.disconnect(window.results_page.schedule_refresh)
    # What opening set off in the background (each page's counts, the feed's names,
    # what Start would send) finishes first: the run's own stalls are measured here.
    opened = time.monotonic()
    wait(500)
    while tasks.in_progress() and time.monotonic() - opened < 300:
        wait(100)
    print(f"the window's background work after opening took {time.monotonic() - opened:.1f} s")
    if presenter:
        window.open_presenter(full_screen=False)
        wait(2000)

    collections: list[tuple[float, int]] = []  # (seconds, generation), any thread
    collecting: dict[int, float] = {}

    def on_gc(phase: str, info: dict[str, int]) -> None:
        ident = threading.get_ident()
        if phase == "start":
            collecting[ident] = time.perf_counter()
        elif ident in collecting:
            collections.append((time.perf_counter() - collecting.pop(ident), info["generation"]))

    gc.callbacks.append(on_gc)
    rss_before = _rss_mb()

    gaps: list[float] = []
    at: list[float] = []
    last = [time.monotonic()]
    started = [0.0]

    def beat() -> None:
        now = time.monotonic()
        gaps.append((now - last[0]) * 1000)
        at.append(now - started[0])
        last[0] = now

    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(INTERVAL_MS)
    heartbeat.timeout.connect(beat)

    runner = Runner(
        path,
        run_id,
        lambda: FastProvider(),  # type: ignore[arg-type,return-value]
        concurrency=32,
        adaptive=False,
        use_cache=False,
        on_event=window.controller.push,
    )
    done = QEventLoop()
    ended = [0.0]  # when the finished signal came, seconds into the run

    def finished(_status: object) -> None:
        ended[0] = time.monotonic() - started[0]
        done.quit()

    window.controller.finished.connect(finished)
    started[0] = last[0] = time.monotonic()
    heartbeat.start()
    window.controller.start(runner)
    done.exec()
    elapsed = time.monotonic() - started[0]
    wait(1000)  # what the end of the run sets off
    heartbeat.stop()
    status = runner.final_status
    answered = status.done if status else 0
    window.controller.shutdown()
    window.close()
    _ = app
    ordered = sorted(gaps)
    p99 = ordered[int(0.99 * (len(ordered) - 1))]
    print(
        f"run: {answered:,}/{requests:,} answered, state "
        f"{status.state.value if status else '?'}, {elapsed:.1f} s ({answered / elapsed:.0f}/s)"
    )
    print(
        f"heartbeat every {INTERVAL_MS} ms: {len(gaps):,} ticks; largest gap {max(gaps):.1f} ms "
        f"(a stall of {max(gaps) - INTERVAL_MS:.1f} ms); p99 {p99:.1f} ms; "
        f"median {statistics.median(gaps):.1f} ms"
    )
    during = [g for g, t in zip(gaps, at, strict=True) if t < ended[0] - 0.3]
    after = [g for g, t in zip(gaps, at, strict=True) if t >= ended[0] - 0.3]
    print(
        f"while answers arrive: largest gap {max(during, default=0):.1f} ms; at the end "
        f"(the last tick and the app's refresh after the run): {max(after, default=0):.1f} ms"
    )
    worst = sorted(range(len(gaps)), key=lambda i: -gaps[i])[:8]
    print(
        "worst gaps (ms @ s into the run):", ", ".join(f"{gaps[i]:.0f}@{at[i]:.1f}" for i in worst)
    )
    gc.callbacks.remove(on_gc)
    full = [d for d, g in collections if g == 2]
    print(
        f"garbage collections: {len(collections):,}, of them full: {len(full)} "
        f"(longest {1000 * max(full, default=0):.0f} ms); longest of any: "
        f"{1000 * max((d for d, _ in collections), default=0):.0f} ms"
    )
    print(f"memory (RSS): {rss_before:.0f} MB before the run, {_rss_mb():.0f} MB after")
    ok = status is not None and status.state is RunState.FINISHED
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
