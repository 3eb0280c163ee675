"""Where the real development corpus lives: ``../shared/data`` beside the project.

It is never copied into the project. Tests that need it call :func:`corpus_dir`, which
skips the test cleanly when the folder is absent (CI has it). ``RESUME_AUDITOR_SHARED``
points elsewhere when the checkout is not beside ``shared/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    env = os.environ.get("RESUME_AUDITOR_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


def corpus_dir(name: str) -> Path:
    """``shared/data/<name>`` (``resumes-dev`` or ``jobs-dev``), or skip the test."""
    path = shared_dir() / "data" / name
    if not path.is_dir():
        pytest.skip(f"the development corpus {path} is not here")
    return path
