"""D3: allocation pools (Chen et al. 2024, RABBI), as one design folder.

`rounds` pools, each with one candidate per group dealt from the audit's resumes (a
share of them given the resume's less-qualified copy); the model scores each candidate
alone (pointwise: the probability of Yes, or a rating) and/or compares every two of a
pool in both orders (pairwise). Per group against the reference: RABBI, the score gap,
the spread distances and the top-k selection gaps. Registered in `designs/registry.py`;
its block stays at the top level of the metrics JSON (`d3`), where it was before the move.
"""

from __future__ import annotations

import math
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
from resume_auditor.designs.d3_rabbi import present
from resume_auditor.designs.d3_rabbi.cases import build_d3
from resume_auditor.designs.d3_rabbi.inputs import D3_PAIRWISE, D3_POINTWISE
from resume_auditor.designs.d3_rabbi.model import D3Dict
from resume_auditor.designs.d3_rabbi.power import MODEL as POWER_MODEL
from resume_auditor.designs.d3_rabbi.requests import PAIRWISE_KINDS, POINTWISE_KINDS, d3_requests
from resume_auditor.designs.d3_rabbi.settings import SETTINGS, D3Spec
from resume_auditor.designs.d3_rabbi.table import d3_tables
from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.groups import ALL_GROUPS, REFERENCE_GROUP, Group
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import ModelSpec, StudyConfig, StudyError
from resume_auditor.stats.compare import Comparable
from resume_auditor.stats.metric import Metric
from resume_auditor.stats.model import MetricDict
from resume_auditor.stats.power import design_alpha, min_detectable_effect
from resume_auditor.stats.power_sim import MOST, Size
from resume_auditor.stats.thresholds import Thresholds
from resume_auditor.store.requests import RequestSpec
from resume_auditor.variants.build import BuiltCases
from resume_auditor.variants.texts import TextSet

if TYPE_CHECKING:
    from resume_auditor.designs.d3_rabbi.stats import D3Result

KEY = "d3"
LABEL = "D3"


class D3Outcome:
    """D3's statistics (stats.D3Result) as the interface wants them: `answers` counts
    the candidates scored alone and the pairwise answers, `unreadable` those of both
    methods that could not be read."""

    def __init__(self, result: D3Result, answers: int) -> None:
        self.result = result
        self.answers = answers
        parts = (result.pointwise, result.pairwise)
        self.unreadable = sum(p.unreadable for p in parts if p is not None)

    def all_metrics(self) -> list[Metric]:
        return self.result.all_metrics()

    def flags(self) -> list[str]:
        return self.result.flags()

    def as_dict(self) -> D3Dict:
        return self.result.as_dict()


