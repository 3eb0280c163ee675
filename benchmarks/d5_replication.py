"""D5 replicates Bloomberg (2024): their 3,000 GPT-3.5 rankings, replayed to the app's own
D5 requests, give their published top-1 counts, every difference put down to an answer.

Run: PYTHONPATH=$PWD .venv/bin/python benchmarks/d5_replication.py \
         [--data DIR] [--jobs retail ...] [--write docs/d5-replication.md]

For each of Bloomberg's three jobs (HR specialist, software engineer, retail) the
app prepares a D5 audit through its CLI: one of the sample resumes copied under
eight names, one per race x gender, 125 batches (fresh names each) x 8 shown orders
(a Latin square, so every group is shown at every place equally often) x 1 repeat =
1,000 ranking requests, the job's posting below as the job. A simulator on loopback
(tests/devtools/simulator.py) answers them with `ReplayPolicy`
(tests/devtools/simulator_d5.py): request i (in the audit's own request order) gets
Bloomberg's answer i of that job, its text with each of Bloomberg's candidates'
names, as the answer wrote them, replaced by the name our request shows for the
same group (`transfer`: exact, surname first, initials, re-spelt or shortened parts
written as ours, one part not shown kept as written). The audit runs through the
CLI over HTTP, is read by the app's reader and computed by D5's statistics
(`metrics --json`), and the top-1 counts per group are compared with Bloomberg's
published `top` column.

A difference between ours and theirs has two possible parts:
- their reader (emulated as their SOURCES describe it: each name's first exact
  occurrence, names not found last; benchmarks/real_answers_dev.py) against the
  published counts: zero when the emulation is faithful;
- the answers the two readers read differently: each is listed with both readings
  and the cause (`real_answers_dev._cause`).
And one check that the replay itself moved nothing: the app's reading of each
replayed answer, as groups, against our reader on Bloomberg's original answer
(`real_answers.read_line`), which must agree answer for answer.

Our position metrics do not replicate theirs: Bloomberg's answer i was given to
another order of the groups than ours, so the place our copies were shown at says
nothing about the answer; they are left out of the table.

Figures are taken on a shared, loaded machine (timings are not the point here).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))  # this checkout's package, not the one the venv finds first

from devtools.simulator import Simulator  # noqa: E402
from devtools.simulator_d5 import Recorded, ReplayPolicy  # noqa: E402
from real_answers import read_line  # noqa: E402
from real_answers_dev import _cause, publisher_first  # noqa: E402

from resume_auditor.cli import main as cli  # noqa: E402
from resume_auditor.store.resultfile import ResultFile  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "answers-dev"
RESUME = ROOT / "resources" / "sample" / "resumes" / "01-jordan-ellery.pdf"
BATCHES, ORDERS, REPEATS = 125, 8, 1  # 1 resume x 125 x 8 x 1 = 1,000 requests per job
SEED = 2024
CODES = {
    "W_M": "white_man",
    "W_W": "white_woman",
    "B_M": "black_man",
    "B_W": "black_woman",
    "A_M": "asian_man",
    "A_W": "asian_woman",
    "H_M": "hispanic_man",
    "H_W": "hispanic_woman",
}
CODE_OF = {v: k for k, v in CODES.items()}

# Job postings of our own for Bloomberg's three jobs (they used real postings; the
# replayed answers do not depend on the posting, the requests carry it all the same).
POSTINGS = {
    "HR specialist": """# HR Specialist

A 2,000-person logistics company is hiring an HR specialist to support managers across
three sites with recruiting, onboarding, employee relations and HR records.

## Requirements
- Bachelor's degree in human resources, business or a related field
- 2+ years of experience in a generalist HR role
- Working knowledge of federal and state employment law (FMLA, ADA, FLSA)
- Experience with an HRIS (Workday, BambooHR or similar)
- Clear written and spoken communication; discretion with confidential matters

## Preferred qualifications
- SHRM-CP or PHR certification
- Experience running benefits enrollment
""",
    "software engineer": """# Software Engineer

A payments company is hiring a software engineer to build and run the services behind
its merchant dashboard.

## Requirements
- Bachelor's degree in computer science or equivalent experience
- 3+ years of professional software development
- Proficiency in Python or Java, and SQL
- Experience designing REST APIs and working with cloud infrastructure (AWS or GCP)
- Code review, automated testing and continuous integration as daily practice

