"""Build the frozen one-folder app and smoke-test it (packaging/smoke_test.py).

Slow (a couple of minutes): it is the packaging issue's proof that the frozen app
starts, opens the sample study, runs an audit, reports, and serves the bundled
model from inside the bundle.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("PyInstaller") is None, reason="PyInstaller is not installed"
    ),
]


def test_frozen_app_builds_and_passes_its_smoke_test(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=ROOT,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    app = tmp_path / "dist" / "resume-auditor"
    smoke = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "smoke_test.py"), str(app)],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=ROOT,
    )
    assert smoke.returncode == 0, smoke.stdout[-3000:] + smoke.stderr[-3000:]
    assert "smoke test passed" in smoke.stdout
