"""The qualifications block: unequal D1 texts without a model, on every resume shape.

The truth of a block pair rests on three facts checked here on the generated shapes
of tests/devtools (Markdown and plain text of every corpus resume, plus headings
underlined, ending in a colon, in capitals, with no heading at all) and on every
real resume of shared/data/resumes-dev against every posting of jobs-dev:
the body is the same in every copy (only one run of lines is inserted, identity
slots read as before), c- no longer states what it left out, c+ states what it
added. And the block reads like the resume: its heading and bullets in the
resume's own style.
"""

from __future__ import annotations

import difflib
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from devtools import corpus
from devtools.corpus_render import render_text

from resume_auditor.designs.d1_castleman.cases import build_d1
from resume_auditor.designs.d1_castleman.spec import D1Spec
from resume_auditor.documents.extract import analyse_resume
from resume_auditor.documents.load import load_file
from resume_auditor.documents.resumecheck import resume_refusal
from resume_auditor.domain.case import CaseKind, VariantKind
from resume_auditor.domain.identity import Slot, SlotKind, Template
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.variants.summary_block import (
    block_texts,
    mentioned,
    phrase,
    resume_style,
    with_block,
)
from tests.shared_data import corpus_dir

JOB = Job(
    "Payroll Specialist",
    "",
    [
        Qualification("3+ years of payroll experience", QualKind.REQUIRED),
        Qualification("Associate degree in accounting or a related field", QualKind.REQUIRED),
        Qualification("Experience with ADP Workforce Now", QualKind.REQUIRED),
        Qualification("Must have strong attention to detail", QualKind.REQUIRED),
        Qualification("Certified Payroll Professional (CPP) is a plus", QualKind.PREFERRED),
        Qualification("Experience with multi-state payroll (preferred)", QualKind.PREFERRED),
    ],
)


def _template(markup: str, markdown: bool) -> Template:
    text, expected = render_text(markup, markdown=markdown)
    return Template(text, [Slot(s, e, kind, text[s:e]) for s, e, kind in expected.slots])


def _shapes() -> dict[str, Template]:
    out: dict[str, Template] = {}
    for name in dir(corpus):
        markup = getattr(corpus, name)
        if name.isupper() and isinstance(markup, str) and "{full_name:" in markup:
            out[f"{name.lower()}.md"] = _template(markup, True)
            out[f"{name.lower()}.txt"] = _template(markup, False)
    name_line = "Robin Vale\nrobin.vale@example.com\n"
    body = "Payroll clerk at Northwind Ltd, 2019-2024.\nRan weekly payroll for 80 staff.\n"
    shapes = {
        "underlined": f"{name_line}\nExperience\n==========\n{body}\nEducation\n=========\nBA\n",
        "colon": f"{name_line}\nExperience:\n\u2022 Payroll clerk, 2019-2024.\n\u2022 Ran it.\n",
        "caps": f"{name_line}PROFILE\nA careful clerk.\nEXPERIENCE\n* {body}",
        "no-heading": f"{name_line}\n{body}",
        "one-line": "Robin Vale, payroll clerk, Northwind Ltd",
    }
    for name, text in shapes.items():
        at = text.index("Robin Vale")
        out[name] = Template(text, [Slot(at, at + 10, SlotKind.FULL_NAME, "Robin Vale")])
    return out


SHAPES = _shapes()


def _inserted(original: str, changed: str) -> list[tuple[str, int, int, int, int]]:
    a, b = original.split("\n"), changed.split("\n")
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return [op for op in ops if op[0] != "equal"]


def _check_truth(template: Template, job: Job, ks: tuple[int, ...] = (1, 2)) -> list[str]:
    """What is wrong with the block texts of one resume (nothing, when they are right)."""
    problems = []
    block = block_texts(1, template, job, ks, random.Random(7))
    for text in [block.base, *block.less.values(), *block.more.values()]:
        t = text.template
        ops = _inserted(template.text, t.text)
        if len(ops) > 1 or any(op[0] != "insert" for op in ops):
            problems.append(f"{text.kind.value}{text.k}: more than one inserted block {ops}")
        if [t.text[s.start : s.end] for s in t.slots] != [s.original for s in template.slots]:
            problems.append(f"{text.kind.value}{text.k}: identity slots moved off their text")
        if text.kind is VariantKind.LESS and any(mentioned(t.text, q) for q in text.changes):
            problems.append(f"c-{text.k} still states what it left out: {text.changes}")
        if text.kind is VariantKind.MORE and not all(mentioned(t.text, q) for q in text.changes):
            problems.append(f"c+{text.k} does not state what it added: {text.changes}")
        if text.kind is not VariantKind.BASE and text.k != len(text.changes):
            problems.append(f"{text.kind.value}{text.k}: {len(text.changes)} changes")
    return problems


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_block_texts_keep_the_body_and_the_truth_on_every_shape(name: str) -> None:
    template = SHAPES[name]
    assert _check_truth(template, JOB) == []
    block = block_texts(1, template, JOB, (1, 2), random.Random(1))
    assert 1 in block.less or 1 in block.more
    for k in (1, 2):  # a copy the resume does not allow is missing, and a note says why
        assert k in block.less or any(f"leave out {k}" in n for n in block.notes)
        assert k in block.more or any(f"add {k}" in n for n in block.notes)


