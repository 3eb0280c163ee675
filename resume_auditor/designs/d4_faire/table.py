"""D4's answers as the statistics' tidy tables (docs/stats-inputs.md): the scores of
each scored copy and the rank of each candidate of each ranked batch.

Unreadable answers stay in the tables with empty values, as the statistics expect.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from resume_auditor.designs.d4_faire.inputs import D4_DIMENSIONS
from resume_auditor.domain.case import Case


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if math.isnan(float(value)) else float(value)


def d4_tables(
    cases: Mapping[int, Case], answers: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(scores, rankings) from D4's cases and a run's answers."""
    scores: list[dict[str, Any]] = []
    ranks: list[dict[str, Any]] = []
    if answers.empty:
        return pd.DataFrame(scores), pd.DataFrame(ranks)
    rows = answers[answers["case_id"].isin(list(cases))].to_dict("records")
    for a in rows:
        s = cases[int(a["case_id"])]
        meta, ids = s.meta, s.variants
        if s.kind == "scoring" and a["kind"] == "dimensions":
            i = ids.index(a["variants"][0])
            row: dict[str, Any] = {
                "cluster": s.cluster,
                "variant": meta["variant"][i],
                "group": meta["groups"][i] or None,
                "rep": int(a["rep"]),
            }
            row |= {d: _num(a["parsed"].get(d)) for d in D4_DIMENSIONS}
            scores.append(row)
        elif s.kind == "ranking" and a["kind"] == "ranking":
            # An average rank needs the whole ranking: a list cut short ranks only its
            # top, and counting those ranks alone would favour whoever it did rank.
            given = (a["parsed"].get("ranks") or []) if a["label"] == "ranked" else []
            shown = a["variants"]
            for j, vid in enumerate(shown):
                rank = given[j] if j < len(given) else None
                ranks.append(
                    {
                        # The batch (case set) is the cluster: every order and repeat of it
                        # ranks the same candidates.
                        "batch_id": s.id or 0,
                        "answer_id": int(a["request_id"]),
                        "group": meta["groups"][ids.index(vid)],
                        "rank": None if rank is None else int(rank),
                        "batch_size": len(shown),
                    }
                )
    return pd.DataFrame(scores), pd.DataFrame(ranks)
