"""One writer per audit file; readers never touch the writer's log; backups; stray partials."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from runner_fixtures import new_audit

from resume_auditor.cli import main
from resume_auditor.domain.study import ModelSpec, StudyError
from resume_auditor.store import writelock
from resume_auditor.store.backup import backup_path, make_backup, restore_backup
from resume_auditor.store.errors import AuditDamaged, AuditInUse, ResultFileError
from resume_auditor.store.resultfile import ResultFile

ROOT = Path(__file__).resolve().parent.parent
MODEL = ModelSpec(provider="openai-compatible", base_url="http://127.0.0.1:9/v1", model="m")

# A stand-in for the app: holds the audit open read-write, writes a row when told to
# ("w"), drops its own POSIX locks when told to ("x": any open()+close() of the
# database file in a process does that), and says what it saw.
HOLDER = """
import sys
from resume_auditor.store import writelock
from resume_auditor.store.resultfile import ResultFile
writelock.set_program("the test holder")
rf = ResultFile(sys.argv[1])
print("ready", flush=True)
for line in sys.stdin:
    try:
        if line.startswith("w"):
            rf.set_meta("n", line.strip())
            print("wrote", flush=True)
        elif line.startswith("x"):
            open(sys.argv[1], "rb").close()
            print("dropped", flush=True)
    except Exception as exc:
        print("error", type(exc).__name__, exc, flush=True)
