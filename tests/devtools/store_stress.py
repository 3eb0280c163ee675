"""Stress the one-writer rule: a writing app, many CLI readers, kill -9 at random.

One round:

- a D1 audit is prepared from the sample job and resume (`resume-auditor audit
  --prepare-only`) for the provider simulator, with enough repeats to last;
- a *writer* process stands in for the app: it holds the audit open read-write
  on its "UI thread" (reading progress as answers arrive, as the app's live view
  does, and reading the file's first bytes as Qt's file dialogs do, which drops
  the process's POSIX locks on it: the condition of the field failure) while the
  runner answers every request against the simulator; it prints `committed ID`
  for each answer the runner reports committed;
- *reader* processes run CLI commands in a loop (`metrics --json`, `cases`,
  `report --csv`, `variants list`), until they have done their share: in-process
  (`cli.main`, a full command as a user types it minus the interpreter's
  start-up) or, with `processes`, each in a `python -m resume_auditor` process;
- meanwhile the writer or a reader is killed with SIGKILL at random moments and
  started again (the writer resumes the run);
- while a writer is alive, the driver checks that a second writer is refused.

Then: `PRAGMA integrity_check` must say ok, every answer a writer reported
committed must be in the file (0 lost), every request must have its answer, no
writer or reader may have failed other than by our kills, and no `-wal`/`-shm`
may have vanished while a writer had the file open (a writer reports any
database error it meets, and its exit code is checked).

Used by tests/test_store_stress.py (small counts) and benchmarks/store_stress.py.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from devtools.simulator import Simulator
from resume_auditor.resources import sample_study

WRITER = """
import sys, threading
from resume_auditor.runner import Answer
from resume_auditor.store import writelock
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.execute import make_runner

writelock.set_program("the stress writer")
path = sys.argv[1]
out = threading.Lock()

def say(text):
    with out:
        sys.stdout.write(text + "\\n")
        sys.stdout.flush()

def on_event(event):
    if isinstance(event, Answer):
        say(f"committed {event.request_id}")

ui = ResultFile(path)  # the app's own connection: it holds the claim for the session
say("open")
runner = make_runner(path, None, concurrency=4, use_cache=False, on_event=on_event)
run_id = runner.run_id
runner.start()
while not runner.join(0.05):
    ui.progress(run_id)  # the live view reads while the runner writes
    ui.verdicts_since(run_id, "")
    with open(path, "rb") as fh:  # as Qt's file dialogs do to guess a file's type: this
        fh.read(16)  # drops the process's POSIX locks on the file (its SQLite locks too)
status = runner.final_status
p = ui.progress(run_id)
say(f"finished {status.state.value if status else 'none'} {p.done} {p.total}")
ui.close()
"""

READER = """
import contextlib, io, random, sys
from resume_auditor.cli import main

path, n, folder, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
rng = random.Random(seed)
commands = [
    ["metrics", path, "--json"],
    ["cases", path],
    ["report", path, "--csv", folder],
    ["variants", "list", path],
]
separate = len(sys.argv) > 5 and sys.argv[5] == "processes"
for i in range(n):
    argv = rng.choice(commands)
    sink = io.StringIO()
    if separate:  # the command in its own process, exactly as typed
        import subprocess
        done = subprocess.run(
            [sys.executable, "-m", "resume_auditor", *argv], capture_output=True, text=True
        )
        code, text = done.returncode, done.stderr
        sink.write(text)
    else:
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                code = main(argv)
        except BaseException as exc:
            code = f"{type(exc).__name__}: {exc}"
    if code == 0:
        print("ok", argv[0], flush=True)
    else:
        text = sink.getvalue().strip().replace(chr(10), " ")[:300]
        print("fail", argv[0], code, text, flush=True)
