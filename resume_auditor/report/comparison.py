"""The report's "Models compared" section: every model of the audit on the same cases.

A recruiter choosing between models reads one table (each headline measure, each
model's value and interval side by side), one sentence per difference that says which
model is ahead and by how much, and a chart of those differences with their paired
intervals. The numbers come only from the metrics' `comparison` (workflow/compare.py);
each carries its JSON path like every other number of the report.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from resume_auditor.report.charts import Rates, gaps_png, rates_png
from resume_auditor.report.figures import Figure
from resume_auditor.stats.model import ComparisonDict, DifferenceDict, MeasureRow, RunColumn

logger = logging.getLogger(__name__)


@dataclass
class SideCell:
    path: list[str]
    metric: dict[str, Any]  # the interval dict with its unit, for field_text


@dataclass
class SideRow:
    label: str
    design: str
    cells: list[SideCell]


@dataclass
class DifferenceRow:
    label: str
    pair: str  # "A − B"
    path: list[str]
    metric: dict[str, Any]
    sentence: str
    clear: bool


@dataclass
class ComparisonView:
    models: list[RunColumn]
    this_run: int
    intro: list[str]
    rows: list[SideRow]
    differences: list[DifferenceRow]
    figures: list[Figure] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    costs: list[tuple[str, list[str]]] = field(default_factory=list)  # (what, per model)
    alike: list[str] = field(default_factory=list)  # how often two models answered alike


def _names(comparison: ComparisonDict) -> dict[int, str]:
    return {r["run"]: r["name"] for r in comparison["runs"]}


def build_comparison(comparison: ComparisonDict | None, this_run: int) -> ComparisonView | None:
    """The section's content (None: the audit holds one model)."""
    if not comparison or len(comparison["runs"]) < 2:
        return None
    names = _names(comparison)
    rows: list[SideRow] = []
    for i, row in enumerate(comparison["measures"]):
        cells = [
            SideCell(
                ["comparison", "measures", str(i), "values", str(r["run"])],
                dict(row["values"][str(r["run"])]),
            )
            for r in comparison["runs"]
        ]
        rows.append(SideRow(row["label"], row["design"], cells))
    alpha = comparison["alpha"]
    differences = []
    for i, d in enumerate(comparison["differences"]):
        p = d["difference"]["p_holm"]
        differences.append(
            DifferenceRow(
                d["label"],
                f"{names[d['run_a']]} − {names[d['run_b']]}",
                ["comparison", "differences", str(i), "difference"],
                dict(d["difference"]),
                d["sentence"],
                p is not None and p < alpha,
            )
        )
    n = len(comparison["runs"])
    clear = sum(d.clear for d in differences)
    intro = [
        f"This audit asked {n} models the same test cases: "
        + ", ".join(r["name"] for r in comparison["runs"])
        + f". The rest of this report is about {names.get(this_run, 'one of them')}; this "
        "section puts them side by side.",
        comparison["method"],
        f"{clear} of {len(differences)} differences are clear at the report's 5% level "
        "after that adjustment."
        if differences
        else "No measure was answered by two models, so nothing could be compared.",
    ]
    view = ComparisonView(
        comparison["runs"], this_run, intro, rows, differences, after=comparison["notes"]
    )
    view.figures = _figures(comparison, names)
    view.costs = cost_rows(comparison["runs"])
    view.alike = alike_sentences(comparison)
    return view


def alike_sentences(comparison: ComparisonDict) -> list[str]:
    """Per design and pair: how often the two gave the same answer to the same request."""
    names = _names(comparison)
    out = []
    for row in comparison.get("agreement", []):
        a, b = names[row["run_a"]], names[row["run_b"]]
        alike = row["alike"]
        if alike["value"] is None:
            out.append(
                f"{row['design']}: no request was answered readably by both {a} and {b}, so "
                "their answers could not be compared."
            )
            continue
        low, high = alike["ci"]
        ci = "" if low is None or high is None else f" (95% CI {low:.0%}–{high:.0%})"
        out.append(
            f"{row['design']}: {a} and {b} gave the same answer to {alike['value']:.0%}{ci} "
            f"of the {alike['n']} requests both answered readably"
            + (
                f"; they answered {row['differ']} differently, on {row['differ_case_count']} "
                "test case(s)."
                if row["differ"]
                else "."
            )
        )
    return out


def comparison_frames(comparison: ComparisonDict | None) -> dict[str, pd.DataFrame]:
    """The comparison as tables for the exports (a sheet / CSV file each): every model's
    value of every measure, every difference, and how often two models answered alike."""
    if not comparison:
        return {}
    names = _names(comparison)
    values = [
        {
            "design": row["design"],
            "measure": row["key"],
            "label": row["label"],
            "run": int(run),
            "model": names[int(run)],
            "value": v["value"],
            "ci_low": v["ci"][0],
            "ci_high": v["ci"][1],
            "unit": v["unit"],
            "n": v["n"],
            "clusters": v["clusters"],
            "note": v["note"],
        }
        for row in comparison["measures"]
        for run, v in row["values"].items()
    ]
    differences = [
        {
            "design": d["design"],
            "measure": d["key"],
            "label": d["label"],
            "run_a": d["run_a"],
            "model_a": names[d["run_a"]],
            "run_b": d["run_b"],
            "model_b": names[d["run_b"]],
            "difference": d["difference"]["value"],
            "ci_low": d["difference"]["ci"][0],
            "ci_high": d["difference"]["ci"][1],
            "unit": d["difference"]["unit"],
            "p": d["difference"]["p"],
            "p_holm": d["difference"]["p_holm"],
            "clusters": d["difference"]["clusters"],
            "note": d["difference"]["note"],
            "sentence": d["sentence"],
        }
        for d in comparison["differences"]
    ]
    alike = [
        {
            "design": a["design"],
            "run_a": a["run_a"],
            "model_a": names[a["run_a"]],
            "run_b": a["run_b"],
            "model_b": names[a["run_b"]],
            "alike": a["alike"]["value"],
            "ci_low": a["alike"]["ci"][0],
            "ci_high": a["alike"]["ci"][1],
            "requests": a["alike"]["n"],
            "differ": a["differ"],
            "differ_cases": a["differ_case_count"],
        }
        for a in comparison["agreement"]
    ]
    runs = [dict(r) for r in comparison["runs"]]
    return {
        "models": pd.DataFrame(runs),
        "models_values": pd.DataFrame(values),
        "models_differences": pd.DataFrame(differences),
        "models_alike": pd.DataFrame(alike),
    }


