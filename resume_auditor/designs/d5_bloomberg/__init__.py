"""D5: Bloomberg's (2024) eight-name ranking audit, as one design folder.

Eight copies of one resume, one per race x gender, ranked together in balanced
shuffled orders; who comes first, per group, by race and by sex; LL144 impact
ratios; whether the top pick ignores the names; position effects; and what the
model left unranked, per group. Registered in `designs/registry.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import pandas as pd

from resume_auditor.designs.base import (
    Chart,
    Design,
    DesignResult,
    PanelRow,
    RunContext,
    Section,
    Unbuilt,
)
from resume_auditor.designs.d5_bloomberg import present
from resume_auditor.designs.d5_bloomberg.cases import DESIGN, KIND, build_d5
from resume_auditor.designs.d5_bloomberg.model import D5Dict
from resume_auditor.designs.d5_bloomberg.requests import d5_requests
from resume_auditor.designs.d5_bloomberg.settings import SETTINGS, D5Spec
from resume_auditor.designs.d5_bloomberg.table import rankings_table
from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.groups import Group
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import ModelSpec, StudyConfig, StudyError
from resume_auditor.stats.compare import Comparable
from resume_auditor.stats.thresholds import Thresholds
from resume_auditor.store.requests import RequestSpec
from resume_auditor.variants.build import BuiltCases
from resume_auditor.variants.texts import TextSet


class BloombergRanking(Design[D5Spec]):
    key = "d5"
    label = DESIGN
    name = "Eight names ranked together"
    title = f"{name} (D5)"
    include = (
        "Include eight names ranked together: one resume copied under a name of each group "
        "and ranked best to worst"
    )
    intro = (
        "The same resume copied under eight names, one per race and gender, and ranked "
        "best to worst in shuffled orders (Bloomberg 2024). Is every group ranked first "
        "equally often? Would a shortlist pass NYC Local Law 144's four-fifths rule?"
    )
    settings = SETTINGS
    charts = ("d5_top1",)
    clustering = "D5 by batch (every order and repeat of one resume's copies is one cluster)"
    block_type = D5Dict

    def parse(self, values: Mapping[str, Any], config: StudyConfig) -> D5Spec:
        raw = values["groups"]
        keys = [raw] if isinstance(raw, str) else list(raw)
        try:
            groups = tuple(dict.fromkeys(Group.parse(g) for g in keys))
        except ValueError as exc:
            raise StudyError(f"designs.d5.groups: {exc}") from exc
        if len(groups) < 2:
            raise StudyError("designs.d5.groups needs at least two groups to rank together")
        top_k = int(values["top_k"])
        if top_k >= len(groups):
            raise StudyError(
                f"designs.d5.top_k should be smaller than the {len(groups)} groups ranked "
                "together (a shortlist of everyone selects everyone)"
            )
        return D5Spec(
            groups=groups,
            batches=int(values["batches"]),
            orders=int(values["orders"]),
            top_k=top_k,
            prompt=str(values["prompt"]),
        )

    def presets(self, spec: D5Spec) -> list[tuple[str, tuple[str, ...], str]]:
        return [(spec.prompt, ("ranking",), "designs.d5.prompt")]

    def build_cases(
        self,
        texts: Sequence[TextSet],
        job: Job,
        spec: D5Spec,
        seed: int,
        *,
        keep_real_contact: bool = False,
    ) -> BuiltCases:
        return build_d5(texts, job, spec, seed, keep_real_contact=keep_real_contact)

    def unbuilt(self, spec: D5Spec) -> list[Unbuilt]:
        return [Unbuilt(KIND, "whether a group is ranked first more often (D5)")]

    def requests(
        self,
        spec: D5Spec,
        study: StudyConfig,
        model: ModelSpec,
        job_text: str,
        variants: Mapping[int, Variant],
        case: Case,
    ) -> list[RequestSpec]:
        return d5_requests(spec.prompt, study, model, job_text, variants, case)

    def compute(
        self, cases: Mapping[int, Case], answers: pd.DataFrame, thresholds: Thresholds
    ) -> DesignResult | None:
        from resume_auditor.designs.d5_bloomberg.stats import compute_d5

        table = rankings_table(cases, answers)
        if table.empty:
            return None
        top_k = _top_k(cases)
        return compute_d5(table, top_k=top_k, thresholds=thresholds)

    def answer_frames(
        self, cases: Mapping[int, Case], answers: pd.DataFrame
    ) -> dict[str, pd.DataFrame]:
        return {"d5_rankings": rankings_table(cases, answers)}

    # what `rankings_table` reads of the answers
    comparable_columns = frozenset(
        {"case_id", "kind", "parsed", "label", "variants", "request_id", "ukey"}
    )

    def comparable(self, context: RunContext) -> Comparable | None:
        from resume_auditor.designs.d5_bloomberg.compare import comparable

        return comparable(rankings_table(context.cases, context.answers))

    # The methods below receive the block as the registry holds every design's,
    # `Mapping[str, Any]`; each casts it to D5's type once, here, and reads it typed.

    def panel(self, block: Mapping[str, Any]) -> list[PanelRow]:
        return present.panel_rows(cast(D5Dict, block))

    def section(self, block: Mapping[str, Any]) -> Section | None:
        return present.section(cast(D5Dict, block))

    def chart(self, name: str, block: Mapping[str, Any]) -> Chart | None:
        return present.top1_chart(cast(D5Dict, block)) if name == "d5_top1" else None

    def describe_cases(self, cases: Sequence[Case]) -> str:
        return present.describe_cases(cases)

    def cell_words(self, cell: str) -> str:
        return "One resume under eight names, ranked together"

    def counts(self, block: Mapping[str, Any]) -> tuple[int, int, str]:
        if not block:  # the run has no D5 block
            return 0, 0, "rankings"
        b = cast(D5Dict, block)
        return b["answers"], b["unreadable"], "rankings"

    def power(self, spec: D5Spec, cases: Sequence[Case], repeats: int, alpha: float) -> list[str]:
        from resume_auditor.designs.d5_bloomberg.power import (
            EFFECT,
            batches_for_power,
            simulated_power,
        )

        if not cases:
            return []
        batches = len(cases)
        orders = max(len(c.meta.get("orders", [])) for c in cases) or spec.orders
        groups = [g.key for g in spec.groups]
        resumes = len({c.cluster for c in cases})
        power = simulated_power(
            batches=batches,
            orders=orders,
            repeats=repeats,
            groups=groups,
            top_k=spec.top_k,
            alpha=alpha,
        )
        need = batches_for_power(orders=orders, repeats=repeats, groups=groups, alpha=alpha)
        size = f"{batches} batch(es) x {orders} shown order(s) x {repeats} repeat(s)"
        line = (
            f"{self.name} ({self.label}): a group put first half as often as each other "
            f"group (an impact ratio of {EFFECT:.1f}) is flagged in {power:.0%} of simulated "
            f"audits of this size ({size}). "
        )
        if need is None:
            line += "No size the app would suggest reaches 80% for it."
        elif need <= batches:
            line += "That is at least the 80% usually asked for."
        else:
            per = -(-need // resumes)
            line += (
                f"About {need} batches reach 80% ({per} batches per resume with your "
                f"{resumes} resume(s); a cautious normal approximation)."
            )
        line += (
            " Simulated: a ranker that puts each copy first in proportion to its weight, "
            "every answer drawn afresh (at temperature 0 a repeat adds nothing)."
        )
        return [line]


def _top_k(cases: Mapping[int, Case]) -> int:
    """The shortlist size the cases were built for (stored with them)."""
    sizes = {int(c.meta.get("top_k", 0)) for c in cases.values()}
    sizes.discard(0)
    if sizes:
        return min(sizes)
    groups = max((len(c.variants) for c in cases.values()), default=8)
    return max(1, groups // 2)


DESIGN_D5 = BloombergRanking()
