# ruff: noqa: E501  (resume lines as a person writes them)
"""A small audit for the generator's tests: one job, one templated resume, the simulator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from resume_auditor.domain.generation import GenerationSpec
from resume_auditor.domain.identity import Slot, SlotKind, Template
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.domain.study import ModelSpec, StudyConfig, study_from_dict
from resume_auditor.runner import Runner
from resume_auditor.store.resultfile import ResultFile

REQUIRED = ["Advanced SQL querying", "Python scripting for pipelines", "Tableau dashboards"]
PREFERRED = ["Apache Airflow orchestration", "Snowflake warehouse design", "Kubernetes deployment"]

RESUME = """Jane Roe
jane.roe@mail.com

Summary
Data analyst with five years of experience turning messy operational data into decisions.
She enjoys working with finance and operations teams and explains results plainly to them.

Experience
Senior Data Analyst, Northwind Logistics (2021 - present)
- Wrote advanced SQL querying logic across forty tables to reconcile daily shipment records with invoices
- Built Python scripting for pipelines that load, clean and validate carrier files every night without any manual steps or reruns
- Designed Tableau dashboards for regional managers that track on-time delivery, cost per parcel and claims
- Led a weekly review with operations leads and kept a log of data quality issues and their fixes
- Trained three junior analysts in reviewing each other's work and writing clear documentation

Data Analyst, Contoso Retail (2019 - 2021)
- Managed the monthly sales reporting cycle for forty stores and presented the results to the regional team
- Worked with store managers to define metrics for staffing, footfall and conversion across the seasons
- Improved the accuracy of the inventory forecast by reviewing assumptions with the buying team each quarter

Junior Analyst, Fabrikam Insurance (2017 - 2019)
- Prepared the weekly claims summary for the underwriting team and answered their follow-up questions quickly
- Checked policy records against broker submissions and raised discrepancies with the responsible account owners
- Helped migrate the team's reporting spreadsheets to a shared drive with a consistent naming scheme and an index

Education
B.A. in Economics, State University (2019)

Interests
Hiking, chess, and volunteering at the local food bank on weekends.
"""


def template() -> Template:
    text = RESUME
    name = text.index("Jane Roe")
    email = text.index("jane.roe@mail.com")
    she = text.index("She enjoys")
    return Template(
        text,
        [
            Slot(name, name + 8, SlotKind.FULL_NAME, "Jane Roe"),
            Slot(email, email + 17, SlotKind.EMAIL, "jane.roe@mail.com"),
            Slot(she, she + 3, SlotKind.PRONOUN_SUBJECT, "She"),
        ],
    )


def new_audit(path: Path, text: str | None = None, *, required: list[str] | None = None) -> int:
    """An audit file with the job and one resume; returns the resume id."""
    t = template() if text is None else Template(text, [])
    with ResultFile(path, create=True) as rf, rf.transaction():
        rf.save_study("generator test", "format = 1", {}, None)
        quals = [Qualification(q, QualKind.REQUIRED) for q in (required or REQUIRED)]
        quals += [Qualification(q, QualKind.PREFERRED) for q in PREFERRED]
        rf.save_job(Job("Data Analyst", "Data Analyst job.", quals), None, None)
        slots = [
            {"start": s.start, "end": s.end, "kind": s.kind.value, "confidence": s.confidence}
            for s in t.slots
        ]
        rid = rf.add_resume("jane.txt", None, t.text, 1, "ok", template={"slots": slots})
    return rid


def config(base_url: str, **generation: Any) -> StudyConfig:
    table: dict[str, Any] = {
        "generators": [
            {"provider": "openai-compatible", "base_url": base_url, "model": "sim-model"}
        ],
        "k": [1, 2],
        "reworded": 1,
    }
    table.update(generation)
    data = {"study": {"name": "g", "seed": 3}, "generation": table}
    return study_from_dict(json.loads(json.dumps(data)), require_sources=False)


def sim_factory(base_url: str) -> Any:
    from resume_auditor.providers.openai_compat import OpenAICompatProvider

    def make(path: Path, run_id: int, spec: ModelSpec, on_event: Any) -> Runner:
        return Runner(
            path,
            run_id,
            lambda: OpenAICompatProvider(spec.base_url or base_url),
            None,
            concurrency=2,
            on_event=on_event,
        )

    return make


__all__ = ["GenerationSpec", "config", "new_audit", "sim_factory", "template"]
