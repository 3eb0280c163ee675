"""The metrics report, its types (stats/model.py) and docs/metrics-json.md agree.

A real audit of every design (two runs, so error agreement is filled) goes through
the real path (CLI audit against the provider simulator, `metrics_report`, `metrics
--json`), and every key and value is checked against the TypedDicts at run time: a
key the types do not declare, a declared key that is missing, or a value of another
type fails. The document's key tables are checked against the types too.
"""

from __future__ import annotations

import json
import re
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from devtools.simulator import Simulator, always
from devtools.simulator_kinds import every_kind_policy

from resume_auditor.cli import main
from resume_auditor.designs.d1_castleman import model as d1_model
from resume_auditor.designs.d2_correspondence import model as d2_model
from resume_auditor.designs.d3_rabbi import model as d3_model
from resume_auditor.designs.d4_faire import model as d4_model
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.stats import model
from resume_auditor.stats.model import MetricDict, MetricsReport
from resume_auditor.store.resultfile import ResultFile
from resume_auditor.workflow.metrics import metrics_report
from tests.test_designs_e2e import SAMPLE, STUDY  # the four-design study of the e2e tests

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "metrics-json.md"


def problems(value: Any, tp: Any, path: str = "") -> list[str]:
    """Where `value` does not fit type `tp` (TypedDicts checked key by key, both ways)."""
    if tp is Any or tp is object:
        return []
    origin = get_origin(tp)
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, expected {tp.__name__}"]
        hints = get_type_hints(tp)
        out = [f"{path}.{k}: missing ({tp.__name__})" for k in tp.__required_keys__ - set(value)]
        out += [f"{path}.{k}: not in {tp.__name__}" for k in set(value) - set(hints)]
        for key, item in value.items():
            if key in hints:
                out += problems(item, hints[key], f"{path}.{key}")
        return out
    if origin is Union or origin is types.UnionType:
        found = [problems(value, arm, path) for arm in get_args(tp)]
        return [] if any(not p for p in found) else min(found, key=len)
    if origin is Literal:
        return [] if value in get_args(tp) else [f"{path}: {value!r} not one of {get_args(tp)}"]
    if origin is Mapping:  # a registry design's block: checked against its own type
        return [] if isinstance(value, dict) else [f"{path}: expected a map"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__}, expected a list"]
        (item_type,) = get_args(tp)
        return [
            p for i, item in enumerate(value) for p in problems(item, item_type, f"{path}[{i}]")
        ]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, expected a dict"]
        key_type, item_type = get_args(tp)
        out = [f"{path}: key {k!r} is not a string" for k in value if not isinstance(k, key_type)]
        return out + [p for k, v in value.items() for p in problems(v, item_type, f"{path}.{k}")]
    if tp is type(None):
        return [] if value is None else [f"{path}: {value!r}, expected null"]
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} ({type(value).__name__}), expected a number"]
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} ({type(value).__name__}), expected an int"]
    if tp in (bool, str):
        ok = isinstance(value, tp)
        return [] if ok else [f"{path}: {value!r} ({type(value).__name__}), expected {tp.__name__}"]
    raise AssertionError(f"{path}: the checker does not know the type {tp!r}")


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every design, two runs of the same file (the second fills `error_agreement`);
    built once, and only read (in memory, or by a read-only command)."""
    folder = tmp_path_factory.mktemp("all")
    study = folder / "study.toml"
    study.write_text(STUDY.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes"))
    out = folder / "all.audit"
    policy = every_kind_policy(always("Resume 1 is stronger. <answer>first</answer>"))
    with pytest.MonkeyPatch.context() as mp, Simulator(policy=policy) as sim:
        mp.setenv("RESUME_AUDITOR_DATA_DIR", str(folder / "data"))
        for name in ("sim", "sim-2"):
            args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", name]
            assert main(["audit", str(study), "--out", str(out), "--concurrency", "8", *args]) == 0
    return out


def test_a_real_report_of_every_design_matches_the_types(
    audit: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ResultFile.in_memory(audit) as result:
        report = metrics_report(result)
    assert {"d2", "d3", "d4"} <= set(report)
    assert report["error_agreement"], "two runs of one file: error agreement is filled"
    assert report["d3"]["pointwise"] is not None and report["d3"]["pairwise"] is not None
    assert problems(report, MetricsReport) == []
    for design in DESIGNS:  # each registry design's block against its own TypedDict
        block = design.block(report)
        assert design.block_type is not None, design.key
        assert block is None or problems(block, design.block_type, design.key) == []
    by_key = {d.key: d for d in DESIGNS}
    assert by_key["d2"].block(report) is report["d2"]  # D2's block stays where it was
    assert by_key["d3"].block(report) is report["d3"]  # and D3's
    assert by_key["d4"].block(report) is report["d4"]  # and D4's
    capsys.readouterr()
    assert main(["metrics", str(audit), "--json"]) == 0
    as_json = json.loads(capsys.readouterr().out)
    assert problems(as_json, MetricsReport) == []
    assert problems(as_json["d1"], d1_model.D1Dict, "d1") == []
    assert problems(as_json["impact_ratio"], d1_model.ImpactRatioDict, "impact_ratio") == []
    assert problems(as_json["d2"], d2_model.D2Dict, "d2") == []
    assert problems(as_json["d3"], d3_model.D3Dict, "d3") == []
    assert problems(as_json["d4"], d4_model.D4Dict, "d4") == []
    # Every kind of metric object is in this report, so each one's extra fields were checked.
    kinds = {
        "selection_gap": report["d1"]["selection_gap"],
        "impact cell": report["impact_ratio"]["race"],
        "smd": report["d2"]["smd"],
        "rabbi": report["d3"]["pairwise"]["rabbi"],
        "ranks": next(iter(report["d4"]["ranks"].values())),
    }
    assert all(kinds.values()), [k for k, v in kinds.items() if not v]


FORCED = """
format = 1
[study]
name = "Forced choice, half unreadable"
seed = 3
[job]
file = "{job}"
[resumes]
files = ["{resumes}/01-jordan-ellery.pdf", "{resumes}/02-morgan-tate.pdf"]
[run]
prompt = "d1-forced-choice"
[designs.d1]
groups = ["black_woman", "white_man"]
"""


def _half_unreadable(body: dict[str, Any]) -> str:
    """Every other request (by its text) gets an answer no reader can use."""
    text = json.dumps(body, sort_keys=True)
    return "<answer>first</answer>" if len(text) % 2 else "I would rather not say."


@pytest.mark.parametrize("answered", [False, True])
def test_sparse_reports_match_the_types(tmp_path: Path, answered: bool) -> None:
    """No answers at all (empty D1, no power figure), and a forced-choice run with unreadable
    answers (no DiscrimValidity, null values, notes): the keys that come and go still fit."""
    study = tmp_path / "study.toml"
    study.write_text(FORCED.format(job=SAMPLE / "job.md", resumes=SAMPLE / "resumes"))
    out = tmp_path / "sparse.audit"
    with Simulator(policy=_half_unreadable) as sim:
        args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", "m"]
        extra = [] if answered else ["--prepare-only"]
        assert main(["audit", str(study), "--out", str(out), *args, *extra]) == 0
    with ResultFile(out) as result:
        report = metrics_report(result)
    assert problems(report, MetricsReport) == []
    for design in DESIGNS:  # D1's blocks, typed in its folder, are checked there
        block = design.block(report)
        assert design.block_type is not None, design.key
        assert block is None or problems(block, design.block_type, design.key) == []
    assert not {"d2", "d3", "d4"} & set(report)
    if answered:
        assert report["counts"]["invalid"] > 0 and report["notes"]
        assert "discrim_validity" not in report["d1"]["metrics"]
    else:
        assert report["d1"]["metrics"] == {} and report["d1"]["power"] == {}


def test_the_checker_catches_a_wrong_key_a_missing_key_and_a_wrong_type() -> None:
    metric: dict[str, Any] = {
        "title": "CriterionValidity",
        "value": 0.9,
        "ci": [0.8, 0.95],
        "level": 0.95,
        "n": 40,
        "successes": 36,
        "clusters": 5,
        "note": "",
        "unit": "proportion",
        "sentence": "s",
        "reading": "r",
        "flag": None,
        "flag_test": None,
        "p_adjusted": None,
        "not_significant": False,
    }
    assert problems(metric, MetricDict) == []
    assert problems(metric | {"vaule": 1.0}, MetricDict) == [".vaule: not in MetricDict"]
    assert problems({k: v for k, v in metric.items() if k != "n"}, MetricDict) == [
        ".n: missing (MetricDict)"
    ]
    assert problems(metric | {"n": "40"}, MetricDict) == [".n: '40' (str), expected an int"]
    assert problems(metric | {"n": True}, MetricDict)
    assert problems(metric | {"unit": "percent"}, MetricDict)
    assert problems(metric | {"ci": [0.8, "x"]}, MetricDict)


def _doc_keys(table: int) -> list[str]:
    """The backticked keys in the first column of the doc's `table`-th key table."""
    lines = DOC.read_text(encoding="utf-8").splitlines()
    start = [i for i, line in enumerate(lines) if line == "| key | type | meaning |"][table]
    keys: list[str] = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        first = line.split("|")[1]
        keys += re.findall(r"`([a-z_0-9.<>]+)`", first)
    return keys


