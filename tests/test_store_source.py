"""Where a worker reads an audit (store/source.py): its file, or its own copy of an
audit held in memory, never a connection another thread made."""

from __future__ import annotations

import threading
from pathlib import Path

from resume_auditor.store.resultfile import ResultFile
from resume_auditor.store.source import FileSource, MemorySource, Opener


def _read_on_a_worker(opener: Opener) -> tuple[int, str]:
    """What a worker thread sees through `opener`: the answered count, and its thread."""
    seen: list[tuple[int, str]] = []

    def work() -> None:
        with opener() as result:
            seen.append((result.answered_count(), threading.current_thread().name))

    worker = threading.Thread(target=work, name="worker")
    worker.start()
    worker.join()
    assert seen, "the worker failed to read"
    return seen[0]


def test_a_worker_reads_its_own_copy_as_it_was_when_asked(sample_memory: ResultFile) -> None:
    source = MemorySource(sample_memory)
    assert source.path == Path(":memory:")
    answered = sample_memory.answered_count()
    assert answered > 0
    before = source.opener()
    # a write on the owner's thread after the opener was made: the next opener has it
    sample_memory._db.execute(
        "DELETE FROM response WHERE rowid IN (SELECT rowid FROM response LIMIT 3)"
    )  # noqa: SLF001 - test set-up
    assert sample_memory.answered_count() < answered
    assert _read_on_a_worker(before) == (answered, "worker")
    assert _read_on_a_worker(source.opener())[0] == sample_memory.answered_count()


def test_a_copy_writes_only_to_itself(sample_memory: ResultFile) -> None:
    answered = sample_memory.answered_count()
    with ResultFile.from_snapshot(sample_memory.snapshot()) as copy:
        copy._db.execute("DELETE FROM response")  # noqa: SLF001 - test set-up
        assert copy.answered_count() == 0
    assert sample_memory.answered_count() == answered


def test_a_file_source_opens_the_file(sample_audit: Path) -> None:
    source = FileSource(sample_audit)
    with ResultFile(sample_audit, readonly=True) as result:
        answered = result.answered_count()
    assert _read_on_a_worker(source.opener(readonly=True)) == (answered, "worker")
