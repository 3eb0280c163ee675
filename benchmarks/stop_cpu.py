"""CPU left busy after Stop, with the bundled model (issue 18: "CPU left busy 5 s after Stop").

Run: .venv/bin/python benchmarks/stop_cpu.py [STUDY] [--after N]

As a user would: `resume-auditor audit STUDY` in a fresh data folder, on its own
process group like a terminal job. Once N answers (default 1) are in the result file
the whole group gets SIGINT, as Ctrl-C in a terminal sends it. Measured:

- how long the command took to exit after the signal;
- every process the command had started (its descendants, read from /proc before
  the signal), 5 s after the signal: which are still alive, and the CPU they used
  over the following second (ticks from /proc/<pid>/stat);
- that the answers received before the stop are still in the file.

With --in-process the run happens in this process through the same runner the
window's Run page drives (workflow.execute.make_runner), and Stop is its cancel():
the window does not exit on Stop, so what matters there is that the model server's
work in progress ends and nothing keeps the CPU busy.

The figures are counts of processes and CPU ticks, not timings of the model, so a
busy machine changes the exit time a little and the rest not at all.
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def children_of(root: int) -> set[int]:
    """Every live descendant of `root`, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


def cpu_ticks(pid: int) -> int | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) + int(fields[12])  # utime + stime


def answers(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as db:
            return int(db.execute("SELECT count(*) FROM response").fetchone()[0])
    except sqlite3.Error:
        return 0


def in_process(study: str, after: int) -> int:
    """Stop as the Run page does: Runner.cancel() in a process that goes on living."""
    from resume_auditor.providers.local import LocalModelServer
    from resume_auditor.workflow.execute import make_runner

    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(XDG_DATA_HOME=f"{tmp}/data", XDG_CACHE_HOME=f"{tmp}/cache")
        out = Path(tmp) / "stop.audit"
        exe = Path(sys.executable).with_name("resume-auditor")
        subprocess.run(
            [str(exe), "audit", study, "--out", str(out), "--prepare-only"],
            check=True,
            stdin=subprocess.DEVNULL,
            capture_output=True,
        )
        runner = make_runner(out)
        started = time.monotonic()
        runner.start()
        while answers(out) < after:
            if runner.join(0.2):
                print("the run ended before the stop")
                return 1
        before = answers(out)
        servers = children_of(os.getpid())
        stop_at = time.monotonic()
        print(f"{before} answer(s) in {stop_at - started:.1f} s; stopping")
        runner.cancel()
        runner.join()
        print(f"run stopped {time.monotonic() - stop_at:.2f} s after Stop")
        time.sleep(max(0.0, 5.0 - (time.monotonic() - stop_at)))
        alive = {pid: cpu_ticks(pid) for pid in servers}
        alive = {pid: t for pid, t in alive.items() if t is not None}
        time.sleep(1.0)
        used = sum((cpu_ticks(pid) or t) - t for pid, t in alive.items())
        print(f"model server processes alive 5 s after Stop: {len(alive)}")
        print(f"CPU they used in the next second: {100.0 * used / TICKS:.0f}% of one core")
        print(f"answers in the file after Stop: {answers(out)} (before: {before})")
        LocalModelServer.shared().stop()
        return 0 if used == 0 and answers(out) >= before else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("study", nargs="?", default=str(ROOT / "resources" / "sample" / "quick.toml"))
    ap.add_argument("--after", type=int, default=1, help="answers to wait for before Stop")
    ap.add_argument("--log", help="write the command's verbose log here")
    ap.add_argument(
        "--parent-only",
        action="store_true",
        help="signal the command alone, not its group (as the app's Stop button does)",
    )
    ap.add_argument("--in-process", action="store_true", help="stop as the window's Run page does")
    opts = ap.parse_args()
    if opts.in_process:
        return in_process(opts.study, opts.after)
    exe = Path(sys.executable).with_name("resume-auditor")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stop.audit"
        env = dict(os.environ, XDG_DATA_HOME=f"{tmp}/data", XDG_CACHE_HOME=f"{tmp}/cache")
        started = time.monotonic()
        proc = subprocess.Popen(
            [str(exe), *(["-v"] if opts.log else []), "audit", opts.study, "--out", str(out)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,  # its own process group, like a terminal job
        )
        while answers(out) < opts.after:
            if proc.poll() is not None:
                print("the audit ended before the stop:", proc.stderr.read().decode()[-800:])
                return 1
            time.sleep(0.2)
        kept_before = answers(out)
        started_procs = children_of(proc.pid)
        stop_at = time.monotonic()
        print(f"{kept_before} answer(s) in {stop_at - started:.1f} s; stopping")
        print(f"processes the command started: {len(started_procs)}")
        if opts.parent_only:
            proc.send_signal(signal.SIGINT)
        else:
            os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            print("the command did not exit within 60 s of the stop")
            os.killpg(proc.pid, signal.SIGKILL)
            return 1
        exited = time.monotonic() - stop_at
        if opts.log:
            Path(opts.log).write_bytes(proc.stderr.read())
        time.sleep(max(0.0, 5.0 - (time.monotonic() - stop_at)))
        alive = {pid: cpu_ticks(pid) for pid in started_procs}
        alive = {pid: t for pid, t in alive.items() if t is not None}
        time.sleep(1.0)
        busy = {
            pid: (cpu_ticks(pid) or t) - t for pid, t in alive.items() if cpu_ticks(pid) is not None
        }
        cpu_pct = 100.0 * sum(busy.values()) / TICKS
        kept_after = answers(out)
        print(f"command exited {exited:.2f} s after the stop (exit code {proc.returncode})")
        print(f"processes alive 5 s after the stop: {len(alive)}")
        print(f"CPU they used in the next second: {cpu_pct:.0f}% of one core")
        print(f"answers in the file after the stop: {kept_after} (before: {kept_before})")
        for pid in alive:
            os.kill(pid, signal.SIGKILL)
        ok = not alive and kept_after >= kept_before
        return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