def test_the_block_is_written_in_the_resume_s_style() -> None:
    md = with_block(SHAPES["marisol.md"], ["Experience with ADP Workforce Now"]).text
    assert "## HIGHLIGHTS\n- Experience with ADP Workforce Now\n" in md  # after ## SUMMARY
    assert md.index("## HIGHLIGHTS") > md.index("## SUMMARY")
    assert md.index("## HIGHLIGHTS") < md.index("## EXPERIENCE")
    under = with_block(SHAPES["underlined"], ["Experience with ADP Workforce Now"]).text
    assert "Summary of Qualifications\n=========================\n" in under
    assert under.index("Summary of Qualifications") < under.index("Experience\n")
    colon = with_block(SHAPES["colon"], ["Experience with ADP Workforce Now"]).text
    assert "Summary of Qualifications:\n\u2022 Experience with ADP Workforce Now.\n" in colon
    caps = with_block(SHAPES["caps"], ["Experience with ADP Workforce Now"]).text
    assert caps.index("PROFILE") < caps.index("HIGHLIGHTS\n* Experience") < caps.index("EXPERIENCE")
    bare = with_block(SHAPES["no-heading"], ["Experience with ADP Workforce Now"]).text
    assert bare.startswith("Robin Vale\nrobin.vale@example.com\n")
    assert bare.index("Summary of Qualifications") < bare.index("Payroll clerk")
    assert resume_style("no headings, no bullets").bullet == ""


def test_checklist_wording_becomes_a_resume_line() -> None:
    assert phrase("Certified Payroll Professional (CPP) is a plus") == (
        "Certified Payroll Professional (CPP)"
    )
    assert phrase("Must have strong attention to detail.") == "Strong attention to detail"
    assert phrase("Experience with multi-state payroll (preferred)") == (
        "Experience with multi-state payroll"
    )
    assert phrase("Bachelor's (Preferred)", full_stop=True) == "Bachelor's."
    assert phrase("- you have 2 years of SQL") == "2 years of SQL"
    assert phrase("Required") == "Required"  # nothing left: the wording stays


def test_nothing_is_claimed_twice_or_left_out_that_the_body_states() -> None:
    template = SHAPES["no-heading"]  # says payroll, not ADP, not a degree
    block = block_texts(1, template, JOB, (1, 2, 3), random.Random(3))
    assert "3+ years of payroll experience" not in block.stated  # the body states payroll
    assert "Experience with ADP Workforce Now" in block.stated
    for less in block.less.values():
        assert "3+ years of payroll experience" not in less.changes
    # "multi-state payroll" shares "payroll" with the body, but not "multi-state"
    assert 3 not in block.more and any("preferred" in n for n in block.notes)


def test_d1_records_the_construction_and_only_uses_the_block_where_asked() -> None:
    template = SHAPES["marisol.txt"]
    for mode, wanted in (
        ("never", set()),
        ("missing", {"summary_block"}),
        ("always", {"summary_block"}),
        ("only", {"summary_block"}),
    ):
        built = build_d1(1, template, JOB, D1Spec(k=(1,), summary_block=mode), seed=2)
        unequal = [c for c in built.cases if c.kind is CaseKind.UNEQUAL]
        assert {c.construction for c in unequal} - {"lexical"} == wanted, mode
        for case in unequal:
            if case.construction == "summary_block":
                a, b = (built.variants[v] for v in case.variants)
                assert "qualifications block" in case.differs
                assert {a.construction, b.construction} == {"summary_block"}


@cache
def _dev_resumes() -> dict[str, Template]:
    out = {}
    for path in sorted(corpus_dir("resumes-dev").iterdir()):
        if path.suffix not in (".pdf", ".docx"):
            continue
        try:
            doc = load_file(path)
        except Exception:  # noqa: BLE001 - an unreadable file is not this test's subject
            continue
        if not resume_refusal(doc.text, path.name):
            out[path.name] = analyse_resume(doc).template
    return out


def _dev_jobs() -> dict[str, Job]:
    out = {}
    for path in sorted(corpus_dir("jobs-dev").glob("*.truth.json")):
        truth = json.loads(path.read_text(encoding="utf-8"))
        quals = [Qualification(q, QualKind.REQUIRED) for q in truth["required"]]
        quals += [Qualification(q, QualKind.PREFERRED) for q in truth["preferred"]]
        out[path.name] = Job(path.name, "", quals)
    return out


