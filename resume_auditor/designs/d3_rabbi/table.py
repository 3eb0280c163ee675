"""D3's answers as the statistics' tidy tables (docs/stats-inputs.md): each candidate's
score from an answer about it alone, and each answer to a pair in one order.

Unreadable answers stay in the tables with empty values, as the statistics expect.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from resume_auditor.designs.d3_rabbi.requests import PAIRWISE_KINDS, POINTWISE_KINDS
from resume_auditor.domain.case import Case

_PAIR_LABELS = {"first": "first", "second": "second", "abstain": "tie", "invalid": "invalid"}


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if math.isnan(float(value)) else float(value)


def _point_score(a: dict[str, Any]) -> dict[str, float | None]:
    p = a["parsed"]
    if a["kind"] == "rating":
        return {"rating": _num(p.get("rating"))}
    score = _num(p.get("score"))
    if score is None and a["label"] in ("yes", "no"):
        score = 1.0 if a["label"] == "yes" else 0.0  # no log-probabilities: the answer itself
    return {"score": score, "p_yes": _num(p.get("p_yes")), "p_no": _num(p.get("p_no"))}


def _source(meta: Mapping[str, Any], i: int) -> str | None:
    """The source resume of a pool's i-th candidate (pools share source resumes)."""
    sources = meta.get("sources") or []
    return str(sources[i]) if i < len(sources) and sources[i] is not None else None


def d3_tables(
    cases: Mapping[int, Case], answers: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(pointwise, pairwise) from D3's pools and a run's answers."""
    point: list[dict[str, Any]] = []
    pair: list[dict[str, Any]] = []
    if answers.empty:
        return pd.DataFrame(point), pd.DataFrame(pair)
    rows = answers[answers["case_id"].isin(list(cases))].to_dict("records")
    for a in rows:
        s = cases[int(a["case_id"])]
        meta, ids = s.meta, s.variants
        if a["kind"] in POINTWISE_KINDS:
            vid = a["variants"][0]
            i = ids.index(vid)
            point.append(
                {
                    "pool_id": s.id,
                    "source": _source(meta, i),
                    "candidate_id": vid,
                    "group": meta["groups"][i],
                    "qualified": bool(meta["qualified"][i]),
                    "rep": int(a["rep"]),
                }
                | _point_score(a)
            )
        elif a["kind"] in PAIRWISE_KINDS:
            shown = a["variants"]
            cand_a, cand_b = (shown[0], shown[1]) if a["ord"] == "ab" else (shown[1], shown[0])
            ia, ib = ids.index(cand_a), ids.index(cand_b)
            pair.append(
                {
                    "pool_id": s.id,
                    "cand_a": cand_a,
                    "cand_b": cand_b,
                    "group_a": meta["groups"][ia],
                    "group_b": meta["groups"][ib],
                    "ord": a["ord"],
                    "label": _PAIR_LABELS.get(a["label"], "invalid"),
                    "rep": int(a["rep"]),
                    "qualified_a": bool(meta["qualified"][ia]),
                    "qualified_b": bool(meta["qualified"][ib]),
                    "source_a": _source(meta, ia),
                    "source_b": _source(meta, ib),
                }
            )
    return pd.DataFrame(point), pd.DataFrame(pair)
