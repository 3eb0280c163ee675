"""Read a study file (TOML) from disk, resolve its paths and take the secrets out of it.

The study file's text is kept in the audit file (and so in its bundle), which is
why nothing secret may stay in it: a key typed into a server address
(`https://user:KEY@host/v1?api-key=KEY`) is moved to the key store for this
session, and PDF passwords are masked in the text that is kept.
"""

from __future__ import annotations

import glob
import logging
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from resume_auditor.designs.registry import DESIGNS, enabled, schemas
from resume_auditor.documents.load import MAX_BYTES, MAX_PAGES
from resume_auditor.domain.study import (
    StudyConfig,
    StudyError,
    check_schema,
    path_credentials,
    study_from_dict,
    url_credentials,
)

logger = logging.getLogger(__name__)

MASK = "[redacted]"


@dataclass(frozen=True)
class UrlKey:
    """A key found in a server address: kept in memory, never written anywhere."""

    provider: str
    base_url: str  # the address without it
    where: str  # e.g. "model.base_url"
    key: str = field(repr=False)


@dataclass(frozen=True)
class StudyFile:
    path: Path
    text: str  # the study file's text with every secret masked: safe to store
    config: StudyConfig
    # Resume reading options (`[resumes]` password, passwords, max_pages, max_mb; the
    # command line's --password/--max-pages/--max-mb override them). Not part of the
    # audit's settings: passwords must never reach the audit file.
    password: str | None = field(default=None, repr=False)
    passwords: dict[str, str] = field(default_factory=dict, repr=False)
    max_pages: int = MAX_PAGES
    max_bytes: int = MAX_BYTES
    url_keys: tuple[UrlKey, ...] = ()
    notes: tuple[str, ...] = ()

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

    def password_for(self, path: Path) -> str | None:
        """The file's own password (by name or path from the study), else the common one."""
        for name, password in self.passwords.items():
            if name == path.name or (self.base_dir / name).resolve() == path:
                return password
        return self.password

    def unmatched_passwords(self, paths: list[Path]) -> list[str]:
        """Names in `resumes.passwords` that match none of `paths` (a typo, most likely)."""
        return [
            name
            for name in self.passwords
            if not any(name == p.name or (self.base_dir / name).resolve() == p for p in paths)
        ]

    def with_options(
        self,
        *,
        password: str | None = None,
        max_pages: int | None = None,
        max_mb: float | None = None,
    ) -> StudyFile:
        """The command line's --password, --max-pages and --max-mb over the study's."""
        out = self
        if password is not None:
            out = replace(out, password=password)
        if max_pages is not None:
            out = replace(out, max_pages=_max_pages(max_pages, "--max-pages"))
        if max_mb is not None:
            out = replace(out, max_bytes=_max_bytes(max_mb, "--max-mb"))
        return out


def _max_pages(value: int, where: str) -> int:
    if value < 1:
        raise StudyError(f"{where} should be at least 1")
    return value


def _max_bytes(value: float, where: str) -> int:
    if value <= 0:
        raise StudyError(f"{where} should be more than 0 (megabytes)")
    return int(value * 1024 * 1024)


def split_url_key(url: str, provider: str, where: str) -> tuple[str, UrlKey | None]:
    """(the address without credentials, the key it held or None).

    Refused when the address holds two different secrets (which one is the key?)
    or the provider takes no key.
    """
    clean, secrets = url_credentials(url)
    if path_credentials(url):
        raise StudyError(
            f"{where} holds what looks like a key in its path ({clean} with it taken out). "
            "A key in the path cannot be kept out of the audit file, its reports and "
            "messages, and the app sends keys in a header, not in the address. Use the "
            "server's address without it and store the key in Settings (or: resume-auditor "
            f"keys set {provider} --base-url {clean})."
        )
    if not secrets:
        return clean, None
    if len(set(secrets)) > 1:
        raise StudyError(
            f"{where} holds more than one credential (a user name or password and a key "
            f"parameter). Remove them from the address ({clean}) and store the key with: "
            f"resume-auditor keys set {provider} --base-url {clean}"
        )
    if provider == "local":
        raise StudyError(f"{where} holds a key, but the bundled local model takes none.")
    return clean, UrlKey(provider, clean, where, secrets[0])


def remember_url_keys(keys: tuple[UrlKey, ...] | list[UrlKey]) -> list[str]:
    """Put keys taken from addresses in the key store, for this session; notes for the user."""
    from resume_auditor.providers.keys import default_store

    store = default_store()
    notes = []
    for item in keys:
        store.remember(item.provider, item.key, item.base_url)
        status = store.status(item.provider, item.base_url)
        note = (
            f"{item.where} held a key: it was taken out of the address, is used for this "
            "session only and is not stored in the audit file, its reports or bundle."
        )
        if status.location.value == "environment":
            note += f" {status.env_var} is set too and is used first."
        notes.append(note)
    return notes


