"""Per-user folders: where audits and settings live (RESUME_AUDITOR_DATA_DIR overrides)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def data_dir() -> Path:
    override = os.environ.get("RESUME_AUDITOR_DATA_DIR")
    path = Path(override) if override else Path(platformdirs.user_data_dir("resume-auditor"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def audits_dir() -> Path:
    path = data_dir() / "audits"
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_result_path(study_path: Path) -> Path:
    """Where the GUI keeps the result file of a study opened without one."""
    stem = study_path.stem if study_path.stem != "study" else study_path.parent.name
    return audits_dir() / f"{stem}.audit"
