"""The study: everything that defines one audit, as read from a study file.

A study file is TOML (see docs/study-format.md). This module turns its parsed
contents into typed settings and says plainly what is wrong with a bad one; it
does not read files itself.
"""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from resume_auditor.domain.generation import (
    GenerationSpec,
    generation_from_dict,
    generation_to_dict,
)

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


# Every key a study file may hold, table by table, with the kind of value it takes.
# A key not listed is a typo or another program's setting: ignoring it silently once
# ran an audit on the bundled model because `provder` was misspelt, so it is an error.
# Kinds: "str", "int", "number", "bool", "strs" (a string or a list of them), "ints",
# "str-table" (a table of strings under any names); a dict is a sub-table; a 1-tuple
# holding a dict is a table or a list of such tables.
_MODEL_KEYS: dict[str, Any] = {
    "provider": "str",
    "base_url": "str",
    "model": "str",
    "temperature": "number",
    "max_tokens": "int",
    "seed": "int",
}
SCHEMA: dict[str, Any] = {
    "format": "int",
    "study": {"name": "str", "seed": "int"},
    "job": {"file": "str", "text": "str", "title": "str", "required": "strs", "preferred": "strs"},
    "resumes": {
        "files": "strs",
        "password": "str",  # one password for every protected PDF
        "passwords": "str-table",  # per file: "name.pdf" = "password"
        "max_pages": "int",
        "max_mb": "number",
    },
    "model": _MODEL_KEYS,
    # further models asked the same test cases, one run each, compared side by side
    # (issue 28; `[model]` is the first, or the first of these when it is left out)
    "models": (_MODEL_KEYS,),
    "run": {
        "prompt": "str",
        "orders": "str",
        "repeats": "int",
        "concurrency": "int",
        "timeout_s": "number",
    },
    # every design's `[designs.<key>]` table: each design gives its own schema
    # (`resume_auditor.designs.registry.schemas()`, passed in as `extra_designs`)
    "designs": {},
    "variants": {"keep_real_contact": "bool", "keep_instructions": "bool"},
    "generation": {
        "generators": (_MODEL_KEYS,),
        "k": "ints",
        "reworded": "int",
        "synthetic_base": "bool",
        "complete_base": "bool",
        "max_attempts": "int",
        "judge": "bool",
        "judge_model": _MODEL_KEYS,
        "concurrency": "int",
    },
}
_KIND_TEXT = {
    "str": "a string in quotes",
    "int": "a whole number",
    "number": "a number",
    "bool": "true or false",
    "strs": "a string or a list of strings",
    "ints": "a whole number or a list of them",
    "str-table": 'a table of strings, such as {"resume.pdf" = "..."}',
}