def _resolve(tp: Any, path: list[str]) -> bool:
    """Does the key path exist in the type (`<...>` parts are map keys)?"""
    for part in path:
        while get_origin(tp) in (Union, types.UnionType):
            tp = next(a for a in get_args(tp) if a is not type(None))
        if get_origin(tp) is dict:  # a map: `<group>` or an example key such as `unequal`
            tp = get_args(tp)[1]
        elif is_typeddict(tp):
            hints = get_type_hints(tp)
            if part not in hints:
                return False
            tp = hints[part]
        else:
            return False
    return True


def _resolve_top(path: list[str]) -> bool:
    """A top-level key path of the report: a key `MetricsReport` types as a map (a head
    design's block, D1's) resolves in that design's own block type."""
    hint = get_type_hints(MetricsReport).get(path[0])
    if get_origin(hint) is Mapping:
        owners = [d.block_type for d in DESIGNS if d.placement == "head" and d.block_type]
        return any(path[0] in get_type_hints(t) and _resolve(t, path) for t in owners)
    return _resolve(MetricsReport, path)


def test_the_document_names_exactly_the_keys_of_the_types() -> None:
    top = _doc_keys(0)
    assert "counts.pairs" in top and "d1.power" in top
    missing = [k for k in top if not _resolve_top(k.split("."))]
    assert missing == []
    documented_top = {k.split(".")[0] for k in top} | {"d2", "d3", "d4"}
    assert set(get_type_hints(MetricsReport)) == documented_top
    assert set(_doc_keys(1)) == set(get_type_hints(MetricDict))


