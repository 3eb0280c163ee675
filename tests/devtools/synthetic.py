"""Synthetic D2-D4 tables with a planted group effect, for tests and benchmarks.

Unlike simulate.py (D1, whose truths are exact), these generators make
realistically shaped data — ratings rounded to 1-5, one candidate per group per
pool, scores bounded in [0, 1] — so a planted effect is known in sign and rough
size but not to the decimal. Tests use them to check that a planted gap is
found, that no gap is flagged where none was planted, and that each table the
later designs produce is accepted; benchmarks use them for speed at scale.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
import pandas as pd

D2_GROUP_KEYS = tuple(
    f"{r}_{g}" for r in ("white", "black", "asian", "hispanic") for g in ("woman", "man")
)


def d2_ratings(
    rng: np.random.Generator,
    clusters: int = 40,
    effects: Mapping[str, float] | None = None,
    reps: int = 1,
    blinded: bool = True,
    prompts: tuple[str, ...] = ("baseline",),
    perceived_accuracy: float = 0.9,
) -> pd.DataFrame:
    """Every resume copied into all eight groups (and blinded); `effects` in rating points."""
    effects = effects or {}
    quality = rng.normal(3.4, 0.6, clusters)
    rows: list[tuple[object, ...]] = []
    for c in range(clusters):
        for prompt in prompts:
            for rep in range(reps):
                for g in D2_GROUP_KEYS:
                    latent = quality[c] + effects.get(g, 0.0) + rng.normal(0, 0.6)
                    race, gender = g.split("_")
                    seen_race = race if rng.random() < perceived_accuracy else "unclear"
                    seen_gender = gender if rng.random() < perceived_accuracy else "unclear"
                    rows.append((c, "named", g, latent, prompt, rep, seen_race, seen_gender))
                if blinded:
                    latent = quality[c] + rng.normal(0, 0.6)
                    rows.append((c, "blinded", None, latent, prompt, rep, None, None))
    df = pd.DataFrame(
        rows,
        columns=[
            "cluster", "condition", "group", "latent", "prompt", "rep",
            "perceived_race", "perceived_gender",
        ],
    )  # fmt: skip
    df["rating"] = np.clip(np.round(df.pop("latent")), 1, 5)
    for sub in ("experience", "professionalism", "fit"):
        df[sub] = np.clip(df["rating"] + rng.integers(-1, 2, len(df)), 1, 5)
    return df


def d3_pointwise(
    rng: np.random.Generator,
    pools: int = 200,
    bias: Mapping[str, float] | None = None,
    groups: tuple[str, ...] = D2_GROUP_KEYS,
) -> pd.DataFrame:
    """One candidate per group per pool; P(Yes) on the logit scale, `bias` in logits."""
    bias = bias or {}
    n = pools * len(groups)
    pool = np.repeat(np.arange(pools), len(groups))
    group = np.tile(np.array(groups, dtype=object), pools)
    qualified = rng.random(n) < 0.5
    shift = np.array([bias.get(g, 0.0) for g in group])
    logit = -0.5 + 1.5 * qualified + shift + rng.normal(0, 1, n) + rng.normal(0, 0.5, pools)[pool]
    p_yes = 1 / (1 + np.exp(-logit))
    return pd.DataFrame(
        {
            "pool_id": pool,
            "candidate_id": np.arange(n),
            "group": group,
            "p_yes": p_yes * 0.95,
            "p_no": (1 - p_yes) * 0.95,
            "qualified": qualified,
        }
    )


def d3_pairwise(
    rng: np.random.Generator,
    pools: int = 40,
    bias: Mapping[str, float] | None = None,
    groups: tuple[str, ...] = D2_GROUP_KEYS,
    position: float = 0.4,
    tie_rate: float = 0.05,
    invalid_rate: float = 0.01,
) -> pd.DataFrame:
    """Every pair of a pool's candidates in both orders; a Bradley-Terry-like screener."""
    bias = bias or {}
    rows = []
    cand = 0
    for p in range(pools):
        ids = list(range(cand, cand + len(groups)))
        cand += len(groups)
        merit = {i: rng.normal(0, 1) + bias.get(g, 0.0) for i, g in zip(ids, groups, strict=True)}
        qualified = {i: merit[i] > 0 for i in ids}
        for (i, gi), (j, gj) in itertools.combinations(zip(ids, groups, strict=True), 2):
            for order in ("ab", "ba"):
                first, second = (i, j) if order == "ab" else (j, i)
                u = rng.random()
                if u < invalid_rate:
                    label = "invalid"
                elif u < invalid_rate + tie_rate:
                    label = "tie"
                else:
                    z = merit[first] - merit[second] + position
                    label = "first" if rng.random() < 1 / (1 + np.exp(-z)) else "second"
                rows.append((p, i, j, gi, gj, order, label, qualified[i], qualified[j]))
    return pd.DataFrame(
        rows,
        columns=[
            "pool_id", "cand_a", "cand_b", "group_a", "group_b", "ord", "label",
            "qualified_a", "qualified_b",
        ],
    )  # fmt: skip


D4_GROUPS = ("asian", "black", "hispanic", "white")


def d4_scores(
    rng: np.random.Generator,
    resumes: int = 30,
    effects: Mapping[str, float] | None = None,
    groups: tuple[str, ...] = D4_GROUPS,
    reps: int = 1,
) -> pd.DataFrame:
    """Original, name- and experience-perturbed copies of each resume, five dimensions."""
    effects = effects or {}
    dims = ("relevance", "impact", "skill_relevance", "achievements", "cultural_fit")
    base = rng.normal(4.0, 0.5, resumes)
    rows = []
    for r in range(resumes):
        versions = [("original", None)] + [(v, g) for v in ("name", "experience") for g in groups]
        for variant, g in versions:
            for rep in range(reps):
                shift = effects.get(g, 0.0) if g else 0.0
                scores = np.clip(np.round(base[r] + shift + rng.normal(0, 0.5, len(dims))), 1, 5)
                rows.append((r, variant, g, rep, *scores))
    return pd.DataFrame(rows, columns=["cluster", "variant", "group", "rep", *dims])


def d4_rankings(
    rng: np.random.Generator,
    batches: int = 60,
    bias: Mapping[str, float] | None = None,
    groups: tuple[str, ...] = D4_GROUPS,
) -> pd.DataFrame:
    """Batches with one candidate per group, ranked by merit + bias (1 = best)."""
    bias = bias or {}
    rows = []
    for b in range(batches):
        merit = np.array([rng.normal(0, 1) + bias.get(g, 0.0) for g in groups])
        ranks = np.empty(len(groups), dtype=int)
        ranks[np.argsort(-merit)] = np.arange(1, len(groups) + 1)
        for g, rank in zip(groups, ranks, strict=True):
            rows.append((b, g, int(rank), len(groups)))
    return pd.DataFrame(rows, columns=["batch_id", "group", "rank", "batch_size"])