"""


@pytest.fixture
def audit(tmp_path: Path) -> Path:
    path = tmp_path / "a.audit"
    new_audit(path, MODEL)
    return path


@pytest.fixture
def holder(audit: Path) -> Iterator[subprocess.Popen[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(audit)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    with child:  # closes its pipes
        yield child
        if child.poll() is None:
            child.kill()
        child.wait(10)


def _say(child: subprocess.Popen[str], line: str) -> str:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(line + "\n")
    child.stdin.flush()
    return child.stdout.readline().strip()


def test_a_second_writer_is_refused_and_told_who_writes(
    audit: Path, holder: subprocess.Popen[str]
) -> None:
    with pytest.raises(AuditInUse) as caught:
        ResultFile(audit)
    message = str(caught.value)
    assert "the test holder" in message and f"process {holder.pid}" in message
    assert "Read-only commands" in message and "Traceback" not in message
    assert caught.value.holder["pid"] == holder.pid


def test_the_cli_says_who_holds_the_file(
    audit: Path, holder: subprocess.Popen[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(audit)]) == 2
    err = capsys.readouterr().err
    assert "is being written by the test holder" in err and "Traceback" not in err


def test_a_killed_writer_lets_the_next_one_in(audit: Path, holder: subprocess.Popen[str]) -> None:
    holder.send_signal(signal.SIGKILL)
    holder.wait(10)
    with ResultFile(audit) as rf:  # the OS released the lock with the process
        rf.set_meta("after", "kill")
    assert not writelock.lock_path(audit).exists()  # and the next holder tidied its file


def test_readers_work_beside_a_writer_and_leave_its_log_alone(
    audit: Path, holder: subprocess.Popen[str]
) -> None:
    assert _say(holder, "w1") == "wrote"
    wal = Path(str(audit) + "-wal")
    shm = Path(str(audit) + "-shm")
    assert wal.exists() and shm.exists()
    # The app lost its POSIX locks on the database (what happened in the field); a
    # read-write CLI command closing last would then checkpoint and delete the log.
    assert _say(holder, "x") == "dropped"
    for argv in (["cases", str(audit)], ["variants", "list", str(audit)]):
        subprocess.run(
            [sys.executable, "-m", "resume_auditor", *argv],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            timeout=120,
            check=False,
        )
    with ResultFile(audit, readonly=True) as rf:
        assert rf.meta("n") == "w1"
    assert wal.exists() and shm.exists()
    assert _say(holder, "w2") == "wrote"  # the app goes on writing
    holder.kill()
    holder.wait(10)
    with ResultFile(audit) as rf:
        assert rf.meta("n") == "w2"
        assert rf._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"  # noqa: SLF001


def test_a_reader_sees_one_moment(audit: Path, holder: subprocess.Popen[str]) -> None:
    assert _say(holder, "w1") == "wrote"
    with ResultFile(audit, readonly=True) as rf:
        assert rf.meta("n") == "w1"
        assert _say(holder, "w2") == "wrote"
        assert rf.meta("n") == "w1"  # the same snapshot until it closes
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            rf.set_meta("n", "reader")
    with ResultFile(audit, readonly=True) as rf:
        assert rf.meta("n") == "w2"


def test_one_process_shares_its_claim(audit: Path) -> None:
    first = ResultFile(audit)
    second = ResultFile(audit)  # the app's UI thread and its runner: one claim
    assert writelock.holds(audit)
    first.close()
    assert writelock.holds(audit)
    second.close()
    assert not writelock.holds(audit) and not writelock.lock_path(audit).exists()


def test_a_stray_partial_is_removed_and_said(small_study: Path, tmp_path: Path) -> None:
    from resume_auditor.workflow.prepare import prepare
    from resume_auditor.workflow.studyfile import read_study

    out = tmp_path / "s.audit"
    partial = out.with_name(out.name + ".partial")
    partial.write_bytes(b"half a file from a killed run")
    Path(str(partial) + "-wal").write_bytes(b"x")
    prepared = prepare(read_study(small_study), out, generate=False)
    assert not partial.exists() and not Path(str(partial) + "-wal").exists()
    assert any("Removed s.audit.partial" in n and "starting again" in n for n in prepared.notes)
    assert out.exists()


def test_the_audit_command_says_it_removed_a_partial(
    small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s.audit"
    out.with_name("s.audit.partial").write_bytes(b"")
    code = main(["audit", str(small_study), "--out", str(out), "--prepare-only"])
    assert code == 0
    assert "Removed s.audit.partial" in capsys.readouterr().err


def test_a_new_file_never_replaces_one(audit: Path, tmp_path: Path) -> None:
    from resume_auditor.workflow.prepare import fork_audit

    with pytest.raises(StudyError, match="already exists"):
        fork_audit(audit, audit)
    other = tmp_path / "b.audit"
    fork_audit(audit, other)
    with ResultFile(other, readonly=True) as rf:
        assert rf.study()["name"] == "runner test"


def test_save_a_copy_refuses_its_own_file(audit: Path) -> None:
    with ResultFile(audit) as rf, pytest.raises(ResultFileError, match="own file"):
        rf.copy_to(audit)


def test_backup_and_restore_of_a_damaged_file(audit: Path) -> None:
    with pytest.raises(ResultFileError, match="Only the program writing"):
        make_backup(audit)
    with ResultFile(audit) as rf:
        rf.set_meta("answers", "42")
        assert make_backup(audit) == backup_path(audit)
    # Damage it the way it was seen: the first page overwritten.
    data = bytearray(audit.read_bytes())
    data[:100] = b"\0" * 100
    audit.write_bytes(bytes(data))
    with pytest.raises(AuditDamaged) as caught:
        ResultFile(audit, readonly=True)
    assert caught.value.backup == str(backup_path(audit))
    assert "resume-auditor restore" in str(caught.value)
    aside = restore_backup(audit)
    assert aside.exists() and aside.read_bytes()[:16] != b"SQLite format 3\0"
    with ResultFile(audit) as rf:
        assert rf.meta("answers") == "42"


def test_a_damaged_file_never_replaces_the_backup(audit: Path) -> None:
    with ResultFile(audit) as rf:
        rf.set_meta("answers", "1")
        make_backup(audit)
    good = backup_path(audit).read_bytes()
    with writelock.hold(audit):
        pages = audit.stat().st_size // 4096
        with open(audit, "r+b") as fh:  # damage the tables' pages, keep the file header
            for page in range(1, pages):
                fh.seek(page * 4096)
                fh.write(b"\x0d\xff\xff\xff\xff\xff\xff\xff")
        assert make_backup(audit) is None
    assert backup_path(audit).read_bytes() == good


def test_restore_from_the_cli(audit: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["restore", str(audit)]) == 2
    assert "There is no backup" in capsys.readouterr().err
    with ResultFile(audit) as rf:
        make_backup(rf.path)
    audit.write_bytes(b"not a database any more" * 100)
    assert main(["metrics", str(audit)]) == 2
    assert "resume-auditor restore" in capsys.readouterr().err
    assert main(["restore", str(audit)]) == 0
    assert "Restored" in capsys.readouterr().err
    with ResultFile(audit, readonly=True) as rf:
        assert rf.study()["name"] == "runner test"


def test_a_busy_response_cache_is_not_moved_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from resume_auditor.store.cache import ResponseCache

    path = tmp_path / "cache.sqlite"
    ResponseCache(path).close()

    def locked(self: ResponseCache) -> sqlite3.Connection:
        raise sqlite3.OperationalError("database is locked")  # another program is writing it

    monkeypatch.setattr(ResponseCache, "_connect", locked)
    with pytest.raises(sqlite3.OperationalError):
        ResponseCache(path)
    assert path.exists() and not list(tmp_path.glob("cache.sqlite.broken-*"))


def test_a_run_backs_the_audit_up_before_it_sends(tmp_path: Path) -> None:
    from devtools.simulator import Simulator
    from runner_fixtures import kind_policy, queue, spec

    from resume_auditor.workflow.execute import make_runner

    out = tmp_path / "r.audit"
    with Simulator(policy=kind_policy) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        run_id, ids = new_audit(out, model)
        queue(out, run_id, [spec(model, "d3-yes-no", [ids[0]])])
        assert not backup_path(out).exists()
        make_runner(out, run_id, concurrency=1, use_cache=False).run()
    with ResultFile(backup_path(out), readonly=True) as copy:
        assert copy.progress(run_id).total == 1  # the inputs, as they were before sending
        assert copy.progress(run_id).done == 0


def test_a_new_audit_gets_its_folder_and_a_missing_one_is_named(
    small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new" / "deeper" / "s.audit"
    assert main(["audit", str(small_study), "--out", str(out), "--prepare-only"]) == 0
    assert out.exists() and not writelock.lock_path(out).exists()
    assert main(["run", str(tmp_path / "nowhere" / "x.audit")]) == 2
    assert "There is no folder" in capsys.readouterr().err


def test_a_backup_is_made_again_only_after_a_write(audit: Path) -> None:
    with ResultFile(audit) as rf:
        make_backup(audit)
        first = backup_path(audit).stat().st_mtime_ns
        assert make_backup(audit) == backup_path(audit)
        assert backup_path(audit).stat().st_mtime_ns == first  # nothing new: not copied
        rf.set_meta("answers", "7")
        make_backup(audit)
    with ResultFile(backup_path(audit), readonly=True) as copy:
        assert copy.meta("answers") == "7"


def test_a_reader_brings_an_older_file_up_to_date_only_when_nobody_writes_it(
    audit: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from resume_auditor.store import schema

    newer = [*schema.MIGRATIONS, "CREATE TABLE later_table (x INTEGER)"]
    monkeypatch.setattr(schema, "MIGRATIONS", newer)
    monkeypatch.setattr(schema, "SCHEMA_VERSION", len(newer))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(audit)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    ) as child:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        with pytest.raises(ResultFileError, match="needs updating"):
            ResultFile(audit, readonly=True)
        child.kill()
        child.wait(10)
    with ResultFile(audit, readonly=True) as rf:  # nobody writes it now: updated, then read
        assert rf._db.execute("PRAGMA user_version").fetchone()[0] == len(newer)  # noqa: SLF001
        assert rf.study()["name"] == "runner test"


def test_reading_an_audit_nobody_writes_leaves_no_wal_or_shm(audit: Path) -> None:
    """metrics, report and cases open read-only; SQLite creates -wal/-shm for any reader
    of a WAL file and only a read-write close deletes them: the reader tidies them."""
    wal, shm = Path(f"{audit}-wal"), Path(f"{audit}-shm")
    assert not wal.exists() and not shm.exists()
    with ResultFile(audit, readonly=True) as rf:
        assert rf.meta("file")
        assert wal.exists() or shm.exists()  # what SQLite makes for a reader
    assert not wal.exists() and not shm.exists()
    for argv in (["cases", str(audit)], ["metrics", str(audit)]):
        main(argv)
        assert not wal.exists() and not shm.exists(), argv
    assert not writelock.holds(audit) and writelock.holder(audit) is None


def test_a_reader_leaves_a_live_writers_log_and_a_crashed_writers_log_alone(
    audit: Path, holder: subprocess.Popen[str]
) -> None:
    wal, shm = Path(f"{audit}-wal"), Path(f"{audit}-shm")
    assert _say(holder, "w1") == "wrote"
    with ResultFile(audit, readonly=True) as rf:
        assert rf.meta("n") == "w1"
    assert wal.exists() and shm.exists()  # the writer's, in use
    holder.kill()  # an abrupt end: its log holds the last write
    holder.wait(10)
    size = wal.stat().st_size
    with ResultFile(audit, readonly=True) as rf:
        assert rf.meta("n") == "w1"
    assert wal.exists() and wal.stat().st_size == size  # not the reader's to fold in
