"""What a model accepts, known ahead (model families) or learnt once (and remembered).

Four optional settings may be refused by a model: a temperature, a seed, token
log-probabilities and structured (JSON-schema) output. Reasoning models refuse
the first three; some models give no log-probabilities; local servers differ.
A provider sends what it believes the model accepts; when the server names one
of them as unsupported it drops it, tries again at once, says so on the answer,
and remembers the finding here — in memory and in a small JSON file in the data
folder, kept by settings/capabilities.py — so later requests and later sessions
do not pay for the lesson again.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from resume_auditor.settings.capabilities import (
    CAPABILITIES_FILE,
    Finding,
    Findings,
    capabilities_file,
    merge_findings,
)

logger = logging.getLogger(__name__)

TEMPERATURE, SEED, LOGPROBS, STRUCTURED = "temperature", "seed", "logprobs", "structured_output"
FEATURES = (TEMPERATURE, SEED, LOGPROBS, STRUCTURED)

# How a feature shows up in the wire formats' parameter names (lower case).
WIRE_NAMES = {
    TEMPERATURE: ("temperature",),
    SEED: ("seed",),
    LOGPROBS: ("logprobs", "top_logprobs", "responselogprobs", "response_logprobs"),
    STRUCTURED: (
        "response_format",
        "json_schema",
        "output_config",
        "output_format",
        "responseschema",
        "response_schema",
        "responsejsonschema",
        "responsemimetype",
        "response_mime_type",
    ),
}
_REFUSAL_WORDS = (
    "unsupported",
    "not supported",
    "does not support",
    "doesn't support",
    "not enabled",
    "not available",
    "not allowed",
    "only the default",
    "is deprecated",
    "not permitted",
    "cannot be used",
    "unrecognized",
    "unknown field",
    "unknown name",
    "extra inputs are not permitted",
)

# Reasoning models think before answering: their token limit must also cover the
# hidden reasoning, or the visible answer comes back empty.
REASONING_HEADROOM_TOKENS = 8192

CACHE_FILE = CAPABILITIES_FILE
CACHE_TTL = timedelta(days=14)  # models change behind a fixed id; look again now and then


class Support(StrEnum):
    """Whether a provider (or one model) takes a setting."""

    YES = "yes"
    NO = "no"
    SOME = "some models"  # depends on the model: probed on first use


@dataclass(frozen=True)
class Capabilities:
    """Flags the UI shows next to a provider or model."""

    temperature: Support
    seed: Support
    logprobs: Support
    structured_output: Support
    lists_models: bool = True

    def as_dict(self) -> dict[str, str | bool]:
        return {
            TEMPERATURE: self.temperature.value,
            SEED: self.seed.value,
            LOGPROBS: self.logprobs.value,
            STRUCTURED: self.structured_output.value,
            "lists_models": self.lists_models,
        }


@dataclass(frozen=True)
class ModelTraits:
    """What is known ahead about a model from its id."""

    reasoning: bool = False  # thinks before answering (hidden reasoning tokens)
    refuses: frozenset[str] = frozenset()  # features it is known to refuse


_OPENAI_REASONING = re.compile(r"^(o\d+)(-|$)|^gpt-5(?!.*chat)")
_GEMINI_THINKING = re.compile(r"^gemini-(2\.5|[3-9])")


def bare_model(model: str) -> str:
    """'openai/o3-mini' -> 'o3-mini'; 'models/gemini-2.5-flash' -> 'gemini-2.5-flash'."""
    return model.rsplit("/", 1)[-1].lower()


def model_traits(wire: str, model: str) -> ModelTraits:
    """Known traits by model family. Unknown models learn theirs on first use."""
    name = bare_model(model)
    if wire == "openai" and _OPENAI_REASONING.search(name):
        return ModelTraits(True, frozenset({TEMPERATURE, LOGPROBS}))
    if wire == "gemini" and _GEMINI_THINKING.search(name):
        return ModelTraits(True, frozenset())
    if wire == "anthropic":
        return ModelTraits(False, frozenset({LOGPROBS, SEED}))
    return ModelTraits()


def rejected_feature(message: str, param: str, sent: set[str]) -> str | None:
    """Which of the features we sent a 400 answer says the model refuses, if any."""
    param = param.lower()
    for feature in sent:
        if param and any(param == w or param.startswith(w + ".") for w in WIRE_NAMES[feature]):
            return feature
    low = message.lower()
    if not any(w in low for w in _REFUSAL_WORDS):
        return None
    squashed = low.replace("_", "").replace(" ", "")
    for feature in sorted(sent, key=FEATURES.index):
        for name in WIRE_NAMES[feature]:
            if re.search(rf"\b{re.escape(name)}\b", low) or name.replace("_", "") in squashed:
                return feature
    return None


def model_key(provider: str, base_url: str, model: str) -> str:
    """A cache key without credentials or query strings that a base URL may carry."""
    try:
        parts = urlsplit(base_url)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        clean = urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))
    except ValueError:
        clean = ""
    return f"{provider}|{clean}|{model}"


class CapabilityCache:
    """Per-model findings, in memory and (if `path`) in a settings file. Thread-safe.

    The file is kept by settings/capabilities.py (the one writer of the settings
    files): a write merges this process's findings into what another program (the
    app and a CLI command at once) wrote meanwhile, and then knows those too.
    """

    def __init__(self, path: Path | None = None, *, now: Any = None) -> None:
        self.path = path
        self._now = now or (lambda: datetime.now(UTC))
        self._lock = threading.Lock()
        self._file = None if path is None else capabilities_file(path)
        self._data: Findings = {} if self._file is None else self._file.read()

    def get(self, key: str, feature: str) -> bool | None:
        """True/False if known and fresh; None if never checked (or checked too long ago)."""
        with self._lock:
            entry = self._data.get(key, {}).get(feature)
        if entry is None:
            return None
        try:
            if self._now() - entry.checked > CACHE_TTL:
                return None
        except TypeError:  # a hand-edited time without its zone
            return None
        return entry.ok

    def set(self, key: str, feature: str, ok: bool) -> None:
        self.set_many([(key, feature, ok)])

    def set_many(self, findings: list[tuple[str, str, bool]]) -> None:
        """Record (key, feature, ok) findings; the file is written once, if anything changed."""
        new: Findings = {}
        with self._lock:
            now = self._now()
            for key, feature, ok in findings:
                current = self._data.get(key, {}).get(feature)
                if current is not None and current.ok is ok:
                    try:
                        if now - current.checked < CACHE_TTL / 2:
                            continue  # nothing new to write
                    except TypeError:
                        pass
                finding = Finding(ok, now.replace(microsecond=0))
                self._data.setdefault(key, {})[feature] = finding
                new.setdefault(key, {})[feature] = finding
            if not new or self._file is None:
                return
            merged = self._file.update(lambda on_disk: merge_findings(on_disk, new))
            if merged is not None:
                self._data = merge_findings(self._data, merged)  # and what others found


_shared: dict[Path, CapabilityCache] = {}
_shared_lock = threading.Lock()


def default_cache() -> CapabilityCache:
    """The process-wide cache for the current data folder."""
    path = capabilities_file().path
    with _shared_lock:
        cache = _shared.get(path)
        if cache is None:
            cache = _shared[path] = CapabilityCache(path)
        return cache
