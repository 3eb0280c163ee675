"""The groupings NYC Local Law 144 asks an impact-ratio table for, in its order.

Shared because the pairs design's impact-ratio table (its folder's impact.py) computes
by them and the report and the Results page title their tables with them, without
reaching into a design's folder.
"""

from __future__ import annotations

GROUPINGS = ("sex", "race", "intersectional")
GROUPING_TITLES = {
    "sex": "By sex",
    "race": "By race/ethnicity",
    "intersectional": "Intersectional (race/ethnicity and sex)",
}
