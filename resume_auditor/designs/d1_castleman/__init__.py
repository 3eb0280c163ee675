"""D1: pairwise choice between two candidates (Castleman et al. 2025), as one design folder.

Validity on unequal pairs (does the model pick the better-qualified candidate?) and
fairness on equal pairs (does it pick one group's candidate more often?), with an LL144
impact-ratio table from the equal pairs and, across runs, how often two models err on
the same pairs (App. D.3). Registered first in `designs/registry.py`, placed "head": its
blocks `d1`, `impact_ratio` and `error_agreement` stay at the top level of the metrics
JSON, where they always were. Its pairs are asked under the run's prompt (`[run] prompt`).
What still names it outside this folder: docs/designs.md, "Moving D1".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, cast

import pandas as pd

from resume_auditor.designs.base import (
    Chart,
    Design,
    DesignResult,
    Drill,
    KeyFigure,
    PageOne,
    PanelRow,
    ReportFigure,
    RunContext,
    Section,
    Unbuilt,
)
from resume_auditor.designs.d1_castleman import figures, findings, glossary, plan, present, views
from resume_auditor.designs.d1_castleman.agreement import error_agreement
from resume_auditor.designs.d1_castleman.cases import build_d1_texts
from resume_auditor.designs.d1_castleman.compare import READ as COMPARED
from resume_auditor.designs.d1_castleman.compare import comparable
from resume_auditor.designs.d1_castleman.impact import impact_cells, impact_dict
from resume_auditor.designs.d1_castleman.inputs import D1_JUDGMENTS, d1_judgments
from resume_auditor.designs.d1_castleman.model import D1Blocks
from resume_auditor.designs.d1_castleman.power import MODELS as POWER_MODELS
from resume_auditor.designs.d1_castleman.requests import d1_requests
from resume_auditor.designs.d1_castleman.settings import SETTINGS
from resume_auditor.designs.d1_castleman.spec import D1Spec, d1_from_table, d1_to_table
from resume_auditor.designs.d1_castleman.stats import D1Result, compute_d1
from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import ModelSpec, StudyConfig, StudyError
from resume_auditor.prompts.kinds import get_kind
from resume_auditor.prompts.presets import get_preset
from resume_auditor.stats.compare import Comparable
from resume_auditor.stats.metric import Metric
from resume_auditor.stats.model import AgreementDict, MetricDict
from resume_auditor.stats.power_sim import Size
from resume_auditor.stats.thresholds import Thresholds
from resume_auditor.store.requests import RequestSpec
from resume_auditor.variants.build import BuiltCases
from resume_auditor.variants.texts import TextSet, add_block

KEY = "d1"
LABEL = "D1"


class D1Outcome:
    """D1's statistics for one run as the interface wants them: the pairs' metrics
    (stats.D1Result), the impact-ratio cells from its equal pairs, and what the error
    agreement with the audit's other runs needs (`context.others`, read once flags are
    decided, as the report always did)."""

    def __init__(
        self,
        result: D1Result,
        impact: dict[str, dict[str, Metric]],
        judgments: pd.DataFrame,
        context: RunContext,
    ) -> None:
        self.result = result
        self.impact = impact
        self.judgments = judgments
        self.context = context
        self.answers = result.judgments
        self.unreadable = result.invalid

    def all_metrics(self) -> list[Metric]:
        return self.result.all_metrics() + [
            m for cells in self.impact.values() for m in cells.values()
        ]

    def flags(self) -> list[str]:
        return self.result.flags() + impact_dict(self.impact, self.context.thresholds)["flags"]

    def as_dict(self) -> Mapping[str, Any]:
        return self.result.as_dict()

    def agreements(self) -> list[AgreementDict]:
        """Error agreement of this run with every other run of the same pairs (App. D.3)."""
        out: list[AgreementDict] = []
        if self.judgments.empty:
            return out
        context = self.context
        for other, answers in context.others():
            theirs = d1_judgments(answers, context.details())
            if theirs.empty:
                continue
            agreement = error_agreement(
                self.judgments,
                theirs,
                thresholds=context.thresholds,
                names=(
                    f"{context.model} (run {context.run_id})",
                    f"{other.model} (run {other.id})",
                ),
            )
            counts = agreement.as_dict()
            out.append(
                {
                    "run": other.id,
                    "model": other.model,
                    "prompt": other.prompt,
                    "shared": counts["shared"],
                    "a_wrong": counts["a_wrong"],
                    "b_wrong": counts["b_wrong"],
                    "chance": counts["chance"],
                    "metrics": counts["metrics"],
                }
            )
        return out


def abstain_allowed(prompt_id: str) -> bool:
    """False for a forced-choice prompt: its answers cannot measure abstention."""
    try:
        return get_preset(prompt_id).kind != "forced_choice"
    except (KeyError, ValueError):
        return True


class CastlemanD1(Design[D1Spec]):
    key = KEY
    label = LABEL
    name = "Who is better? (pairs)"
    title = "Pairs (D1)"
    include = (
        "Include pairs of candidates where the right answer is known: does the model pick "
        "the better one, and treat equals as equal?"
    )
    intro = (
        "Validity pairs (Castleman et al. 2025): two resumes at a time, equally qualified "
        "candidates who differ only in the group (is one group picked more often?), and "
        "pairs where one has more qualifications (is the better one picked?)."
    )
    settings = SETTINGS
    clustering = "D1 by source resume (every pair built from one resume is one cluster)"
    placement = "head"
    head_keys = (KEY, "impact_ratio", "error_agreement")
    block_type = D1Blocks
    input_tables = (D1_JUDGMENTS,)
    words = present.WORDS
    always = True
    run_prompt = True
    counted = "pairs"
    raw_scaled = True
    simulated_power = True  # its power.py's models, through stats/power_sim.py
    on_page_one = True  # validity and its group gaps are page 1 (findings.py)

    # -- settings: `[designs.d1]` read by spec.py, with the messages it always had ------

    def spec(self, config: StudyConfig) -> D1Spec | None:
        """Its settings (spec.d1_from_table): D1 is on when the study has `[designs.d1]`
        or names no design at all (`on_by_default`), as it always was. A key it does not
        know is left alone, as it always was (a strict read has refused it already)."""
        table = self.table(config)
        return None if table is None else d1_from_table(table)

    def with_table(self, config: StudyConfig, table: Mapping[str, Any] | None) -> StudyConfig:
        """As the Test cases step's form writes it: what the study file fills in for a
        setting left empty (every group, the name signal) is refused there instead, in
        the words its own tab had, so no box left unticked builds something else."""
        if table is not None:
            equal = bool(table.get("equal_pairs", True))
            unequal = bool(table.get("unequal_pairs", True))
            if equal and len(table.get("groups", ["", ""])) < 2:
                raise StudyError("Equally qualified pairs need at least two groups.")
            if equal and not table.get("signals", ["name"]):
                raise StudyError(
                    "Equally qualified pairs need a way for the identity to show: the name, "
                    "awards and memberships, or both."
                )
            if unequal and not table.get("k", [1]):
                raise StudyError(
                    "Unequal pairs need a size of difference (1, 2 or 3 qualifications)."
                )
            if unequal and not table.get("pair_types", ["more_base"]):
                raise StudyError("Unequal pairs need at least one kind of unequal pair.")
        return super().with_table(
            config, None if table is None else d1_to_table(d1_from_table(table))
        )

    def parse(self, values: Mapping[str, Any], config: StudyConfig) -> D1Spec:
        return d1_from_table(values)

    def presets(self, spec: D1Spec) -> list[tuple[str, tuple[str, ...], str]]:
        return []  # its pairs use the run's prompt (`run_prompt`), checked with the run

    def run_prompt_problem(self, preset_id: str) -> str | None:
        preset = get_preset(preset_id)
        if get_kind(preset.kind).pairwise:
            return None
        return (
            f"The prompt {preset.id!r} asks about one resume at a time ({preset.kind}); "
            "validity pairs need a pairwise prompt, such as d1-baseline."
        )

    # -- cases and requests ---------------------------------------------------------

    def less_ks(self, spec: D1Spec) -> tuple[int, ...]:
        return spec.k if spec.unequal_pairs else ()

    def add_texts(self, texts: TextSet, job: Job, spec: D1Spec, seed: int) -> None:
        """The qualifications block (variants/summary_block.py), when unequal pairs may
        use it."""
        if spec.unequal_pairs and spec.summary_block != "never":
            add_block(texts, job, spec.k, seed)

    def resume_cases(
        self,
        texts: TextSet,
        job: Job,
        spec: D1Spec,
        seed: int,
        *,
        keep_real_contact: bool = False,
    ) -> BuiltCases | None:
        return build_d1_texts(texts, job, spec, seed, keep_real_contact=keep_real_contact)

    def build_cases(
        self,
        texts: Sequence[TextSet],
        job: Job,
        spec: D1Spec,
        seed: int,
        *,
        keep_real_contact: bool = False,
    ) -> BuiltCases:
        return BuiltCases(0)  # every pair comes from one resume (`resume_cases`)

    def unbuilt(self, spec: D1Spec) -> list[Unbuilt]:
        return self.unbuilt_for(spec, None)

    def unbuilt_for(self, spec: D1Spec, job: Job | None) -> list[Unbuilt]:
        out: list[Unbuilt] = []
        if spec.unequal_pairs:
            if job is not None and not job.required and not job.preferred:
                reason = "the job's checklist has no required or preferred qualification"
                fix = (
                    "Add the job's requirements on the Job page (or as `required` in the "
                    "study file), then build the test cases again."
                )
            elif spec.summary_block == "never":
                reason = (
                    "no resume allowed a body edit (lexical deletion found too few required "
                    "qualifications to delete cleanly, and c+ needs a generator model)"
                )
                fix = (
                    'Allow the qualifications block (designs.d1.summary_block = "missing"), '
                    "or write the variants with a generator model, then build the test "
                    "cases again."
                )
            else:
                reason = (
                    "no resume allowed one: every required qualification is already in every "
                    "resume and the job lists no preferred one it lacks (see the notes)"
                )
                fix = (
                    "Check the job's checklist on the Job page (required and preferred), or "
                    "write the variants with a generator model, then build the test cases "
                    "again."
                )
            out.append(
                Unbuilt(
                    "unequal",
                    "whether the model picks the more qualified candidate (criterion validity)",
                    reason,
                    fix,
                )
            )
        if spec.equal_pairs:
            out.append(
                Unbuilt(
                    "equal",
                    "whether equally qualified candidates are treated alike",
                    "no equal pair could be built (see the notes)",
                    "Check the groups and the resumes' identity slots, then build the test "
                    "cases again.",
                )
            )
        return out

    def requests(
        self,
        spec: D1Spec,
        study: StudyConfig,
        model: ModelSpec,
        job_text: str,
        variants: Mapping[int, Variant],
        case: Case,
    ) -> list[RequestSpec]:
        return d1_requests(study, model, job_text, dict(variants), [case])

    def case_requests(
        self,
        spec: D1Spec,
        study: StudyConfig,
        model: ModelSpec,
        job_text: str,
        variants: Mapping[int, Variant],
        cases: Sequence[Case],
    ) -> list[RequestSpec]:
        """Every pair at once: requests that show the same resume first run back to back
        (a server that caches the prompt prefix reuses it)."""
        return d1_requests(study, model, job_text, dict(variants), list(cases))

    # -- answers and numbers --------------------------------------------------------

    def compute(
        self, cases: Mapping[int, Case], answers: pd.DataFrame, thresholds: Thresholds
    ) -> DesignResult | None:
        raise TypeError("D1 needs its run (the prompt, the other runs): use compute_run")

    def compute_run(self, context: RunContext) -> DesignResult | None:
        """Its pairs' metrics (every run has them, answered or not), at its share of the
        false-alarm rate among `context.designs`, and the impact-ratio cells."""
        judgments = d1_judgments(context.answers, context.details())
        result = compute_d1(
            judgments,
            thresholds=context.thresholds,
            abstain_allowed=abstain_allowed(context.prompt),
            designs=context.designs,
        )
        return D1Outcome(result, impact_cells(judgments, context.thresholds), judgments, context)

    # what `d1_judgments` reads of the answers for the columns `comparable` reads
    comparable_columns = frozenset(
        {"design", "case_kind", "truth", "cluster", "ord", "label", "group_a", "group_b"}
    )

    def comparable(self, context: RunContext) -> Comparable | None:
        """Validity, abstention on equal pairs (when the prompt allows it) and each group's
        gap, for comparing models on the same pairs (compare.py)."""
        judgments = d1_judgments(context.answers, context.details, COMPARED)
        return comparable(judgments, abstain_allowed=abstain_allowed(context.prompt))

    def blocks(self, result: DesignResult) -> dict[str, Any]:
        """`d1`, `impact_ratio` (its flags decided across the audit) and `error_agreement`."""
        assert isinstance(result, D1Outcome)
        return {
            KEY: result.result.as_dict(),
            "impact_ratio": impact_dict(result.impact, result.context.thresholds),
            "error_agreement": result.agreements(),
        }

    def answer_frames(
        self, cases: Mapping[int, Case], answers: pd.DataFrame
    ) -> dict[str, pd.DataFrame]:
        return {}  # its judgments are the exports' shared Judgments sheet (report/tables.py)

    def power_target(self, result: DesignResult) -> tuple[Metric, float] | None:
        """The first usable selection-gap test, and comparisons per source resume (its
        test counts net wins per resume; the effect is a gap as a fraction)."""
        if not isinstance(result, D1Outcome):
            return None
        usable = [
            m
            for m in result.result.selection_gap.values()
            if m.test is not None
            and m.test.joint is not None
            and m.test.share is not None
            and not m.test.untestable
        ]
        if not usable or not usable[0].estimate.clusters:
            return None
        gap = usable[0]
        return gap, gap.estimate.n / gap.estimate.clusters

    # -- views: its Results rows, report sections, glossary words, power size and
    # settings form go through the registry (and page 1, below); the Results tab, the
    # drill-down, the feed and the plan still read it by name outside the folder, so
    # `shown` is False (docs/designs.md, "Moving D1") ------------------------------

    def power_size(self, tested: Sequence[tuple[Sequence[str], MetricDict]]) -> Size | None:
        """Source resumes behind its tested metrics, its gap tests' groups, and the
        comparisons per resume of the smallest of them."""
        clusters = max((int(m.get("clusters") or 0) for _, m in tested), default=0)
        gaps = [m for path, m in tested if list(path[:2]) == [KEY, "selection_gap"]]
        if not gaps or clusters < 2:
            return None
        per = min(int(m.get("n") or 0) for m in gaps) // clusters
        return Size(LABEL, clusters, len(gaps), max(per, 1))

    def counts(self, block: Mapping[str, Any]) -> tuple[int, int, str]:
        """Its judgments (pair answers, read or not), and no separate unreadable count:
        the Results page's warning for unreadable answers is the run's for D1, as it
        always was (its `invalid` pairs are among the judgments)."""
        if not block:
            return 0, 0, "pair answers"
        return cast(D1Blocks, block)["d1"]["judgments"], 0, "pair answers"

    def answered(self, block: Mapping[str, Any]) -> bool:
        return bool(cast(D1Blocks, block)["d1"]["judgments"])

    def method_notes(self, block: Mapping[str, Any]) -> list[str]:
        if cast(D1Blocks, block)["d1"]["abstain_allowed"] is not False:
            return []
        return [
            "The prompt forced a choice, so abstention (DiscrimValidity) is not measured: the "
            "model was told it could not abstain."
        ]

    def drill(self, path: Sequence[str]) -> Drill | None:
        return present.drill(path)

    def cell_words(self, cell: str) -> str:
        return present.cell_words(cell)

    def word_key(self, path: Sequence[str]) -> str | None:
        return present.word_key(path)

    def panel(self, block: Mapping[str, Any]) -> list[PanelRow]:
        return present.panel_rows(block)

    def section(self, block: Mapping[str, Any]) -> Section | None:
        found = self.sections(block)
        return found[0] if found else None

    def sections(
        self, block: Mapping[str, Any], thresholds: Mapping[str, float] | None = None
    ) -> list[Section]:
        return present.sections(block)

    # -- page 1 (report/verdict.py: findings.py), its figures, examples and sheets ------

    pairs_about = "validity pairs (Castleman et al. 2025)"
    breakdown_titles = glossary.BREAKDOWN_TITLES

    def pair_judgments(
        self, answers: pd.DataFrame, details: Mapping[int, tuple[str, str, str, str]]
    ) -> pd.DataFrame:
        return d1_judgments(answers, dict(details))

    def page_names(self) -> dict[str, str]:
        return dict(findings.NAMES)

    def page_one(
        self,
        block: Mapping[str, Any] | None,
        *,
        thresholds: Mapping[str, float],
        designs: int,
        built: int | None,
    ) -> PageOne | None:
        return findings.page_one(block, thresholds, designs, built)

    def fairness_number(
        self, block: Mapping[str, Any], best: Sequence[str] | None
    ) -> KeyFigure | None:
        return findings.fairness_number(block, best)

    def report_figures(
        self, block: Mapping[str, Any], thresholds: Mapping[str, float]
    ) -> list[ReportFigure]:
        return figures.report_figures(block, thresholds)

    # -- views (ui): its cards, charts, pair tab, feed and presenter words (views.py) --
    headline = views.HEADLINE
    results_intro = views.RESULTS_INTRO
    pair_tab = views.PAIR_TAB
    summary = views.SUMMARY
    charts = views.CHARTS
    screen_words = views.SCREEN_WORDS

    def feed_title(self) -> str:
        return views.FEED_TITLE

    def view_chart(
        self, name: str, block: Mapping[str, Any] | None, thresholds: Mapping[str, float]
    ) -> Chart | None:
        return views.view_chart(name, block, thresholds)

    def compared(self, block: Mapping[str, Any]) -> list[PanelRow]:
        return views.compared(block)

    def measure_title(self, path: Sequence[str]) -> str | None:
        return views.measure_title(path)

    def presenter_charts(self, block: Mapping[str, Any]) -> list[Chart]:
        return views.presenter_charts(block)

    def drill_answers(
        self, answers: pd.DataFrame, details: Mapping[int, tuple[str, str, str, str]]
    ) -> list[tuple[dict[str, Any], dict[str, Any]]] | None:
        return views.drill_answers(answers, details)

    # --- study and plan (core) ---
    on_by_default = True
    power_share = 0.8  # its gap tests get 80% of its share of alpha (stats/flags.py)
    power_grow = (
        "Add source resumes (each brings its own pairs), or repeats at a temperature above 0."
    )
    power_assumes = f"{LABEL} forced choice"
    effect_options = (
        ("d1", "10", "points of selection gap", 100),
        ("ir", "0.8", "D1 impact ratio (NYC LL144's four-fifths line)", 1),
    )

    def kept_table(self, table: Mapping[str, Any]) -> dict[str, Any]:
        return d1_to_table(d1_from_table(table))

    @property
    def power_codes(self) -> tuple[str, ...]:
        return (LABEL, plan.IMPACT)

    def run_counts(self, cases: Sequence[Case], study: StudyConfig) -> dict[str, int] | None:
        return plan.run_counts(cases, study)

    def plan_size(self, counts: Mapping[str, int], repeats: int) -> Size | None:
        return plan.plan_size(LABEL, dict(counts), repeats)

    def sized_tests(self, size: Size, prompt: str) -> list[Size]:
        return plan.sized_tests(size, prompt)

    def power_note(self, code: str, effect: float) -> str:
        return plan.power_note(code, effect)

    def whole_case(self, cell: str) -> bool:
        return True  # a pair is one case in every order

    def plan_notes(self, spec: D1Spec, job: Job | None, cells: Collection[str]) -> dict[str, str]:
        return plan.plan_notes(spec.unequal_pairs, job, cells)

    def approx_power(self, counts: Mapping[str, int], alpha: float, designs: int) -> str | None:
        return plan.approx_power(LABEL, counts, alpha, designs)

    # --- the CLI's text ---

    def text_lines(self, block: Mapping[str, Any]) -> list[str]:
        return views.text_lines(block)

    power_models = POWER_MODELS  # its simulated tests (power.py)


DESIGN_D1 = CastlemanD1()
