"""D5's answers as the statistics' tidy table: one row per answer and candidate shown."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from resume_auditor.domain.case import Case

COLUMNS = ["batch_id", "answer_id", "presentation", "position", "group", "rank", "status"]


def rankings_table(cases: Mapping[int, Case], answers: pd.DataFrame) -> pd.DataFrame:
    """`status`: "ranked" (read whole), "partial" (its top stands), "unreadable"."""
    rows: list[dict[str, Any]] = []
    for a in answers.to_dict("records"):
        case = cases.get(int(a["case_id"])) if a.get("case_id") is not None else None
        if case is None or a["kind"] != "ranking":
            continue
        parsed = a["parsed"] or {}
        label = str(a["label"])
        status = {"ranked": "ranked", "partial": "partial"}.get(label, "unreadable")
        given = parsed.get("ranks") or [] if status != "unreadable" else []
        shown = list(a["variants"] or [])
        groups = case.meta["groups"]
        for j, vid in enumerate(shown):
            rank = given[j] if j < len(given) else None
            rows.append(
                {
                    "batch_id": int(case.id or 0),
                    "answer_id": int(a["request_id"]),
                    "presentation": str(a["ukey"]),
                    "position": j,
                    "group": groups[case.variants.index(vid)],
                    "rank": math.nan if rank is None else float(rank),
                    "status": status,
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS)
