"""Every shipped data file reaches a non-editable install (pipx install .)."""

from __future__ import annotations

import glob
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_resource_file_is_installed_as_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = [p for ps in config["tool"]["setuptools"]["data-files"].values() for p in ps]
    covered = {Path(f).resolve() for p in patterns for f in glob.glob(str(ROOT / p))}
    shipped = {p.resolve() for p in (ROOT / "resources").rglob("*") if p.is_file()}
    missing = sorted(str(p.relative_to(ROOT)) for p in shipped - covered)
    assert not missing, f"add these to [tool.setuptools.data-files]: {missing}"


def test_installed_resources_are_found_under_the_prefix(tmp_path: Path, monkeypatch) -> None:
    import sys

    from resume_auditor import resources

    share = tmp_path / "share" / "resume-auditor" / "resources" / "names"
    share.mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.delenv("RESUME_AUDITOR_RESOURCES", raising=False)
    candidates = resources._candidates()  # noqa: SLF001
    assert tmp_path / "share" / "resume-auditor" / "resources" in candidates