def _money(value: float | None, provider: str) -> str:
    if provider == "local":
        return "nothing (bundled model)"
    if value is None:
        return "not known"
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def cost_rows(runs: list[RunColumn]) -> list[tuple[str, list[str]]]:
    """What each model's answers cost, for the audit and per 1,000 screening decisions."""
    return [
        ("Cost of its answers in this audit", [_money(r["cost_usd"], r["provider"]) for r in runs]),
        (
            "Cost per 1,000 screening decisions",
            [_money(r["cost_per_1000"], r["provider"]) for r in runs],
        ),
    ]


def _figures(comparison: ComparisonDict, names: dict[int, str]) -> list[Figure]:
    """Per validity measure, each model's value; and every difference with its interval."""
    out: list[Figure] = []
    for i, row in enumerate(comparison["measures"]):
        if row["kind"] != "validity" or row["unit"] != "proportion":
            continue
        items: Rates = [
            (names[r["run"]], _as_metric(row, str(r["run"]))) for r in comparison["runs"]
        ]
        if not any(m["value"] is not None for _, m in items):
            continue
        size = (640, max(160, 70 + 30 * len(items)))
        out.append(
            Figure(
                f"comparison-{i}",
                f"{row['label']}, by model",
                f"Bar chart: {row['label'].lower()} for each model, with 95% intervals. "
                "The numbers are in the table above.",
                rates_png(f"{row['label']}, by model", items, (), size),
            )
        )
    title, shown = difference_items(comparison)
    if shown:
        size = (720, max(160, 70 + 26 * len(shown)))
        out.append(
            Figure(
                "comparison-differences",
                title,
                "Chart: each difference between two models around zero, with its paired 95% "
                "interval; red bars are clear after the adjustment. The numbers are in the "
                "table above.",
                gaps_png(title, shown, "points", size, fitted=True),  # differences: a few points
            )
        )
    return out


def difference_items(comparison: ComparisonDict, reference: int | None = None) -> tuple[str, Rates]:
    """The differences chart (report and Results page): its title, and each difference in
    points with its paired interval, red ("flag") when clear after the adjustment.

    With `reference` (a run) and more than two models, only each other model minus that
    one, grouped by measure: every pair of 5 models is 10 bars a measure, 60 for D1's
    six measures, more than a chart of a tab's size can label (the report's own chart,
    as tall as it needs, keeps every pair; the sentences name every pair either way).
    """
    names = _names(comparison)
    alpha = comparison["alpha"]
    pairs = {(d["run_a"], d["run_b"]) for d in comparison["differences"]}
    one_pair = len(pairs) == 1
    runs = [r["run"] for r in comparison["runs"]]
    if one_pair or reference not in runs:
        reference = None

    def name(d: DifferenceDict) -> str:
        if reference is not None:
            other = d["run_b"] if d["run_a"] == reference else d["run_a"]
            return f"{d['label']}: {names[other]}"
        pair = f"{names[d['run_a']]} − {names[d['run_b']]}"
        return d["label"] if one_pair else f"{d['label']}: {pair}"

    shown: Rates = [
        (name(d), _difference(d, alpha, reference))
        for d in comparison["differences"]
        if d["difference"]["value"] is not None
        and d["difference"]["unit"] == "points"
        and (reference is None or reference in (d["run_a"], d["run_b"]))
    ]
    if one_pair:
        a, b = next(iter(pairs))
        title = f"{names[a]} minus {names[b]} on the same test cases (paired 95% intervals)"
    elif reference is not None:
        title = (
            f"Each model minus {names[reference]} on the same test cases "
            "(paired 95% intervals; red: a clear difference)"
        )
    else:
        title = (
            "Differences between models (first minus second), paired 95% intervals; "
            "red: a clear difference"
        )
    return title, shown


def _as_metric(row: MeasureRow, run: str) -> dict[str, Any]:
    return {**row["values"][run], "flag": None}


def _difference(d: DifferenceDict, alpha: float, reference: int | None = None) -> dict[str, Any]:
    """A difference as a chart's bar; the other model minus `reference` when the
    reference is the pair's first (A - B turned round: B - A, its interval mirrored)."""
    metric = d["difference"]
    p = metric["p_holm"]
    clear = p is not None and p < alpha
    out: dict[str, Any] = {**metric, "flag": "clear" if clear else None}
    if reference is not None and d["run_a"] == reference and metric["value"] is not None:
        low, high = metric["ci"]
        out["value"] = -metric["value"]
        out["ci"] = [None if high is None else -high, None if low is None else -low]
    return out


__all__ = [
    "ComparisonView",
    "alike_sentences",
    "build_comparison",
    "comparison_frames",
    "cost_rows",
    "difference_items",
]
