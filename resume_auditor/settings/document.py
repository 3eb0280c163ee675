"""A versioned JSON settings file: typed on read, migrated from older versions, one writer.

Each settings concern declares a `Format`: its file name, its current version, how
to turn the file's contents into its typed model (raising `Damaged` with what is
wrong), how to write the model back, and one migration per older version (version
0 is a file from before settings had a version: the formats the app wrote until
then). `JsonSettings` reads and writes one such file through `files.py`.

A file with a version newer than this app knows was written by a newer Resume
Auditor: it is read as the defaults and never written over, so going back to an
older version for a day loses nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from resume_auditor.settings.files import locked, set_aside, write_atomic

logger = logging.getLogger(__name__)

T = TypeVar("T")
Json = dict[str, Any]


class Damaged(ValueError):
    """A settings file's contents do not fit its format; the message says what is wrong."""


@dataclass(frozen=True)
class Format(Generic[T]):
    """How one settings file is laid out. `migrations[n]` turns version n into n + 1."""

    name: str
    version: int
    what: str  # in the user's words, for messages: "the rate limits providers reported"
    parse: Callable[[Json], T]
    dump: Callable[[T], Json]
    default: Callable[[], T]
    migrations: Mapping[int, Callable[[Json], Json]] = field(default_factory=dict)
    # Files of version 0 have no "version" key: their whole contents are the old format.
    legacy_has_no_version: bool = True


def require(condition: bool, problem: str) -> None:
    """Raise Damaged(problem) unless `condition` (for the parse functions)."""
    if not condition:
        raise Damaged(problem)


def number(value: Any, where: str) -> float:
    """A JSON number (not a boolean), or Damaged."""
    require(
        isinstance(value, int | float) and not isinstance(value, bool),
        f"{where} should be a number, not {value!r}",
    )
    return float(value)


def table(value: Any, where: str) -> dict[str, Any]:
    """A JSON object, or Damaged."""
    require(isinstance(value, dict), f"{where} should be an object")
    return {str(k): v for k, v in value.items()}


class _Newer(Exception):
    """The file was written by a newer app (its version is above ours)."""


class JsonSettings(Generic[T]):
    """The settings file at `path`, laid out as `fmt`."""

    def __init__(self, fmt: Format[T], path: Path) -> None:
        self.fmt = fmt
        self.path = path

    def _decode(self, text: str) -> T:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise Damaged(f"it is not JSON ({exc})") from exc
        require(isinstance(data, dict), "it is not a JSON object")
        version = data.get("version", 0 if self.fmt.legacy_has_no_version else None)
        if isinstance(version, bool) or not isinstance(version, int):
            raise Damaged(f"its version {version!r} is not a whole number")
        if version > self.fmt.version:
            raise _Newer(version)
        try:
            while version < self.fmt.version:
                step = self.fmt.migrations.get(version)
                require(step is not None, f"no way to read its version {version}")
                assert step is not None
                data = step(data)
                version += 1
            return self.fmt.parse(data)
        except Damaged:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise Damaged(f"unexpected contents ({exc!r})") from exc

    def _text(self) -> str | None:
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError:
            return "\0"  # not UTF-8 text: Damaged when decoded
        except OSError as exc:
            logger.warning("cannot read %s (%s); the defaults are used", self.path, exc)
            return None

    def _load(self) -> _Loaded[T]:
        text = self._text()
        if text is None:
            return _Loaded(self.fmt.default(), None)
        try:
            return _Loaded(self._decode(text), text)
        except _Newer as newer:
            logger.warning(
                "%s was written by a newer Resume Auditor (version %s; this one reads up to "
                "%d): it is left as it is and this session uses the defaults",
                self.path,
                newer.args[0],
                self.fmt.version,
            )
            return _Loaded(self.fmt.default(), text, newer=True)
        except Damaged as exc:
            return _Loaded(self.fmt.default(), text, problem=str(exc))

    def read(self) -> T:
        """The typed contents, migrated; the defaults when absent, newer or damaged
        (a damaged file is set aside and the user told: files.set_aside)."""
        loaded = self._load()
        if loaded.problem:
            try:
                with locked(self.path):
                    if self._text() == loaded.text:  # not rewritten by another program
                        set_aside(self.path, loaded.problem, self.fmt.what)
            except OSError as exc:
                logger.warning("could not set %s aside: %s", self.path, exc)
        return loaded.value

    def update(self, change: Callable[[T], T]) -> T | None:
        """Apply `change` to the current contents (re-read under the lock) and write.

        Returns the contents written, or None when nothing could be written (a
        read-only folder, a lock held too long, a file from a newer app): a setting
        not saved costs a re-measure later, never a run.
        """
        try:
            with locked(self.path):
                loaded = self._load()
                if loaded.newer:
                    return None
                if loaded.problem and set_aside(self.path, loaded.problem, self.fmt.what) is None:
                    return None  # left in place, so never written over
                new = change(loaded.value)
                body = {**self.fmt.dump(new), "version": self.fmt.version}
                write_atomic(self.path, json.dumps(body, indent=1, sort_keys=True) + "\n")
                return new
        except OSError as exc:
            logger.warning("could not save %s in %s: %s", self.fmt.what, self.path, exc)
            return None

    def write(self, value: T) -> T | None:
        """Replace the contents with `value` (under the lock; see update)."""
        return self.update(lambda _current: value)


@dataclass(frozen=True)
class _Loaded(Generic[T]):
    value: T
    text: str | None
    newer: bool = False
    problem: str = ""
