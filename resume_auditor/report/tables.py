"""The raw data an auditor asks for, as tables: test cases, judgments, metrics, failures.

One row per test case and one per answer, for every run in the file, with what
each row means spelled out (which candidate was shown first, what the model
picked, whether that was right). Source resumes appear as "Resume N"; the
candidates as the synthetic names the model saw.
"""

from __future__ import annotations

import json
from typing import Any, cast

import numpy as np
import pandas as pd

from resume_auditor.report.facts import reported_version
from resume_auditor.report.pairs import OTHERS, pair_labels
from resume_auditor.report.pairs import judgments as pair_judgments
from resume_auditor.report.privacy import identity_mask, resume_labels, safe_url
from resume_auditor.stats.model import MetricDict, MetricsReport
from resume_auditor.stats.pair_choice import with_choice
from resume_auditor.store.parts import AuditReader, RunReader

CASE_COLUMNS = [
    "test_case",
    "design",
    "kind",
    "right_answer",
    "source_resume",
    "k",
    "signal",
    "differs",
    "variant_a",
    "name_a",
    "group_a",
    "variant_a_kind",
    "variant_b",
    "name_b",
    "group_b",
    "variant_b_kind",
]

JUDGMENT_COLUMNS = [
    "request_id",
    "run_id",
    "provider",
    "model",
    "model_version",
    "prompt",
    "test_case",
    "design",
    "kind",
    "right_answer",
    "source_resume",
    "k",
    "group_a",
    "group_b",
    "order",
    "shown_first",
    "repeat",
    "answer",
    "picked",
    "correct",
    "justification",
    "received_at",
    "may_be_paid_twice",
]

METRIC_COLUMNS = [
    "metric",
    "title",
    "value",
    "ci_low",
    "ci_high",
    "level",
    "n",
    "successes",
    "clusters",
    "p",
    "p_holm",
    "flag_p_adjusted",
    "not_significant",
    "unit",
    "flag",
    "note",
    "reading",
]

_RIGHT = {"a": "A", "b": "B", "equal": "abstain (equally qualified)"}
_PICKED = {"a": "A", "b": "B", "abstain": "abstain", "invalid": "unreadable"}


def cases_frame(result: AuditReader) -> pd.DataFrame:
    labels = result.variant_labels()
    sources = resume_labels([r.id for r in result.resumes()])
    rows = []
    for case in (c for label in pair_labels() for c in result.cases(label)):
        name_a, _, kind_a = labels.get(case.variant_a, ("", "", ""))
        name_b, _, kind_b = labels.get(case.variant_b, ("", "", ""))
        truth = "" if case.truth is None else case.truth.value
        rows.append(
            {
                "test_case": case.id,
                "design": case.design,
                "kind": str(case.kind),
                "right_answer": _RIGHT.get(truth, truth),
                "source_resume": sources.get(case.cluster or 0, f"Resume id {case.cluster}"),
                "k": case.k,
                "signal": case.signal,
                "differs": case.differs,
                "variant_a": case.variant_a,
                "name_a": name_a,
                "group_a": case.group_a or "",
                "variant_a_kind": kind_a,
                "variant_b": case.variant_b,
                "name_b": name_b,
                "group_b": case.group_b or "",
                "variant_b_kind": kind_b,
            }
        )
    return pd.DataFrame(rows, columns=CASE_COLUMNS)


