"""Which resume_auditor modules run from Start to a D1 number on the Results page."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

from devtools.simulator import Simulator  # type: ignore
from test_gui import _open, _point_at  # noqa: E402  (the tree's own helpers)

from resume_auditor.runner import RunState
from resume_auditor.store import resultfile as rf
from resume_auditor.ui import tasks

REC = {"on": False, "mods": {}, "threads": set(), "opens": 0}


def prof(frame, event, arg):
    if event == "call" and REC["on"]:
        f = frame.f_code.co_filename
        if "/resume_auditor/" in f:
            key = f.split("/resume_auditor/", 1)[1]
            REC["mods"].setdefault(key, set()).add(
                threading.current_thread().name
                if threading.current_thread().name != "Dummy-1"
                else f"qt-{threading.get_ident()}"
            )
            REC["threads"].add(threading.get_ident())
    return None


_orig_run = tasks._Task.run


def _run(self):
    sys.setprofile(prof)
    try:
        return _orig_run(self)
    finally:
        sys.setprofile(None)


tasks._Task.run = _run
_orig_init = rf.ResultFile.__init__


def _init(self, *a, **k):
    if REC["on"]:
        REC["opens"] += 1
    return _orig_init(self, *a, **k)


rf.ResultFile.__init__ = _init


def test_path(qtbot, window, small_study):
    win = window
    _open(qtbot, win, small_study)
    win.job_page.next_button.click()
    win.resumes_page.next_button.click()
    qtbot.waitUntil(lambda: win.variants_page.model.rowCount() == 5, timeout=10000)
    qtbot.waitUntil(lambda: "10 requests" in win.variants_page.summary.text(), timeout=10000)
    win.variants_page.next_button.click()
    with Simulator() as sim:
        _point_at(win, sim)
        sys.setprofile(prof)
        threading.setprofile(prof)
        REC["on"] = True
        with qtbot.waitSignal(win.controller.finished, timeout=30000) as blocker:
            win.run_page.start_button.click()
        assert blocker.args[0].state is RunState.FINISHED
    win.run_page.next_button.click()
    qtbot.waitUntil(
        lambda: win.results_page.cards["criterion_validity"].value.text() == "100%", timeout=20000
    )
    REC["on"] = False
    sys.setprofile(None)
    threading.setprofile(None)
    out = {
        "mods": {k: sorted(v) for k, v in sorted(REC["mods"].items())},
        "threads": len(REC["threads"]),
        "opens": REC["opens"],
    }
    Path(os.environ["NEWCOMER_OUT"]).write_text(json.dumps(out, indent=1))
