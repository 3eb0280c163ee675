"""D4: FAIRE (Wen et al. 2025), scored perturbations and ranked batches, as one design folder.

Each resume scored 1–5 on five dimensions as it is (identity removed), with a
group's name, and with an activity naming the group; batches of one candidate per
race (or one per gender) ranked best to worst. Per group: the score change against
the original, and the average place. Registered in `designs/registry.py`; its block
stays at the top level of the metrics JSON (`d4`), where it was before the move.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from resume_auditor.designs.base import (
    Chart,
    Design,
    DesignResult,
    Drill,
    PanelRow,
    RunContext,
    Section,
    Unbuilt,
)
from resume_auditor.designs.d4_faire import present
from resume_auditor.designs.d4_faire.cases import DESIGN, build_d4_ranking, build_d4_scoring
from resume_auditor.designs.d4_faire.inputs import D4_RANKINGS, D4_SCORES
from resume_auditor.designs.d4_faire.model import D4Dict
from resume_auditor.designs.d4_faire.power import MODEL as POWER_MODEL
from resume_auditor.designs.d4_faire.requests import d4_requests
from resume_auditor.designs.d4_faire.settings import SETTINGS, D4Spec
from resume_auditor.designs.d4_faire.table import d4_tables
from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.groups import ALL_GROUPS, Group
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import ModelSpec, StudyConfig, StudyError
from resume_auditor.stats.compare import Comparable
from resume_auditor.stats.metric import Metric
from resume_auditor.stats.model import MetricDict
from resume_auditor.stats.power import design_alpha, min_detectable_effect
from resume_auditor.stats.power_sim import Size
from resume_auditor.stats.thresholds import Thresholds
from resume_auditor.store.requests import RequestSpec
from resume_auditor.variants.build import BuiltCases
from resume_auditor.variants.texts import TextSet

if TYPE_CHECKING:
    from resume_auditor.designs.d4_faire.stats import D4Result


class D4Outcome:
    """D4's statistics (stats.D4Result) as the interface wants them: `unreadable`
    counts the scoring and the ranking answers that could not be read."""

    def __init__(self, result: D4Result) -> None:
        self.result = result
        self.answers = result.scores + result.rankings
        self.unreadable = result.unreadable + result.unreadable_rankings

    def all_metrics(self) -> list[Metric]:
        return self.result.all_metrics()

    def flags(self) -> list[str]:
        return self.result.flags()

    def as_dict(self) -> D4Dict:
        return self.result.as_dict()


KEY = "d4"


class FaireD4(Design[D4Spec]):
    key = KEY
    label = DESIGN
    name = "Scores and rankings"
    title = "Scores and ranks (D4)"
    include = (
        "Include scores and rankings: each resume scored with and without a group signal, "
        "and batches ranked best to worst"
    )
    intro = (
        "Resumes scored on five dimensions with no name, with a group's name, or with an "
        "activity naming the group; and batches ranked best to worst. Does the signal move "
        "the scores or the places?"
    )
    settings = SETTINGS
    charts = ("d4_scores", "d4_ranks")
    clustering = (
        "D4 scores by source resume, D4 ranks by batch (every order and repeat of a "
        "batch is one cluster)"
    )
    placement = "top"
    block_type = D4Dict
    simulated_power = True
    cautious = True
    words = present.WORDS
    input_tables = (D4_SCORES, D4_RANKINGS)
    power_grow = (
        "Add source resumes, repeats at a temperature above 0, and raise `race_batches` / "
        "`gender_batches` in [designs.d4]."
    )
    screen_words = (
        (
            r"raise `race_batches` / `gender_batches` in \[designs\.d4\]\.",
            "raise the Rankings batches on the Scores and rankings tab.",
        ),
    )
    effect_options = (("d4", "0.3", "SD of the overall score", 1),)

    def parse(self, values: Mapping[str, Any], config: StudyConfig) -> D4Spec:
        raw = values["groups"]
        keys = [raw] if isinstance(raw, str) else list(raw)
        try:
            groups = tuple(Group.parse(g) for g in keys)
        except ValueError as exc:
            raise StudyError(f"designs.d4.groups: {exc}") from exc
        if len(set(groups)) != len(groups):
            raise StudyError("designs.d4.groups lists a group twice")
        raw_p = values["perturbations"]
        spec = D4Spec(
            groups=groups or ALL_GROUPS,
            perturbations=tuple([raw_p] if isinstance(raw_p, str) else raw_p),
            scoring_prompt=str(values["scoring_prompt"]),
            ranking_prompt=str(values["ranking_prompt"]),
            race_batches=int(values["race_batches"]),
            gender_batches=int(values["gender_batches"]),
            orders_per_batch=int(values["orders_per_batch"]),
            all_orders=bool(values["all_orders"]),
        )
        if not spec.scoring_prompt and not spec.ranking_prompt:
            raise StudyError("designs.d4 needs a scoring_prompt or a ranking_prompt")
        return spec

    def presets(self, spec: D4Spec) -> list[tuple[str, tuple[str, ...], str]]:
        out: list[tuple[str, tuple[str, ...], str]] = []
        if spec.scoring_prompt:
            out.append((spec.scoring_prompt, ("dimensions",), "designs.d4.scoring_prompt"))
        if spec.ranking_prompt:
            out.append((spec.ranking_prompt, ("ranking",), "designs.d4.ranking_prompt"))
        return out

    def resume_cases(
        self,
        texts: TextSet,
        job: Job,
        spec: D4Spec,
        seed: int,
        *,
        keep_real_contact: bool = False,
    ) -> BuiltCases | None:
        if not spec.scoring_prompt:
            return None
        return build_d4_scoring(texts, job, spec, seed, keep_real_contact=keep_real_contact)

    def build_cases(
        self,
        texts: Sequence[TextSet],
        job: Job,
        spec: D4Spec,
        seed: int,
        *,
        keep_real_contact: bool = False,
    ) -> BuiltCases:
        return build_d4_ranking(list(texts), job, spec, seed, keep_real_contact=keep_real_contact)

    def unbuilt(self, spec: D4Spec) -> list[Unbuilt]:
        out = []
        if spec.scoring_prompt:
            out.append(Unbuilt("scoring", "whether scores change with a group signal (D4)"))
        if spec.ranking_prompt and (spec.race_batches or spec.gender_batches):
            out.append(Unbuilt("ranking", "whether ranked batches favour a group (D4)"))
        return out

    def requests(
        self,
        spec: D4Spec,
        study: StudyConfig,
        model: ModelSpec,
        job_text: str,
        variants: Mapping[int, Variant],
        case: Case,
    ) -> list[RequestSpec]:
        return d4_requests(spec, study, model, job_text, variants, case)

    def compute(
        self, cases: Mapping[int, Case], answers: pd.DataFrame, thresholds: Thresholds
    ) -> DesignResult | None:
        from resume_auditor.designs.d4_faire.stats import compute_d4

        scores, rankings = d4_tables(cases, answers)
        if scores.empty and rankings.empty:
            return None
        return D4Outcome(
            compute_d4(
                scores if not scores.empty else None,
                rankings if not rankings.empty else None,
                thresholds=thresholds,
            )
        )

    # what `d4_tables` reads of the answers
    comparable_columns = frozenset(
        {"case_id", "kind", "variants", "rep", "parsed", "label", "request_id"}
    )

    def comparable(self, context: RunContext) -> Comparable | None:
        from resume_auditor.designs.d4_faire.compare import comparable

        return comparable(*d4_tables(context.cases, context.answers))

    def answer_frames(
        self, cases: Mapping[int, Case], answers: pd.DataFrame
    ) -> dict[str, pd.DataFrame]:
        scores, rankings = d4_tables(cases, answers)
        return {"d4_scores": scores, "d4_rankings": rankings}

    def power_target(self, result: DesignResult) -> tuple[Metric, float] | None:
        """The first usable name-perturbation test of the overall score, and the spread
        of the permutation test's values (score points)."""
        if not isinstance(result, D4Outcome):
            return None
        by_dim = result.result.differences.get("name", {}).get("overall", {})
        usable = [
            m
            for m in by_dim.values()
            if m.test is not None
            and m.test.joint is not None
            and m.test.share is not None
            and not m.test.untestable
        ]
        if not usable:
            return None
        test = usable[0].test
        assert test is not None and test.joint is not None
        values = np.asarray(test.joint.blocks[0].values, dtype=float)
        spread = float(np.nanstd(values)) if np.isfinite(values).any() else 0.0
        return usable[0], spread

    def power_counts(self, cases: Sequence[Case]) -> dict[str, int] | None:
        scoring = [s for s in cases if s.kind == "scoring"]
        ranking = [s for s in cases if s.kind == "ranking"]
        if not scoring and not ranking:
            return None
        groups = {g for s in scoring for g in s.meta.get("groups", []) if g}
        return {
            "resumes": len({s.cluster for s in scoring}),
            "groups": max(len(groups), 2),
            "batches": len(ranking),
            "batch_size": max((len(s.variants) for s in ranking), default=5),
        }

    def plan_size(self, counts: Mapping[str, int], repeats: int) -> Size | None:
        groups = max(int(counts.get("groups", 2)), 2)
        return Size(DESIGN, counts.get("resumes", 0), groups, repeats, counts.get("batches", 0))

    def power_size(self, tested: Sequence[tuple[Sequence[str], MetricDict]]) -> Size | None:
        """Source resumes behind the name tests, their groups, and the ranked batches."""
        names = [m for path, m in tested if list(path[:3]) == [KEY, "differences", "name"]]
        ranks = [m for path, m in tested if list(path[:2]) == [KEY, "ranks"]]
        resumes = max((int(m.get("n") or 0) for m in names), default=0)
        batches = max((int(m.get("clusters") or 0) for m in ranks), default=0)
        if not names or resumes < 2:
            return None
        return Size(DESIGN, resumes, len(names), 1, batches)

    def word_key(self, path: Sequence[str]) -> str | None:
        return path[1] if len(path) >= 2 and path[1] in self.words else None

    def drill(self, path: Sequence[str]) -> Drill | None:
        return present.drill(path)

    def answer_facts(self, kind: str, pick: Callable[[str], list[Any]]) -> dict[str, list[Any]]:
        if kind != "scoring":
            return {}
        variant = pick("variant")
        return {"variant": variant, "roles": [present.ROLES.get(str(v), str(v)) for v in variant]}

    # The methods below receive the block as the registry holds every design's,
    # `Mapping[str, Any]`; each casts it to D4's type once, here, and reads it typed.

    def panel(self, block: Mapping[str, Any]) -> list[PanelRow]:
        return present.panel_rows(cast(D4Dict, block))

    def section(self, block: Mapping[str, Any]) -> Section | None:
        return present.section(cast(D4Dict, block))

    def chart(self, name: str, block: Mapping[str, Any]) -> Chart | None:
        b = cast(D4Dict, block)
        if name == "d4_scores":
            return present.scores_chart(b)
        if name == "d4_ranks":
            return present.ranks_chart(b)
        return None

    def describe_cases(self, cases: Sequence[Case]) -> str:
        return present.describe_cases(cases)

    def cell_words(self, cell: str) -> str:
        return present.cell_words(cell) if cell else self.name

    def counts(self, block: Mapping[str, Any]) -> tuple[int, int, str]:
        if not block:  # the run has no D4 block
            return 0, 0, "scores and rankings"
        b = cast(D4Dict, block)
        answers = b["scores"] + b["rankings"]
        unreadable = b["unreadable"] + b["unreadable_rankings"]
        return answers, unreadable, "scores and rankings"

    def approx_power(self, counts: Mapping[str, int], alpha: float, designs: int) -> str | None:
        """The smallest score difference and average-rank shift it can flag at 80% power
        (normal approximation over source resumes and ranked batches)."""
        groups = max(int(counts.get("groups", 2)), 2)
        batch = max(int(counts.get("batch_size", 5)), 2)
        tests = 2 * groups + groups  # differences (2 perturbations) and ranks
        a = design_alpha(alpha, designs, tests)
        mde = min_detectable_effect(counts.get("resumes", 0), a)
        rank_sd = math.sqrt((batch * batch - 1) / 12)
        mde_rank = min_detectable_effect(counts.get("batches", 0), a)
        parts = []
        if mde is not None:
            parts.append(f"a score difference of {mde:.2f} SD")
        if mde_rank is not None:
            parts.append(f"an average rank {mde_rank * rank_sd:.2f} places off chance")
        return f"{DESIGN}: " + (
            " or ".join(parts) + " or more."
            if parts
            else "too few source resumes and batches to flag even a large effect."
        )

    power_models = (POWER_MODEL,)  # its simulated tests (power.py)


DESIGN_D4 = FaireD4()
