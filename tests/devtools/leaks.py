"""Which real details of a resume reach the model: the request bodies a study would send.

A resume goes the whole way a user's would: `ingest_resume` (load, clean, identity
template, findings), a D1 + D2 study built over it (`build_cases`), then every
request body the run would queue (`request_specs`). Each body is searched for the
resume's truth values (name, email, phone, address, links; see
identity_truth.py for how a value may be spelled in extracted text) and, given
`extra`, for other strings known to be the candidate's (a birth date, a personal
details line). Nothing is sent anywhere.

Used by benchmarks/request_leaks.py and tests/test_identity_request_bodies.py.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from devtools.identity_truth import _value_pattern
from resume_auditor.domain.study import JobSpec, StudyConfig

JOB_TEXT = (
    "Operations Analyst\n\nRequirements\n- Experience with Excel\n- Strong written English\n"
    "- Bachelor's degree\n\nNice to have\n- SQL\n"
)
# Fields searched in the bodies; colleges are replaced in every copy by design.
LEAK_FIELDS = ("name", "email", "phone", "address", "links")


@dataclass
class BodyLeaks:
    """The request bodies of one resume and the real details found in them."""

    file: str
    bodies: int = 0
    leaking_bodies: int = 0
    by_field: Counter[str] = field(default_factory=Counter)  # bodies carrying each field
    examples: list[str] = field(default_factory=list)
    error: str = ""


Pattern = tuple[str, re.Pattern[str], str]  # (field, how it may be spelled, the value)


def _patterns(truth: dict[str, Any], extra: dict[str, list[str]]) -> list[Pattern]:
    out: list[Pattern] = []
    for key in LEAK_FIELDS:
        value = truth.get(key)
        values = value if isinstance(value, list) else [value]
        for v in values:
            if not isinstance(v, str) or not v.strip():
                continue
            if key == "address" and "," not in v and not re.search(r"\d", v):
                continue  # a bare country or city alone is not identifying
            out.append((key, _value_pattern(key, v), v))
            if key == "name":
                parts = re.findall(r"[^\W\d_]{3,}", v)
                if len(parts) >= 2:  # the surname alone ("Moore", "Dufresne")
                    surname = re.compile(rf"\b{re.escape(parts[-1])}\b")
                    out.append(("surname", surname, parts[-1]))
    for key, values in extra.items():
        out.extend((key, _value_pattern(key, v), v) for v in values if v.strip())
    return out


def study_config(keep_real_contact: bool = False) -> StudyConfig:
    return StudyConfig(
        name="leaks",
        seed=11,
        job=JobSpec(text=JOB_TEXT),
        resumes=(),
        more={"d1": {}, "d2": {}},  # D1 and D2 with their defaults
        keep_real_contact=keep_real_contact,
    )


@dataclass
class Bodies:
    """What a study over one resume would send: each body with its number of resume
    copies, and the source text the copies were made from."""

    source: str
    bodies: list[tuple[str, int]]


def request_bodies(path: Path, config: StudyConfig | None = None) -> Bodies:
    """Every request body (as JSON text) a D1 + D2 study over this one resume queues."""
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.cases import build_cases
    from resume_auditor.workflow.ingest import ingest_resume, read_job
    from resume_auditor.workflow.prepare import new_audit, request_specs

    config = config or study_config()
    with tempfile.TemporaryDirectory() as tmp:
        audit = new_audit(Path(tmp) / "leaks.audit", config)
        with ResultFile(audit) as rf:
            rf.replace_job(read_job(JOB_TEXT), None, None)
            ingest_resume(rf, path.name, path.read_bytes())
            build_cases(rf, config)
            specs = request_specs(rf, config, config.model)
            source = rf.resumes()[0].text
            return Bodies(
                source,
                [(json.dumps(s.body, ensure_ascii=False), max(1, len(s.variants))) for s in specs],
            )


def _flat(body: str) -> str:
    return json.dumps(json.loads(body), ensure_ascii=False).replace("\\n", "\n")


def scan(
    file: str,
    sent: Bodies,
    truth: dict[str, Any],
    extra: dict[str, list[str]] | None = None,
) -> BodyLeaks:
    """Count the bodies carrying each real detail.

    A city alone ("Denver, Colorado") also names where an employer was; the app keeps
    those on purpose and replaces the candidate's own (the contact block's, the first
    place it is printed). So a city counts as sent only when a copy holds it as often
    as the source does: the candidate's own mention was not replaced.
    """
    out = BodyLeaks(file, bodies=len(sent.bodies))
    patterns = _patterns(truth, extra or {})
    for body, copies in sent.bodies:
        flat = _flat(body)
        hit = set()
        for key, p, value in patterns:
            found = len(p.findall(flat))
            if not found:
                continue
            city_only = key == "address" and not re.search(r"\d", value)
            if city_only and found < copies * len(p.findall(sent.source)):
                continue
            if key == "surname" and _synthetic(p, flat):
                continue
            hit.add(key)
        if hit:
            out.leaking_bodies += 1
            out.by_field.update(hit)
            for key, p, _ in patterns:
                m = p.search(flat)
                if key in hit and m and len(out.examples) < 6:
                    around = flat[max(0, m.start() - 40) : m.end() + 40].replace("\n", "/")
                    out.examples.append(f"{key}: …{around}…")
    return out


def _synthetic(pattern: re.Pattern[str], text: str) -> bool:
    """True if every match of a surname is a word the fills themselves write (a
    synthetic street "Park Avenue", the city "Springfield")."""
    from resume_auditor.variants.fills import _STREETS, FICTIONAL_CITY

    made = " ".join([*_STREETS, FICTIONAL_CITY])
    return all(
        re.search(rf"\b{re.escape(m.group(0))}\b", made)
        and text[m.end() : m.end() + 12].lstrip().split(" ")[0].strip(",")
        in {w for street in _STREETS for w in street.split()[1:]}
        for m in pattern.finditer(text)
    )


def scan_file(path: Path, truth: dict[str, Any], config: StudyConfig | None = None) -> BodyLeaks:
    from resume_auditor.documents.errors import DocumentError

    try:
        bodies = request_bodies(path, config)
    except DocumentError as exc:
        return BodyLeaks(path.name, error=exc.message)
    except Exception as exc:  # noqa: BLE001  a benchmark reports every failure and goes on
        return BodyLeaks(path.name, error=f"{type(exc).__name__}: {exc}")
    return scan(path.name, bodies, truth)
