"""D2's answers as the statistics' tidy table (docs/stats-inputs.md, `D2_RATINGS`): one
row per rating of one copy of a resume, with what the model took the candidate to be.

Unreadable answers stay in the table with empty values, as the statistics expect.
The perceived race and gender of a copy come from its manipulation-check answer
(the first repeat's, when there are several).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from resume_auditor.domain.case import Case


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if math.isnan(float(value)) else float(value)


def d2_table(cases: Mapping[int, Case], answers: pd.DataFrame) -> pd.DataFrame:
    """The ratings table from D2's cases (by id) and a run's answers."""
    if answers.empty:
        return pd.DataFrame([])
    mask = answers["case_id"].isin(list(cases))
    rows = [dict(r) for r in answers[mask].to_dict("records")]
    perceived: dict[int, tuple[str, str]] = {}
    for a in sorted(rows, key=lambda r: int(r["rep"]), reverse=True):
        if a["kind"] == "manipulation":
            p = a["parsed"]
            perceived[a["variants"][0]] = (
                p.get("perceived_race", ""),
                p.get("perceived_gender", ""),
            )
    out = []
    for a in rows:
        if a["kind"] != "rating":
            continue
        s = cases[int(a["case_id"])]
        vid = a["variants"][0]
        i = s.variants.index(vid)
        p = a["parsed"]
        race, gender = perceived.get(vid, ("", ""))
        out.append(
            {
                "cluster": s.cluster,
                "condition": s.meta["conditions"][i],
                "group": s.meta["groups"][i] or None,
                "rating": _num(p.get("rating")),
                "experience": _num(p.get("experience")),
                "professionalism": _num(p.get("professionalism")),
                "fit": _num(p.get("fit")),
                "prompt": a["preset"],
                "rep": int(a["rep"]),
                "perceived_race": race or None,
                "perceived_gender": gender or None,
            }
        )
    return pd.DataFrame(out)
