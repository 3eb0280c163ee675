"""The runner against the provider simulator: rate, faults, kill -9, memory.

Run: .venv/bin/python benchmarks/runner_throughput.py {rate|faults|kill|memory|all} [N]

rate    N requests (default 3,000) against a simulated 600 requests/min limit with
        0.3-3 s latency per answer. The runner is told nothing about the limit: it
        learns it from the rate-limit headers. Reports the achieved rate (answers
        per minute over the whole run) as a share of the limit, requests lost (no
        answer) and requests paid more than once (counted at the simulator).
faults  The same with 10% of requests given an injected fault, drawn evenly from
        every kind the simulator has (rate limits, overload, 5xx, out of quota,
        unknown model, wrong key, prompt too long, refusals, content filters,
        upstream errors inside a 200, slow, hanging, dropped, cut-off and
        malformed answers). Runs that stop on an error every request would hit are
        resumed, as a user would after fixing it. Reports, per fault kind, what
        the runner saw and what became of the request, and checks every failure
        recorded in the result file names its cause.
kill    N requests (default 600) with 0.3-3 s latency, 16 at once; the runner
        (`resume-auditor run` in a child process) is killed with SIGKILL at 5
        random points and resumed; then runs to the end. Reports requests lost
        and paid more than once at the simulator. The simulator, like vLLM and
        llama.cpp, does not answer a client that hung up; an answer it sends in the
        very instant of the kill is paid but never received, and is bought again:
        the check allows exactly those, identified by time.
memory  N requests (default 100,000) answered at once; the runner in a child
        process; reports its resident memory as the run goes (and the peak), next
        to the size of the result file it writes.

Every scenario exits 1 if a request is lost or a check fails.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from resume_auditor.devtools.simulator import Fault, Simulator
from resume_auditor.domain.case import Variant, VariantKind
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.domain.study import ModelSpec
from resume_auditor.prompts import build_body, get_preset
from resume_auditor.providers.base import ChatRequest, ChatResponse, Provider, ProviderError
from resume_auditor.runner import RunState
from resume_auditor.store.resultfile import RequestSpec, ResultFile
from resume_auditor.workflow.execute import make_runner, model_of, provider_factory

ROOT = Path(__file__).resolve().parent.parent
JOB = "Junior Data Analyst. " + "Requirements: advanced SQL, Python, dashboards. " * 20
RESUME = "Analyst with SQL reporting pipelines, Python notebooks and Tableau dashboards. " * 18


def build_audit(path: Path, model: ModelSpec, n: int) -> int:
    """A result file with `n` distinct pairwise requests (about 3,000 characters each)."""
    preset = get_preset("pairwise-job-first")
    with ResultFile(path, create=True) as rf:
        with rf.transaction():
            rf.save_study("runner benchmark", "format = 1", {}, None)
            rf.save_job(Job("Analyst", JOB, [Qualification("SQL", QualKind.REQUIRED)]), None, None)
            rid = rf.add_resume("r.txt", None, RESUME, 1, "ok")
            a = rf.add_variant(Variant(rid, VariantKind.BASE, RESUME, "white_man", "A"))
            b = rf.add_variant(Variant(rid, VariantKind.LESS, RESUME[:-80], "black_woman", "B"))
        run_id = rf.add_run(model.provider, model.base_url, model.model, preset.id, {})
        template = build_body(
            model, preset, {"resume_1": RESUME, "resume_2": RESUME[:-80], "job_description": JOB}
        )
        specs = (
            RequestSpec(
                ukey=f"bench:{i}",
                kind=preset.kind,
                body={**template, "user": template["user"] + f"\n(case {i})"},
                variants=(a, b),
                preset=preset.id,
            )
            for i in range(n)
        )
        with rf.transaction():
            rf.add_request_specs(run_id, specs)
    return run_id


def _latency(seed: int) -> Any:
    rng = random.Random(seed)
    lock = threading.Lock()

    def draw() -> float:
        with lock:
            return rng.uniform(0.3, 3.0)

    return draw


def _lost(path: Path, run_id: int) -> int:
    with ResultFile(path) as rf:
        p = rf.progress(run_id)
    return p.total - p.done


def _paid_twice(sim: Simulator) -> int:
    return sum(1 for count in sim.paid.values() if count > 1)


# -- rate ------------------------------------------------------------------------------------


def scenario_rate(n: int, workdir: Path) -> bool:
    limit = 600
    with Simulator(latency_s=_latency(1), rpm=limit, keep_requests=False) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        path = workdir / "rate.audit"
        run_id = build_audit(path, model, n)
        started = time.monotonic()
        status = make_runner(path, run_id, concurrency=64, use_cache=False).run()
        elapsed = time.monotonic() - started
        rate = status.done / elapsed * 60
        lost, twice = _lost(path, run_id), _paid_twice(sim)
        print(
            f"rate: {status.done} answers in {elapsed:.1f} s = {rate:.0f}/min "
            f"({rate / limit:.1%} of the {limit}/min limit); limit learnt from headers: "
            f"{status.rpm_limit}; 429s received: {sim.rate_limited}; waits for the limit: "
            f"{status.rate_limit_waits}; lost: {lost}; paid twice: {twice}"
        )
    return rate >= 0.95 * limit and lost == 0 and twice == 0


# -- faults ----------------------------------------------------------------------------------

FAULTS = (
    ("rate_limit", lambda: Fault(kind="rate_limit", retry_after_s=1.0)),
    ("overloaded", lambda: Fault(kind="overloaded")),
    ("http_500", lambda: Fault(500)),
    ("quota", lambda: Fault(kind="quota")),
    ("not_found", lambda: Fault(kind="not_found")),
    ("auth_401", lambda: Fault(401)),
    ("context", lambda: Fault(kind="context")),
    ("refuse", lambda: Fault(kind="refuse")),
    ("filter", lambda: Fault(kind="filter")),
    ("upstream", lambda: Fault(kind="upstream")),
    ("slow", lambda: Fault(kind="slow", delay_s=2.0)),
    ("hang", lambda: Fault(kind="hang", delay_s=8.0)),
    ("drop", lambda: Fault(kind="drop")),
    ("truncate", lambda: Fault(kind="truncate")),
    ("malformed", lambda: Fault(kind="malformed")),
)


class _Watch:
    """A provider that notes the kind of every error the runner receives."""

    def __init__(self, inner: Provider, seen: Counter[str]) -> None:
        self.inner, self.name, self.seen = inner, inner.name, seen

    async def chat(self, request: ChatRequest) -> ChatResponse:
        try:
            return await self.inner.chat(request)
        except ProviderError as exc:
            self.seen[exc.kind.value] += 1
            raise

    async def list_models(self) -> list[str]:
        return await self.inner.list_models()

    async def aclose(self) -> None:
        await self.inner.aclose()


def scenario_faults(n: int, workdir: Path) -> bool:
    limit = 600
    rng = random.Random(7)
    lock = threading.Lock()
    injected: Counter[str] = Counter()

    def random_fault() -> Fault | None:
        with lock:
            if rng.random() >= 0.10:
                return None
            name, make = rng.choice(FAULTS)
            injected[name] += 1
        return make()

    seen: Counter[str] = Counter()
    with Simulator(
        latency_s=_latency(2), rpm=limit, keep_requests=False, random_fault=random_fault
    ) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        path = workdir / "faults.audit"
        run_id = build_audit(path, model, n)
        with ResultFile(path) as rf:
            run = rf.runs()[0]
        base = provider_factory(model_of(run), 5.0)
        sessions, stops, recorded = 0, Counter[str](), Counter[str]()
        silent = 0
        started = time.monotonic()
        while _lost(path, run_id) and sessions < 200:
            sessions += 1
            runner = make_runner(
                path,
                run_id,
                concurrency=64,
                timeout_s=5.0,
                use_cache=False,
                factory=lambda: _Watch(base(), seen),
            )
            status = runner.run()
            if status.state is RunState.STOPPED:
                stops[status.message.split(" (")[0][:60]] += 1
            with ResultFile(path) as rf:
                for _, kind, message in rf.failures(run_id):
                    recorded[kind] += 1
                    silent += not (kind and message)
        elapsed = time.monotonic() - started
        with ResultFile(path) as rf:
            progress = rf.progress(run_id)
        lost = progress.total - progress.done
        print(
            f"faults: {progress.done}/{progress.total} answered in {elapsed:.0f} s over "
            f"{sessions} session(s); lost: {lost}; refusals kept as answers: {progress.refused}"
        )
        print(f"  injected ({sum(injected.values())}): {dict(sorted(injected.items()))}")
        print(f"  errors the runner received, by kind: {dict(sorted(seen.items()))}")
        print(
            f"  failures recorded with their cause at the end of a session: "
            f"{dict(sorted(recorded.items()))}; without a cause: {silent}"
        )
        for cause, count in stops.most_common():
            print(f"  run stopped {count}x (then resumed): {cause}")
        print(f"  paid twice at the simulator: {_paid_twice(sim)}")
    return lost == 0 and silent == 0


# -- kill -9 ---------------------------------------------------------------------------------


class _TimedSimulator(Simulator):
    """Notes when each answer was paid for, to tell a crash's race from a resend."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.paid_at: list[tuple[float, str]] = []

    def count_paid(self, request: dict[str, Any]) -> None:
        super().count_paid(request)
        with self.lock:
            self.paid_at.append((time.monotonic(), self.fingerprint(request)))