def test_every_metric_kind_is_a_metric_object() -> None:
    """Extra fields extend the metric object; none redefines one of its keys."""
    base = get_type_hints(MetricDict)
    kinds = [
        d1_model.GapMetric,
        d1_model.ImpactCell,
        d2_model.SmdMetric,
        d2_model.RatioMetric,
        d3_model.RabbiMetric,
        d3_model.ScoreGapMetric,
        d3_model.SelectedMetric,
        d4_model.DifferenceMetric,
        d4_model.RankMetric,
    ]
    for kind in kinds:
        hints = get_type_hints(kind)
        assert {k: hints[k] for k in base} == base, kind.__name__


def test_every_key_of_the_designs_and_metric_kinds_is_documented() -> None:
    """Each key of the D2-D4 blocks and each extra field of a metric kind is named in the doc."""
    text = DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z_0-9]+)", text)) | set(re.findall(r"\.([a-z_0-9]+)", text))
    blocks = [
        d1_model.D1Dict,
        d2_model.D2Dict,
        d3_model.D3Dict,
        d3_model.D3ScoresDict,
        d4_model.D4Dict,
    ]
    kinds = [
        d1_model.GapMetric,
        d1_model.ImpactCell,
        d2_model.SmdMetric,
        d2_model.RatioMetric,
        d3_model.RabbiMetric,
        d3_model.ScoreGapMetric,
        d3_model.SelectedMetric,
        d4_model.DifferenceMetric,
        d4_model.RankMetric,
        model.FlagTestDict,
        d1_model.PowerDict,
        model.AgreementDict,
        model.ThresholdDict,
        d1_model.ImpactRatioDict,
    ]
    missing = {
        f"{t.__name__}.{key}"
        for t in blocks + kinds
        for key in get_type_hints(t)
        if key not in named
    }
    assert missing == set()


def test_a_pilot_runs_answers_size_the_audit(audit: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from resume_auditor.settings.thresholds import active_thresholds
    from resume_auditor.stats.power_sim import Sizing
    from resume_auditor.workflow.metrics import pilot_sizing
    from resume_auditor.workflow.plan import plan_run
    from resume_auditor.workflow.prepare import study_of

    # The model's sizing has its own tests (test_stats_power_sim.py); here only which
    # one the plan reads: a design with a pilot's answers is sized from them.
    def model_sizing(size: Any, effect: float, share: float, **_: Any) -> Sizing:
        return Sizing(size.design, effect, 0.0, size.units, None, float("inf"))

    monkeypatch.setattr("resume_auditor.workflow.plan.size_for_power", model_sizing)
    with ResultFile.in_memory(audit) as result:
        sizing = pilot_sizing(result, active_thresholds())
        plan = plan_run(result, study_of(result), simulate=True)
    for z in sizing:
        assert z.basis == "answers" and 0.0 <= z.power_now <= 1.0
        assert z.units_needed is None or z.units_needed >= z.units_now
    by_design = {z.design: z for z in plan.sizing}
    for z in sizing:
        assert by_design[z.design] == z  # the plan reads the pilot's answers first
    assert plan.sizing_lines and plan.sizing_lines[0].startswith("Power, simulated")
    # designs sized by the shared simulation are never also called "not simulated"
    assert not [line for line in plan.sizing_lines if "not simulated" in line]