def judgments_frame(result: AuditReader) -> pd.DataFrame:
    """Every answer of every run; `correct` is empty for unreadable answers."""
    sources = resume_labels([r.id for r in result.resumes()])
    mask = identity_mask(result)  # justifications may repeat a real detail
    parts = []
    for run in result.runs():
        judged = pair_judgments(result, run.id)
        if judged.empty:
            continue
        df = with_choice(judged)
        received = {rid: at for rid, *_rest, at in result.verdicts_since(run.id)}
        unseen = result.unseen_sends(run.id)
        versions = [
            reported_version(result.raw_response(int(rid)) or {}) for rid in df["request_id"]
        ]
        choice = df["choice"].to_numpy(dtype=object)
        truth = df["truth"].to_numpy(dtype=object)
        right = np.where(truth == "equal", choice == "abstain", choice == truth)
        correct = pd.array(
            [None if c == "invalid" else bool(r) for c, r in zip(choice, right, strict=True)],
            dtype="boolean",
        )
        parts.append(
            pd.DataFrame(
                {
                    "request_id": df["request_id"].to_numpy(),
                    "run_id": run.id,
                    "provider": run.provider,
                    "model": run.model,
                    "model_version": versions,
                    "prompt": run.prompt_id,
                    "test_case": df["pair_id"].to_numpy(),
                    "design": df["design"].to_numpy(),
                    "kind": df["kind"].to_numpy(),
                    "right_answer": [_RIGHT.get(t, t) for t in truth],
                    "source_resume": [sources.get(int(c), f"Resume id {c}") for c in df["cluster"]],
                    "k": df["k"].to_numpy(),
                    "group_a": df["group_a"].fillna("").to_numpy(),
                    "group_b": df["group_b"].fillna("").to_numpy(),
                    "order": df["ord"].to_numpy(),
                    "shown_first": np.where(df["ord"] == "ab", "A", "B"),
                    "repeat": df["rep"].to_numpy(),
                    "answer": df["label"].to_numpy(),
                    "picked": [_PICKED.get(c, c) for c in choice],
                    "correct": correct,
                    "justification": [mask(str(j)) for j in df["justification"].fillna("")],
                    "received_at": [received.get(int(r), "") for r in df["request_id"]],
                    # sends of this request that may have been billed without their
                    # answer arriving (docs/runner.md, "Never lose, never pay twice")
                    "may_be_paid_twice": [unseen.get(int(r), 0) for r in df["request_id"]],
                }
            )
        )
    if not parts:
        return pd.DataFrame(columns=JUDGMENT_COLUMNS)
    return pd.concat(parts, ignore_index=True)[JUDGMENT_COLUMNS]


DESIGN_ANSWER_COLUMNS = [
    "request_id",
    "run_id",
    "provider",
    "model",
    "prompt",
    "design",
    "case_set",
    "set_kind",
    "source_resume",
    "answer_kind",
    "shown",
    "groups_shown",
    "conditions_shown",
    "order",
    "repeat",
    "answer",
    "parsed",
    "justification",
    "may_be_paid_twice",
]


def design_answers_frame(result: AuditReader) -> pd.DataFrame:
    """Every answer of every design whose cases are not pairs (D2 on), of every run:
    what was shown (variants, groups) and what came back.

    `parsed` holds the answer as read (rating, ranks, scores, perceived race...),
    as JSON; an unreadable answer has label `invalid` and an empty reading.
    """
    pairs = set(pair_labels())
    sets = {c.id or 0: c for c in result.cases() if c.design not in pairs}
    if not sets:
        return pd.DataFrame(columns=DESIGN_ANSWER_COLUMNS)
    sources = resume_labels([r.id for r in result.resumes()])
    rows = []
    for run in result.runs():
        answers = result.answers(run.id)
        if answers.empty:
            continue
        unseen = result.unseen_sends(run.id)
        for a in answers[answers["case_id"].isin(list(sets))].to_dict("records"):
            s = sets[int(a["case_id"])]
            meta = s.meta
            ids = list(s.variants)
            shown = list(a["variants"] or [])
            where = [ids.index(v) if v in ids else None for v in shown]

            def pick(key: str, where: list[int | None] = where, meta: dict[str, Any] = meta) -> str:
                values = meta.get(key) or []
                return ", ".join(
                    str(values[i]) if i is not None and i < len(values) else "" for i in where
                )

            cluster = s.cluster
            rows.append(
                {
                    "request_id": int(a["request_id"]),
                    "run_id": run.id,
                    "provider": run.provider,
                    "model": run.model,
                    "prompt": a["preset"],
                    "design": s.design,
                    "case_set": s.id,
                    "set_kind": s.kind,
                    "source_resume": ""
                    if cluster is None
                    else sources.get(int(cluster), f"Resume id {cluster}"),
                    "answer_kind": a["kind"],
                    "shown": ", ".join(str(v) for v in shown),
                    "groups_shown": pick("groups"),
                    "conditions_shown": pick("conditions") or pick("variant"),
                    "order": a["ord"],
                    "repeat": int(a["rep"]),
                    "answer": a["label"],
                    "parsed": json.dumps(a["parsed"], sort_keys=True),
                    "justification": a["justification"] or "",
                    "may_be_paid_twice": unseen.get(int(a["request_id"]), 0),
                }
            )
    return pd.DataFrame(rows, columns=DESIGN_ANSWER_COLUMNS)