"""


@dataclass
class RoundResult:
    requests: int = 0
    answered: int = 0
    committed: int = 0  # answers writers reported committed
    lost: list[int] = field(default_factory=list)  # committed, yet not in the file
    integrity: str = ""
    reads_ok: int = 0
    read_failures: list[str] = field(default_factory=list)
    writer_failures: list[str] = field(default_factory=list)
    writer_kills: int = 0
    reader_kills: int = 0
    second_writer_refused: int = 0
    second_writer_admitted: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return (
            self.integrity == "ok"
            and not self.lost
            and self.answered == self.requests
            and not self.read_failures
            and not self.writer_failures
            and self.second_writer_admitted == 0
        )

    def line(self) -> str:
        return (
            f"{'OK  ' if self.ok else 'FAIL'} {self.seconds:5.1f}s  answers {self.answered}/"
            f"{self.requests} (committed {self.committed}, lost {len(self.lost)})  "
            f"integrity {self.integrity}  reads {self.reads_ok} ok, "
            f"{len(self.read_failures)} failed  kills: writer {self.writer_kills}, "
            f"readers {self.reader_kills}  second writer refused {self.second_writer_refused}"
            f"/{self.second_writer_refused + self.second_writer_admitted}"
        )


class _Child:
    """A child process whose stdout lines are collected by a thread."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,  # a kill takes the CLI processes it started too
        )
        self.lines: list[str] = []
        self.err = ""
        self.killed = False
        self._out = threading.Thread(target=self._pump, daemon=True)
        self._out.start()
        self._err = threading.Thread(target=self._pump_err, daemon=True)
        self._err.start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.endswith("\n"):  # a line cut by a kill is not a report
                self.lines.append(line.strip())

    def _pump_err(self) -> None:
        assert self.proc.stderr is not None
        self.err = self.proc.stderr.read()

    def kill(self) -> None:
        self.killed = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.finish()

    def finish(self, timeout: float = 30) -> None:
        self.proc.wait(timeout)
        self._out.join(timeout)
        self._err.join(timeout)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def writing(self) -> bool:
        """A writer that has the audit open and has not said it is done with it."""
        lines = list(self.lines)
        return (
            self.alive()
            and "open" in lines
            and not any(line.startswith("finished") for line in lines)
        )


def _study(folder: Path, base_url: str, repeats: int) -> Path:
    sample = sample_study().parent
    (folder / "resumes").mkdir(parents=True, exist_ok=True)
    (folder / "job.md").write_bytes((sample / "job.md").read_bytes())
    pdf = sorted((sample / "resumes").glob("*.pdf"))[0]
    (folder / "resumes" / pdf.name).write_bytes(pdf.read_bytes())
    study = folder / "study.toml"
    study.write_text(
        f"""format = 1
[study]
name = "Store stress"
seed = 7
[job]
file = "job.md"
[resumes]
files = ["resumes/*.pdf"]
[model]
provider = "openai-compatible"
base_url = "{base_url}"
model = "sim-model"
max_tokens = 160
[run]
prompt = "d1-baseline"
orders = "both"
repeats = {repeats}
concurrency = 4
[designs.d1]
groups = ["black_woman", "white_man"]
k = [1]
summary_block = "never"  # 10 requests a repeat, as the stress test counts them
""",
        encoding="utf-8",
    )
    return study


