"""Reports compared number by number, to 1e-9 relative.

A later numpy or pandas may sum the same values in another order: -2.9999999999999964
where a recorded report has -3.0 (numpy 2.4, pandas 3.1). That is the same number; a
changed estimate, interval, count or flag is not, and is named by where it sits.
"""

from __future__ import annotations

import math
from typing import Any

REL = 1e-9
ABS = 1e-12


def differences(mine: Any, theirs: Any, where: str = "") -> list[str]:
    """Where `mine` and `theirs` differ (empty: the same, floats to 1e-9 relative)."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        if mine.keys() != theirs.keys():
            return [f"{where}: keys {sorted(mine)} != {sorted(theirs)}"]
        return [d for k in mine for d in differences(mine[k], theirs[k], f"{where}/{k}")]
    if isinstance(mine, list) and isinstance(theirs, list):
        if len(mine) != len(theirs):
            return [f"{where}: {len(mine)} items != {len(theirs)}"]
        return [
            d
            for i, (a, b) in enumerate(zip(mine, theirs, strict=True))
            for d in differences(a, b, f"{where}[{i}]")
        ]
    numbers = (int, float)
    if (isinstance(mine, float) or isinstance(theirs, float)) and all(
        isinstance(x, numbers) and not isinstance(x, bool) for x in (mine, theirs)
    ):
        if math.isclose(float(mine), float(theirs), rel_tol=REL, abs_tol=ABS):
            return []
        return [f"{where}: {mine!r} != {theirs!r}"]
    return [] if mine == theirs else [f"{where}: {mine!r} != {theirs!r}"]