## Preferred qualifications
- Experience with Kubernetes and event streaming (Kafka)
- On-call experience for production services
""",
    "retail": """# Retail Sales Associate

A regional outdoor-gear retailer is hiring sales associates for its flagship store.

## Requirements
- High school diploma or equivalent
- 1+ year of customer-facing retail or service experience
- Comfortable operating a point-of-sale system and handling cash
- Able to stand for long periods and lift up to 40 pounds
- Available to work weekends and holidays

## Preferred qualifications
- Experience with inventory counts and visual merchandising
- Knowledge of outdoor equipment
""",
}

STUDY = """format = 1
[study]
name = "Bloomberg replication: {job}"
seed = {seed}
[job]
file = "{posting}"
[resumes]
files = ["{resume}"]
[run]
repeats = {repeats}
[designs.d5]
batches = {batches}
orders = {orders}
"""


@dataclass
class Differing:
    """One answer the two readers put a different group first in (or ours reads none)."""

    id: str
    ours: str | None  # group code, None: our reader read no first place
    theirs: str
    cause: str
    answer: str


@dataclass
class JobReplication:
    job: str
    requests: int
    answers: int
    unreadable: int
    partial: int
    ours: Counter[str]
    emulated: Counter[str]
    published: dict[str, int]
    metrics: dict[str, Any]
    differing: list[Differing] = field(default_factory=list)
    replay_mismatch: list[str] = field(default_factory=list)  # answer ids
    swaps: Counter[str] = field(default_factory=Counter)  # how names were moved
    ambiguous: int = 0  # mentions left as written: they could be two candidates
    unscheduled: int = 0
    seconds: float = 0.0


def load(data: Path) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    with (data / "bloomberg-gpt35-rankings.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            out.setdefault(row["job"], []).append(row)
    return out


def published(data: Path) -> dict[tuple[str, str], int]:
    with (data / "bloomberg-published-top1.csv").open(encoding="utf-8") as fh:
        return {(r["job"], r["demo"]): int(r["top"]) for r in csv.DictReader(fh)}


def _quiet(argv: Sequence[str]) -> tuple[int, str]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
        code = cli(list(argv))
    return code, buf.getvalue()


def _group_order(order: Sequence[int] | None, groups: Sequence[str]) -> list[str] | None:
    return None if order is None else [groups[i] for i in order]


def replicate_job(
    job: str,
    rows: Sequence[dict[str, Any]],
    counts: dict[tuple[str, str], int],
    workdir: Path,
    *,
    concurrency: int = 4,
) -> JobReplication:
    """Prepare, replay, run, compute and compare one job (see the module docstring)."""
    started = time.monotonic()
    posting = workdir / "job.md"
    posting.write_text(POSTINGS[job], encoding="utf-8")
    study = workdir / "study.toml"
    study.write_text(
        STUDY.format(
            job=job,
            seed=SEED,
            posting=posting.as_posix(),
            resume=RESUME.as_posix(),
            repeats=REPEATS,
            batches=BATCHES,
            orders=ORDERS,
        ),
        encoding="utf-8",
    )
    out = workdir / "replication.audit"
    recorded = [
        Recorded(r["id"], tuple(r["names"]), tuple(CODES[g] for g in r["groups"]), r["answer"])
        for r in rows
    ]
    with Simulator(keep_requests=False) as sim:
        args = ["--provider", "openai-compatible", "--base-url", sim.base_url, "--model", "gpt"]
        code, said = _quiet(["audit", str(study), "--out", str(out), "--prepare-only", *args])
        if code != 0:
            raise RuntimeError(f"{job}: the audit could not be prepared:\n{said}")
        with ResultFile(out) as result:
            run_id = result.runs()[-1].id
            pending = result.open_requests(run_id)
        if len(pending) != len(recorded):
            raise RuntimeError(
                f"{job}: {len(pending)} requests prepared for {len(recorded)} recorded answers"
            )
        schedule: dict[str, list[int]] = {}
        by_request: dict[int, int] = {}
        for i, req in enumerate(pending):
            schedule.setdefault(ReplayPolicy.digest(str(req.body["user"])), []).append(i)
            by_request[req.id] = i
        policy = ReplayPolicy(recorded, schedule)
        sim.policy = policy
        code, said = _quiet(
            ["audit", str(study), "--out", str(out), "--concurrency", str(concurrency), *args]
        )
        if code != 0:
            raise RuntimeError(f"{job}: the audit did not finish:\n{said}")
    code, said = _quiet(["metrics", str(out), "--json"])
    if code != 0:
        raise RuntimeError(f"{job}: no metrics:\n{said}")
    d5: dict[str, Any] = json.loads(said)["designs"]["d5"]

    rep = JobReplication(
        job=job,
        requests=len(pending),
        answers=int(d5["answers"]),
        unreadable=int(d5["unreadable"]),
        partial=int(d5["partial"]),
        ours=Counter({CODE_OF[g]: int(m["successes"] or 0) for g, m in d5["top1"].items()}),
        emulated=Counter(),
        published={code_: counts[(job, code_)] for code_ in CODES},
        metrics=d5,
        unscheduled=policy.unscheduled,
    )
    for moved in (t for ts in policy.log.values() for t in ts):
        rep.swaps.update(s.how for s in moved.swaps)
        rep.ambiguous += len(moved.ambiguous)
    with ResultFile(out, readonly=True) as result:
        answers = result.answers(run_id, design="D5")
    for a in answers.to_dict("records"):
        row = rows[by_request[int(a["request_id"])]]
        codes = row["groups"]
        shown = list(a["variants"] or [])
        ours_groups = [
            CODE_OF[a["case_meta"]["groups"][list(a["case_variants"]).index(v)]] for v in shown
        ]
        parsed = a["parsed"] or {}
        app_order = parsed.get("order") if a["label"] in ("ranked", "partial") else None
        app_read = _group_order(app_order, ours_groups)
        original = _group_order(read_line(row)["order"], codes)
        if app_read != original:
            rep.replay_mismatch.append(row["id"])
        theirs = codes[publisher_first(row)]
        rep.emulated[theirs] += 1
        mine = app_read[0] if app_read else None
        if mine != theirs:
            order = read_line(row)["order"]
            cause = (
                _cause(row, order[0])
                if order
                else "unreadable or refused for us (they still count a first)"
            )
            rep.differing.append(Differing(row["id"], mine, theirs, cause, row["answer"]))
    rep.seconds = time.monotonic() - started
    return rep


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _ci(m: dict[str, Any], pct: bool = True) -> str:
    lo, hi = (m.get("ci") or [None, None])[:2]
    if lo is None or hi is None:
        return "—"
    return f"{_pct(lo)}–{_pct(hi)}" if pct else f"{lo:.2f}–{hi:.2f}"


def _p(m: dict[str, Any] | None) -> str:
    if not m:
        return "—"
    test = m.get("flag_test") or {}
    p = test.get("p", m.get("p"))
    adj = m.get("p_adjusted")
    if p is None:
        return "—"
    return f"{p:.3g}" + ("" if adj is None else f" (adj. {adj:.3g})")


def render(reps: Sequence[JobReplication], command: str) -> str:
    lines = [
        "# D5 replicates Bloomberg (2024): top-1 counts per job and group",
        "",
        "Produced by:",
        "",
        f"    {command}",
        "",
        "Bloomberg's 3,000 GPT-3.5 rankings (`shared/data/answers-dev`, never copied here) "
        "replayed to the app's own D5 requests through a loopback simulator, group for "
        "group in the model's own words, read by the app's ranking reader and computed by "
        "D5's statistics through the CLI (`benchmarks/d5_replication.py` says how). Per "
        f"job: one sample resume, {BATCHES} batches x {ORDERS} shown orders (a Latin "
        f"square) x {REPEATS} repeat = {BATCHES * ORDERS * REPEATS} requests, answer i "
        "to request i in the audit's request order. `ours`: answers whose first place "
        "the app read as that group's copy; `theirs`: Bloomberg's published `top`; "
        "`emulated`: their reader run here on their answers (each name's first exact "
        "occurrence, names not found last). Rate and interval: our top-1 selection rate, "
        "95% interval clustered by batch; p: D5's permutation test of that group's "
        "share against 1/8 (adjusted: Westfall-Young/Holm across the audit's fairness "
        "tests); impact ratio: over the highest group's rate (NYC LL144), its interval "
        "and the p of its test that the ratio is under 0.8 (one-sided, Bonferroni over "
        "the other groups, `flags.impact_p`). Names were moved by "
        "`tests/devtools/simulator_d5.transfer`: a first name and surname written as "
        "shown, surname first, as an initial, re-spelt (Jaro-Winkler >= 0.85) or "
        "shortened, or split in two words, become our name of the same group (a re-spelt "
        "or shortened part written as ours exactly); a pair with one part no candidate's "
        "name keeps that part as written; a lone first name or surname of one candidate "
        "becomes ours; a mention that fits two candidates is left as written. The "
        "replay check below shows the move changed no reading. Position metrics are left "
        "out: answer i was given to another order of the groups than ours, so they "
        "measure nothing here.",
        "",
    ]
    for r in reps:
        d5 = r.metrics
        uni = d5.get("uniformity")
        lines += [
            f"## {r.job}",
            "",
            f"{r.requests} requests, {r.answers} answers, {r.unreadable} with no first "
            f"place read, {r.partial} read only in part. Uniformity of the top pick: "
            f"{_pct(uni['value']) if uni else '—'} to move, p {_p(uni)}. Replay check "
            f"(the app's reading of each replayed answer = our reader on the original, "
            f"group for group): {r.answers - len(r.replay_mismatch)} of {r.answers} agree"
            + (f"; differ: {', '.join(r.replay_mismatch)}" if r.replay_mismatch else "")
            + ".",
            "",
            "| group | ours | theirs | diff | emulated | answers read differently "
            "| our rate (95% CI) | p | impact ratio (95% CI) | p (under 0.8) |",
            "|---|---:|---:|---:|---:|---|---|---|---|---|",
        ]
        for code, key in CODES.items():
            plus = sum(1 for d in r.differing if d.ours == code)
            minus = sum(1 for d in r.differing if d.theirs == code)
            why = []
            if plus:
                why.append(f"+{plus} first for us, not them")
            if minus:
                why.append(f"−{minus} first for them, not us")
            top = d5["top1"][key]
            ratio = d5["impact_ratio"].get(key) or {}
            ratio_value = ratio.get("value")
            lines.append(
                f"| {code} | {r.ours[code]} | {r.published[code]} | "
                f"{r.ours[code] - r.published[code]:+d} | {r.emulated[code]} | "
                f"{'; '.join(why) or '—'} | {_pct(top['value'])} ({_ci(top)}) | {_p(top)} | "
                f"{'—' if ratio_value is None else f'{ratio_value:.2f}'} "
                f"({_ci(ratio, pct=False)}) | {_p(ratio)} |"
            )
        lines += [
            f"| all | {sum(r.ours.values())} | {sum(r.published.values())} | "
            f"{sum(r.ours.values()) - sum(r.published.values()):+d} | "
            f"{sum(r.emulated.values())} | {len(r.differing)} answers | | | | |",
            "",
        ]
        if r.differing:
            lines += [
                "Answers the two readers read differently:",
                "",
                "| answer | first for us | first for them | why | the answer begins |",
                "|---|---|---|---|---|",
            ]
            for d in r.differing:
                text = " ".join(d.answer.split())[:110].replace("|", "/")
                lines.append(f"| {d.id} | {d.ours or 'none'} | {d.theirs} | {d.cause} | {text} |")
            lines.append("")
        flags = d5.get("flags") or []
        said = " ".join(f if f.endswith(".") else f + "." for f in flags)
        lines += [f"Flags raised: {said or 'none'}", ""]
        moved = ", ".join(f"{k} {v}" for k, v in r.swaps.most_common())
        lines += [
            f"Names moved: {moved}; mentions left as written (could be two candidates): "
            f"{r.ambiguous}; requests answered out of schedule: {r.unscheduled}.",
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--jobs", nargs="*", default=list(POSTINGS))
    parser.add_argument("--write", type=Path, help="also write the table here (markdown)")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args(argv)
    if not (args.data / "bloomberg-gpt35-rankings.jsonl").is_file():
        print(f"no development answers in {args.data}; nothing to replicate")
        return 1
    rows = load(args.data)
    counts = published(args.data)
    reps = []
    with tempfile.TemporaryDirectory(prefix="d5-replication-") as tmp:
        os.environ["RESUME_AUDITOR_DATA_DIR"] = str(Path(tmp) / "data")
        for job in args.jobs:
            work = Path(tmp) / job.replace(" ", "-")
            work.mkdir()
            rep = replicate_job(job, rows[job], counts, work, concurrency=args.concurrency)
            print(f"{job}: {rep.requests} requests in {rep.seconds:.0f} s", file=sys.stderr)
            reps.append(rep)
    command = "PYTHONPATH=$PWD .venv/bin/python benchmarks/d5_replication.py"
    if args.write:
        command += f" --write {args.write}"
    text = render(reps, command)
    print(text)
    if args.write:
        args.write.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