def run_round(
    folder: Path,
    *,
    repeats: int = 10,
    reads: int = 100,
    readers: int = 4,
    kills: int = 4,
    writer_share: float = 0.5,
    latency: tuple[float, float] = (0.02, 0.2),
    seed: int = 0,
    deadline_s: float = 300.0,
    root: Path | None = None,
    processes: bool = False,
) -> RoundResult:
    """One round in `folder` (must be empty); see the module's docstring.

    With `processes`, each read is `python -m resume_auditor ...` in a process of
    its own (slower: the interpreter starts each time) rather than `cli.main` in
    the reader's process.
    """
    mode = "processes" if processes else "in-process"
    import contextlib
    import io

    from resume_auditor.cli import main
    from resume_auditor.store.errors import AuditInUse
    from resume_auditor.store.resultfile import ResultFile

    rng = random.Random(seed)
    result = RoundResult()
    started = time.monotonic()
    env = {**os.environ}
    if root is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(root), *filter(None, [os.environ.get("PYTHONPATH")])]
        )

    def latency_s() -> float:
        return rng.uniform(*latency)

    with Simulator(latency_s=latency_s) as sim:
        study = _study(folder, sim.base_url, repeats)
        out = folder / "stress.audit"
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            code = main(["audit", str(study), "--out", str(out), "--prepare-only"])
        if code != 0:
            raise RuntimeError(f"could not prepare the stress audit: {sink.getvalue()}")

        writers: list[_Child] = [_Child([WRITER, str(out)], env)]
        share = -(-reads // readers)
        reader_procs: list[tuple[_Child, int]] = []
        for i in range(readers):
            csv = folder / f"csv-{i}"
            reader_procs.append(
                (
                    _Child(
                        [READER, str(out), str(share), str(csv), str(seed * 100 + i), mode], env
                    ),
                    share,
                )
            )
        kills_left = kills
        try:
            while True:
                if time.monotonic() - started > deadline_s:
                    result.writer_failures.append(f"deadline of {deadline_s:.0f} s passed")
                    break
                time.sleep(rng.uniform(0.2, 1.0))
                writer = writers[-1]
                if writer.writing():
                    try:
                        ResultFile(out).close()
                    except AuditInUse:
                        result.second_writer_refused += 1
                    else:  # fine only if the writer had just let go (finished, or killed)
                        time.sleep(0.2)
                        result.second_writer_admitted += int(writer.writing())
                if kills_left > 0:
                    alive_readers = [
                        i for i, (child, _) in enumerate(reader_procs) if child.alive()
                    ]
                    hit_writer = writer.alive() and (
                        rng.random() < writer_share or not alive_readers
                    )
                    if hit_writer:
                        writer.kill()
                        result.writer_kills += 1
                        kills_left -= 1
                    elif alive_readers:
                        i = rng.choice(alive_readers)
                        child, todo = reader_procs[i]
                        child.kill()
                        done = sum(1 for line in child.lines if line.startswith("ok"))
                        result.reader_kills += 1
                        kills_left -= 1
                        remaining = todo - done
                        if remaining > 0:
                            csv = folder / f"csv-{i}"
                            reader_procs.append(
                                (
                                    _Child(
                                        [
                                            READER,
                                            str(out),
                                            str(remaining),
                                            str(csv),
                                            str(i),
                                            mode,
                                        ],
                                        env,
                                    ),
                                    remaining,
                                )
                            )
                writer = writers[-1]
                if not writer.alive():
                    writer.finish()
                    last = writer.lines[-1] if writer.lines else ""
                    if not writer.killed and writer.proc.returncode != 0:
                        result.writer_failures.append(
                            f"writer exited {writer.proc.returncode}: {writer.err[-600:]}"
                        )
                        break
                    done_all = last.startswith("finished") and last.split()[2] == last.split()[3]
                    if not done_all:
                        writers.append(_Child([WRITER, str(out)], env))
                        continue
                    if all(not child.alive() for child, _ in reader_procs):
                        break
        finally:
            for child in writers:
                if child.alive():
                    child.kill()
            for child, _ in reader_procs:
                if child.alive():
                    child.kill()
                else:
                    child.finish()

    committed: set[int] = set()
    for writer in writers:
        # an error a writer printed (a database error it met) fails the round, killed or not
        signs = ("Traceback", "sqlite3.", "disk I/O", "not a database", "malformed")
        if any(sign in writer.err for sign in signs) or (
            not writer.killed and "Error" in writer.err
        ):
            result.writer_failures.append(writer.err[-600:])
        for line in writer.lines:
            if line.startswith("committed "):
                committed.add(int(line.split()[1]))
    for child, _ in reader_procs:
        for line in child.lines:
            if line.startswith("ok"):
                result.reads_ok += 1
            elif line.startswith("fail"):
                result.read_failures.append(line)
        if not child.killed and child.proc.returncode != 0:
            result.read_failures.append(f"reader exited {child.proc.returncode}: {child.err}")

    db = sqlite3.connect(out.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        result.integrity = "; ".join(
            str(r[0]) for r in db.execute("PRAGMA integrity_check").fetchall()
        )
        in_file = {int(r[0]) for r in db.execute("SELECT request_id FROM response")}
        result.requests = int(db.execute("SELECT count(*) FROM request").fetchone()[0])
    finally:
        db.close()
    result.answered = len(in_file)
    result.committed = len(committed)
    result.lost = sorted(committed - in_file)
    result.seconds = time.monotonic() - started
    return result
