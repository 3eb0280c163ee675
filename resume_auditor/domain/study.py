"""The study: everything that defines one audit, as read from a study file.

A study file is TOML (see docs/study-format.md). This module turns its parsed
contents into typed settings and says plainly what is wrong with a bad one; it
does not read files itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from resume_auditor.domain.groups import D1_GROUPS, Group

FORMAT_VERSION = 1
# Provider ids (providers/registry.py describes each; a test keeps the two in step).
PROVIDERS = (
    "local",
    "openai",
    "anthropic",
    "gemini",
    "openrouter",
    "azure",
    "openai-compatible",
)
# Providers that have no fixed address: the study must give one.
NEEDS_BASE_URL = ("openai-compatible", "azure")
ORDERS = ("both", "ab")


class StudyError(ValueError):
    """A study file that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class ModelSpec:
    """The model under test."""

    provider: str = "local"
    base_url: str = ""
    model: str = "smollm2-135m-instruct"
    temperature: float = 0.0
    max_tokens: int = 160
    seed: int | None = 1

    def describe(self) -> str:
        where = self.base_url or "bundled"
        return f"{self.provider}:{self.model} ({where})"


@dataclass(frozen=True)
class JobSpec:
    file: str = ""
    text: str = ""
    title: str = ""
    required: tuple[str, ...] = ()
    preferred: tuple[str, ...] = ()


@dataclass(frozen=True)
class D1Spec:
    groups: tuple[Group, ...] = D1_GROUPS
    equal_pairs: bool = True
    unequal_pairs: bool = True
    k: tuple[int, ...] = (1,)


@dataclass(frozen=True)
class RunSpec:
    prompt: str = "d1-baseline"
    orders: str = "both"
    repeats: int = 1
    concurrency: int = 2
    timeout_s: float = 120.0


@dataclass(frozen=True)
class StudyConfig:
    name: str
    seed: int
    job: JobSpec
    resumes: tuple[str, ...]
    model: ModelSpec = field(default_factory=ModelSpec)
    run: RunSpec = field(default_factory=RunSpec)
    d1: D1Spec | None = field(default_factory=D1Spec)

    def with_model(
        self, provider: str | None = None, base_url: str | None = None, model: str | None = None
    ) -> StudyConfig:
        """The same study pointed at another model (the CLI's --provider/--base-url/--model)."""
        spec = self.model
        if provider is not None:
            _check_provider(provider)
            spec = replace(spec, provider=provider)
        if base_url is not None:
            spec = replace(spec, base_url=base_url)
        if model is not None:
            spec = replace(spec, model=model)
        if spec.provider in NEEDS_BASE_URL and not spec.base_url:
            raise StudyError(f"provider {spec.provider!r} needs a base URL (--base-url)")
        return replace(self, model=spec)


def _check_provider(provider: str) -> None:
    if provider not in PROVIDERS:
        raise StudyError(f"unknown provider {provider!r}; use one of: {', '.join(PROVIDERS)}")


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise StudyError(f"[{key}] should be a table")
    return value


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise StudyError(f"{where} should be a list of strings")
    return tuple(value)