def scenario_kill(n: int, workdir: Path) -> bool:
    rng = random.Random(11)
    with _TimedSimulator(latency_s=_latency(3), keep_requests=False) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        path = workdir / "kill.audit"
        run_id = build_audit(path, model, n)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "resume_auditor.cli", "run", str(path)]
        log = open(workdir / "kill.log", "w")  # noqa: SIM115 - closed below
        kills: list[float] = []
        notes = []
        for _ in range(5):
            child = subprocess.Popen(
                [*command, "--concurrency", "16"], env=env, stdout=log, stderr=log
            )
            wait = rng.uniform(3.0, 12.0)
            time.sleep(wait)
            kills.append(time.monotonic())
            child.send_signal(signal.SIGKILL)
            child.wait()
            time.sleep(0.2)
            with ResultFile(path) as rf:
                done = rf.progress(run_id).done
            notes.append(f"{wait:.1f} s ({done} answered)")
        code = subprocess.call([*command, "--concurrency", "16"], env=env, stdout=log, stderr=log)
        log.close()
        time.sleep(3.5)  # requests hung up at a kill finish at the simulator (unanswered)
        lost = _lost(path, run_id)
        paid = sum(sim.paid.values())
        twice = {f for f, c in sim.paid.items() if c > 1}
        # An answer the simulator sent in the instant the client was being killed
        # never reached it: the resumed run must buy it again (no client can avoid
        # that; batch mode can). Any other second payment would be the runner's fault.
        raced = {
            f for t, f in sim.paid_at if f in twice and any(-0.05 <= t - k <= 0.1 for k in kills)
        }
        print(
            f"kill: killed after {', '.join(notes)}; the final run exited {code}; lost: {lost}; "
            f"answers paid: {paid} for {n} requests; paid twice: {len(twice)} "
            f"(answered by the simulator within 0.1 s of a kill: {len(raced)}); in flight at a "
            f"kill and not answered because the client had gone: {sim.abandoned}"
        )
    return lost == 0 and code == 0 and twice == raced