class RabbiD3(Design[D3Spec]):
    key = KEY
    label = LABEL
    name = "Candidate pools"
    title = "Pools (D3)"
    include = "Include candidate pools: one candidate per group in each pool, over several rounds"
    intro = (
        "Pools with one candidate per group, scored by the model. Which groups end up ranked "
        "above the others, and who would make a shortlist of the top candidates?"
    )
    settings = SETTINGS
    charts = ("d3_rabbi",)
    clustering = (
        "D3 by pool and by source resume together (pools share source resumes: the "
        "bootstrap resamples both; repeats of a candidate are averaged before ranking)"
    )
    placement = "top"
    block_type = D3Dict
    simulated_power = True
    power_basis = "model"
    words = present.WORDS
    input_tables = (D3_POINTWISE, D3_PAIRWISE)
    power_grow = "Raise `rounds` in [designs.d3]."
    effect_options = (("d3", "0.3", "SD of scores", 1),)
    enlarge_words = "more D3 rounds"
    screen_words = (
        (r"\bRaise `rounds` in \[designs\.d3\]\.", "Raise Rounds on the Candidate pools tab."),
        (r"\bD3 rounds (\d+)", r"Candidate pools: \1 rounds"),
    )

    def parse(self, values: Mapping[str, Any], config: StudyConfig) -> D3Spec:
        raw = values["groups"]
        keys = [raw] if isinstance(raw, str) else list(raw)
        try:
            groups = tuple(Group.parse(g) for g in keys)
        except ValueError as exc:
            raise StudyError(f"designs.d3.groups: {exc}") from exc
        if len(set(groups)) != len(groups):
            raise StudyError("designs.d3.groups lists a group twice")
        share = float(values["unqualified_share"])
        if not 0.0 <= share < 1.0:
            raise StudyError(
                "designs.d3.unqualified_share should be from 0 up to (not including) 1"
            )
        spec = D3Spec(
            groups=groups or ALL_GROUPS,
            rounds=int(values["rounds"]),
            prompt=str(values["prompt"]),
            pairwise_prompt=str(values["pairwise_prompt"]),
            unqualified_share=share,
            k=int(values["k"]),
        )
        if len(spec.groups) < 2:
            raise StudyError("designs.d3.groups needs at least two groups to compare")
        if not spec.prompt and not spec.pairwise_prompt:
            raise StudyError("designs.d3 needs a prompt or a pairwise_prompt")
        return spec

    def presets(self, spec: D3Spec) -> list[tuple[str, tuple[str, ...], str]]:
        out: list[tuple[str, tuple[str, ...], str]] = []
        if spec.prompt:
            out.append((spec.prompt, POINTWISE_KINDS, "designs.d3.prompt"))
        if spec.pairwise_prompt:
            out.append((spec.pairwise_prompt, PAIRWISE_KINDS, "designs.d3.pairwise_prompt"))
        return out

    def less_ks(self, spec: D3Spec) -> tuple[int, ...]:
        return (spec.k,)

    def logprob_note(self, model: str) -> str:
        return (
            f"D3 scores will be bare answers: {model} gives no token log-probabilities, so "
            "each candidate scores Yes or No only and RABBI compares many ties (wide intervals, "
            "low power). A model or server that gives log-probabilities, or the d3-rating "
            "prompt, scores candidates finely."
        )

    def build_cases(
        self,
        texts: Sequence[TextSet],
        job: Job,
        spec: D3Spec,
        seed: int,
        *,
        keep_real_contact: bool = False,
    ) -> BuiltCases:
        return build_d3(list(texts), job, spec, seed, keep_real_contact=keep_real_contact)

    def unbuilt(self, spec: D3Spec) -> list[Unbuilt]:
        return [Unbuilt("pool", "whether pools are screened fairly (D3)")]

    def requests(
        self,
        spec: D3Spec,
        study: StudyConfig,
        model: ModelSpec,
        job_text: str,
        variants: Mapping[int, Variant],
        case: Case,
    ) -> list[RequestSpec]:
        return d3_requests(spec, study, model, job_text, variants, case)

    def compute(
        self, cases: Mapping[int, Case], answers: pd.DataFrame, thresholds: Thresholds
    ) -> DesignResult | None:
        from resume_auditor.designs.d3_rabbi.stats import compute_d3

        pointwise, pairwise = d3_tables(cases, answers)
        if pointwise.empty and pairwise.empty:
            return None
        result = compute_d3(
            pointwise if not pointwise.empty else None,
            pairwise if not pairwise.empty else None,
            thresholds=thresholds,
            rng=0,
        )
        return D3Outcome(result, len(pointwise) + len(pairwise))

    # what `d3_tables` reads of the answers
    comparable_columns = frozenset({"case_id", "kind", "variants", "rep", "ord", "label", "parsed"})

    def comparable(self, context: RunContext) -> Comparable | None:
        """Each group's RABBI per scoring method (designs/d3_rabbi/compare.py)."""
        from resume_auditor.designs.d3_rabbi.compare import comparable

        return comparable(*d3_tables(context.cases, context.answers))

    def answer_frames(
        self, cases: Mapping[int, Case], answers: pd.DataFrame
    ) -> dict[str, pd.DataFrame]:
        pointwise, pairwise = d3_tables(cases, answers)
        return {"d3_pointwise": pointwise, "d3_pairwise": pairwise}

    def power_target(self, result: DesignResult) -> tuple[Metric, float] | None:
        """The first usable pointwise RABBI test; its power comes from the model
        (`power_basis` "model": its test reads ranks within pools), so no spread."""
        if not isinstance(result, D3Outcome) or result.result.pointwise is None:
            return None
        usable = [
            m
            for m in result.result.pointwise.rabbi.values()
            if m.test is not None
            and m.test.joint is not None
            and m.test.share is not None
            and not m.test.untestable
        ]
        return (usable[0], 0.0) if usable else None

    def power_counts(self, cases: Sequence[Case]) -> dict[str, int] | None:
        if not cases:
            return None
        return {"pools": len(cases), "groups": len(cases[0].meta.get("groups", []))}

    def plan_size(self, counts: Mapping[str, int], repeats: int) -> Size | None:
        groups = max(int(counts.get("groups", 2)), 2)
        return Size(LABEL, counts.get("pools", 0), groups)

    def power_size(self, tested: Sequence[tuple[Sequence[str], MetricDict]]) -> Size | None:
        """The pools behind the RABBI tests, and their groups (the reference among them)."""
        rabbi = [m for path, m in tested if "rabbi" in path]
        clusters = max((int(m.get("clusters") or 0) for _p, m in tested), default=0)
        return Size(LABEL, clusters, len(rabbi) + 1) if rabbi and clusters >= 2 else None

    def enlarge(
        self, table: Mapping[str, Any], units_now: int, units_needed: int | None
    ) -> tuple[dict[str, Any] | None, str]:
        """More rounds (pools) for the power the sizing asks for."""
        if units_needed is None:
            return None, f"D3 (even {MOST} pools would not reach 80%)."
        now = int(table.get("rounds", D3Spec().rounds))
        rounds = int(math.ceil(now * units_needed / max(units_now, 1)))
        return dict(table) | {"rounds": rounds}, f"D3 rounds {rounds} (now {now})"

    def word_key(self, path: Sequence[str]) -> str | None:
        return present.word_key(path)

    def drill(self, path: Sequence[str]) -> Drill | None:
        return present.drill(path, REFERENCE_GROUP.key)

    def answer_facts(self, kind: str, pick: Callable[[str], list[Any]]) -> dict[str, list[Any]]:
        qualified = pick("qualified")
        return {
            "qualified": qualified,
            "roles": ["qualified" if q else "unqualified" for q in qualified],
        }

    # The methods below receive the block as the registry holds every design's,
    # `Mapping[str, Any]`; each casts it to D3's type once, here, and reads it typed.

    def panel(self, block: Mapping[str, Any]) -> list[PanelRow]:
        return present.panel_rows(cast(D3Dict, block))

    def section(self, block: Mapping[str, Any]) -> Section | None:
        found = present.sections(cast(D3Dict, block))
        return found[0] if found else None

    def sections(
        self, block: Mapping[str, Any], thresholds: Mapping[str, float] | None = None
    ) -> list[Section]:
        return present.sections(cast(D3Dict, block))

    def chart(self, name: str, block: Mapping[str, Any]) -> Chart | None:
        return present.rabbi_chart(cast(D3Dict, block)) if name == "d3_rabbi" else None

    def describe_cases(self, cases: Sequence[Case]) -> str:
        return present.describe_cases(cases)

    def cell_words(self, cell: str) -> str:
        return present.cell_words(cell) if cell else "Pool of candidates"

    def counts(self, block: Mapping[str, Any]) -> tuple[int, int, str]:
        """(scored candidates + unreadable answers, unreadable answers, the word), summed
        over both methods: the Results page's warning then says how many candidates were
        scored and how many answers could not be read ("None of them could be read" when
        no candidate was). It used to count no unreadable answer for D3 at all, so a run
        whose every D3 answer was unreadable showed no warning."""
        if not block:  # the run has no D3 block
            return 0, 0, "scored candidates"
        b = cast(D3Dict, block)
        parts = [p for p in (b["pointwise"], b["pairwise"]) if p]
        scored = sum(p["candidates"] for p in parts)
        unreadable = sum(p["unreadable"] for p in parts)
        return scored + unreadable, unreadable, "scored candidates"

    def approx_power(self, counts: Mapping[str, int], alpha: float, designs: int) -> str | None:
        """The smallest RABBI its pools can flag at 80% power (normal approximation)."""
        groups = max(int(counts.get("groups", 2)), 2)
        mde = min_detectable_effect(
            counts.get("pools", 0), design_alpha(alpha, designs, groups - 1)
        )
        return (
            f"{LABEL}: a RABBI of {min(mde, 1.0):.2f} or more (pointwise)."
            if mde is not None and mde < 1
            else f"{LABEL}: too few pools to flag even a strong ranking preference."
        )

    power_models = (POWER_MODEL,)  # its simulated tests (power.py)


DESIGN_D3 = RabbiD3()