def _int(value: Any, where: str, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise StudyError(f"{where} should be a whole number")
    if minimum is not None and value < minimum:
        raise StudyError(f"{where} should be at least {minimum}")
    return value


def _float(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StudyError(f"{where} should be a number")
    return float(value)


def study_from_dict(data: dict[str, Any], *, require_sources: bool = True) -> StudyConfig:
    """Validate a parsed study file. Raises StudyError with a plain message.

    `require_sources=False` reads the settings an audit file keeps, whose job and
    resumes live in the file itself rather than in paths.
    """
    fmt = data.get("format", FORMAT_VERSION)
    if fmt != FORMAT_VERSION:
        raise StudyError(f"this study file has format {fmt!r}; this app reads {FORMAT_VERSION}")
    study = _table(data, "study")
    name = str(study.get("name", "Untitled audit"))
    seed = _int(study.get("seed", 0), "study.seed")

    job = _table(data, "job")
    job_spec = JobSpec(
        file=str(job.get("file", "")),
        text=str(job.get("text", "")),
        title=str(job.get("title", "")),
        required=_strings(job.get("required"), "job.required"),
        preferred=_strings(job.get("preferred"), "job.preferred"),
    )
    if require_sources and not job_spec.file and not job_spec.text.strip():
        raise StudyError("the study has no job description: set job.file or job.text")

    resumes = _strings(_table(data, "resumes").get("files"), "resumes.files")
    if require_sources and not resumes:
        raise StudyError("the study lists no resumes: set resumes.files")

    model = _table(data, "model")
    defaults = ModelSpec()
    provider = str(model.get("provider", defaults.provider))
    _check_provider(provider)
    raw_seed = model.get("seed", defaults.seed)
    model_spec = ModelSpec(
        provider=provider,
        base_url=str(model.get("base_url", "")),
        model=str(model.get("model", defaults.model)),
        temperature=_float(model.get("temperature", defaults.temperature), "model.temperature"),
        max_tokens=_int(model.get("max_tokens", defaults.max_tokens), "model.max_tokens", 1),
        seed=None if raw_seed is None else _int(raw_seed, "model.seed"),
    )
    if provider in NEEDS_BASE_URL and not model_spec.base_url:
        raise StudyError(f"provider {provider!r} needs model.base_url")

    run = _table(data, "run")
    run_defaults = RunSpec()
    orders = str(run.get("orders", run_defaults.orders))
    if orders not in ORDERS:
        raise StudyError(f"run.orders should be one of {ORDERS}")
    run_spec = RunSpec(
        prompt=str(run.get("prompt", run_defaults.prompt)),
        orders=orders,
        repeats=_int(run.get("repeats", run_defaults.repeats), "run.repeats", 1),
        concurrency=_int(run.get("concurrency", run_defaults.concurrency), "run.concurrency", 1),
        timeout_s=_float(run.get("timeout_s", run_defaults.timeout_s), "run.timeout_s"),
    )

    designs = _table(data, "designs")
    d1_spec: D1Spec | None = None
    if "d1" in designs or not designs:
        d1 = designs.get("d1", {})
        if not isinstance(d1, dict):
            raise StudyError("[designs.d1] should be a table")
        try:
            groups = tuple(Group.parse(g) for g in _strings(d1.get("groups"), "designs.d1.groups"))
        except ValueError as exc:
            raise StudyError(f"designs.d1.groups: {exc}") from exc
        ks = d1.get("k", [1])
        k_values = tuple(_int(k, "designs.d1.k", 1) for k in (ks if isinstance(ks, list) else [ks]))
        d1_spec = D1Spec(
            groups=groups or D1_GROUPS,
            equal_pairs=bool(d1.get("equal_pairs", True)),
            unequal_pairs=bool(d1.get("unequal_pairs", True)),
            k=k_values,
        )
        if len(d1_spec.groups) < 2 and d1_spec.equal_pairs:
            raise StudyError("designs.d1.groups needs at least two groups for equal pairs")

    return StudyConfig(
        name=name,
        seed=seed,
        job=job_spec,
        resumes=resumes,
        model=model_spec,
        run=run_spec,
        d1=d1_spec,
    )


def study_to_dict(config: StudyConfig) -> dict[str, Any]:
    """The study as a study file's tables, so that `study_from_dict` reads it back unchanged.

    The result file stores this (as JSON) as the audit's settings; the GUI edits it.
    """
    job: dict[str, Any] = {"title": config.job.title}
    if config.job.file:
        job["file"] = config.job.file
    if config.job.text:
        job["text"] = config.job.text
    if config.job.required:
        job["required"] = list(config.job.required)
    if config.job.preferred:
        job["preferred"] = list(config.job.preferred)
    model: dict[str, Any] = {
        "provider": config.model.provider,
        "base_url": config.model.base_url,
        "model": config.model.model,
        "temperature": config.model.temperature,
        "max_tokens": config.model.max_tokens,
    }
    if config.model.seed is not None:
        model["seed"] = config.model.seed
    out: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "study": {"name": config.name, "seed": config.seed},
        "job": job,
        "resumes": {"files": list(config.resumes)},
        "model": model,
        "run": {
            "prompt": config.run.prompt,
            "orders": config.run.orders,
            "repeats": config.run.repeats,
            "concurrency": config.run.concurrency,
            "timeout_s": config.run.timeout_s,
        },
        "designs": {},
    }
    if config.d1 is not None:
        out["designs"]["d1"] = {
            "groups": [g.key for g in config.d1.groups],
            "equal_pairs": config.d1.equal_pairs,
            "unequal_pairs": config.d1.unequal_pairs,
            "k": list(config.d1.k),
        }
    return out
