"""D5's headline measures for comparing models on the same batches (issue 28).

Bloomberg compared GPT-3.5 with GPT-4 by how often each group's name came first; that
selection rate is what NYC Local Law 144 and a hiring manager read. The measure per
group is the run's own top-1 rate (`d5.top1.<group>`): the group's copies put first
over its copies in answers read at least to the first place, recomputed from sums per
batch (D5's clustering unit) so that stats/compare.py can leave a batch out of both
runs at once.
"""

from __future__ import annotations

import logging

import pandas as pd

from resume_auditor.designs.d5_bloomberg.stats import _answers, _checked
from resume_auditor.stats.compare import Comparable, Measure, ratio
from resume_auditor.stats.labels import label

logger = logging.getLogger(__name__)


def comparable(rankings: pd.DataFrame) -> Comparable | None:
    """D5's rankings table of one run as a comparison table (None: nothing read)."""
    if rankings.empty:
        return None
    df = _checked(rankings)
    answers = _answers(df)
    depth = df["answer_id"].map(answers["depth"])
    read = df[(depth >= 1).to_numpy()]
    if read.empty:
        return None
    groups = sorted(set(df["group"]))
    table = pd.DataFrame({"cluster": read["batch_id"].astype(str).to_numpy()})
    is_top = (read["rank"] == 1).to_numpy()
    shown = read["group"].astype(str).to_numpy()
    measures = []
    for g in groups:
        table[f"top_{g}"] = (is_top & (shown == g)).astype(float)
        table[f"in_{g}"] = (shown == g).astype(float)
        measures.append(
            Measure(
                f"top1.{g}",
                f"Ranked first: {label(g)}",
                (f"top_{g}", f"in_{g}"),
                ratio(0, 1),
                f"ranks {label(g)} candidates first more often",
                path=("designs", "d5", "top1", g),
                cluster=("batch", "batches"),
                kind="fairness",
            )
        )
    return Comparable(table, tuple(measures))


__all__ = ["comparable"]