def test_every_real_resume_gets_unequal_block_texts_that_keep_the_truth() -> None:
    resumes, jobs = _dev_resumes(), _dev_jobs()
    assert len(resumes) >= 30
    cells = less = more = more_cells = 0
    problems: list[str] = []
    for rname, template in resumes.items():
        for jname, job in jobs.items():
            if not job.required:
                continue
            cells += 1
            more_cells += bool(job.preferred)
            block = block_texts(1, template, job, (1,), random.Random(f"{rname}{jname}"))
            less += 1 in block.less
            more += 1 in block.more
            problems += [f"{rname} x {jname}: {p}" for p in _check_truth(template, job, (1,))]
    print(f"c- {less}/{cells}, c+ {more}/{more_cells} (postings with a preferred one)")
    assert problems == []
    assert less >= 0.95 * cells  # measured 726 of 759 (the one posting that fails states
    # its only two requirements twice over, so neither can be left out alone)
    assert more >= 0.65 * more_cells  # measured 351 of 495


def test_a_real_resume_keeps_its_text_outside_the_block() -> None:
    resumes = _dev_resumes()
    name = next(n for n in resumes if n.startswith("soupboss_accountant"))
    template = resumes[name]
    job = next(iter(j for j in _dev_jobs().values() if len(j.required) > 3))
    base = block_texts(1, template, job, (1,), random.Random(1)).base.template.text
    ops = _inserted(template.text, base)
    assert len(ops) == 1
    _, _, _, j1, j2 = ops[0]
    block_lines = base.split("\n")[j1:j2]
    assert any(line.startswith("- ") for line in block_lines)  # its bullets are "- "


def test_the_breakdown_by_construction_reaches_the_json_results_and_report(
    small_study: Path, tmp_path: Path, simulator: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from resume_auditor.cli import main
    from resume_auditor.designs.d1_castleman.present import BREAKDOWN_TITLES
    from resume_auditor.ui.models.metric_table import design_rows

    small_study.write_text(small_study.read_text().replace('summary_block = "never"', ""))
    out = tmp_path / "a.audit"
    args = ["--provider", "openai-compatible", "--base-url", simulator.base_url, "--model", "m"]
    assert main(["audit", str(small_study), "--out", str(out), *args]) == 0
    capsys.readouterr()
    assert main(["metrics", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    cells = report["d1"]["breakdowns"]["criterion_validity_by_construction"]
    assert set(cells) == {"lexical", "summary_block"}
    assert report["d1"]["breakdowns"]["criterion_validity_by_change_location"]["summary"]["n"] > 0
    # each pair counted once per answer: the cells add up to the overall figure's answers
    overall = report["d1"]["metrics"]["criterion_validity"]
    assert sum(c["n"] for c in cells.values()) == overall["n"]
    rows = [
        r
        for r in design_rows(report, "d1")
        if r.path[:3] == ("d1", "breakdowns", "criterion_validity_by_construction")
    ]
    assert {r.detail for r in rows} == {"lexical", "summary_block"}
    assert all(r.measure == BREAKDOWN_TITLES["criterion_validity_by_construction"] for r in rows)


@pytest.mark.parametrize("p", [1.0, 0.0])
def test_a_planted_validity_is_read_back_per_construction(
    small_study: Path, tmp_path: Path, simulator: Any, p: float
) -> None:
    """A loopback model that always (never) picks the copy stating more qualifications
    gives CriterionValidity 1 (0) on every construction: truth and construction are
    wired through study -> HTTP -> reading -> store -> metrics."""
    from devtools.simulator_policies import ValidityOracle

    from resume_auditor.domain.study import ModelSpec
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.execute import make_runner
    from resume_auditor.workflow.metrics import metrics_report
    from resume_auditor.workflow.prepare import prepare
    from resume_auditor.workflow.studyfile import read_study

    small_study.write_text(
        small_study.read_text().replace('summary_block = "never"', 'summary_block = "always"')
    )
    out = tmp_path / "a.audit"
    model = ModelSpec("openai-compatible", simulator.base_url, "sim-model", 0.0, 160, 1)
    prepare(read_study(small_study), out, model, generate=False)
    with ResultFile(out) as rf:
        simulator.policy = ValidityOracle.from_variants(rf.variants(), p_correct=p, seed=1)
    make_runner(out, concurrency=2, use_cache=False, max_retries=1).run()
    with ResultFile(out) as rf:
        d1 = metrics_report(rf)["d1"]
    cells = d1["breakdowns"]["criterion_validity_by_construction"]
    assert set(cells) == {"lexical", "summary_block"}
    assert all(m["value"] == p for m in cells.values())
    assert d1["metrics"]["criterion_validity"]["value"] == p
