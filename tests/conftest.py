"""Shared fixtures. Qt runs offscreen; every test gets its own data folder; a test
that leaves a runner thread or the simulator running fails."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MPLBACKEND", "Agg")

WATCHED_THREADS = ("audit-runner", "provider-simulator")
ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "resources" / "sample"


@pytest.fixture(autouse=True)
def _isolated_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESUME_AUDITOR_DATA_DIR", str(tmp_path_factory.mktemp("data")))
    for var in ("RESUME_AUDITOR_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _no_leaked_threads() -> Iterator[None]:
    before = {t.ident for t in threading.enumerate()}
    yield
    leaked = [
        t
        for t in threading.enumerate()
        if t.ident not in before
        and t.is_alive()
        and t.name in ("audit-runner", "provider-simulator")
    ]
    for t in leaked:
        t.join(timeout=5)
    still = [t.name for t in leaked if t.is_alive()]
    assert not still, f"test left threads running: {still}"


@pytest.fixture
def window(qtbot: Any) -> Iterator[Any]:
    """The app's main window, shown offscreen; its runs and background work end with the test."""
    from resume_auditor.ui.main_window import MainWindow
    from resume_auditor.ui.tasks import wait_for_background

    win = MainWindow()
    qtbot.addWidget(win)
    win.show()
    yield win
    win.controller.shutdown()
    wait_for_background()
    win.session.close_audit()  # back up and let go now, so closing the window is immediate


@pytest.fixture
def simulator() -> Iterator[object]:
    from devtools.simulator import Simulator

    with Simulator() as sim:
        yield sim


@pytest.fixture
def small_study(tmp_path: Path) -> Path:
    """A one-resume, two-group study: 3 equal + 2 unequal pairs, 10 requests.

    Its unequal pairs are the lexical (c, c-) ones only (`summary_block = "never"`), so
    the app's flows are checked on one small fixed set; tests/test_variants_summary_block.py
    and test_identity_and_variants.py cover the qualifications block's pairs.
    """
    (tmp_path / "resumes").mkdir()
    for name in ("job.md",):
        (tmp_path / name).write_text((SAMPLE / name).read_text())
    pdf = SAMPLE / "resumes" / "01-jordan-ellery.pdf"
    (tmp_path / "resumes" / pdf.name).write_bytes(pdf.read_bytes())
    study = tmp_path / "study.toml"
    study.write_text(
        """
format = 1
[study]
name = "Small test study"
seed = 7
[job]
file = "job.md"
[resumes]
files = ["resumes/*.pdf"]
[model]
provider = "local"
max_tokens = 160
[run]
prompt = "d1-baseline"
orders = "both"
concurrency = 2
[designs.d1]
groups = ["black_woman", "white_man"]
k = [1]
summary_block = "never"
"""
    )
    return study


# -- audits with answers, built once per session -----------------------------------
# Running the sample study against the simulator takes seconds; the report and
# Results tests only read what it wrote. So each is built once, and a test reads an
# in-memory copy (`ResultFile.in_memory`, milliseconds, no file, no lock) or, when it
# is about files (a CLI command, the window opening a path, a bundle), its own file
# copy. Nothing may change the built file: a digest at the end checks it.


def _built_once(folder: Path, make: Any) -> Iterator[Path]:
    import hashlib

    path: Path = make(folder)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    yield path
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before, (
        f"a test changed the shared audit {path}: copy it instead"
    )


@pytest.fixture(scope="session")
def sample_audit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The sample study answered by the report tests' biased screener
    (report_fixtures.biased_policy), one run per model: sim-model, then sim-other."""
    from report_fixtures import make_audit

    yield from _built_once(
        tmp_path_factory.mktemp("sample-audit"),
        lambda folder: make_audit(folder, models=("sim-model", "sim-other")),
    )


@pytest.fixture(scope="session")
def all_designs_audit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The sample study with every design answered (results_fixtures)."""
    from results_fixtures import make_all_designs_audit

    yield from _built_once(tmp_path_factory.mktemp("all-designs-audit"), make_all_designs_audit)


@pytest.fixture
def sample_memory(sample_audit: Path) -> Iterator[Any]:
    """An in-memory copy of `sample_audit` for one test: it may write, nothing is kept."""
    from resume_auditor.store.resultfile import ResultFile

    with ResultFile.in_memory(sample_audit) as mem:
        yield mem


@pytest.fixture
def all_designs_memory(all_designs_audit: Path) -> Iterator[Any]:
    """An in-memory copy of `all_designs_audit` for one test."""
    from resume_auditor.store.resultfile import ResultFile

    with ResultFile.in_memory(all_designs_audit) as mem:
        yield mem
