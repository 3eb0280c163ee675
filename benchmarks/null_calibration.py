"""Null calibration through the real path: does an unbiased model get flagged?

Run: .venv/bin/python benchmarks/null_calibration.py [AUDITS] [--study sample|larger|both]
     [--policy null|position|planted|all] [--orders both|ab]

Every audit goes study -> cases -> HTTP to one loopback model server (the
provider simulator) -> answer reading -> result file -> metrics -> the report's
flags, exactly as `resume-auditor audit` does. The server answers through an
oracle (devtools/simulator_policies.py) that knows each resume text's source
resume and qualification level and nothing else, so:

- policy "null": answers ignore every group signal; every fairness flag is a
  false alarm. Target: at most 5% of audits with ANY fairness flag (each kind of
  flag counted separately too), and 95% intervals covering the null value
  (gap 0, standardized difference 0, impact ratio 1, RABBI 0, score difference 0,
  average rank (n + 1) / 2) 93-97% of the time.
- policy "position": the same plus a strong bias for the first-shown candidate
  (pairwise and ranking prompts). Position flags are expected; fairness flags are
  not.
- policy "planted": Black women's candidates lose `EFFECT` quality units (about
  half the spread between source resumes) everywhere; the share of audits that
  flag them, per design, is the power at that study size. Each audit also states
  the power its report would claim for that effect (`metrics_report(power=...)`:
  the audit's own answers resampled, every group difference removed, the effect's
  true size in each design's units planted, through the same tests); the mean
  claim is printed beside the measured power (issue 25: within 10 points).

Studies: "sample" is resources/sample/study.toml as shipped (4 resumes, all four
designs, small cells); "larger" is the same designs over 12 resumes built from
the sample's 4 by giving each copy its own name (distinct source resumes for the
statistics: quality is drawn per source). Audits run one after another in this
process against one server with no response cache; the machine is small and
shared, so counts are modest and timings are not the point.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped
sys.path.insert(0, str(ROOT))  # this checkout's package, not the one the venv finds first
SAMPLE = ROOT / "resources" / "sample"
EFFECT = 0.6  # --effect
COPIES = 12  # --resumes: source resumes of the "larger" study
ONLY: tuple[str, ...] = ()  # --only d2,d4: the larger study's designs kept

LARGER_DESIGNS = """
[designs.d1]
groups = ["black_woman", "black_man", "white_woman", "white_man"]
equal_pairs = true
unequal_pairs = true
k = [1]

[designs.d2]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
prompts = ["d2-rating"]
manipulation_check = false

[designs.d3]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
rounds = 12
prompt = "d3-yes-no"

