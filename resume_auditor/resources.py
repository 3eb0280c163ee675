"""Where the shipped data lives: name lists, prompt presets, the sample study.

The files sit in the project's top-level `resources/` folder. From a source
checkout or an editable install that is next to the package; a wheel installs
them under `<prefix>/share/resume-auditor/resources`; a frozen app carries them
in its bundle. `RESUME_AUDITOR_RESOURCES` overrides all of these.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path


class ResourcesMissing(RuntimeError):
    pass


def _candidates() -> list[Path]:
    out: list[Path] = []
    env = os.environ.get("RESUME_AUDITOR_RESOURCES")
    if env:
        out.append(Path(env))
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        out.append(Path(bundle) / "resources")
    out.append(Path(__file__).resolve().parent.parent / "resources")
    out.append(Path(sys.prefix) / "share" / "resume-auditor" / "resources")
    return out


@cache
def resources_dir() -> Path:
    for candidate in _candidates():
        if (candidate / "names").is_dir():
            return candidate
    tried = ", ".join(str(c) for c in _candidates())
    raise ResourcesMissing(
        f"The app's data folder is missing (looked in: {tried}). Reinstall the app."
    )


def resource(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def sample_study() -> Path:
    return resource("sample", "study.toml")


def quick_sample_study() -> Path:
    """The quick demo: the sample job with a handful of cases per design (a demonstration)."""
    return resource("sample", "quick.toml")


@cache
def _sample_resume_hashes() -> frozenset[str]:
    """The SHA-256 of each shipped sample resume (read once: asked at every audit load,
    on the UI thread)."""
    folder = resource("sample", "resumes")
    return frozenset(
        hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.glob("*") if p.is_file()
    )


def shipped_sample(study_name: str, resume_hashes: Iterable[str] | None = None) -> str | None:
    """'full' or 'quick' when an audit is one of the shipped samples: by its study name
    and, given its resumes' SHA-256 (`resume_hashes`), only if every one is a shipped
    sample resume. A user who starts from a copy of the sample study keeps its name;
    with their own resumes it is their audit, not the "four fictional resumes" sample."""
    if resume_hashes is not None and not set(resume_hashes) <= _sample_resume_hashes():
        return None
    import tomllib

    for kind, path in (("full", sample_study()), ("quick", quick_sample_study())):
        try:
            name = tomllib.loads(path.read_text(encoding="utf-8"))["study"]["name"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            continue
        if study_name == name:
            return kind
    return None
