"""The interface every audit design implements, and the plain shapes it hands over.

The layers above (workflow, report, ui) hold a design only through this interface:
they never import a design's folder. What a design gives them is data, not widgets
or HTML: `PanelRow`s for the Results page, a `Section` for the report, and its
metrics block as JSON-ready typed dicts, so the GUI and the report render any
design the same way (docs/designs.md, "Designs as units").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Literal, Protocol, TypeVar

import pandas as pd

from resume_auditor.domain.case import Case, Variant
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import ModelSpec, StudyConfig, StudyError, schema_problems
from resume_auditor.stats.compare import Comparable
from resume_auditor.stats.inputs import TableSpec
from resume_auditor.stats.metric import Metric
from resume_auditor.stats.model import MetricDict
from resume_auditor.stats.power_sim import PowerModel, Size
from resume_auditor.stats.thresholds import Thresholds
from resume_auditor.store.requests import RequestSpec
from resume_auditor.variants.build import BuiltCases
from resume_auditor.variants.texts import TextSet


@dataclass(frozen=True)
class Setting:
    """One setting of a design, for the study file, the CLI's help and the GUI's form.

    `kind` is the study file's kind ("int", "number", "bool", "str", "strs"); `choices` the
    allowed values of a "str" or "strs" setting; `minimum` of an "int". `loose`:
    a choice is matched after trimming and lower-casing it, as a group key has
    always been read ("Black_Woman" is black_woman); the design's `parse` reads it.
    `offer`: (value, words) the GUI offers for a "str" setting in a list, or for a "strs"
    or "ints" setting as check boxes, without restricting the study file (a value it
    names that is not offered is kept); `tips`: (value, tooltip) for an offered value.
    """

    name: str
    kind: str
    default: Any
    label: str
    help: str
    minimum: int | None = None
    maximum: float | None = None  # the GUI's bound for a "number" (the design checks it)
    choices: tuple[str, ...] = ()
    gui: bool = True  # shown on the Test cases step (False: study file only)
    loose: bool = False
    offer: tuple[tuple[Any, str], ...] = ()
    tips: tuple[tuple[Any, str], ...] = ()


@dataclass(frozen=True)
class PanelRow:
    """One line of a design's table on the Results page: a metric and where it sits.

    `path` is the metric's place in the metrics JSON (`designs.<key>...`), so a
    click can drill down to the answers behind it.
    """

    path: tuple[str, ...]
    metric: MetricDict
    group: str = ""
    detail: str = ""


@dataclass(frozen=True)
class SectionTable:
    """A table of a report section; each row is labelled by its `group` (else the last
    key of its path). `kind` "impact": an impact-ratio table's columns (with each group's
    selection rate), "metric" any other metric; `sentences`: each metric's plain sentence
    beside it (a main table)."""

    title: str
    rows: list[PanelRow]
    caption: str = ""
    kind: str = "metric"
    sentences: bool = False


@dataclass(frozen=True)
class Chart:
    """A chart of a design's Results tab: `kind` "rates" (bars from 0 with dashed
    `references`) or "gaps" (bars around 0); `items` (label, metric object)."""

    kind: str
    title: str
    items: list[tuple[str, MetricDict]]
    references: tuple[float, ...] = ()
    unit: str = "points"


@dataclass
class Section:
    """A design's part of the report: heading, what was done, its tables, what to read.

    `part`: the report's "validity" or "fairness" part; `figures`: the report's own
    figures drawn under it (report/figures.build_figures' keys); `power`: the report
    says first, under it, the chance the design's test had to flag the default effect
    (the metrics' `power` block, when the report simulated it).
    """

    heading: str
    intro: list[str] = field(default_factory=list)
    tables: list[SectionTable] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    part: str = "fairness"
    figures: tuple[str, ...] = ()
    power: bool = False


@dataclass(frozen=True)
class Word:
    """A glossary entry of the design's (report/terms.py's Term): what a recruiter reads,
    one sentence of meaning, and the term in the paper it comes from."""

    label: str
    meaning: str
    paper: str


@dataclass(frozen=True)
class Drill:
    """The answers behind one of a design's numbers, for the Results page's drill-down.

    `keep(kind, facts, shown)`: an answer's kind ("dimensions", "ranking"), what the
    drill-down knows of it (`groups` of its candidates, its `preset`, and the design's
    own `answer_facts`), and how many candidates it showed.
    """

    title: str
    keep: Callable[[str, Mapping[str, Any], int], bool]
    note: str = ""


class DesignResult(Protocol):
    """A design's computed statistics for one run."""

    answers: int  # answers of this design in the run
    unreadable: int  # of which no number could be read

    def all_metrics(self) -> list[Metric]:
        """Every metric that can carry a flag (decided across the audit at once)."""
        ...

    def flags(self) -> list[str]:
        """The flags raised, once decided."""
        ...

    def as_dict(self) -> Mapping[str, Any]:
        """The design's block of the metrics JSON (a TypedDict of the design's own)."""
        ...


@dataclass(frozen=True)
class Unbuilt:
    """A question the design's settings ask that no built case can answer; `reason` and
    `fix` its own words for why and what to do ("": the generic ones)."""

    kind: str  # the case kind that would answer it
    question: str
    reason: str = ""
    fix: str = ""


@dataclass(frozen=True)
class OtherRun:
    """Another run of the same audit file (for a design that compares runs)."""

    id: int
    model: str
    prompt: str


@dataclass(frozen=True)
class RunContext:
    """What a design's statistics may need of the run beyond its own answers
    (`Design.compute_run`); workflow/metrics.py builds it.

    `designs`: how many designs have a result in the run (they share the report's
    false-alarm rate); `details`: the variants' details as the store keeps them
    (stats.inputs.VariantDetails); `others`: every other run of the audit with its
    answers of this design, read only when called.
    """

    cases: Mapping[int, Case]
    answers: pd.DataFrame  # this design's rows of the run's answers
    thresholds: Thresholds
    run_id: int
    model: str
    prompt: str  # the run's prompt preset (`run.prompt_id`)
    designs: int
    details: Callable[[], dict[int, tuple[str, str, str, str]]]
    others: Callable[[], list[tuple[OtherRun, pd.DataFrame]]]


SpecT = TypeVar("SpecT")

# Where a design's block sits in the metrics JSON: "designs" (under `designs.<key>`,
# every design built as a unit) or "top" (at the top level under its key, where a
# design that moved into its folder had it before: D4's `d4`; docs/metrics-json.md);
# "head": its blocks (`Design.blocks`) at the top level among the report's fixed keys,
# right after `counts`, and its flags, notes, power and per-resume cases before every
# other design's (D1's `d1`, `impact_ratio`, `error_agreement`, where they always were).
Placement = Literal["designs", "top", "head"]


class Design(ABC, Generic[SpecT]):
    """One audit design (D5 on; docs/designs.md, "Designs as units").

    `key` names its settings table (`[designs.<key>]`), its metrics block
    (`designs.<key>`) and its flag keys; `label` ("D5") is its `test_case.design`
    and what users read beside the title.
    """

    key: str
    label: str
    name: str  # what the screen calls it ("Eight names ranked together")
    title: str  # the name with its code: its tab on the Results page ("... (D5)")
    include: str  # the Test cases step's "Include" box: what a user switches on
    intro: str  # what it asks, in a recruiter's words (tab tooltip, report intro)
    settings: tuple[Setting, ...]
    charts: tuple[str, ...] = ()  # its Results charts' keys, each "<key>_<name>"
    clustering: str = ""  # what its intervals cluster by, for the report's method section
    placement: Placement = "designs"
    head_keys: tuple[str, ...] = ()  # placed "head": its top-level blocks' keys, its key first
    block_type: Any = None  # the TypedDict of its block (D5Dict), checked by the tests
    # Its power is simulated (its `power_models`, through stats/power_sim.py: `power_counts`,
    # `plan_size`, `power_target`); `cautious`: the plan also gives the power its
    # recommended size keeps under power_sim.CAUTIOUS; `power_grow`: how to raise it.
    simulated_power: bool = False
    # "answers": its power is simulated on the audit's own answers (its `power_target`'s
    # spread); "model": from power_sim's model at its size (a test on ranks within pools).
    power_basis: str = "answers"
    cautious: bool = False
    # The share of its equal part of the fairness false-alarm rate its power target's
    # test gets (stats/flags.py: D2's group test 80%, its secondary tests the rest).
    power_share: float = 1.0
    power_grow: str = ""
    # (regex, replacement): its plan's words (`power_grow`, `enlarge`) as the screen says
    # them, without study-file keys or codes (ui/plain_words.py)
    screen_words: tuple[tuple[str, str], ...] = ()
    words: Mapping[str, Word] = {}  # its glossary entries, by key (report/terms.TERMS)
    input_tables: tuple[TableSpec, ...] = ()  # its statistics' tidy tables (stats-inputs.md)
    # Computed on every run, with or without answers of it (its blocks are always in the
    # metrics JSON: D1's); otherwise a design without answers in the run has no result.
    always: bool = False
    # Its requests use the run's prompt (`[run] prompt`, `run.prompt_id`), not a preset of
    # its own settings: the run is named by it (registry.run_prompt_design()).
    run_prompt: bool = False
    # The report's `counts.<counted>` is its number of built cases ("": none; D1's `pairs`).
    counted: str = ""
    # A raw effect (benchmarks' `power=` dict) is scaled by `power_target`'s spread as the
    # default effect is (D1: a gap as a fraction, its test counting net wins per resume);
    # otherwise a raw effect is already in its test's own units.
    raw_scaled: bool = False
    # Its numbers are page 1's own findings (`page_one`): the app's Report page, which
    # shows page 1 and then the other designs' report sections, does not repeat its.
    on_page_one: bool = False

    # -- where its numbers sit ------------------------------------------------------

    @property
    def block_path(self) -> tuple[str, ...]:
        """The place of its block in the metrics JSON (its PanelRow paths start so; a
        design placed "head" has its blocks at the top level: its paths start with their
        keys)."""
        if self.placement == "head":
            return ()
        return (self.key,) if self.placement == "top" else ("designs", self.key)

    def holds(self, path: Sequence[str]) -> bool:
        """Whether the metric at `path` (in the metrics JSON) is one of its numbers."""
        if self.placement == "head":
            return bool(path) and path[0] in self.head_keys
        at = self.block_path
        return tuple(path[: len(at)]) == at

    def block(self, metrics: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """Its block of a metrics report (None: the run has no answers of it). A design
        placed "head" has several: its block is then the map of them by key (`head_keys`),
        found when its first is."""
        if not metrics:
            return None
        if self.placement == "head":
            if not isinstance(metrics.get(self.key), Mapping):
                return None
            return {k: metrics[k] for k in self.head_keys if k in metrics}
        found = (
            metrics.get(self.key)
            if self.placement == "top"
            else (metrics.get("designs") or {}).get(self.key)
        )
        return found if isinstance(found, Mapping) else None

    # -- settings -------------------------------------------------------------------

    def schema(self) -> dict[str, Any]:
        """The study-file schema of `[designs.<key>]` (domain/study.py kinds)."""
        return {s.name: s.kind for s in self.settings}

    def table(self, config: StudyConfig) -> Mapping[str, Any] | None:
        """The design's settings table as written, or None when the study leaves it out
        (a design `on_by_default` has its defaults when the study names no design)."""
        found = config.more.get(self.key)
        if found is None and self.on_by_default and not config.designs_named:
            return {}
        return found

    def with_table(self, config: StudyConfig, table: Mapping[str, Any] | None) -> StudyConfig:
        """`config` with the design's settings table replaced (None: the design left out),
        as the GUI's form writes it; the other designs' tables keep their order."""
        more = {k: v for k, v in config.more.items() if k != self.key}
        if table is not None:
            more[self.key] = dict(table)
        # a design on by default that is left out names the study's designs (none of it)
        named = config.designs_named or (table is None and self.on_by_default)
        return replace(config, more=more, designs_named=named)

    def spec(self, config: StudyConfig) -> SpecT | None:
        """The design's typed settings, or None when the study does not ask for it."""
        table = self.table(config)
        if table is None:
            return None
        where = f"designs.{self.key}"
        problems = schema_problems(dict(table), self.schema(), where)
        if problems:
            raise StudyError(problems[0])
        values = {s.name: table.get(s.name, s.default) for s in self.settings}
        for s in self.settings:
            value = values[s.name]
            if s.kind == "int" and s.minimum is not None and value < s.minimum:
                raise StudyError(f"{where}.{s.name} should be at least {s.minimum}")
            if s.choices:
                chosen = value if isinstance(value, list | tuple) else [value]
                wrong = [v for v in chosen if _choice(v, s.loose) not in s.choices]
                if wrong:
                    raise StudyError(
                        f"{where}.{s.name}: {wrong[0]!r} is not one of {', '.join(s.choices)}"
                    )
        return self.parse(values, config)

    @abstractmethod
    def parse(self, values: Mapping[str, Any], config: StudyConfig) -> SpecT:
        """Typed settings from the checked values (every setting present)."""

    @abstractmethod
    def presets(self, spec: SpecT) -> list[tuple[str, tuple[str, ...], str]]:
        """(prompt preset id, the kinds it may have, the setting that names it)."""

    # -- cases and requests ---------------------------------------------------------

    def less_ks(self, spec: SpecT) -> tuple[int, ...]:
        """The k of every less-qualified copy (c−, k required qualifications removed) its
        cases need from each resume's texts (none: it needs none)."""
        return ()

    def resume_cases(
        self,
        texts: TextSet,
        job: Job,
        spec: SpecT,
        seed: int,
        *,
        keep_real_contact: bool = False,
    ) -> BuiltCases | None:
        """The cases built from one resume alone, in that resume's turn with the other
        per-resume designs (None: the design builds none), so that case and variant
        ids come out as they always have. An IdenticalPairError leaves that resume out
        of the design, with a note, and the others are built."""
        return None

    @abstractmethod
    def build_cases(
        self,
        texts: Sequence[TextSet],
        job: Job,
        spec: SpecT,
        seed: int,
        *,
        keep_real_contact: bool = False,
    ) -> BuiltCases:
        """Every case of the design from the audit's usable resumes (all or nothing)."""

    @abstractmethod
    def unbuilt(self, spec: SpecT) -> list[Unbuilt]:
        """The questions the settings ask, each with the case kind that answers it."""

    def unbuilt_for(self, spec: SpecT, job: Job | None) -> list[Unbuilt]:
        """`unbuilt`, with reasons that may depend on the job (None: no job yet)."""
        return self.unbuilt(spec)

    def add_texts(self, texts: TextSet, job: Job, spec: SpecT, seed: int) -> None:
        """Add to one resume's texts what its cases need beyond the deterministic and the
        stored ones (D1's qualifications block), before any design builds from them."""

    @abstractmethod
    def requests(
        self,
        spec: SpecT,
        study: StudyConfig,
        model: ModelSpec,
        job_text: str,
        variants: Mapping[int, Variant],
        case: Case,
    ) -> list[RequestSpec]:
        """The requests one stored case implies (every order and repeat)."""

    def case_requests(
        self,
        spec: SpecT,
        study: StudyConfig,
        model: ModelSpec,
        job_text: str,
        variants: Mapping[int, Variant],
        cases: Sequence[Case],
    ) -> list[RequestSpec]:
        """The requests of all its stored cases at once, in the order they are queued
        (a design placed "head" queues them first; default: each case's in turn)."""
        return [
            r for case in cases for r in self.requests(spec, study, model, job_text, variants, case)
        ]

    # -- answers, numbers and words ------------------------------------------------

    @abstractmethod
    def compute(
        self, cases: Mapping[int, Case], answers: pd.DataFrame, thresholds: Thresholds
    ) -> DesignResult | None:
        """The statistics of the run's answers of this design (None: no answer yet).

        `answers` holds only this design's rows of `ResultFile.answers`; flags are
        decided later, across the whole audit.
        """

    def compute_run(self, context: RunContext) -> DesignResult | None:
        """Its statistics with what the run gives beyond its answers (`RunContext`);
        default: `compute` on its own cases and answers."""
        return self.compute(context.cases, context.answers, context.thresholds)

    def blocks(self, result: DesignResult) -> dict[str, Any]:
        """Its blocks of the metrics JSON by key, in order, once flags are decided
        (default: `as_dict()` under its key; a design placed "head" gives several)."""
        return {self.key: result.as_dict()}

    @abstractmethod
    def answer_frames(
        self, cases: Mapping[int, Case], answers: pd.DataFrame
    ) -> dict[str, pd.DataFrame]:
        """The design's tidy tables for the exports, by sheet name."""

    @abstractmethod
    def panel(self, block: Mapping[str, Any]) -> list[PanelRow]:
        """The Results page's rows for the design's metrics block."""

    @abstractmethod
    def section(self, block: Mapping[str, Any]) -> Section | None:
        """The report's section for the design's metrics block (None: nothing to say)."""

    def sections(
        self, block: Mapping[str, Any], thresholds: Mapping[str, float] | None = None
    ) -> list[Section]:
        """Its report sections (one by default: `section`), in the order shown.

        `thresholds`: the report's thresholds by key (the metrics' `thresholds`), for a
        design whose words depend on one (D2 lists its impact ratios under the cut)."""
        found = self.section(block)
        return [] if found is None else [found]

    def chart(self, name: str, block: Mapping[str, Any]) -> Chart | None:
        """The chart `name` (one of `charts`) from the design's metrics block."""
        return None

    def power_target(self, result: DesignResult) -> tuple[Metric, float] | None:
        """The test the report's power figure plants an effect on, and the spread of
        its values (stats/power_sim.power_from_data); None: no power figure."""
        return None

    def power_counts(self, cases: Sequence[Case]) -> dict[str, int] | None:
        """What its power depends on, counted from its built cases, in the terms of its
        `approx_power` and `plan_size` (None: nothing to count)."""
        return None

    def plan_size(self, counts: Mapping[str, int], repeats: int) -> Size | None:
        """The size its power is simulated at, from `power_counts` and the informative
        repeats (None: not simulated)."""
        return None

    def power_size(self, tested: Sequence[tuple[Sequence[str], MetricDict]]) -> Size | None:
        """What its power depends on, read back from its tested metrics (path, metric),
        for page 1's simulated power of a report without a `power` block; None: none."""
        return None

    def enlarge(
        self, table: Mapping[str, Any], units_now: int, units_needed: int | None
    ) -> tuple[dict[str, Any] | None, str] | None:
        """Its settings table raised to the size the power sizing asks for (`units_needed`
        of what `plan_size` counts; None: no size reaches the target), and the change in
        words (or, when no size does, what stays short); None: only repeats help it."""
        return None

    def run_prompt_problem(self, preset_id: str) -> str | None:
        """For a design with `run_prompt`: why the run's prompt cannot ask its cases
        (None: it can), said before anything is queued."""
        return None

    def logprob_note(self, model: str) -> str:
        """Before a run, when one of its presets scores from token log-probabilities and
        `model` is known not to give them: what that does to its numbers."""
        return (
            f"{self.title}: {model} gives no token log-probabilities, so its scores will be "
            "bare answers (wide intervals, low power)."
        )

    def word_key(self, path: Sequence[str]) -> str | None:
        """The glossary key (one of `words`) of the metric at `path`; None: none."""
        return None

    def drill(self, path: Sequence[str]) -> Drill | None:
        """The answers behind the number at `path` (None: none can be picked out)."""
        return Drill(
            f"Every answer of {self.title} in this run (each shows every group)",
            lambda kind, facts, shown: True,
        )

    def answer_facts(self, kind: str, pick: Callable[[str], list[Any]]) -> dict[str, list[Any]]:
        """What the drill-down knows of each candidate an answer of a case of `kind` showed,
        beyond its group (`pick(meta key)`: that key of the case's meta, in the order shown);
        `roles` is shown beside each candidate."""
        return {}

    def worst_group(
        self, block: Mapping[str, Any]
    ) -> tuple[str, tuple[str, ...], MetricDict, str] | None:
        """Page 1's fairness number when no test stands out and D1 has no gap: (the
        question, the path of the worst-faring group's metric, the metric, what an
        unbiased screener gives); None: the design offers none."""
        return None

    def perceived(self, block: Mapping[str, Any]) -> str:
        """What the model perceived of the group signals, from its block (a manipulation
        check's readings), for the report's limitations; '' when it did not ask."""
        return ""

    def answered(self, block: Mapping[str, Any]) -> bool:
        """Whether its block holds answers (a design computed `always` has a block
        without any), for the report's method section."""
        return True

    def method_notes(self, block: Mapping[str, Any]) -> list[str]:
        """What the report's method section says of how it was measured here (the prompt
        forced a choice, say); empty: nothing beyond its `clustering`."""
        return []

    def describe_cases(self, cases: Sequence[Case]) -> str:
        """The built cases in one sentence, for the report's method section."""
        return f"{len(cases)} test case(s)."

    def cell_words(self, cell: str) -> str:
        """A plan cell of this design (`RequestSpec.cell` without the label) in a
        recruiter's words, for the Test cases step."""
        return self.title

    def counts(self, block: Mapping[str, Any]) -> tuple[int, int, str]:
        """(answers, unreadable, what an answer is called) for the Results page's warnings.

        `block` is empty when the run has no block of the design (ui/models/metric_table.py
        asks every design): a design that reads its block typed answers zeros first."""
        return int(block.get("answers", 0)), int(block.get("unreadable", 0)), "answers"

    def power(self, spec: SpecT, cases: Sequence[Case], repeats: int, alpha: float) -> list[str]:
        """Before a run, when the user asks for the power check: what the design can find
        at the size its built `cases` give, simulated through its own tests at `alpha`
        (its share of the fairness false-alarm rate), in a recruiter's words. Empty: not
        simulated (the plan then says so rather than staying silent)."""
        return []

    # The answers() columns its `comparable` reads from `context.answers` (None: it may
    # read any): the comparison of models reads only those of the audit's designs, which
    # is a third less to read at 10,000 answers a model. A column it reads and does not
    # name is missing there (a KeyError, never a wrong number).
    comparable_columns: frozenset[str] | None = None

    def comparable(self, context: RunContext) -> Comparable | None:
        """Its headline measures of one run's answers (`context.answers`: only this
        design's rows), for comparing models on the same cases (workflow/compare.py;
        issue 28): a table with the design's own `cluster` and the `Measure`s read from
        it, each equal to the run's metric at its `path`. None: nothing to compare."""
        return None

    # --- page 1 (report) ---

    # Its cases are pairs of candidates (`Case.variant_a`, `variant_b`) and its answers a
    # choice between them (`pair_judgments`): the report's examples of wrong choices, the
    # method section's pair counts and the exports' Cases and Judgments sheets are its.
    # They are the pairs with a right answer that its `pair_tab` lists.
    @property
    def pairs(self) -> bool:
        return bool(self.pair_tab)

    # The check that asks the model what it perceived of the group signals, as the
    # report's limitations name it when the audit did not run it ("": it has none).
    perception_check: str = ""
    # The method section's words for its pairs beside its label, with their source
    # ("validity pairs (Castleman et al. 2025)"); "": its label alone.
    pairs_about: str = ""
    # The glossary's titles of its breakdown measures by key (report/terms.breakdown_title,
    # which the Results page reads); a key without one is said as it is spelt.
    breakdown_titles: Mapping[str, str] = {}

    def pair_judgments(
        self, answers: pd.DataFrame, details: Mapping[int, tuple[str, str, str, str]]
    ) -> pd.DataFrame:
        """Its answers (`answers`: the run's, store `answers()`) as the shared table of
        choices within pairs (stats/inputs.py's JUDGMENT_COLUMNS; `details`: the
        variants' as the store keeps them); empty for a design without `pairs`."""
        return pd.DataFrame()

    def page_names(self) -> dict[str, str]:
        """Page 1's name for its numbers, by the key their paths start with (after
        `designs`: report/verdict.py's `Finding.design`); default: its title under its key.
        A design placed "head" names each of its blocks."""
        return {self.key: self.title}

    def page_one(
        self,
        block: Mapping[str, Any] | None,
        *,
        thresholds: Mapping[str, float],
        designs: int,
        built: int | None,
    ) -> PageOne | None:
        """What page 1 says of it beyond its tested findings, which page 1 weighs for
        every design alike (None: nothing). `block` None: the run has none of it (it may
        say what that leaves unanswered); `thresholds`: the report's by key; `designs`:
        how many designs have a block (they share the fairness false-alarm rate);
        `built`: the report's `counts.<counted>` (None: it counts none)."""
        return None

    def fairness_number(
        self, block: Mapping[str, Any], best: Sequence[str] | None
    ) -> KeyFigure | None:
        """Page 1's fairness number from its own block, asked before the strongest
        finding across designs is shown: `best` is that finding's path (None: no test
        stands out). None: it gives none (a design answers only for its own `best`)."""
        return None

    def report_figures(
        self, block: Mapping[str, Any], thresholds: Mapping[str, float]
    ) -> list[ReportFigure]:
        """The report's own figures of its block, each drawn by report/figures.py under
        the section whose `figures` name its key (`thresholds`: the report's by key, for
        its dashed lines); empty: its `charts` are all it draws."""
        return []

    # --- views (ui) ---
    # The paths (in the metrics JSON) of its headline numbers: cards on top of its Results
    # tab (a click opens the answers behind one) and the first rows of the Results page's
    # "Compare runs" table. Empty: its tab is its table and charts alone.
    headline: tuple[tuple[str, ...], ...] = ()
    # What its Results tab says above its table, and the tab's tooltip ("": its `intro`).
    results_intro: str = ""
    # Its cases are pairs with a right answer (`Case.variant_a`, `variant_b`, `truth`): the
    # Results page lists them one by one in a tab of this title, and the live feed marks
    # each of their answers right or wrong and keeps the running shares. "": they are not.
    pair_tab: str = ""
    # What a tooltip says of it after "Design <label>: " ("": its `intro`).
    summary: str = ""

    def feed_title(self) -> str:
        """What the live feed (Run page, presenter) calls one answer of it."""
        return f"{self.label} {self.cell_words('').lower()}"

    def view_chart(
        self, name: str, block: Mapping[str, Any] | None, thresholds: Mapping[str, float]
    ) -> Chart | None:
        """The Results page's chart `name` (one of `charts`) from its block (None: the run
        has none yet); `thresholds`: the report's by key, for a chart whose dashed lines
        are the user's bars. Default: `chart`, when there is a block."""
        return self.chart(name, block) if block else None

    def compared(self, block: Mapping[str, Any]) -> list[PanelRow]:
        """The "Compare runs" table's rows after its `headline` (each found in the other
        run by its path); empty: the headline alone."""
        return []

    def measure_title(self, path: Sequence[str]) -> str | None:
        """The Results table's name for the metric at `path` when its glossary word is not
        the one (a breakdown named by its cut); None: the glossary's."""
        return None

    def drill_answers(
        self, answers: pd.DataFrame, details: Mapping[int, tuple[str, str, str, str]]
    ) -> list[tuple[dict[str, Any], dict[str, Any]]] | None:
        """Its answers as the drill-down reads them, for a design that does not read them
        through its cases' `meta` (`answer_facts`): per answer, its row (`request_id`,
        `ord`, `rep`, `label`, `justification`) and its facts (what `Drill.keep` reads).
        `answers`: the run's answers of every design; `details`: the variants' details
        (stats.inputs.VariantDetails). None: the generic reading."""
        return None

    def presenter_charts(self, block: Mapping[str, Any]) -> list[Chart]:
        """The presenter's charts of its numbers, in words for a room (no paper terms);
        empty: it has none there."""
        return []

    # --- study and plan (core) ---

    # On when the study names no design (`StudyConfig.designs_named` False), as D1's pairs
    # always were: its table is then its defaults.
    on_by_default: bool = False
    # What its simulated power assumes beyond the shared spread and noise, for the plan's
    # words ("D1 forced choice"); "": nothing more.
    power_assumes: str = ""
    # The effects the CLI's `cases --effect-<code>` sizes its power for: (code as the
    # option spells it, its default as typed, its unit in words, what the typed value is
    # divided by for power_sim's effect: 100 for a gap typed in points, a fraction there).
    effect_options: tuple[tuple[str, str, str, int], ...] = ()
    # What `cases --enlarge` may raise of its own settings, in the CLI's help ("more D3
    # rounds"); "": only repeats.
    enlarge_words: str = ""

    def kept_table(self, table: Mapping[str, Any]) -> dict[str, Any]:
        """Its settings table as the audit file keeps it once the study is read (default:
        as written; D1 writes every setting, as its table always was)."""
        return dict(table)

    @property
    def power_codes(self) -> tuple[str, ...]:
        """The codes of the tests the plan sizes for it (power_sim's `Size.design`): its
        label, and any second test it is sized for (D1's impact ratio, "IR")."""
        return (self.label,)

    def run_counts(self, cases: Sequence[Case], study: StudyConfig) -> dict[str, int] | None:
        """`power_counts` for a run asked in the `study`'s orders and repeats (a design
        whose counts are answers per order and repeat needs them); default: `power_counts`."""
        return self.power_counts(cases)

    def sized_tests(self, size: Size, prompt: str) -> list[Size]:
        """Each test the plan sizes for it, from `plan_size`'s size, under the assumptions
        the run's `prompt` implies (default: that one size)."""
        return [size]

    def power_note(self, code: str, effect: float) -> str:
        """What the plan says after the power of its test `code` at `effect`, before any
        answer (e.g. how an impact ratio is read); "": nothing."""
        return ""

    def whole_case(self, cell: str) -> bool:
        """Whether the plan counts a request of its `cell` as its whole case (every order
        and repeat of it one case, as a ranked batch is) rather than per candidates shown."""
        return "ranking" in cell

    def plan_notes(self, spec: SpecT, job: Job | None, cells: Collection[str]) -> dict[str, str]:
        """Before the run, what the plan says of the cases its settings ask that the
        audit's `job` (None: none yet) cannot give, by the case kind (`Unbuilt.kind`)
        whose unbuilt question the note then says instead; `cells`: the plan's cells."""
        return {}

    def approx_power(self, counts: Mapping[str, int], alpha: float, designs: int) -> str | None:
        """Before a run, by the normal approximation (stats/power.py's helpers), in one
        line: the smallest group effect its test can flag with 80% power at its share of
        `alpha` among `designs` designs, from `run_counts`' `counts`, or that it has too
        few to flag even a large one (the plan keeps only that). None: it says nothing."""
        return None

    # --- the CLI's text (`resume-auditor metrics`) ---

    def text_lines(self, block: Mapping[str, Any]) -> list[str]:
        """What `resume-auditor metrics` prints of its block, line by line (default: its
        report section's heading, then each table's title and its rows' readings)."""
        section = self.section(block)
        if section is None:
            return []
        lines = [f"\n{section.heading}"]
        for table in section.tables:
            lines.append(f"{table.title}:")
            lines += [f"- {row.metric['reading']}" for row in table.rows]
        return lines

    # --- power simulation (pow) ---

    # How the plan and page 1 simulate each test it is sized for (stats/power_sim's
    # PowerModel, one per code of `power_codes`: its simulated audit, counted test,
    # default effect and words), registered with power_sim by designs/registry.py so
    # the shared simulator knows no design; (): it has no simulated power.
    power_models: tuple[PowerModel, ...] = ()


# --- page 1 (report) ---


@dataclass(frozen=True)
class KeyFigure:
    """One of page 1's key numbers (report/verdict.py's KeyNumber): what a recruiter
    asks, the metric that answers it (its path in the metrics JSON; None: not yet),
    what a reliable or unbiased screener gives, and how it was counted."""

    title: str
    question: str
    path: tuple[str, ...]
    metric: MetricDict | None
    bar: str = ""
    detail: str = ""


@dataclass(frozen=True)
class PageOne:
    """What a design says on page 1 beyond its tested findings (`Design.page_one`).

    `numbers`: its key numbers, before the fairness one (D1's validity); `sentences`:
    what it found, said first, each with its metric's `{value}` and `{ci}` (or "n/a")
    filled in by the report's formatter (report/numbers.py); `problems`: each makes
    the verdict "do not rely on this model"; `cautions`: (a sentence said after the
    fairness one, the headline when nothing is a problem); `group_flag`: one of its
    group numbers is flagged; `groups`: it has group numbers, so page 1 says what no
    flag means; `too_few`: why, at this size, no group test of it can flag anything
    ("": one can); `detectable`: the smallest group difference it would find ("a D1
    gap of about 12 points or more (80% power)"); `unanswered`: the questions it could
    not answer, and why; `pending`: the fairness number while its group numbers wait
    for answers.
    """

    numbers: tuple[KeyFigure, ...] = ()
    sentences: tuple[tuple[str, MetricDict], ...] = ()
    problems: tuple[str, ...] = ()
    cautions: tuple[tuple[str, str], ...] = ()
    group_flag: bool = False
    groups: bool = False
    too_few: str = ""
    detectable: str = ""
    unanswered: tuple[str, ...] = ()
    pending: KeyFigure | None = None


@dataclass(frozen=True)
class ReportFigure:
    """A figure of the report's own (`Design.report_figures`): `key` (what its section's
    `figures` name), the title above it, its text alternative, and the chart drawn (its
    title the one inside the image); `ratio`: its values are ratios (0.80, not 80%)."""

    key: str
    title: str
    alt: str
    chart: Chart
    ratio: bool = False


def _choice(value: Any, loose: bool) -> Any:
    return value.strip().lower() if loose and isinstance(value, str) else value


__all__ = [
    "Chart",
    "Design",
    "DesignResult",
    "Drill",
    "KeyFigure",
    "OtherRun",
    "PageOne",
    "PanelRow",
    "Placement",
    "ReportFigure",
    "RunContext",
    "Section",
    "SectionTable",
    "Setting",
    "Unbuilt",
    "Word",
]