def _metric_objects(data: Any, path: list[str]) -> list[tuple[list[str], MetricDict]]:
    """Every metric object in the metrics JSON, with its path (read typed from here on:
    a field renamed in stats/model.MetricDict fails mypy in `metrics_frame`)."""
    if isinstance(data, dict):
        if "value" in data and "ci" in data and "title" in data:
            return [(path, cast(MetricDict, data))]
        out = []
        for key, value in data.items():
            out += _metric_objects(value, [*path, str(key)])
        return out
    if isinstance(data, list):
        out = []
        for i, value in enumerate(data):
            out += _metric_objects(value, [*path, str(i)])
        return out
    return []


def metrics_frame(metrics: MetricsReport) -> pd.DataFrame:
    rows = []
    for path, m in _metric_objects(metrics, []):
        ci = m.get("ci") or [None, None]
        test = m.get("flag_test")
        rows.append(
            {
                "metric": ".".join(path),
                "title": m.get("title", ""),
                "value": m.get("value"),
                "ci_low": ci[0],
                "ci_high": ci[1],
                "level": m.get("level"),
                "n": m.get("n"),
                "successes": m.get("successes"),
                "clusters": m.get("clusters"),
                "p": m.get("p"),
                "p_holm": m.get("p_holm"),
                "flag_p_adjusted": test.get("p_adjusted") if test else None,
                "not_significant": bool(m.get("not_significant")),
                "unit": m.get("unit", ""),
                "flag": m.get("flag") or "",
                "note": m.get("note") or "",
                "reading": m.get("reading", ""),
            }
        )
    return pd.DataFrame(rows, columns=METRIC_COLUMNS)


def failures_frame(result: RunReader) -> pd.DataFrame:
    rows = [
        {"run_id": run.id, "request_id": rid, "error_kind": kind, "error": message}
        for run in result.runs()
        for rid, kind, message in result.failures(run.id)
    ]
    return pd.DataFrame(rows, columns=["run_id", "request_id", "error_kind", "error"])


def about_rows(metrics: MetricsReport, generated_at: str) -> list[tuple[str, str]]:
    run = metrics["run"]
    pairs = " or ".join(pair_labels())
    others = f" ({OTHERS[0].label} on)" if OTHERS else ""
    return [
        ("Study", str(metrics["study"]["name"])),
        ("Model", f"{run['provider']}: {run['model']}"),
        ("Server", safe_url(str(run.get("base_url", ""))) or "bundled local model"),
        ("Run described by the Metrics sheet", str(run["id"])),
        ("Metrics schema", str(metrics["schema"])),
        ("App", f"Resume Auditor {metrics['app_version']}"),
        ("Made", generated_at),
        (
            "Sheets",
            f"Cases: one row per test case. Judgments: one row per {pairs} answer, every run. "
            f"Design answers: one row per answer of every design but {pairs}{others}, every "
            "run. "
            "Metrics: every number of the report (all designs), with its 95% interval and "
            "the test behind any flag. Failed requests.",
        ),
        (
            "Privacy",
            "Source resumes are named 'Resume N'; candidates carry the synthetic names the "
            "model saw. Original resumes, file names and API keys are not included.",
        ),
    ]
