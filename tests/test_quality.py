"""The code's own rules, checked like any test: layers, lint, types."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    exe = BIN / tool
    if not exe.exists():
        found = shutil.which(tool)
        if found is None:
            pytest.fail(f"{tool} is not installed: install the 'dev' extra")
        exe = Path(found)
    return subprocess.run([str(exe), *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_layers_hold() -> None:
    """Only ui imports Qt; each layer imports only the ones below it (pyproject.toml)."""
    proc = _run("lint-imports")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_lint_and_format() -> None:
    proc = _run("ruff", "check", "resume_auditor", "tests", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = _run("ruff", "format", "--check", "resume_auditor", "tests", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict_on_the_whole_package() -> None:
    """ui and app included: Qt stub gaps get a narrow ignore with its reason, not a blanket one."""
    proc = _run("mypy", "resume_auditor", "tests/devtools")
    assert proc.returncode == 0, proc.stdout + proc.stderr
