"""The report as one self-contained HTML file (CSS and charts inlined).

Jinja2 with autoescaping: a model's justification or a job description can
contain anything, including markup, and must show as text. The metrics the
report describes are embedded as JSON (`<script type="application/json"
id="metrics">`), so a reader can take the exact numbers out of the report, and
every number printed carries the path of the metric it comes from.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2

from resume_auditor.domain.groups import group_label
from resume_auditor.report.document import ReportDocument
from resume_auditor.report.numbers import (
    ci_text,
    p_text,
    path_attr,
    rate_text,
    raw_attr,
    value_text,
)
from resume_auditor.resources import resource
from resume_auditor.stats.labels import label
from resume_auditor.stats.metric import pct

TEMPLATE = "report.html.j2"
STYLESHEET = "report.css"


def field_text(metric: dict[str, Any], name: str) -> str:
    """How the report prints one field of a metric object (tests check against this)."""
    value = metric.get(name)
    if name == "value":
        return value_text(metric)
    if name == "ci":
        return ci_text(metric)
    if name in ("p", "p_holm", "p_adjusted"):
        return p_text(value)
    if name == "selection_rate":
        return rate_text(value)
    if name == "selection_rate_ci":
        low, high = (value or [None, None])[:2]
        return "" if low is None or high is None else f"{pct(low)}–{pct(high)}"
    return "" if value is None else str(value)


def capital(text: str) -> str:
    """A note as a sentence: its first letter in capitals."""
    return text[:1].upper() + text[1:]


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource("report"))),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(
        field_text=field_text,
        capital=capital,
        value_text=value_text,
        ci_text=ci_text,
        p_text=p_text,
        pct=pct,
        path_attr=path_attr,
        raw_attr=raw_attr,
        label=label,
        group_label=group_label,
    )
    return env


def render_html(doc: ReportDocument) -> str:
    env = _environment()
    css = resource("report", STYLESHEET).read_text(encoding="utf-8")
    return env.get_template(TEMPLATE).render(doc=doc, css=css, m=doc.metrics, f=doc.facts)
