"""Holm's step-down correction for testing several groups at once.

Comparing four (D1) or eight (D2, D3) groups gives four or eight chances to find a
"significant" gap by luck. Holm (1979, "A simple sequentially rejective multiple
test procedure") keeps the chance of any false alarm across the family at alpha
under any dependence between the tests, and is never less powerful than
Bonferroni.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values in the input order; None stays None (no test)."""
    present = [(i, float(p)) for i, p in enumerate(pvalues) if p is not None and p == p]
    out: list[float | None] = [None] * len(pvalues)
    if not present:
        return out
    idx = np.array([i for i, _ in present])
    p = np.array([q for _, q in present])
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    for rank, j in enumerate(order):
        out[int(idx[j])] = float(adjusted[rank])
    return out
