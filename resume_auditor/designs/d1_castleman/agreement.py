"""Error agreement between two models on the same D1 pairs (Castleman et al. 2025, App. D.3).

"When two models are wrong, how often do their wrong answers coincide?" Measuring
agreement only among shared errors removes the agreement that two accurate
models have by simply both being right. A wrong answer is, on an unequal pair,
anything but the more qualified candidate; on an equal pair, any pick (the valid
answer is to abstain). The two runs are matched on (pair_id, ord, rep), so they
must come from the same result file (same pairs). The chance level is the
agreement expected if each model erred with its own habits but independently of
the other: sum over wrong answers o of P_A(o | wrong) * P_B(o | wrong).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypedDict

import numpy as np
import pandas as pd

from resume_auditor.designs.d1_castleman.inputs import D1_JUDGMENTS
from resume_auditor.stats.inputs import validate
from resume_auditor.stats.intervals import clustered_proportion
from resume_auditor.stats.metric import Metric, pct, warn_small
from resume_auditor.stats.model import MetricDict
from resume_auditor.stats.pair_choice import with_choice
from resume_auditor.stats.thresholds import DEFAULT_THRESHOLDS, Thresholds

KEYS = ["pair_id", "ord", "rep"]


class AgreementCounts(TypedDict):
    """`Agreement.as_dict()`: an `error_agreement` entry without the other run's name."""

    shared: int
    a_wrong: int
    b_wrong: int
    chance: float | None
    metrics: dict[str, MetricDict]


@dataclass
class Agreement:
    shared: int = 0  # items both runs answered validly
    a_wrong: int = 0
    b_wrong: int = 0
    metrics: dict[str, Metric] = field(default_factory=dict)
    chance: float | None = None

    def as_dict(self) -> AgreementCounts:
        return {
            "shared": self.shared,
            "a_wrong": self.a_wrong,
            "b_wrong": self.b_wrong,
            "chance": self.chance,
            "metrics": {k: m.as_dict() for k, m in self.metrics.items()},
        }


def _wrong(df: pd.DataFrame) -> np.ndarray:
    target = np.where(df["kind"] == "equal", "abstain", df["truth"])
    return np.asarray(df["choice"].to_numpy() != target, dtype=bool)


def _prepared(df: pd.DataFrame) -> pd.DataFrame:
    out = with_choice(validate(df, D1_JUDGMENTS))
    if "rep" not in out.columns:
        out["rep"] = 0
    out = out[out["choice"] != "invalid"].drop_duplicates(KEYS)
    out["wrong"] = _wrong(out)
    return out


def error_agreement(
    run_a: pd.DataFrame,
    run_b: pd.DataFrame,
    *,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    level: float = 0.95,
    names: tuple[str, str] = ("model A", "model B"),
) -> Agreement:
    a, b = _prepared(run_a), _prepared(run_b)
    both = a.merge(b[[*KEYS, "choice", "wrong"]], on=KEYS, suffixes=("_a", "_b"))
    out = Agreement(shared=int(len(both)))
    if both.empty:
        return out
    out.a_wrong = int(both["wrong_a"].sum())
    out.b_wrong = int(both["wrong_b"].sum())
    small = thresholds.value("small_cell")
    co = both[both["wrong_a"] & both["wrong_b"]]
    same = (co["choice_a"] == co["choice_b"]).to_numpy()
    est = warn_small(clustered_proportion(same, co["cluster"].to_numpy(), level), small)
    wrong_a = both.loc[both["wrong_a"], "choice_a"].value_counts(normalize=True)
    wrong_b = both.loc[both["wrong_b"], "choice_b"].value_counts(normalize=True)
    if len(wrong_a) and len(wrong_b):
        out.chance = float(sum(wrong_a.get(o, 0.0) * p for o, p in wrong_b.items()))
    chance = "" if out.chance is None else f"; {pct(out.chance)} expected if unrelated"
    out.metrics["error_agreement"] = Metric(
        "error_agreement",
        "Error agreement",
        est,
        f"When both {names[0]} and {names[1]} answered a pair wrongly ({est.n} times), they gave "
        f"the same wrong answer {pct(est.value)} of the time{chance}.",
    )
    either = both[both["wrong_a"] | both["wrong_b"]]
    shared_errors = (either["wrong_a"] & either["wrong_b"]).to_numpy()
    co_est = warn_small(
        clustered_proportion(shared_errors, either["cluster"].to_numpy(), level), small
    )
    out.metrics["shared_errors"] = Metric(
        "shared_errors",
        "Shared errors",
        co_est,
        f"Of the {co_est.n} answers where at least one model was wrong, both were wrong in "
        f"{pct(co_est.value)}.",
    )
    return out
