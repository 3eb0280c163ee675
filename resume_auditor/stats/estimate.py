"""A number with its interval, for quantities that are not simple proportions.

Proportions have their own type (`intervals.Proportion`, which also counts
successes). Gaps, standardized differences, impact ratios, RABBI and average ranks
use this one. Both serialise to the same JSON fields so a reader of
docs/metrics-json.md meets one shape everywhere; values that could not be computed
are None (JSON null), never NaN, because the CLI writes strict JSON.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def finite(x: float | None) -> float | None:
    """x as a float, or None when it is missing, NaN or infinite."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class Estimate:
    value: float | None
    low: float | None
    high: float | None
    n: int
    clusters: int
    level: float = 0.95
    p: float | None = None  # two-sided p-value of "no difference", when there is a test
    p_holm: float | None = None  # the same after Holm's correction across the family
    note: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "value": finite(self.value),
            "ci": [finite(self.low), finite(self.high)],
            "level": self.level,
            "n": self.n,
            "successes": None,
            "clusters": self.clusters,
            "note": self.note,
            "p": finite(self.p),
            "p_holm": finite(self.p_holm),
        }
        for key, value in self.extra.items():
            out[key] = _clean(value)
        return out


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return finite(value)
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def empty(level: float = 0.95, note: str = "no observations") -> Estimate:
    return Estimate(None, None, None, 0, 0, level, note=note)
