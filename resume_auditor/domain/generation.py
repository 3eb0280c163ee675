"""The `[generation]` settings: which generator models write qualification variants.

A generator model edits a resume (adds preferred qualifications, removes required
ones, rewords it, completes it to meet the job) so the designs get texts whose
qualifications are known by construction (Castleman et al. 2025, D1). Without a
`[generation]` table, or with no generator in it, nothing is generated and the
design builders use the deterministic path (name swaps, lexical c-).
docs/generator.md describes what happens; docs/study-format.md the keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from resume_auditor.domain.study import ModelSpec

# A resume rewritten whole needs room: the generator's answer limit unless the study says.
GENERATOR_MAX_TOKENS = 4096


@dataclass(frozen=True)
class GenerationSpec:
    """generators: the models that write texts; texts are spread across them round
        robin (from the study's seed) and each text records which model wrote it.
    k: how many qualifications a c+ adds / a c- removes (one text per k).
    reworded: equal reworded copies per resume.
    synthetic_base: also write one resume from the job's required qualifications alone.
    complete_base: add the required qualifications a real resume lacks, so the base
        meets them (D1 Appendix A); the completed text becomes that resume's base.
    max_attempts: tries per text; a text that fails every check after them is kept
        flagged (never passed off as verified) and not used unless the user accepts it.
    judge: also ask a model whether each text meets each qualification it should.
    judge_model: the model that judges (None: the generator that wrote the text).
    """

    generators: tuple[ModelSpec, ...] = ()
    k: tuple[int, ...] = (1, 2, 3)
    reworded: int = 2
    synthetic_base: bool = False
    complete_base: bool = True
    max_attempts: int = 3
    judge: bool = True
    judge_model: ModelSpec | None = None
    concurrency: int = 2
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def enabled(self) -> bool:
        return bool(self.generators)


def _model(data: Any, where: str) -> ModelSpec:
    from resume_auditor.domain.study import (
        NEEDS_BASE_URL,
        ModelSpec,
        StudyError,
        _check_provider,
        _float,
        _int,
    )

    if not isinstance(data, dict):
        raise StudyError(
            f'{where} should be a table such as {{provider = "openai", model = "..."}}'
        )
    provider = str(data.get("provider", ""))
    if not provider:
        raise StudyError(f'{where} needs a provider (for example "openai" or "local")')
    _check_provider(provider)
    model = str(data.get("model", "")).strip()
    if not model:
        raise StudyError(f"{where} needs a model id")
    base_url = str(data.get("base_url", ""))
    if provider in NEEDS_BASE_URL and not base_url:
        raise StudyError(f"{where}: provider {provider!r} needs base_url")
    raw_seed = data.get("seed", 1)
    return ModelSpec(
        provider=provider,
        base_url=base_url,
        model=model,
        temperature=_float(data.get("temperature", 0.0), f"{where}.temperature"),
        max_tokens=_int(data.get("max_tokens", GENERATOR_MAX_TOKENS), f"{where}.max_tokens", 64),
        seed=None if raw_seed is None else _int(raw_seed, f"{where}.seed"),
    )


def _model_to_dict(spec: ModelSpec) -> dict[str, Any]:
    out: dict[str, Any] = {
        "provider": spec.provider,
        "model": spec.model,
        "base_url": spec.base_url,
        "temperature": spec.temperature,
        "max_tokens": spec.max_tokens,
    }
    if spec.seed is not None:
        out["seed"] = spec.seed
    return out


def generation_from_dict(data: dict[str, Any]) -> GenerationSpec | None:
    """The `[generation]` table of a parsed study file (None when there is none)."""
    from resume_auditor.domain.study import StudyError, _int

    if "generation" not in data:
        return None
    table = data["generation"]
    if not isinstance(table, dict):
        raise StudyError("[generation] should be a table")
    raw = table.get("generators", [])
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        raise StudyError("generation.generators should be a list of {provider, model} tables")
    generators = tuple(_model(g, f"generation.generators[{i}]") for i, g in enumerate(raw))
    ks = table.get("k", [1, 2, 3])
    k_values = tuple(_int(k, "generation.k", 1) for k in (ks if isinstance(ks, list) else [ks]))
    if any(k > 10 for k in k_values):
        raise StudyError("generation.k should be between 1 and 10")
    judge_model = table.get("judge_model")
    defaults = GenerationSpec()
    spec = GenerationSpec(
        generators=generators,
        k=tuple(dict.fromkeys(k_values)),
        reworded=_int(table.get("reworded", defaults.reworded), "generation.reworded", 0),
        synthetic_base=bool(table.get("synthetic_base", defaults.synthetic_base)),
        complete_base=bool(table.get("complete_base", defaults.complete_base)),
        max_attempts=_int(
            table.get("max_attempts", defaults.max_attempts), "generation.max_attempts", 1
        ),
        judge=bool(table.get("judge", defaults.judge)),
        judge_model=None if judge_model is None else _model(judge_model, "generation.judge_model"),
        concurrency=_int(
            table.get("concurrency", defaults.concurrency), "generation.concurrency", 1
        ),
    )
    return spec


def generation_to_dict(spec: GenerationSpec | None) -> dict[str, Any]:
    """`{"generation": {...}}` for study_to_dict ({} when there are no settings)."""
    if spec is None:
        return {}
    table: dict[str, Any] = {
        "generators": [_model_to_dict(g) for g in spec.generators],
        "k": list(spec.k),
        "reworded": spec.reworded,
        "synthetic_base": spec.synthetic_base,
        "complete_base": spec.complete_base,
        "max_attempts": spec.max_attempts,
        "judge": spec.judge,
        "concurrency": spec.concurrency,
    }
    if spec.judge_model is not None:
        table["judge_model"] = _model_to_dict(spec.judge_model)
    return {"generation": table}
