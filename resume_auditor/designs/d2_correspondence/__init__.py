"""D2: the correspondence experiment (Gaebler et al. 2024), as one design folder.

One synthetic copy of each real resume per group (a name that signals race and
gender, matching pronouns), optionally one with the identity removed, each rated
1–5; per group: the standardized difference in mean rating against White men and
the adverse impact ratio at thresholds 3, 4 and 5. Registered in
`designs/registry.py`; its block stays at the top level of the metrics JSON (`d2`),
where it was before the move, and its cases are built in each resume's turn, so case
and variant ids, and so request ukeys, are what they always were.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

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
from resume_auditor.designs.d2_correspondence import present
from resume_auditor.designs.d2_correspondence.cases import build_d2
from resume_auditor.designs.d2_correspondence.inputs import D2_RATINGS
from resume_auditor.designs.d2_correspondence.model import D2Dict
from resume_auditor.designs.d2_correspondence.power import MODEL as POWER_MODEL
from resume_auditor.designs.d2_correspondence.requests import d2_presets, d2_requests
from resume_auditor.designs.d2_correspondence.settings import SETTINGS, D2Spec
from resume_auditor.designs.d2_correspondence.table import d2_table
from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.groups import ALL_GROUPS, REFERENCE_GROUP, Group
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
    from resume_auditor.designs.d2_correspondence.stats import D2Result

KEY = "d2"
LABEL = "D2"


class D2Outcome:
    """D2's statistics (stats.D2Result) as the interface wants them."""

    def __init__(self, result: D2Result) -> None:
        self.result = result
        self.answers = result.ratings
        self.unreadable = result.unreadable

    def all_metrics(self) -> list[Metric]:
        return self.result.all_metrics()

    def flags(self) -> list[str]:
        return self.result.flags()

    def as_dict(self) -> D2Dict:
        return self.result.as_dict()