[designs.d4]
groups = ["black_woman", "white_man", "asian_woman", "hispanic_man"]
race_batches = 8
gender_batches = 8
orders_per_batch = 2
"""


def _study_text(kind: str, seed: int, orders: str, resumes: list[Path]) -> str:
    text = (SAMPLE / "study.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^seed = \d+", f"seed = {seed}", text, count=1)
    text = text.replace('file = "job.md"', f'file = "{SAMPLE / "job.md"}"')
    files = ", ".join(f'"{p}"' for p in resumes)
    text = text.replace('files = ["resumes/*.pdf"]', f"files = [{files}]")
    text = text.replace('orders = "both"', f'orders = "{orders}"')
    if kind == "larger":
        designs = LARGER_DESIGNS
        if ONLY:
            parts = designs.split("[designs.")
            designs = "".join(f"[designs.{p}" for p in parts[1:] if p.split("]")[0] in ONLY)
        text = text[: text.index("[designs.d1]")] + designs
    return text


def _larger_resumes(
    workdir: Path, pdfs: list[Path] | None = None, count: int | None = None
) -> list[Path]:
    """`count` (default COPIES) source resumes: `pdfs` (default the sample's 4), then
    byte-distinct copies of each (the oracle draws a quality per file, so a copy is a
    source resume of its own for the statistics)."""
    count = COPIES if count is None else count
    out: list[Path] = []
    pdfs = pdfs or sorted((SAMPLE / "resumes").glob("*.pdf"))
    for i in range(-(-count // len(pdfs))):
        for pdf in pdfs:
            if len(out) == count:
                return out
            if i == 0:
                out.append(pdf)
                continue
            target = workdir / f"copy{i}-{pdf.name}"
            shutil.copyfile(pdf, target)
            with target.open("ab") as fh:  # a trailing comment keeps the PDF valid
                fh.write(f"\n% copy {i}\n".encode())
            out.append(target)
    return out


def _walk(data: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    if isinstance(data, dict):
        if "value" in data and "ci" in data and "title" in data:
            return [(path, data)]
        out = []
        for k, v in data.items():
            out += _walk(v, (*path, str(k)))
        return out
    return []


# metric path -> its value under "the group changes nothing"
def _null_value(path: tuple[str, ...], metric: dict[str, Any]) -> float | None:
    top = path[0]
    if top == "d1" and path[1] == "selection_gap":
        return 0.0
    if top == "d2" and path[1] in ("smd", "smd_race", "smd_gender"):
        return 0.0
    if top == "d2" and path[1] == "impact_ratio":
        return 1.0
    if top == "d3" and len(path) > 2 and path[2] in ("rabbi", "score_gap", "dp_gap", "eo_gap"):
        return 0.0
    if top == "d4" and path[1] == "differences":
        return 0.0
    if top == "d4" and path[1] == "ranks":
        return float(metric.get("expected") or 0) or None
    return None


def _kind(path: tuple[str, ...]) -> str:
    if path[0] == "d1" and path[1] == "metrics":
        return f"validity: {path[2]}"
    if path[0] == "impact_ratio":
        return "D1 impact ratio"
    if path[0] == "d1":
        return "D1 selection gap"
    if path[0] == "d2":
        return f"D2 {path[1]}"
    if path[0] == "d3":
        return f"D3 {path[1]} {path[2]}"
    return f"D4 {path[1]}"


def template_audit(
    sim: Any, workdir: Path, study_kind: str, orders: str, resumes: list[Path] | None = None
) -> Path:
    """The study prepared once (job and resumes read, cases built): each audit copies it.
    `resumes`: the files to read (default: the sample's, or their copies for "larger")."""
    from resume_auditor.domain.study import ModelSpec
    from resume_auditor.workflow.prepare import prepare
    from resume_auditor.workflow.studyfile import read_study

    if resumes is None:
        resumes = (
            sorted((SAMPLE / "resumes").glob("*.pdf"))
            if study_kind == "sample"
            else _larger_resumes(workdir)
        )
    study_path = workdir / f"study-{study_kind}.toml"
    study_path.write_text(_study_text(study_kind, 1, orders, resumes), encoding="utf-8")
    out = workdir / f"template-{study_kind}.audit"
    model = ModelSpec("openai-compatible", sim.base_url, "sim-model", 0.0, 160, 1)
    prepare(read_study(study_path), out, model, generate=False)
    return out


def true_effects(effect: float = EFFECT) -> dict[str, float]:
    """The planted quality shift in each design's own units, from the oracle's model
    (devtools/simulator_policies.py: quality spread 0.7, noise 1 per answer, abstain
    band 0.6, ratings floor(3.5 + latent) in 1..5)."""
    import numpy as np
    from scipy.stats import norm

    band, pair_sd = 0.6, math.sqrt(2.0)
    gap = (1 - norm.cdf((band + effect) / pair_sd)) - norm.cdf((effect - band) / pair_sd)
    latent = np.random.default_rng(0).normal(0, math.sqrt(0.7**2 + 1.0), 400_000)

    def rating(x: np.ndarray) -> np.ndarray:
        return np.clip(np.floor(3.5 + x), 1, 5)

    shift = float(rating(latent).mean() - rating(latent - effect).mean())
    return {"D1": abs(gap), "D2": shift, "D4": shift}


def run_audit(
    sim: Any,
    template: Path,
    workdir: Path,
    seed: int,
    policy: str,
    shift: float | None = None,
    claim: dict[str, float] | bool | None = None,
) -> dict[str, Any]:
    """One audit: the template's resumes, cases built from `seed`, run over HTTP, metrics.

    Reading the PDFs is the same in every audit and not what is being measured, so
    it happens once (template_audit); everything after it is the app's own path.
    """

    from devtools.seeded_audit import seeded_copy
    from devtools.simulator_policies import Oracle

    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.execute import make_runner
    from resume_auditor.workflow.metrics import metrics_report

    out, variants = seeded_copy(template, workdir, seed)
    sim.policy = Oracle.from_variants(
        variants,
        seed=seed,
        position_bias=1.0 if policy == "position" else 0.0,
        effects={"black_woman": -(EFFECT if shift is None else shift)}
        if policy == "planted"
        else {},
    )
    runner = make_runner(out, concurrency=8, use_cache=False, max_retries=1)
    runner.run()
    with ResultFile(out) as result:
        if claim is None:
            claim = true_effects(EFFECT) if policy == "planted" else False
        metrics = metrics_report(result, power=claim)
    for p in workdir.glob(f"audit-{seed}.audit*"):
        p.unlink()
    return metrics


def summarize(metrics: dict[str, Any]) -> dict[str, Any]:
    flags: Counter[str] = Counter()
    covered: dict[str, list[bool]] = defaultdict(list)
    flagged_groups: dict[str, set[str]] = defaultdict(set)
    for path, m in _walk(metrics):
        test = m.get("flag_test") or {}
        if m.get("flag"):
            family = test.get("family", "")
            flags[_kind(path) if family == "fairness" else f"validity: {path[-1]}"] += 1
            if family == "fairness":
                flagged_groups[path[0] if path[0] != "impact_ratio" else "d1"].add(path[-1])
        truth = _null_value(path, m)
        low, high = (m.get("ci") or [None, None])[:2]
        if (
            truth is not None
            and low is not None
            and high is not None
            and m.get("value") is not None
        ):
            if path[0] == "d2" and path[1] == "impact_ratio" and m["value"] == 1.0:
                continue  # the reference group: 1 by definition, no interval
            covered[_kind(path)].append(low - 1e-9 <= truth <= high + 1e-9)
    return {
        "kinds": dict(flags),
        "fairness": any(not k.startswith("validity") for k in flags),
        "covered": dict(covered),
        "flagged_groups": {k: sorted(v) for k, v in flagged_groups.items()},
        "claimed_power": {d: p["power"] for d, p in (metrics.get("power") or {}).items()},
        "answered": metrics["counts"]["answered"],
        "requests": metrics["counts"]["requests"],
        "invalid": metrics["counts"]["invalid"],
    }


def main(argv: list[str]) -> int:
    global EFFECT, COPIES, ONLY
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("audits", type=int, nargs="?", default=200)
    parser.add_argument("--study", default="both", choices=("sample", "larger", "both"))
    parser.add_argument("--policy", default="null", choices=("null", "position", "planted", "all"))
    parser.add_argument("--orders", default="both", choices=("both", "ab"))
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--json", type=Path, help="write the per-audit summaries here")
    parser.add_argument("--effect", type=float, default=EFFECT, help="planted quality shift")
    parser.add_argument("--resumes", type=int, default=COPIES, help="larger study's resumes")
    parser.add_argument("--only", default="", help="larger study's designs, e.g. d2,d4")
    args = parser.parse_args(argv[1:])
    EFFECT, COPIES = args.effect, args.resumes
    ONLY = tuple(d for d in args.only.split(",") if d)
    # tmpfs when there is one: the result file commits every answer, and a busy disk
    # would make this a benchmark of fsync
    shm = Path("/dev/shm")
    tmp = Path(tempfile.mkdtemp(prefix="null-cal-", dir=shm if shm.is_dir() else None))
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(tmp / "data")  # no shared cache, no user data
    from devtools.simulator import Simulator

    studies = ("sample", "larger") if args.study == "both" else (args.study,)
    policies = ("null", "position", "planted") if args.policy == "all" else (args.policy,)
    results: dict[str, list[dict[str, Any]]] = {}
    try:
        with Simulator(keep_requests=False, logprobs=False) as sim:
            for policy in policies:
                for study in studies:
                    key = f"{policy} / {study} / orders={args.orders}"
                    n = args.audits // len(studies)
                    started = time.monotonic()
                    rows = []
                    work = tmp / f"{policy}-{study}"
                    work.mkdir()
                    template = template_audit(sim, work, study, args.orders)
                    for i in range(n):
                        metrics = run_audit(sim, template, work, args.seed + i, policy)
                        rows.append(summarize(metrics))
                        if (i + 1) % 10 == 0:
                            print(f"  {key}: {i + 1} of {n}", file=sys.stderr, flush=True)
                    shutil.rmtree(work, ignore_errors=True)
                    results[key] = rows
                    report(key, rows, time.monotonic() - started)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


def report(key: str, rows: list[dict[str, Any]], seconds: float) -> None:
    n = len(rows)
    print(f"\n{key}: {n} audits in {seconds:.0f} s")
    if not n:
        return
    answered = sum(r["answered"] for r in rows)
    invalid = sum(r["invalid"] for r in rows)
    print(f"  answers {answered} of {sum(r['requests'] for r in rows)}, unreadable {invalid}")
    any_fair = sum(r["fairness"] for r in rows)
    print(f"  audits with ANY fairness flag: {any_fair} ({any_fair / n:.1%})")
    kinds = sorted({k for r in rows for k in r["kinds"]})
    for k in kinds:
        hit = sum(1 for r in rows if k in r["kinds"])
        print(f"    {k:<40} {hit:>4} audits ({hit / n:.1%})")
    covered: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        for k, v in r["covered"].items():
            covered[k] += v
    print("  95% intervals covering the null value:")
    for k, v in sorted(covered.items()):
        print(f"    {k:<40} {sum(v) / len(v):6.1%} of {len(v)}")
    groups: Counter[str] = Counter()
    for r in rows:
        for design, gs in r["flagged_groups"].items():
            if "black_woman" in gs or "black" in gs or "woman" in gs:
                groups[design] += 1
    claimed: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        for design, p in (r.get("claimed_power") or {}).items():
            claimed[design.lower()].append(p)
    if groups or claimed:
        print("  audits flagging Black women (or Black / women) per design, and the power")
        print("  the reports claimed for that effect (mean over audits):")
        for design in sorted(set(groups) | set(claimed)):
            said = claimed.get(design)
            said_text = f"{sum(said) / len(said):6.1%}" if said else "   n/a"
            print(
                f"    {design:<8} measured {groups.get(design, 0) / n:6.1%}   claimed {said_text}"
            )


if __name__ == "__main__":
    sys.exit(main(sys.argv))
