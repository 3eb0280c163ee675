"""Read a study file (TOML) from disk and resolve its paths."""

from __future__ import annotations

import glob
import tomllib
from dataclasses import dataclass
from pathlib import Path

from resume_auditor.domain.study import StudyConfig, StudyError, study_from_dict


@dataclass(frozen=True)
class StudyFile:
    path: Path
    text: str
    config: StudyConfig

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def job_path(self) -> Path | None:
        if not self.config.job.file:
            return None
        return (self.base_dir / self.config.job.file).resolve()

    def resume_paths(self) -> list[Path]:
        """The resume files the study lists, globs expanded, in a stable order."""
        out: list[Path] = []
        for pattern in self.config.resumes:
            full = str(self.base_dir / pattern)
            matches = sorted(glob.glob(full)) if glob.has_magic(full) else [full]
            if not matches:
                raise StudyError(f"resumes.files: nothing matches {pattern!r}")
            for match in matches:
                path = Path(match).resolve()
                if path not in out:
                    out.append(path)
        return out


def read_study(path: str | Path) -> StudyFile:
    path = Path(path).resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise StudyError(f"There is no study file at {path}.") from exc
    except UnicodeDecodeError as exc:
        raise StudyError(f"{path.name} is not a UTF-8 text file.") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"{path.name} is not valid TOML: {exc}") from exc
    return StudyFile(path=path, text=text, config=study_from_dict(data))
