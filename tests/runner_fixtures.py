"""Small audits built straight into a result file, for the runner's tests.

Each holds one job, one resume and a few variants, one run for a given provider
and model, and requests of any kind queued with `RequestSpec`s (no D1 builder
needed), so a test can send exactly the requests it is about.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from resume_auditor.domain.case import Variant, VariantKind
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.domain.study import ModelSpec
from resume_auditor.prompts import build_body, get_preset, render_resumes
from resume_auditor.store.resultfile import RequestSpec, ResultFile

JOB = "Junior Data Analyst. Requirements: SQL, Python, dashboards."
TEXTS = [
    "Ann Lee\nAnalyst with SQL, Python and Tableau dashboards. " * 3,
    "Bo Diaz\nAnalyst with SQL and Python. " * 3,
    "Cy Ray\nAnalyst with SQL. " * 3,
]
NAMES = ["Ann Lee", "Bo Diaz", "Cy Ray"]


def new_audit(path: Path, model: ModelSpec, prompt: str = "d3-yes-no") -> tuple[int, list[int]]:
    """A result file with three variants and a run of `model`; (run id, variant ids)."""
    with ResultFile(path, create=True) as rf:
        with rf.transaction():
            rf.save_study("runner test", "format = 1", {}, None)
            rf.save_job(Job("Analyst", JOB, [Qualification("SQL", QualKind.REQUIRED)]), None, None)
            rid = rf.add_resume("r.txt", None, TEXTS[0], 1, "ok")
            ids = [
                rf.add_variant(Variant(rid, VariantKind.BASE, text, "white_man", name))
                for text, name in zip(TEXTS, NAMES, strict=True)
            ]
        run_id = rf.add_run(model.provider, model.base_url, model.model, prompt, {"t": 0})
    return run_id, ids


def spec(
    model: ModelSpec,
    preset_id: str,
    variants: list[int],
    *,
    rep: int = 0,
    key: str = "",
    context: dict[str, Any] | None = None,
    cell: str = "",
) -> RequestSpec:
    """One request of `preset_id` about `variants` (their texts come from TEXTS)."""
    preset = get_preset(preset_id)
    texts = [TEXTS[(v - 1) % len(TEXTS)] for v in variants]
    values = {"job_description": JOB}
    ctx = dict(context or {})
    if preset.kind in ("pairwise_abstain", "forced_choice"):
        values |= {"resume_1": texts[0], "resume_2": texts[1]}
        ctx.setdefault("names", [NAMES[(v - 1) % 3] for v in variants])
    elif preset.kind == "ranking":
        values |= {"resumes": render_resumes(texts), "count": str(len(texts))}
        ctx.setdefault("count", len(texts))
        ctx.setdefault("names", [NAMES[(v - 1) % 3] for v in variants])
    else:
        values |= {"resume": texts[0]}
    body = build_body(model, preset, values, context=ctx)
    return RequestSpec(
        ukey=key or f"{preset_id}:{'-'.join(map(str, variants))}",
        kind=preset.kind,
        body=body,
        variants=tuple(variants),
        rep=rep,
        preset=preset_id,
        context=ctx,
        cell=cell,
    )


def queue(path: Path, run_id: int, specs: list[RequestSpec]) -> int:
    with ResultFile(path) as rf, rf.transaction():
        return rf.add_request_specs(run_id, specs)


def kind_policy(body: dict[str, Any]) -> str:
    """A simulated model that answers each kind of prompt in its own format."""
    user = body["messages"][-1]["content"]
    system = body["messages"][0]["content"] if len(body["messages"]) > 1 else ""
    text = system + user
    if "good fit for the job position" in text:
        return "Yes" if "Tableau" in user else "No"
    if "Overall hire rating" in text:
        return (
            "Summary: An analyst with SQL and Python.\n"
            "Experience: 4\nProfessionalism: 4\nFit: 3\nOverall hire rating: 4"
        )
    if "Relevance to the Role" in text:
        return (
            '{"Relevance to the Role": {"Resume": {"score": 4}}, "Significance/Impact": '
            '{"Resume": {"score": 3}}, "Skill Relevance": {"Resume": {"score": 5}}, '
            '"Achievements & Impact": {"Resume": {"score": 2}}, '
            '"Cultural Fit & Personal Traits": {"Resume": {"score": 3}}}'
        )
    if "rank them from best" in text:
        letters = re.findall(r"^Resume ([A-Z]):", user, re.M)
        return "{" + ", ".join(f'"{i + 1}": "{c}"' for i, c in enumerate(reversed(letters))) + "}"
    if "race or ethnicity" in text:
        return '{"race": "White", "gender": "Male"}'
    return "Resume 1 is stronger. <answer>first</answer>"