class CorrespondenceD2(Design[D2Spec]):
    key = KEY
    label = LABEL
    name = "Ratings by group"
    title = "Ratings by group (D2)"
    include = "Include ratings by group: each resume rated alone, once under each group's identity"
    intro = (
        "The same real resumes copied under names that signal different groups, each copy "
        "rated 1–5. Are some groups' copies rated higher or lower than the reference group's?"
    )
    settings = SETTINGS
    charts = ("d2_smd",)
    clustering = "D2 by source resume (its copies under every name are one cluster)"
    placement = "top"
    block_type = D2Dict
    simulated_power = True
    cautious = True
    # its group test gets 80% of its share of alpha; the rest goes to its impact ratios
    # and the race-only and gender-only tests (stats/flags.py)
    power_share = 0.8
    words = present.WORDS
    input_tables = (D2_RATINGS,)
    power_grow = "Add source resumes, or repeats at a temperature above 0 (more ratings per copy)."
    effect_options = (("d2", "0.3", "SD of ratings", 1),)

    def parse(self, values: Mapping[str, Any], config: StudyConfig) -> D2Spec:
        raw = values["groups"]
        keys = [raw] if isinstance(raw, str) else list(raw)
        try:
            groups = tuple(Group.parse(g) for g in keys)
        except ValueError as exc:
            raise StudyError(f"designs.d2.groups: {exc}") from exc
        if len(set(groups)) != len(groups):
            raise StudyError("designs.d2.groups lists a group twice")
        raw_p = values["prompts"]
        spec = D2Spec(
            groups=groups or ALL_GROUPS,
            prompts=tuple([raw_p] if isinstance(raw_p, str) else raw_p),
            manipulation_check=bool(values["manipulation_check"]),
            blinded=bool(values["blinded"]),
            blind_college=bool(values["blind_college"]),
        )
        if not spec.prompts:
            raise StudyError("designs.d2.prompts needs at least one rating prompt, e.g. d2-rating")
        return spec

    def presets(self, spec: D2Spec) -> list[tuple[str, tuple[str, ...], str]]:
        return d2_presets(spec)

    def resume_cases(
        self,
        texts: TextSet,
        job: Job,
        spec: D2Spec,
        seed: int,
        *,
        keep_real_contact: bool = False,
    ) -> BuiltCases | None:
        return build_d2(texts, job, spec, seed, keep_real_contact=keep_real_contact)

    def build_cases(
        self,
        texts: Sequence[TextSet],
        job: Job,
        spec: D2Spec,
        seed: int,
        *,
        keep_real_contact: bool = False,
    ) -> BuiltCases:
        return BuiltCases(0)  # every case comes from one resume (`resume_cases`)

    def unbuilt(self, spec: D2Spec) -> list[Unbuilt]:
        return [Unbuilt("copies", "whether ratings differ by group (D2)")]

    def requests(
        self,
        spec: D2Spec,
        study: StudyConfig,
        model: ModelSpec,
        job_text: str,
        variants: Mapping[int, Variant],
        case: Case,
    ) -> list[RequestSpec]:
        return d2_requests(spec, study, model, job_text, variants, case)

    def compute(
        self, cases: Mapping[int, Case], answers: pd.DataFrame, thresholds: Thresholds
    ) -> DesignResult | None:
        from resume_auditor.designs.d2_correspondence.stats import compute_d2

        ratings = d2_table(cases, answers)
        if ratings.empty:
            return None
        return D2Outcome(compute_d2(ratings, thresholds=thresholds, rng=0))

    # what `d2_table` reads of the answers
    comparable_columns = frozenset({"case_id", "rep", "kind", "parsed", "variants", "preset"})

    def comparable(self, context: RunContext) -> Comparable | None:
        from resume_auditor.designs.d2_correspondence.compare import comparable

        return comparable(d2_table(context.cases, context.answers))

    def answer_frames(
        self, cases: Mapping[int, Case], answers: pd.DataFrame
    ) -> dict[str, pd.DataFrame]:
        return {"d2_ratings": d2_table(cases, answers)}

    def power_target(self, result: DesignResult) -> tuple[Metric, float] | None:
        """The first usable group test of the standardized differences, and the ratings'
        standard deviation (a 0.3 SD effect is 0.3 × sd rating points)."""
        if not isinstance(result, D2Outcome) or not result.result.sd:
            return None
        usable = [
            m
            for m in result.result.smd.values()
            if m.test is not None
            and m.test.joint is not None
            and m.test.share is not None
            and not m.test.untestable
        ]
        return (usable[0], result.result.sd) if usable else None

    def power_counts(self, cases: Sequence[Case]) -> dict[str, int] | None:
        if not cases:
            return None
        groups = {g for s in cases for g in s.meta.get("groups", []) if g}
        return {"resumes": len({s.cluster for s in cases}), "groups": len(groups)}

    def plan_size(self, counts: Mapping[str, int], repeats: int) -> Size | None:
        groups = max(int(counts.get("groups", 2)), 2)
        return Size(LABEL, counts.get("resumes", 0), groups, repeats)

    def power_size(self, tested: Sequence[tuple[Sequence[str], MetricDict]]) -> Size | None:
        """Source resumes behind the group tests, and the groups (the tested ones and the
        reference)."""
        smd = [m for path, m in tested if list(path[:2]) == [KEY, "smd"]]
        clusters = max((int(m.get("clusters") or 0) for _path, m in tested), default=0)
        return Size(LABEL, clusters, len(smd) + 1) if smd and clusters >= 2 else None

    def word_key(self, path: Sequence[str]) -> str | None:
        return present.word_key(path)

    def drill(self, path: Sequence[str]) -> Drill | None:
        return present.drill(path, REFERENCE_GROUP.key)

    def answer_facts(self, kind: str, pick: Callable[[str], list[Any]]) -> dict[str, list[Any]]:
        conditions = pick("conditions")
        return {
            "conditions": conditions,
            "roles": [c if c == "blinded" else "" for c in conditions],
        }

    def panel(self, block: Mapping[str, Any]) -> list[PanelRow]:
        return present.panel_rows(cast(D2Dict, block))

    def section(self, block: Mapping[str, Any]) -> Section | None:
        found = self.sections(block)
        return found[0] if found else None

    def sections(
        self, block: Mapping[str, Any], thresholds: Mapping[str, float] | None = None
    ) -> list[Section]:
        cut = (thresholds or {}).get("impact_ratio", 0.8)
        return present.sections(cast(D2Dict, block), float(cut))

    def chart(self, name: str, block: Mapping[str, Any]) -> Chart | None:
        return present.smd_chart(cast(D2Dict, block)) if name == "d2_smd" else None

    def worst_group(
        self, block: Mapping[str, Any]
    ) -> tuple[str, tuple[str, ...], MetricDict, str] | None:
        return present.worst_group(cast(D2Dict, block))

    perception_check = "the D2 manipulation check"

    def perceived(self, block: Mapping[str, Any]) -> str:
        b = cast(D2Dict, block)
        return " ".join(f"{m['title']}: {m['reading']}" for m in b["manipulation"].values())

    def describe_cases(self, cases: Sequence[Case]) -> str:
        return present.describe_cases(cases)

    def cell_words(self, cell: str) -> str:
        return present.cell_words(cell) if cell else "One resume under different names"

    def counts(self, block: Mapping[str, Any]) -> tuple[int, int, str]:
        b = cast(D2Dict, block)
        return b["ratings"], b["unreadable"], "ratings"

    def approx_power(self, counts: Mapping[str, int], alpha: float, designs: int) -> str | None:
        """Its group tests' smallest standardized difference at 80% power (normal
        approximation over its source resumes)."""
        groups = max(int(counts.get("groups", 2)), 2)
        mde = min_detectable_effect(
            counts.get("resumes", 0), design_alpha(alpha, designs, groups - 1)
        )
        return (
            f"{LABEL}: a standardized difference of {mde:.2f} SD or more."
            if mde is not None
            else f"{LABEL}: too few source resumes to flag even a large rating difference."
        )

    power_models = (POWER_MODEL,)  # its simulated tests (power.py)


DESIGN_D2 = CorrespondenceD2()