def _where(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _elsewhere(key: str, schema: dict[str, Any], path: str = "") -> list[str]:
    """The places `key` is a valid name, for 'did you mean [model] provider?'."""
    out = []
    for name, kind in schema.items():
        if name == key:
            out.append(_where(path, name))
        sub = kind[0] if isinstance(kind, tuple) else kind
        if isinstance(sub, dict):
            out.extend(_elsewhere(key, sub, _where(path, name)))
    return out


def _is_kind(value: Any, kind: str) -> bool:
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return is_int(value)
    if kind == "number":
        return is_int(value) or isinstance(value, float)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "strs":
        return isinstance(value, str) or (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        )
    if kind == "ints":
        return is_int(value) or (isinstance(value, list) and all(is_int(v) for v in value))
    if kind == "str-table":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    raise AssertionError(f"unknown kind {kind}")


def schema_problems(
    data: dict[str, Any],
    schema: dict[str, Any] = SCHEMA,
    path: str = "",
    whole: dict[str, Any] | None = None,
) -> list[str]:
    """Every unknown key and every value of the wrong kind, each as one plain sentence.

    `whole`: the study file's whole schema (default: SCHEMA), searched for the table a
    misplaced key belongs in."""
    whole = SCHEMA if whole is None else whole
    out: list[str] = []
    for key, value in data.items():
        where = _where(path, key)
        if key not in schema:
            close = difflib.get_close_matches(key, list(schema), n=1, cutoff=0.6)
            other = [w for w in _elsewhere(key, whole) if w != where]
            if close:
                hint = f" Did you mean {_where(path, close[0])!r}?"
            elif other:
                hint = f" It belongs in another table: did you mean {other[0]!r}?"
            else:
                hint = f" Known keys here: {', '.join(schema)}." if schema else ""
            out.append(f"{where} is not a study-file setting.{hint}")
            continue
        kind = schema[key]
        if isinstance(kind, tuple):  # a table, or a list of tables
            items = value if isinstance(value, list) else [value]
            if not all(isinstance(item, dict) for item in items):
                out.append(f"{where} should be a table or a list of tables")
                continue
            for i, item in enumerate(items):
                at = f"{where}[{i}]" if isinstance(value, list) else where
                out.extend(schema_problems(item, kind[0], at, whole))
        elif isinstance(kind, dict):
            if not isinstance(value, dict):
                out.append(f"{where} should be a table ([{where}]), not {_kind_of(value)}")
                continue
            out.extend(schema_problems(value, kind, where, whole))
        elif not _is_kind(value, kind):
            out.append(f"{where} should be {_KIND_TEXT[kind]}, not {_kind_of(value)}")
    return out


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__


def schema_with(extra_designs: Mapping[str, dict[str, Any]] | None) -> dict[str, Any]:
    """The study-file schema with the settings tables of designs kept outside the domain
    (`resume_auditor.designs`, each under `[designs.<key>]`)."""
    if not extra_designs:
        return SCHEMA
    return {**SCHEMA, "designs": {**SCHEMA["designs"], **extra_designs}}


def check_schema(
    data: dict[str, Any], extra_designs: Mapping[str, dict[str, Any]] | None = None
) -> None:
    """Raise a StudyError listing every unknown key and wrongly typed value in `data`.

    `extra_designs`: the settings schema of each design of the registry
    (`resume_auditor.designs.registry.schemas()`), by its key.
    """
    schema = schema_with(extra_designs)
    problems = schema_problems(data, schema, whole=schema)
    if len(problems) == 1:
        raise StudyError(problems[0])
    if problems:
        raise StudyError(
            f"{len(problems)} problems in the study file:\n"
            + "\n".join(f"  - {p}" for p in problems)
        )


# Query parameters that carry a credential in a server address (Azure's `api-version`
# and the like stay).
_SECRET_PARAM = re.compile(r"key|token|secret|passw|signature|credential", re.IGNORECASE)
_SECRET_NAMES = frozenset({"sig", "auth", "code", "sas"})


def _secret_param(name: str) -> bool:
    return bool(_SECRET_PARAM.search(name)) or name.lower() in _SECRET_NAMES


# Keys as vendors issue them (OpenAI, Anthropic, OpenRouter "sk-", Groq "gsk_", xAI,
# Perplexity, NVIDIA, Hugging Face, GitHub, Replicate, Google "AIza").
_VENDOR_KEY = re.compile(
    r"(?:sk|gsk|xai|pplx|nvapi|hf|ghp|gho|github_pat|r8)[-_][A-Za-z0-9_\-]{12,}"
    r"|AIza[0-9A-Za-z_\-]{20,}",
)
_TOKEN = re.compile(r"[A-Za-z0-9_\-.~+/=]{20,}")
_HEX = re.compile(r"[0-9a-fA-F]+")
# A random key in one letter case: hexadecimal (Azure's 32 characters, Together's 64)
# or base36. Names are words joined by separators, so their runs stay short.
MIN_HEX_KEY = 32
MIN_ONE_CASE_KEY = 24
MIN_BITS_PER_CHAR = 3.0  # a random run's letters are spread out; "aaaa1111..." is not a key
# A path segment or query parameter that says the next value is an id, not a key:
# `/accounts/<32 hex>/ai/v1` (Cloudflare Workers AI), `/deployments/<name>`.
_ID_NOUNS = frozenset(
    {
        "account",
        "accounts",
        "project",
        "projects",
        "subscription",
        "subscriptions",
        "resourcegroup",
        "resourcegroups",
        "deployment",
        "deployments",
        "workspace",
        "workspaces",
        "organization",
        "organizations",
        "org",
        "orgs",
        "tenant",
        "tenants",
        "endpoint",
        "endpoints",
        "model",
        "models",
        "gateway",
        "gateways",
        "instance",
        "instances",
    }
)
# Vendors whose documented address puts an id at a fixed place with no word naming it:
# host -> the path segment before the id. Cloudflare AI Gateway:
# https://gateway.ai.cloudflare.com/v1/{account_id}/{gateway_id}/{provider}.
_ID_AFTER_ON_HOST = {"gateway.ai.cloudflare.com": "v1"}


def _bits_per_char(text: str) -> float:
    """Shannon entropy of the characters of `text` (bits per character)."""
    counts = Counter(text.lower())
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def names_an_id(previous: str) -> bool:
    """Does a path segment or parameter name say that what follows is an id?"""
    word = re.sub(r"[^a-z]", "", previous.lower())
    return word in _ID_NOUNS or word.removesuffix("id") in _ID_NOUNS or word == "id"


def credential_shaped(text: str, *, named: bool = False) -> bool:
    """Does `text` (a path segment, a query value, a fragment) look like a key?

    A vendor's key shape (`sk-`, `AIza`...), or a credential-shaped run of letters
    and digits between separators (`-_.~+/=`): 20+ mixing upper case, lower case and
    digits (random base62 and base64 keys), or in one letter case 32+ hexadecimal
    digits (Azure's 32, Together's 64) or 24+ of base36, with both letters and digits
    and spread-out characters (at least 3 bits each), as random keys are.

    Not keys: words joined by separators (`Meta-Llama-3-8B-Instruct`,
    `my-gpt4-deployment`), versions, UUIDs (8-4-4-4-12: they name deployments,
    subscriptions and accounts; a vendor that issues UUID keys sends them in a
    header), short hexadecimal ids (24-character object ids), and, with `named`
    (the segment or parameter before it names an id: `/accounts/<hex>`), a long
    hexadecimal id. A 32-character hexadecimal id anywhere else cannot be told from
    an Azure key and is treated as one.
    """
    value = unquote(text).strip()
    if not _TOKEN.fullmatch(value):
        return False
    if _VENDOR_KEY.fullmatch(value):
        return True
    for run in re.split(r"[-_.~+/=]", value):
        has_digit = any(c.isdigit() for c in run)
        has_lower = any(c.islower() for c in run)
        has_upper = any(c.isupper() for c in run)
        if len(run) >= 20 and has_digit and has_lower and has_upper:
            return True
        if named or not (has_digit and (has_lower or has_upper)):
            continue
        if _bits_per_char(run) < MIN_BITS_PER_CHAR:
            continue
        if _HEX.fullmatch(run):
            if len(run) >= MIN_HEX_KEY:
                return True
        elif len(run) >= MIN_ONE_CASE_KEY and run.isalnum():
            return True
    return False


def url_credentials(url: str) -> tuple[str, list[str]]:
    """(the address without credentials, the credentials it held).

    A user name, password, key-like query parameter, credential-shaped query value,
    path segment or fragment typed into a server address would otherwise be stored
    in the audit file, its reports and bundle, and printed in messages; the caller
    moves them to the key store or refuses the address (a key in the path always:
    `path_credentials`).
    """
    from urllib.parse import urlencode, urlunsplit

    text = url.strip()
    if not text:
        return url, []
    try:
        parts = urlsplit(text)
    except ValueError:
        return text, []
    found: list[str] = []
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, netloc = netloc.rsplit("@", 1)
        user, _, password = userinfo.partition(":")
        # `user:KEY@` carries the key as the password; `KEY@` as the user name
        found.append(unquote(password or user))
    query = parts.query
    if query:
        kept = []
        for name, value in parse_qsl(query, keep_blank_values=True):
            shaped = credential_shaped(value, named=names_an_id(name))
            if _secret_param(name) or shaped or credential_shaped(name):
                if value or credential_shaped(name):
                    found.append(value or name)
            else:
                kept.append((name, value))
        query = urlencode(kept)
    path = parts.path
    secret_segments = path_credentials(text)
    if secret_segments:
        found.extend(secret_segments)
        path = "/".join(s for s in path.split("/") if s not in secret_segments)
    fragment = parts.fragment
    in_fragment = _fragment_credentials(fragment)
    if in_fragment:
        found.extend(in_fragment)
        fragment = ""  # never sent to a server anyway
    if not found and netloc == parts.netloc and query == parts.query:
        return url, []
    return urlunsplit((parts.scheme, netloc, path, query, fragment)), found


def path_credentials(url: str) -> list[str]:
    """The segments of the address's path that look like a key (`http://host/sk-.../v1`).

    They cannot be moved to the key store: the server reads them from the path. A
    segment after one that names an id (`/accounts/<id>`, `credential_shaped`) is
    an id.
    """
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return []
    segments = parts.path.split("/")
    after_on_host = _ID_AFTER_ON_HOST.get((parts.hostname or "").lower())
    found = []
    for i, segment in enumerate(segments):
        previous = segments[i - 1] if i else ""
        named = names_an_id(previous) or (
            after_on_host is not None and i == 2 and previous == after_on_host
        )
        if segment and credential_shaped(segment, named=named):
            found.append(segment)
    return found


def _fragment_credentials(fragment: str) -> list[str]:
    if not fragment:
        return []
    if "=" in fragment:
        return [
            value
            for name, value in parse_qsl(fragment, keep_blank_values=True)
            if value and (_secret_param(name) or credential_shaped(value))
        ]
    return [fragment] if credential_shaped(fragment) else []


def base_url_problem(url: str) -> str | None:
    """Why a server address cannot work (None: it can, or it is empty: the default).

    Said before anything is queued: every request to such an address would fail,
    and resuming could not help.
    """
    text = url.strip()
    if not text:
        return None
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        return f"it is not a valid web address ({exc})"
    if parts.scheme.lower() not in ("http", "https"):
        return "it must start with http:// or https://"
    if not parts.hostname:
        return "it names no server after http(s)://"
    if port == 0:
        return "port 0 is not a port a server listens on"
    return None


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
class RunSpec:
    prompt: str = "d1-baseline"
    orders: str = "both"
    repeats: int = 1
    concurrency: int = 0  # the most at once; 0: as many as the provider's limits allow
    timeout_s: float = 120.0


@dataclass(frozen=True)
class StudyConfig:
    name: str
    seed: int
    job: JobSpec
    resumes: tuple[str, ...]
    model: ModelSpec = field(default_factory=ModelSpec)
    run: RunSpec = field(default_factory=RunSpec)
    # further models asked the same test cases (`[[models]]`), one run each, compared
    # with `model` and each other (workflow/compare.py)
    also: tuple[ModelSpec, ...] = ()
    keep_real_contact: bool = False  # let the source's phone, address and links through
    # keep instructions to an AI found in a resume (removed from every copy by default)
    keep_instructions: bool = False
    generation: GenerationSpec | None = None  # generator models (domain/generation.py)
    # The settings table of every design (`resume_auditor.designs`), by key, as the study
    # file wrote them: each design reads its own (`Design.spec`), and a lenient read (an
    # audit file written by a newer app) carries them through unchanged.
    more: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Whether the study names its designs (a `[designs.<key>]` table): one that names
    # none runs the designs that are on by default (`Design.on_by_default`).
    designs_named: bool = False

    @property
    def models(self) -> tuple[ModelSpec, ...]:
        """Every model the study asks the test cases, `model` first."""
        return (self.model, *self.also)

    def with_model(
        self, provider: str | None = None, base_url: str | None = None, model: str | None = None
    ) -> StudyConfig:
        """The same study pointed at another model (the CLI's --provider/--base-url/--model)."""
        spec = self.model
        if provider is not None:
            _check_provider(provider)
            spec = replace(spec, provider=provider)
        if base_url is not None:
            spec = replace(spec, base_url=_base_url(base_url, "--base-url"))
        if model is not None:
            spec = replace(spec, model=model)
        if spec.provider in NEEDS_BASE_URL and not spec.base_url:
            raise StudyError(f"provider {spec.provider!r} needs a base URL (--base-url)")
        return replace(self, model=spec)


def _model_spec(table: Mapping[str, Any], where: str, strict: bool) -> ModelSpec:
    """One model table of a study file (`[model]` or an entry of `[[models]]`)."""
    defaults = ModelSpec()
    provider = str(table.get("provider", defaults.provider))
    _check_provider(provider)
    raw_seed = table.get("seed", defaults.seed)
    spec = ModelSpec(
        provider=provider,
        base_url=_base_url(table.get("base_url", ""), f"{where}.base_url", lenient=not strict),
        model=str(table.get("model", defaults.model)),
        temperature=_float(table.get("temperature", defaults.temperature), f"{where}.temperature"),
        max_tokens=_int(table.get("max_tokens", defaults.max_tokens), f"{where}.max_tokens", 1),
        seed=None if raw_seed is None else _int(raw_seed, f"{where}.seed"),
    )
    if provider in NEEDS_BASE_URL and not spec.base_url:
        raise StudyError(f"provider {provider!r} needs {where}.base_url")
    return spec


def _model_table(spec: ModelSpec) -> dict[str, Any]:
    """A model as a study file's table (never credentials: `clean_url`)."""
    out: dict[str, Any] = {
        "provider": spec.provider,
        "base_url": clean_url(spec.base_url),
        "model": spec.model,
        "temperature": spec.temperature,
        "max_tokens": spec.max_tokens,
    }
    if spec.seed is not None:
        out["seed"] = spec.seed
    return out


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


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise StudyError(f"{where} should be true or false")
    return value


def _choices(value: Any, where: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    items = _strings(value, where)
    for item in items:
        if item not in allowed:
            raise StudyError(f"{where}: {item!r} is not one of {', '.join(allowed)}")
    return items


def _float(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StudyError(f"{where} should be a number")
    return float(value)


def clean_url(url: str) -> str:
    """`url` without any credentials (for settings written to an audit file)."""
    return url_credentials(url)[0]


def _base_url(value: Any, where: str, *, lenient: bool = False) -> str:
    """A server address without credentials in it; refused (with what to do) otherwise.

    `lenient` (settings kept in an audit file by an older version) drops them
    instead: the file still opens, and the credentials are never used or shown.
    """
    url = str(value)
    clean, secrets = url_credentials(url)
    if (secrets or clean != url) and lenient:
        return clean
    problem = None if lenient else base_url_problem(url)
    if problem is not None:
        raise StudyError(
            f"{where} ({clean}) cannot be used: {problem}, for example "
            "http://localhost:11434/v1 or https://api.openai.com/v1."
        )
    if secrets or clean != url:
        raise StudyError(
            f"{where} holds a key or password (user:password@ or a key-like query parameter "
            "such as ?api-key=). It would be stored in the audit file and its reports: "
            f"remove it from the address ({clean}) and store the key in the OS keyring "
            "instead (Settings, or: resume-auditor keys set PROVIDER --base-url URL)."
        )
    return url


def study_from_dict(
    data: dict[str, Any],
    *,
    require_sources: bool = True,
    strict: bool | None = None,
    extra_designs: Mapping[str, dict[str, Any]] | None = None,
) -> StudyConfig:
    """Validate a parsed study file. Raises StudyError with a plain message.

    `require_sources=False` reads the settings an audit file keeps, whose job and
    resumes live in the file itself rather than in paths. `strict` (default: as
    `require_sources`, i.e. for study files) refuses unknown keys and values of the
    wrong kind; settings kept in an audit file, written by this or a newer app, are
    read leniently. `extra_designs`: see `check_schema`; every `[designs.<key>]` table
    is kept as written in `StudyConfig.more` for its design to read.
    """
    strict = strict if strict is not None else require_sources
    if strict:
        check_schema(data, extra_designs)
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

    listed = data.get("models", [])
    if isinstance(listed, dict):
        listed = [listed]
    if not isinstance(listed, list) or not all(isinstance(m, dict) for m in listed):
        raise StudyError("models should be a list of tables, each written [[models]]")
    specs = [_model_spec(m, f"models[{i + 1}]", strict) for i, m in enumerate(listed)]
    if "model" in data or not specs:
        specs.insert(0, _model_spec(_table(data, "model"), "model", strict))
    model_spec, also = specs[0], tuple(specs[1:])
    seen: set[tuple[str, str, str]] = set()
    for spec in specs:
        same = (spec.provider, clean_url(spec.base_url), spec.model)
        if same in seen:
            raise StudyError(
                f"{spec.describe()} is listed twice; each model is asked the test cases once "
                "(raise run.repeats to ask it more often)"
            )
        seen.add(same)

    run = _table(data, "run")
    run_defaults = RunSpec()
    orders = str(run.get("orders", run_defaults.orders))
    if orders not in ORDERS:
        raise StudyError(f"run.orders should be one of {ORDERS}")
    run_spec = RunSpec(
        prompt=str(run.get("prompt", run_defaults.prompt)),
        orders=orders,
        repeats=_int(run.get("repeats", run_defaults.repeats), "run.repeats", 1),
        concurrency=_int(run.get("concurrency", run_defaults.concurrency), "run.concurrency", 0),
        timeout_s=_float(run.get("timeout_s", run_defaults.timeout_s), "run.timeout_s"),
    )

    designs = _table(data, "designs")
    more: dict[str, Mapping[str, Any]] = {}
    for key, table in designs.items():
        if not isinstance(table, dict):
            raise StudyError(f"[designs.{key}] should be a table")
        more[key] = dict(table)
    generation = generation_from_dict(data)
    if generation is not None:
        generators = tuple(
            replace(
                spec,
                base_url=_base_url(
                    spec.base_url, f"generation.generators[{i}].base_url", lenient=not strict
                ),
            )
            for i, spec in enumerate(generation.generators)
        )
        judge = generation.judge_model
        if judge is not None:
            judge = replace(
                judge,
                base_url=_base_url(
                    judge.base_url, "generation.judge_model.base_url", lenient=not strict
                ),
            )
        generation = replace(generation, generators=generators, judge_model=judge)
    return StudyConfig(
        name=name,
        seed=seed,
        job=job_spec,
        resumes=resumes,
        model=model_spec,
        also=also,
        run=run_spec,
        generation=generation,
        keep_real_contact=_bool(
            _table(data, "variants").get("keep_real_contact", False), "variants.keep_real_contact"
        ),
        keep_instructions=_bool(
            _table(data, "variants").get("keep_instructions", False), "variants.keep_instructions"
        ),
        more=more,
        designs_named=bool(designs),
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
    model = _model_table(config.model)  # never credentials in the audit file
    out: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "study": {"name": config.name, "seed": config.seed},
        "job": job,
        "resumes": {"files": list(config.resumes)},
        "model": model,
        **({"models": [_model_table(m) for m in config.also]} if config.also else {}),
        "run": {
            "prompt": config.run.prompt,
            "orders": config.run.orders,
            "repeats": config.run.repeats,
            "concurrency": config.run.concurrency,
            "timeout_s": config.run.timeout_s,
        },
        "designs": {},
    }
    for key, table in config.more.items():
        out["designs"][key] = dict(table)
    variants = {
        key: True
        for key, keep in (
            ("keep_real_contact", config.keep_real_contact),
            ("keep_instructions", config.keep_instructions),
        )
        if keep
    }
    if variants:
        out["variants"] = variants
    out.update(generation_to_dict(config.generation))
    table = out.get("generation", {})
    for spec in [*table.get("generators", []), table.get("judge_model") or {}]:
        if spec.get("base_url"):
            spec["base_url"] = clean_url(spec["base_url"])
    return out