# -- memory ----------------------------------------------------------------------------------


def _rss_kb(pid: int) -> tuple[int, int]:
    """(current, peak) resident memory of a process, in kB."""
    values = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":", 1)
                values[key] = int(value.split()[0])
    return values.get("VmRSS", 0), values.get("VmHWM", 0)


def scenario_memory(n: int, workdir: Path) -> bool:
    with Simulator(keep_requests=False) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        path = workdir / "memory.audit"
        run_id = build_audit(path, model, n)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        child = subprocess.Popen(
            [sys.executable, "-m", "resume_auditor.cli", "run", str(path), "--concurrency", "16"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        marks = [int(n * f) for f in (0.01, 0.1, 0.25, 0.5, 0.75, 0.9)]
        samples = []
        peak = 0
        started = time.monotonic()
        while child.poll() is None:
            try:
                rss, peak = _rss_kb(child.pid)
            except OSError:
                break
            answered = sim.answered
            while marks and answered >= marks[0]:
                samples.append(f"{marks.pop(0):,}: {rss / 1024:.0f} MB")
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        code = child.wait()
        lost = _lost(path, run_id)
        size = path.stat().st_size / 1024 / 1024
        print(
            f"memory: {n:,} requests in {elapsed:.0f} s ({n / elapsed:.0f}/s); exit {code}; "
            f"lost: {lost}; resident memory after N answers — {'; '.join(samples)}; "
            f"peak {peak / 1024:.0f} MB; result file {size:.0f} MB"
        )
    return lost == 0 and code == 0


SCENARIOS = {
    "rate": (scenario_rate, 3000),
    "faults": (scenario_faults, 3000),
    "kill": (scenario_kill, 600),
    "memory": (scenario_memory, 100_000),
}


def main(argv: list[str]) -> int:
    which = argv[1] if len(argv) > 1 else "all"
    names = list(SCENARIOS) if which == "all" else [which]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("RESUME_AUDITOR_DATA_DIR", str(Path(tmp) / "data"))
        for name in names:
            if name not in SCENARIOS:
                print(f"unknown scenario {name!r}; use one of {', '.join(SCENARIOS)} or all")
                return 2
            run, default_n = SCENARIOS[name]
            n = int(argv[2]) if len(argv) > 2 else default_n
            passed = run(n, Path(tmp))
            print(f"  -> {name}: {'PASS' if passed else 'FAIL'}", flush=True)
            ok = ok and passed
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
