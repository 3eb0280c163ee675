"""The report as data: every section, table and chart, before it becomes HTML.

Built from the metrics (`workflow.metrics.metrics_report`, the one source of every
number) and the facts of the result file. Sections for the registry's designs
(`Design.sections`, D2 on) appear when the metrics carry those designs. The
HTML template only lays this out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

from resume_auditor.designs.registry import DESIGNS as REGISTRY
from resume_auditor.report.comparison import ComparisonView, build_comparison
from resume_auditor.report.examples import KINDS, Example, pick_examples
from resume_auditor.report.facts import AuditFacts, gather_facts
from resume_auditor.report.figures import Figure, build_figures, design_figure
from resume_auditor.report.verdict import (
    Verdict,
    build_verdict,
)
from resume_auditor.stats.labels import label
from resume_auditor.stats.model import (
    MetricDict,
    MetricsReport,
)
from resume_auditor.store.parts import AuditReader


@dataclass
class Row:
    label: str
    path: list[str]
    metric: MetricDict


@dataclass
class Table:
    title: str
    rows: list[Row]
    kind: str = "metric"  # "metric" | "impact"
    caption: str = ""
    sentences: bool = False  # show each metric's plain sentence (main tables)

    def has(self, name: str) -> bool:
        return any(name in r.metric for r in self.rows)

    @property
    def has_p(self) -> bool:
        """A column for the p-value each flag was decided on (adjusted across the report)."""
        return any(r.metric.get("p_adjusted") is not None for r in self.rows)

    @property
    def has_ci(self) -> bool:
        return any((r.metric.get("ci") or [None])[0] is not None for r in self.rows)

    @property
    def has_rate_ci(self) -> bool:
        return any("selection_rate_ci" in r.metric for r in self.rows)


@dataclass
class Block:
    heading: str
    intro: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    after: list[str] = field(default_factory=list)


@dataclass
class ReportDocument:
    metrics: MetricsReport
    facts: AuditFacts
    verdict: Verdict
    validity: list[Block]
    fairness: list[Block]
    examples: list[Example]
    example_kinds: dict[str, tuple[str, str]]
    limitations: list[str]
    generated_at: str
    figures: dict[str, Figure]
    method: list[str] = field(default_factory=list)
    comparison: ComparisonView | None = None  # several models of the audit side by side


def _registered(
    metrics: MetricsReport, figures: dict[str, Figure], part: str, *, head: bool | None = None
) -> list[Block]:
    """The sections of the registry's designs in `part` ("validity" or "fairness"), in
    its order (a design placed "head" first); `head`: only the designs placed "head"
    (True) or only the others (False)."""
    out: list[Block] = []
    thresholds = {t["key"]: float(t["value"]) for t in metrics.get("thresholds", [])}
    for design in REGISTRY:
        if head is not None and (design.placement == "head") != head:
            continue
        block = design.block(metrics)
        if block is None:
            continue
        for i, section in enumerate(design.sections(block, thresholds)):
            if section.part != part:
                continue
            tables = [
                Table(
                    t.title,
                    [Row(r.group or r.path[-1], list(r.path), r.metric) for r in t.rows],
                    t.kind,
                    t.caption,
                    t.sentences,
                )
                for t in section.tables
            ]
            drawn = [figures[k] for k in section.figures if k in figures]
            drawn += [
                f
                for name in (design.charts if i == 0 else ())
                if (chart := design.chart(name, block)) is not None
                and (f := design_figure(name, chart)) is not None
            ]
            after = list(section.after)
            simulated = (metrics.get("power") or {}).get(design.label)
            if section.power and simulated:
                after.insert(
                    0,
                    f"This audit had about {simulated['power']:.0%} chance to flag "
                    f"{simulated['words']} for one group (simulated through the same test on "
                    "this audit's own answers).",
                )
            out.append(Block(section.heading, section.intro, tables, drawn, after))
    return out


def _flag_family_size(metrics: MetricsReport, family: str) -> int:
    tests = [m.get("flag_test") for m in _metric_dicts(metrics)]
    sizes = [int(t.get("family_size", 0)) for t in tests if t and t.get("family") == family]
    return max(sizes, default=0)


def _metric_dicts(data: object) -> list[MetricDict]:
    """Every metric object in the report (any design, any depth)."""
    if isinstance(data, dict):
        if "value" in data and "ci" in data and "title" in data:
            return [cast(MetricDict, data)]
        return [m for v in data.values() for m in _metric_dicts(v)]
    if isinstance(data, list):
        return [m for v in data for m in _metric_dicts(v)]
    return []


def _method(metrics: MetricsReport) -> list[str]:
    """How the intervals cluster and how a flag is decided, for the Method section."""
    blocks = [(d, b) for d in REGISTRY if (b := d.block(metrics)) is not None]
    units = [d for d, b in blocks if d.answered(b)]
    if not units:  # nothing answered: the designs every run computes
        units = [d for d, _b in blocks if d.always]
    clustering = [d.clustering for d in units if d.placement == "head"]
    clustering += [d.clustering for d in units if d.placement != "head"]
    out = ["Intervals allow for answers that share something: " + "; ".join(clustering) + "."]
    fair = _flag_family_size(metrics, "fairness")
    valid = _flag_family_size(metrics, "validity")
    alpha = next(
        (t["value"] for t in metrics.get("thresholds", []) if t.get("key") == "group_gap_alpha"),
        0.05,
    )
    out.append(
        "Every flag is a test, never a number past a threshold by itself. The fairness flags "
        f"of all designs ({fair} tests here) are one family: each design's groups are tested "
        "together by a permutation test (the groups relabelled within each resume, batch or "
        "pool; its omnibus step gates the per-group flags), each design gets an equal share, "
        f"and the chance of any false fairness alarm in this report stays at {alpha:g}. A test "
        "that could not reach its share with this audit's data is left out and said so. "
        "The validity "
        f"and position-bias flags ({valid} tests) are a second family. A number past its "
        "threshold whose test does not reject is shown and marked not significant."
    )
    for design, block in blocks:
        out += design.method_notes(block)
    return out


DEMO_MODEL_SENTENCE = (
    "This audit ran on the bundled demonstration model (SmolLM2, 135 million parameters). "
    "It shows how an audit works; its verdicts and reasons mean little and say nothing about "
    "the model you plan to use. Run the same study on that model (choose it on the Run page, "
    "or resume-auditor audit STUDY --provider ... --model ...) to audit it."
)


def _missing(metrics: MetricsReport) -> list[Block]:
    """Answers the metrics could not use, by design and group (stats/missing.py)."""
    missing = metrics.get("missing") or {}
    if not any(block["lost"] for block in missing.values()):
        return []
    intro = [
        "Every number above leaves out the answers it could not use: unreadable ones, "
        "refusals, requests that failed and rankings or scores read only in part. Lost evenly, "
        "they only widen the intervals; lost more for some groups, they bias the fairness "
        "numbers, which the test below looks for."
    ]
    rows: list[Row] = []
    for design, block in sorted(missing.items()):
        counts = block["counts"]
        parts = [f"{counts[s]} {s}" for s in counts if s != "read" and counts[s]]
        by_group = "; ".join(
            f"{label(g)} {sum(c[s] for s in c if s != 'read')} of {sum(c.values())}"
            for g, c in block["by_group"].items()
        )
        intro.append(
            f"{design}: {block['lost']} of {block['requests']} answers lost"
            + (f" ({', '.join(parts)})" if parts else "")
            + (f". Lost, by the group shown: {by_group}." if by_group else ".")
        )
        if block["metric"] is not None:
            rows.append(Row(design, ["missing", design, "metric"], block["metric"]))
        unranked = block.get("unranked")
        if unranked is not None and unranked["partial"]:
            left = "; ".join(
                f"{label(g)} {c['left_out']} of {c['shown']}"
                for g, c in unranked["by_group"].items()
            )
            intro.append(
                f"{design}: {unranked['partial']} of {unranked['rankings']} rankings were read "
                f"only in part; candidates left unranked, by group: {left}."
            )
            if unranked["metric"] is not None:
                where = ["missing", design, "unranked", "metric"]
                rows.append(Row(f"{design} rankings", where, unranked["metric"]))
    tables = [Table("Answers lost, by group", rows, sentences=True)] if rows else []
    return [Block("Answers the metrics could not use", intro, tables)]


def _limitations(metrics: MetricsReport, facts: AuditFacts) -> list[str]:
    groups = sorted({g for d in facts.designs for g in d.groups})
    groups = sorted({*groups, *(g for u in facts.unit_designs for g in u.groups)})
    signals = sorted({s for d in facts.designs for s in d.signals})
    perceived = [
        words
        for d in REGISTRY
        if (block := d.block(metrics)) is not None and (words := d.perceived(block))
    ]
    checks = " or ".join(d.perception_check for d in REGISTRY if d.perception_check)
    out = [DEMO_MODEL_SENTENCE] if facts.run.provider == "local" else []
    out += [
        "Necessary, not sufficient. Passing this audit means the model did not show these "
        "problems on these test cases; it does not show that the model is fit to screen people "
        "for this job, or that it is fair in ways not tested here.",
        "Synthetic variants. The test cases are built from your resumes by swapping names and "
        "pronouns and by deleting lines that carry a required qualification. Real applicants "
        "differ in many more ways at once.",
        "Binary gender. The test uses women and men only, signalled by first names, pronouns "
        "and titles; it says nothing about non-binary candidates.",
        "Groups covered: "
        + (", ".join(groups) if groups else "none")
        + ". Other races and ethnicities, age, disability, national origin and other protected "
        "characteristics were not tested.",
    ]
    if perceived:
        out.append(
            "Names are only signals. A name suggests race and gender to a model only as strongly "
            "as the model associates them. The manipulation check asked the model what it "
            "perceived: " + " ".join(perceived)
        )
    else:
        out.append(
            "Names are only signals. A name suggests race and gender to a model only as strongly "
            "as the model associates them; this audit did not check what the model perceived"
            + (f" ({checks} does)" if checks else "")
            + ". A model that does not read the names as intended can look fair here and still "
            "not be." + (f" Signals used: {', '.join(signals)}." if signals else "")
        )
    out.append(
        f"One model, one prompt, one date. These results hold for {facts.run.model} as the "
        f"server identified itself, with this prompt and these settings, on the dates above. "
        "Providers change models behind the same name; audit again after a change."
    )
    resumes = len([r for r in facts.resumes if r.status != "error"])
    out.append(
        f"Size. The test cases come from {resumes} source resume{'s' if resumes != 1 else ''}; "
        "answers about the same resume are not independent, and the intervals allow for that. "
        "Wide intervals mean the audit is too small to tell, not that the model is fine."
    )
    if facts.findings:
        kinds = ", ".join(f"{k.replace('_', ' ')} ({n})" for k, n in facts.findings)
        injected = any(k == "prompt_injection" for k, _ in facts.findings)
        what = (
            "Instructions to an AI were kept in every copy, as the study asked (Test cases "
            "\u2192 \u201cKeep hidden instructions to an AI\u201d, or "
            "variants.keep_instructions in a study file); the rest went to the model as it was."
            if facts.keep_instructions and injected
            else "Instructions to an AI were removed from every copy (the default); the rest "
            "went to the model as it was."
            if injected
            else "They went to the model as they were."
        )
        out.append(
            "Some source resumes carried things the app flags before a run (resumes with each "
            f"kind: {kinds}). {what}"
        )
    if facts.checklist_doubts:
        out.append(
            "\u26a0 The job's checklist was read from the posting and not edited, and the app "
            "doubted it: " + " ".join(facts.checklist_doubts)
        )
    return out


def build_document(
    result: AuditReader,
    metrics: MetricsReport,
    *,
    now: datetime | None = None,
    examples_per_kind: int = 3,
) -> ReportDocument:
    run_id = int(metrics["run"]["id"])
    facts = gather_facts(result, run_id)
    figures = build_figures(metrics)
    verdict = build_verdict(metrics)
    if facts.run.provider == "local":  # page 1 says it first: these verdicts mean little
        verdict.sentences.insert(0, DEMO_MODEL_SENTENCE)
    return ReportDocument(
        metrics=metrics,
        facts=facts,
        verdict=verdict,
        validity=_registered(metrics, figures, "validity") + _missing(metrics),
        fairness=_registered(metrics, figures, "fairness"),
        examples=pick_examples(result, run_id, examples_per_kind),
        example_kinds=KINDS,
        limitations=_limitations(metrics, facts),
        generated_at=(now or datetime.now(UTC)).isoformat(timespec="seconds"),
        figures=figures,
        method=_method(metrics),
        comparison=build_comparison(metrics.get("comparison"), run_id),
    )


__all__ = ["Block", "ReportDocument", "Row", "Table", "build_document"]
