"""Tidy tables (docs/stats-inputs.md) from a run's stored, parsed answers: the pairs'
judgments (the registry's designs build their own: `Design.compute`,
`Design.answer_frames`) and stats.missing's table of every design.

Each answer names the variants it showed (`variants`, in presentation order) and
its case (`case_id`); the case's `meta` says what each of its variants is
(group, condition, qualified, perturbation). Unreadable answers stay in the
tables with empty values, as the statistics expect.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from resume_auditor.designs.registry import DESIGNS
from resume_auditor.stats.missing import status_of
from resume_auditor.store.resultfile import ResultFile

# The designs whose cases are pairs with a right answer (`Design.pair_tab`): a request
# shows the pair's two candidates, whose groups are the case's `group_a` and `group_b`.
PAIR_DESIGNS = tuple(d.label for d in DESIGNS if d.pair_tab)


def pair_table(result: ResultFile, answers: pd.DataFrame) -> pd.DataFrame:
    """The judgments of a run's answers to pairs (`Design.pair_judgments` of each design
    whose cases are pairs, `Design.pairs`: D1's, where its columns are derived) with the
    variants' details: what the store's, runner's and report's tests read."""
    details = result.variant_details()
    frames = [d.pair_judgments(answers, details) for d in DESIGNS if d.pairs]
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def missing_rows(answers: pd.DataFrame, failed: pd.DataFrame) -> pd.DataFrame:
    """stats.missing's table: one row per candidate shown in each request of a design,
    with the request's status (read, partial, unreadable, refused, failed)."""
    out: list[dict[str, Any]] = []
    for frame, is_failed in ((answers, False), (failed, True)):
        if frame.empty:
            continue
        for a in frame.to_dict("records"):
            if not a.get("design"):
                continue  # a generator's request: no test case, no groups
            status = status_of(a.get("label"), a.get("parsed"), failed=is_failed)
            # A case without a source resume (a D4 batch, a D3 pool) is its own cluster.
            cluster = a.get("cluster")
            if cluster is None or (isinstance(cluster, float) and math.isnan(cluster)):
                cluster = f"case {a['case_id']}"
            shown = list(a.get("variants") or [])
            left = _left_out(a, status)
            for position, group in enumerate(_shown_groups(a), start=1):
                out.append(
                    {
                        "request": int(a["request_id"]),
                        "design": str(a["design"]),
                        "prompt": str(a.get("preset") or ""),
                        "cluster": str(cluster),
                        "position": position,
                        "group": group or None,
                        "status": status,
                        "candidate": shown[position - 1] if position <= len(shown) else None,
                        "unranked": None if left is None else (position - 1) in left,
                    }
                )
    return pd.DataFrame(out, columns=MISSING_COLUMNS)


MISSING_COLUMNS = [
    "request",
    "design",
    "prompt",
    "cluster",
    "position",
    "group",
    "status",
    "candidate",
    "unranked",
]


def _left_out(a: dict[str, Any], status: str) -> set[int] | None:
    """A ranking read whole or in part: the places (0 = shown first) it left unranked.
    None for every other answer (not a ranking, or nothing read)."""
    if a.get("kind") != "ranking" or status not in ("read", "partial"):
        return None
    ranks = (a.get("parsed") or {}).get("ranks")
    if not isinstance(ranks, list):
        return None
    return {i for i, r in enumerate(ranks) if r is None}


def _shown_groups(a: dict[str, Any]) -> list[str]:
    """The group of each candidate a request showed, in the order shown ('' if none)."""
    if a["design"] in PAIR_DESIGNS:  # a pair's two candidates, in the order shown
        pair = [str(a.get("group_a") or ""), str(a.get("group_b") or "")]
        return pair if a.get("ord") != "ba" else pair[::-1]
    meta = a.get("case_meta") or {}
    ids = list(a.get("case_variants") or [])
    groups = list(meta.get("groups") or [])
    shown = []
    for vid in a.get("variants") or []:
        i = ids.index(vid) if vid in ids else -1
        shown.append(str(groups[i] or "") if 0 <= i < len(groups) else "")
    return shown