def _split_urls(data: dict[str, Any]) -> list[UrlKey]:
    """Take credentials out of every base_url of the parsed study (in place)."""
    found: list[UrlKey] = []

    def take(table: Any, where: str, default_provider: str) -> None:
        if not isinstance(table, dict) or not isinstance(table.get("base_url"), str):
            return
        provider = table.get("provider", default_provider)
        clean, key = split_url_key(table["base_url"], str(provider), where)
        table["base_url"] = clean
        if key is not None:
            found.append(key)

    take(data.get("model"), "model.base_url", "local")
    generation = data.get("generation")
    if isinstance(generation, dict):
        generators = generation.get("generators")
        items = generators if isinstance(generators, list) else [generators]
        for i, table in enumerate(items):
            at = f"generation.generators[{i}]" if isinstance(generators, list) else "generation"
            take(table, f"{at}.base_url", "")
        take(generation.get("judge_model"), "generation.judge_model.base_url", "")
    return found


def _mask(text: str, secrets: list[str]) -> str:
    """`text` with every secret replaced (quoted forms first, then anywhere)."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if not secret:
            continue
        for quote in ('"', "'"):
            text = text.replace(f"{quote}{secret}{quote}", f"{quote}{MASK}{quote}")
        if len(secret) >= 4:
            text = text.replace(secret, MASK)
    return text


def study_from_text(path: Path, text: str) -> StudyFile:
    """Validate a study file's text (see `read_study`)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"{path.name} is not valid TOML: {exc}") from exc
    # unknown keys first: a misspelt provider must not pass as "local"
    check_schema(data, schemas())
    original = dict(_urls(data))  # the addresses as typed, for masking the text
    url_keys = _split_urls(data)
    config = study_from_dict(data, extra_designs=schemas())
    for design, _spec in enabled(config):  # each registry design checks its own table
        design.spec(config)
        try:  # and what its settings form refuses (an empty list of sizes builds nothing)
            design.with_table(config, design.table(config))
        except StudyError as exc:
            raise StudyError(f"designs.{design.key}: {exc}") from exc
    config = kept_tables(config)
    resumes = data.get("resumes", {})
    password = resumes.get("password")
    passwords = dict(resumes.get("passwords", {}))
    max_pages = _max_pages(resumes.get("max_pages", MAX_PAGES), "resumes.max_pages")
    max_bytes = (
        _max_bytes(resumes["max_mb"], "resumes.max_mb") if "max_mb" in resumes else MAX_BYTES
    )
    stored = text
    for item in url_keys:
        typed = original.get(item.where, "")
        if typed:
            stored = stored.replace(typed, item.base_url)
    secrets = [k.key for k in url_keys] + [p for p in [password, *passwords.values()] if p]
    stored = _mask(stored, secrets)
    return StudyFile(
        path=path,
        text=stored,
        config=config,
        password=password,
        passwords=passwords,
        max_pages=max_pages,
        max_bytes=max_bytes,
        url_keys=tuple(url_keys),
    )


def kept_tables(config: StudyConfig) -> StudyConfig:
    """The study with its designs' tables as the audit file keeps them (`Design.kept_table`:
    D1 writes every setting, as it always did). A design on by default that the study
    leaves unnamed gets its table, so the audit file reads back the same designs."""
    units = {d.key: d for d in DESIGNS}
    tables: dict[str, Mapping[str, Any]] = {
        key: units[key].kept_table(table) if key in units else dict(table)
        for key, table in config.more.items()
    }
    for design in DESIGNS:
        found = design.table(config)
        if design.key not in tables and found is not None:
            tables[design.key] = design.kept_table(found)
    return replace(config, more=tables, designs_named=config.designs_named or bool(tables))


def _urls(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, address) for every base_url in the parsed study, named as _split_urls does."""
    out = []
    model = data.get("model")
    if isinstance(model, dict) and isinstance(model.get("base_url"), str):
        out.append(("model.base_url", model["base_url"]))
    generation = data.get("generation")
    if isinstance(generation, dict):
        generators = generation.get("generators")
        items = generators if isinstance(generators, list) else [generators]
        for i, table in enumerate(items):
            if isinstance(table, dict) and isinstance(table.get("base_url"), str):
                at = f"generation.generators[{i}]" if isinstance(generators, list) else "generation"
                out.append((f"{at}.base_url", table["base_url"]))
        judge = generation.get("judge_model")
        if isinstance(judge, dict) and isinstance(judge.get("base_url"), str):
            out.append(("generation.judge_model.base_url", judge["base_url"]))
    return out


def read_study(path: str | Path) -> StudyFile:
    """The study file at `path`, validated strictly (docs/study-format.md).

    Keys found in server addresses are put in the key store for this session (the
    returned notes say so); nothing secret is left in `StudyFile.text`.
    """
    path = Path(path).resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise StudyError(f"There is no study file at {path}.") from exc
    except IsADirectoryError as exc:
        raise StudyError(f"{path} is a folder; give the study file (TOML).") from exc
    except UnicodeDecodeError as exc:
        raise StudyError(f"{path.name} is not a UTF-8 text file.") from exc
    except OSError as exc:
        raise StudyError(f"{path} cannot be read ({exc.strerror}).") from exc
    study = study_from_text(path, text)
    notes = remember_url_keys(study.url_keys)
    return replace(study, notes=tuple(notes))


__all__ = [
    "StudyFile",
    "UrlKey",
    "read_study",
    "remember_url_keys",
    "split_url_key",
    "study_from_text",
]
