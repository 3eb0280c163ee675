"""How a report writes a metric object's numbers, and where each one sits in the metrics.

One formatter for every number the report prints, the same as the CLI's sentences
(stats.metric.fmt), so "62%" in the report is "62%" in `resume-auditor metrics`.
`path` addresses a metric inside the metrics JSON; the HTML carries it next to
each printed number so a test (or an auditor) can check every number against
`resume-auditor metrics --json`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from resume_auditor.stats.metric import fmt, pct

Path = Sequence[str]


# A metric object (stats/model.py MetricDict) or a plain mapping with the same fields
# (the report's rows and the GUI's charts read only value, ci and unit).
def value_text(metric: Mapping[str, Any] | None) -> str:
    if not metric or metric.get("value") is None:
        return "n/a"
    return fmt(metric["value"], str(metric.get("unit", "proportion")))


def ci_text(metric: Mapping[str, Any] | None) -> str:
    """'76%–100%', '−99 to −9 points', '0.33–1.00'; '' without an interval."""
    if not metric or metric.get("value") is None:
        return ""
    low, high = (metric.get("ci") or [None, None])[:2]
    if low is None or high is None:
        return ""
    unit = str(metric.get("unit", "proportion"))
    if unit == "proportion":
        return f"{pct(low)}–{pct(high)}"
    if unit == "points":
        return f"{100 * low:+.0f} to {100 * high:+.0f} points"
    if unit == "sd":
        return f"{low:+.2f} to {high:+.2f} SD"
    if unit == "difference":
        return f"{low:+.2f} to {high:+.2f}"
    if unit == "number":
        return f"{low:.3g}–{high:.3g}"
    return f"{low:.2f}–{high:.2f}"


def thresholds_by_key(metrics: Mapping[str, Any]) -> dict[str, float]:
    """The report's thresholds (the metrics' `thresholds`) by key, the first of a key."""
    out: dict[str, float] = {}
    for t in metrics.get("thresholds", []):
        out.setdefault(str(t.get("key")), float(t["value"]))
    return out


def p_text(p: Any) -> str:
    if p is None:
        return ""
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def rate_text(value: Any) -> str:
    return pct(value) if isinstance(value, int | float) else "n/a"


def get_path(data: Any, path: Path) -> Any:
    """The value at `path` in nested dicts/lists; KeyError if absent."""
    for key in path:
        data = data[int(key)] if isinstance(data, list) else data[key]
    return data


def path_attr(path: Path) -> str:
    """A path as the HTML attribute carries it (JSON: group keys may hold dots)."""
    return json.dumps([str(p) for p in path], ensure_ascii=False)


def raw_attr(value: Any) -> str:
    """A value exactly as the metrics JSON has it (full precision)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)
