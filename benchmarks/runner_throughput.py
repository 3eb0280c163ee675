"""The runner against the provider simulator: rate, faults, kill -9, memory.

Run: .venv/bin/python benchmarks/runner_throughput.py {rate|limits|faults|kill|memory|all} [N]

rate    N requests (default 1,000) per setting against a simulated provider with a
        600 requests/min token bucket (429 with retry-after, x-ratelimit-* headers on
        every answer) and 0.3-3 s latency drawn at random, side by side:
          - the defaults (no flags: the runner learns the limit and how many at once),
          - the best flags of old (`--rpm 600 --concurrency 16`),
          - `--concurrency 64` (too many at once for this limit: must slow, not fail),
          - the defaults with 10% injected faults (500, 503, malformed, truncated,
            dropped, stalled answers; stalled or dropped mid-stream),
          - the defaults under a tokens/min limit that binds before the 600/min
            (its share is of the requests/min that limit allows),
          - the defaults against a provider that sends no rate-limit headers:
            only its 429s tell the runner the limit (its bucket starts empty, so
            the first minute's burst does not hide them).
        Half of the requests share their body with another one (30% would be
        surplus payments), some next to each other (in flight together), some
        far apart; the response cache is off, so only single flight can keep them
        from being paid twice. Reports, per setting: the sustained rate (answers
        bought per minute between the first and the last tenth of them: the
        window's growth and the last retries' tail left out) and over the whole
        run, its share of the limit, 429s, sessions (a run that stops is
        resumed; it should not stop), requests left, the largest window, answers
        shared, bodies the simulator was sent and paid more than once, and how
        long the setting took.
limits  The share of the limit over the whole run (first request to last answer) at
        60, 600 and 3,000 requests/min (token buckets, x-ratelimit-* headers, 0.3-3 s
        latency), each without and with 10% injected faults (500, overload,
        malformed, cut-off and dropped answers, and stalls: the provider makes and
        bills the answer but it never arrives, before its first piece or mid-stream,
        or drops the connection mid-stream), and under a tokens/min limit that
        binds before the requests/min. About two minutes' worth of requests each
        (N scales it: N/1,000 of that). Reports answers/min and their share of the
        limit, requests paid more than once (the simulator's bills) next to the
        runner's own count of sends that may have been paid twice, stalls, 429s.
        With RUNNER_IN_CHILD=1 the runner is `resume-auditor run --no-cache` in a
        child process, as a user runs it, so the simulator (this process) and the
        runner do not share one interpreter lock: in one process, 3,000/min measures
        the lock, not the runner. The whole run then ends at the simulator's last
        answer; stalls and the largest window are not seen from outside ("-").
        Also, per setting: where the time went, from the simulator's timeline (the
        feed, while requests still had their first send to come, with its sends
        share by tenths, which shows any slow-down after faults; and the tail after
        the last first send, its length and re-sends), and the load average before
        and after. The faults settings at 600 and 3,000/min are run once more with
        `--hedge 2` (early copies at the tail, paid twice when the first send was
        only slow; "copies sent early"). LIMITS_ONLY=600f,600fh (keys: 60, 60f, 600,
        600f, 3000, 3000f, tpm, 600fh, 3000fh) runs only those settings; 600fs and 600fhs are
        the 600/min faults settings streamed (OpenAI's API: these requests ask for
        log-probabilities, which only OpenAI and Azure stream; the other settings'
        answers are unstreamed, so their mid-answer stalls are plain stalls).
faults  The same with 10% of requests given an injected fault, drawn evenly from
        every kind the simulator has (rate limits, overload, 5xx, out of quota,
        unknown model, wrong key, prompt too long, refusals, content filters,
        upstream errors inside a 200, slow, hanging, dropped, cut-off and
        malformed answers). Runs that stop on an error every request would hit are
        resumed, as a user would after fixing it. Reports, per fault kind, what
        the runner saw and what became of the request, and checks every failure
        recorded in the result file names its cause.
kill    N requests (default 600), the same 600/min provider, the defaults; the
        runner (`resume-auditor run` in a child process) is stopped 2-8 s after it
        starts sending, 10 times, alternately with SIGKILL and SIGTERM, and resumed;
        then runs to the end. After each stop it reports what the next run said
        (the abrupt end's requests that may already have been paid), its exit code,
        and requests left marked sent.
        The simulator finishes and bills a request whose client has gone, as
        hosted APIs do. Reports per kill: requests at the provider at that
        instant, requests the file shows as sent without an answer (the only ones
        a resumed run may send again), and the requests actually sent again; then
        answers paid but never stored.
memory  N requests (default 100,000) answered at once; the runner in a child
        process; reports its resident memory as the run goes (and the peak), next
        to the size of the result file it writes.

Every scenario exits 1 if a request is lost or a check fails. Times are real: run
it on a quiet machine for figures to compare.
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

from resume_auditor.domain.case import Variant, VariantKind
from resume_auditor.domain.job import Job, Qualification, QualKind
from resume_auditor.domain.study import ModelSpec
from resume_auditor.prompts import build_body, get_preset
from resume_auditor.providers.base import ChatRequest, ChatResponse, Provider, ProviderError
from resume_auditor.runner import RunState, RunStatus
from resume_auditor.store.resultfile import RequestSpec, ResultFile
from resume_auditor.workflow.execute import make_runner, model_of, provider_factory

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # devtools: test support, never shipped
from devtools.simulator import Fault, Simulator  # noqa: E402

JOB = "Junior Data Analyst. " + "Requirements: advanced SQL, Python, dashboards. " * 20
RESUME = "Analyst with SQL reporting pipelines, Python notebooks and Tableau dashboards. " * 18


def case_of(i: int, n: int, shared: bool) -> int:
    """Which case request `i` asks about: with `shared`, about 40% ask what another
    request asks (every fifth next to its twin, in flight together; every fifth of
    the second half the same as one far back, the way D2-D4 ask again)."""
    if not shared:
        return i
    if i % 5 == 1:
        return i - 1
    if i >= n // 2 and i % 5 == 3:
        return i - n // 2
    return i


def build_audit(path: Path, model: ModelSpec, n: int, *, shared: bool = False) -> int:
    """A result file with `n` pairwise requests (about 3,000 characters each)."""
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
                body={**template, "user": template["user"] + f"\n(case {case_of(i, n, shared)})"},
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

LIMIT = 600
# The faults the issue measured the rate under: server errors, overload, bodies that
# cannot be read or are cut off, dropped connections and answers that stall.
RATE_FAULTS = (
    lambda: Fault(500),
    lambda: Fault(kind="overloaded"),
    lambda: Fault(kind="malformed"),
    lambda: Fault(kind="truncate"),
    lambda: Fault(kind="drop"),
    # a stall: the provider makes and bills the answer, which never arrives; only the
    # runner's learnt bound (runner/latency.py) ends the wait before 60 s
    lambda: Fault(kind="stall", delay_s=60.0),
    # the same mid-answer: the first pieces of a streamed answer arrive, then nothing
    # (stall_mid) or the connection drops (drop_mid); both made and billed
    lambda: Fault(kind="stall_mid", delay_s=60.0),
    lambda: Fault(kind="drop_mid"),
)
TPM = 450_000  # the tokens/min setting: about 360 of these requests a minute
SETTINGS: tuple[tuple[str, dict[str, Any], bool, int | None, bool], ...] = (
    # (name, runner flags, 10% faults, the provider's tokens/min, rate-limit headers)
    ("defaults (no flags)", {}, False, None, True),
    ("--rpm 600 --concurrency 16", {"rpm": LIMIT, "concurrency": 16}, False, None, True),
    ("--concurrency 64", {"concurrency": 64}, False, None, True),
    ("defaults, 10% faults", {}, True, None, True),
    (f"defaults, {TPM:,} tokens/min too", {}, False, TPM, True),
    ("defaults, no rate-limit headers (429s only)", {}, False, None, False),
)


def _fault_draw(seed: int, share: float) -> Any:
    rng = random.Random(seed)
    lock = threading.Lock()

    def draw() -> Fault | None:
        with lock:
            if rng.random() >= share:
                return None
            return rng.choice(RATE_FAULTS)()

    return draw


def _duplicates(sim: Simulator) -> tuple[int, int, int]:
    """(bodies sent more than once, bodies paid more than once, surplus payments)."""
    sent = sum(1 for c in sim.sent.values() if c > 1)
    paid = sum(1 for c in sim.paid.values() if c > 1)
    return sent, paid, sum(c - 1 for c in sim.paid.values() if c > 1)


def rate_setting(
    name: str,
    flags: dict[str, Any],
    faults: bool,
    n: int,
    workdir: Path,
    seed: int,
    tpm: int | None = None,
    headers: bool = True,
) -> dict[str, Any]:
    """One setting on a fresh provider (a full bucket) and a fresh data folder."""
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(workdir / f"data-{seed}")
    draw = _fault_draw(seed, 0.10) if faults else None
    with Simulator(
        latency_s=_latency(seed),
        rpm=LIMIT,
        tpm=tpm,
        bucket=True,
        keep_requests=False,
        random_fault=draw,
        limit_headers=headers,
        bucket_full=headers,  # without headers: no first-minute burst to hide the 429s
    ) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        path = workdir / f"rate-{seed}.audit"
        run_id = build_audit(path, model, n, shared=True)
        with ResultFile(path) as rf:
            twins = sum(1 for _ in rf.duplicate_bodies(run_id))  # bodies asked more than once
        stamps: list[float] = []
        peak = 0

        def on_event(event: Any) -> None:
            nonlocal peak
            if isinstance(event, RunStatus):
                peak = max(peak, event.concurrency)
            elif getattr(event, "source", "") == "api":
                stamps.append(time.monotonic())

        started = time.monotonic()
        sessions = 0
        status = None
        while _lost(path, run_id) and sessions < 20:
            sessions += 1  # a run that stops (it should not) is resumed, and that shows
            status = make_runner(path, run_id, use_cache=False, on_event=on_event, **flags).run()
        elapsed = time.monotonic() - started
        assert status is not None
        # The rate a long run keeps up: answers bought between the first and the last
        # tenth (leaving out the window's growth and the tail of the last retries).
        tenth = len(stamps) // 10
        middle = stamps[tenth : len(stamps) - tenth]
        steady = (
            (len(middle) - 1) / (middle[-1] - middle[0]) * 60
            if len(middle) > 1 and middle[-1] > middle[0]
            else 0.0
        )
        with ResultFile(path) as rf:
            progress = rf.progress(run_id)
            body = rf.request_body(1) or {}
        # The limit in requests/min: the token limit over what one request counts
        # (prompt / 4 + max_tokens, as the simulator counts).
        per_request = (len(body.get("system", "")) + len(body.get("user", ""))) // 4 + int(
            body.get("max_tokens", 0)
        )
        limit = min(LIMIT, tpm / per_request) if tpm else LIMIT
        sent_twice, paid_twice, surplus = _duplicates(sim)
        return {
            "setting": name,
            "answered": progress.done,
            "n": n,
            "elapsed": elapsed,
            "sessions": sessions,
            "steady": steady,
            "overall": len(stamps) / elapsed * 60,
            "limited": sim.rate_limited,
            "failed_first": 0 if sessions == 1 else 1,
            "failed": status.failed,
            "left": progress.total - progress.done,
            "peak": peak,
            "shared": progress.cache_hits,
            "twins": twins,
            "sent_twice": sent_twice,
            "paid_twice": paid_twice,
            "surplus": surplus,
            "api_answers": len(stamps),
            "limit": limit,
        }


def scenario_rate(n: int, workdir: Path) -> bool:
    rows = []
    for seed, (name, flags, faults, tpm, headers) in enumerate(SETTINGS, start=1):
        row = rate_setting(name, flags, faults, n, workdir, seed, tpm, headers)
        rows.append(row)
        print(
            f"rate: {row['setting']}: {row['answered']}/{row['n']} answered in "
            f"{row['elapsed']:.0f} s over {row['sessions']} session(s); sustained "
            f"{row['steady']:.0f}/min ({row['steady'] / row['limit']:.0%} of "
            f"{row['limit']:.0f}/min), whole run {row['overall']:.0f}/min "
            f"({row['overall'] / row['limit']:.0%}); 429s: {row['limited']}; "
            f"largest window: {row['peak']}; answers shared instead of sent: {row['shared']} "
            f"({row['twins']} bodies asked more than once); bodies sent twice: "
            f"{row['sent_twice']}, paid twice: {row['paid_twice']} (surplus payments "
            f"{row['surplus']})",
            flush=True,
        )
    print(
        "\n| setting | sustained /min | share | whole run /min | 429s | sessions | left | "
        "largest window | shared | paid twice | took |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['setting']} | {r['steady']:.0f} | {r['steady'] / r['limit']:.0%} | "
            f"{r['overall']:.0f} | {r['limited']} | {r['sessions']} | {r['left']} | "
            f"{r['peak']} | {r['shared']} | {r['paid_twice']} | {r['elapsed']:.0f} s |"
        )
    defaults, _, too_many, faulty, tokens, blind = rows
    return (
        all(r["left"] == 0 and r["sessions"] == 1 and r["paid_twice"] == 0 for r in rows)
        and defaults["steady"] >= 0.90 * LIMIT
        and too_many["steady"] >= 0.90 * LIMIT
        and faulty["steady"] >= 0.85 * LIMIT
        and tokens["steady"] >= 0.90 * tokens["limit"]
        and blind["steady"] >= 0.85 * LIMIT
    )


# -- limits ----------------------------------------------------------------------------------

LIMITS = (60, 600, 3000)
LIMITS_TPM = 450_000  # with 600/min: about 360 of these requests a minute
HEDGE = 0.02  # the hedged settings: up to 2% of the requests may be copied early


def limits_setting(
    name: str,
    rpm: int,
    tpm: int | None,
    faults: bool,
    n: int,
    workdir: Path,
    seed: int,
    hedge: float = 0.0,
    streamed: bool = False,
) -> dict[str, Any]:
    """One setting on a fresh provider, a fresh data folder and no response cache.

    streamed: speak OpenAI's API instead of an OpenAI-compatible server's. These
    requests ask for log-probabilities, which the app streams only from OpenAI and
    Azure (other servers get them asked plainly, providers/streaming.py): so only
    then are the answers streamed, and stalls mid-answer are stalls mid-stream."""
    tag = f"{seed}{'-hedged' if hedge else ''}{'-streamed' if streamed else ''}"
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(workdir / f"data-limits-{tag}")
    draw = _fault_draw(seed, 0.10) if faults else None
    with Simulator(
        latency_s=_latency(seed),
        rpm=rpm,
        tpm=tpm,
        bucket=True,
        keep_requests=False,
        random_fault=draw,
        bill_abandoned=True,
        timeline=True,
    ) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        if streamed:  # the simulator takes any key; the child inherits it
            os.environ["OPENAI_API_KEY"] = "simulator-accepts-any-key"
            model = ModelSpec(provider="openai", base_url=sim.url_for("openai"), model="sim-model")
        path = workdir / f"limits-{tag}.audit"
        run_id = build_audit(path, model, n)
        stamps: list[float] = []
        peak = 0
        last: list[RunStatus] = []

        def on_event(event: Any) -> None:
            nonlocal peak
            if isinstance(event, RunStatus):
                peak = max(peak, event.concurrency)
                last[:] = [event]
            elif getattr(event, "source", "") == "api":
                stamps.append(time.monotonic())

        first_send: list[float] = []

        def watch_first_send() -> None:
            while not sim.received and not sim.stopping.is_set():
                time.sleep(0.005)
            first_send.append(time.monotonic())

        watcher = threading.Thread(target=watch_first_send, daemon=True)
        watcher.start()
        started = time.monotonic()
        sessions = 0
        maybe = stalls = hedged = 0
        in_child = os.environ.get("RUNNER_IN_CHILD") == "1"
        last_answer: list[float] = []
        if in_child:
            stalls = peak = -1

            def watch_answers() -> None:
                seen = 0
                while not sim.stopping.is_set() and not done_watching.is_set():
                    if sim.answered != seen:
                        seen = sim.answered
                        last_answer[:] = [time.monotonic()]
                    time.sleep(0.005)

            done_watching = threading.Event()
            answers_watcher = threading.Thread(target=watch_answers, daemon=True)
            answers_watcher.start()
        while _lost(path, run_id) and sessions < 20:
            sessions += 1
            if in_child:
                said = _run_child(path, workdir / f"limits-{tag}-{sessions}.log", hedge)
                maybe += said["maybe"]
                hedged += said["hedged"]
                continue
            status = make_runner(
                path, run_id, use_cache=False, on_event=on_event, hedge=hedge
            ).run()
            maybe += status.maybe_paid_twice
            stalls += status.stalls
            hedged += status.hedged
        ended = time.monotonic()
        if in_child:
            done_watching.set()
            answers_watcher.join(1)
            ended = last_answer[0] if last_answer else ended
            with ResultFile(path) as rf:
                stamps = [0.0] * rf.progress(run_id).done
        watcher.join(1)
        # the whole run: from the first request the provider received to the last answer
        elapsed = ended - (first_send[0] if first_send else started)
        startup = (first_send[0] if first_send else started) - started
        with ResultFile(path) as rf:
            body = rf.request_body(1) or {}
            left = _lost(path, run_id)
        per_request = (len(body.get("system", "")) + len(body.get("user", ""))) // 4 + int(
            body.get("max_tokens", 0)
        )
        limit = min(rpm, tpm / per_request) if tpm else rpm
        return {
            "setting": name,
            "n": n,
            "elapsed": elapsed,
            "startup": startup,
            "sessions": sessions,
            "overall": len(stamps) / elapsed * 60,
            "sends": sim.received / elapsed * 60,
            "limit": limit,
            "limited": sim.rate_limited,
            "left": left,
            "peak": peak,
            "paid_twice": _paid_twice(sim),
            "maybe": maybe,
            "stalls": stalls,
            "hedged": hedged,
            "where": where_time_went(list(sim.timeline or ()), limit),
        }


def where_time_went(timeline: list[tuple[float, str, str]], limit: float) -> dict[str, Any]:
    """Where a run's time went, read from the simulator's timeline (sends, re-sends,
    429s and whole answers as the provider saw them).

    The run is cut in two at the last *first* send of a request: the feed (every
    request still had its first send to come; the pace and the window decide the
    rate) and the tail (only re-sends and answers on their way: the stall bound and
    the retries decide how long it lasts). Per phase: sends (re-sends and faults
    included) per minute as a share of the limit; for the tail, its length, its
    re-sends, and the fault kinds of the sends the tail waited on (those whose
    requests were re-sent in it are not known here: the last faults before it are
    what it waited on). Also the sends share of every tenth of the feed, which shows
    a dip after faults (a pause or a cut window) where there is one.
    """
    sends = [t for t, what, _ in timeline if what in ("send", "resend", "429")]
    firsts = [t for t, what, _ in timeline if what == "send"]
    answers = [t for t, what, _ in timeline if what == "answer"]
    if not sends or not answers or not firsts:
        return {}
    start, fed, end = sends[0], firsts[-1], answers[-1]
    feed = max(1e-9, fed - start)
    in_feed = sum(1 for t in sends if t <= fed)
    tail_sends = [(t, kind) for t, what, kind in timeline if what == "resend" and t > fed]
    tenths = []
    for k in range(10):
        lo, hi = start + feed * k / 10, start + feed * (k + 1) / 10
        count = sum(1 for t in sends if lo <= t < hi)
        tenths.append(count / max(1e-9, hi - lo) * 60 / limit)
    # faults sent in the last stall bound's worth before the feed ended: the tail's cause
    late = Counter(kind for t, what, kind in timeline if kind and fed - 15.0 <= t <= fed)
    faults = Counter(kind for _, what, kind in timeline if kind and what != "answer")
    return {
        "feed_s": feed,
        "feed_share": in_feed / feed * 60 / limit,
        "tail_s": end - fed,
        "tail_resends": len(tail_sends),
        "tail_last_resend_s": (tail_sends[-1][0] - fed) if tail_sends else 0.0,
        # the tail's last re-sends: seconds after the feed ended, and the fault each met
        "tail_last": [(t - fed, kind or "ok") for t, kind in tail_sends[-8:]],
        "late_faults": dict(late),
        "faults": dict(faults),
        "resends": sum(1 for _, what, _ in timeline if what == "resend"),
        "limited": sum(1 for _, what, _ in timeline if what == "429"),
        "tenths": tenths,
    }


def _where_line(where: dict[str, Any]) -> str:
    if not where:
        return "  where the time went: (no timeline)"
    tenths = " ".join(f"{share:.0%}" for share in where["tenths"])
    return (
        f"  where the time went: feed {where['feed_s']:.1f} s at {where['feed_share']:.0%} of "
        f"the limit in sends (by tenths: {tenths}); tail {where['tail_s']:.1f} s after the "
        f"last first send ({where['tail_resends']} re-sends in it, the last "
        f"{where['tail_last_resend_s']:.1f} s in); re-sends in all {where['resends']}; "
        f"faults {where['faults']}; faults in the 15 s before the tail {where['late_faults']}; "
        f"the tail's last re-sends (s after the feed: what they met) "
        + ", ".join(f"{at:.1f}: {kind}" for at, kind in where["tail_last"])
    )


def _seen(value: int) -> str:
    return "-" if value < 0 else str(value)


def _run_child(path: Path, log_path: Path, hedge: float = 0.0) -> dict[str, int]:
    """`resume-auditor run --no-cache` in a child process; what it says at the end: sends
    that may be paid twice (`maybe`) and copies sent early (`hedged`, with --hedge)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "resume_auditor.cli", "run", str(path), "--no-cache"]
    if hedge:
        command += ["--hedge", f"{hedge * 100:g}"]
    with open(log_path, "w") as log:
        subprocess.call(command, env=env, stdout=log, stderr=log)
    said = {"maybe": 0, "hedged": 0}
    for line in log_path.read_text().splitlines():
        if line.startswith("Possibly paid twice:"):
            said["maybe"] = int(line.split(":")[1].split()[0])
        if line.startswith("Sent early (--hedge):"):
            said["hedged"] = int(line.split(":")[1].split()[0])
    return said


def scenario_limits(n: int, workdir: Path) -> bool:
    """Every setting, or those named in LIMITS_ONLY (comma-separated keys: 60, 60f, 600,
    600f, 3000, 3000f, tpm, 600fh, 3000fh; f: with faults, h: with `--hedge 2`), each
    with the seed it has in the full run (a hedged setting has its unhedged twin's seed:
    the same faults on the same requests)."""
    scale = n / 1000
    settings: list[tuple[str, str, int, int | None, bool, float, int, bool]] = []
    seed = 20
    for rpm in LIMITS:
        settings.append((str(rpm), f"{rpm:,}/min", rpm, None, False, 0.0, seed, False))
        name = f"{rpm:,}/min, 10% faults incl. stalls"
        settings.append((f"{rpm}f", name, rpm, None, True, 0.0, seed + 1, False))
        seed += 2
    tpm_name = f"600/min and {LIMITS_TPM:,} tokens/min"
    settings.append(("tpm", tpm_name, 600, LIMITS_TPM, False, 0.0, seed, False))
    for rpm, twin in ((600, 23), (3000, 25)):
        name = f"{rpm:,}/min, 10% faults, --hedge {HEDGE * 100:g}"
        settings.append((f"{rpm}fh", name, rpm, None, True, HEDGE, twin, False))
    # streamed (OpenAI's API): the same faults, stalls mid-answer now mid-stream
    settings.append(("600fs", "600/min, 10% faults, streamed", 600, None, True, 0.0, 23, True))
    name = f"600/min, 10% faults, streamed, --hedge {HEDGE * 100:g}"
    settings.append(("600fhs", name, 600, None, True, HEDGE, 23, True))
    only = {k.strip() for k in os.environ.get("LIMITS_ONLY", "").split(",") if k.strip()}
    rows = []
    for key, name, rpm, tpm, faults, hedge, seed, streamed in settings:
        if only and key not in only:
            continue
        per_min = rpm if tpm is None else 360
        count = max(20, int(per_min * 2 * scale))
        load = os.getloadavg()[0]
        row = limits_setting(name, rpm, tpm, faults, count, workdir, seed, hedge, streamed)
        row["load"] = (load, os.getloadavg()[0])
        row["faults"] = faults
        rows.append(row)
        print(
            f"limits: {name}: {count} requests in {row['elapsed']:.0f} s (first request to "
            f"last answer; {row['startup']:.1f} s start-up before) over "
            f"{row['sessions']} session(s); {row['overall']:.0f}/min = "
            f"{row['overall'] / row['limit']:.0%} of {row['limit']:.0f}/min over the whole "
            f"run (requests the provider received, faults included: "
            f"{row['sends'] / row['limit']:.0%}); 429s {row['limited']}; "
            f"largest window {row['peak']}; stalls {row['stalls']}; "
            f"paid more than once (simulator) {row['paid_twice']}; the runner's count of "
            f"sends maybe paid twice {row['maybe']}; copies sent early (--hedge) "
            f"{row['hedged']}; left {row['left']}; load average (1 min) "
            f"{row['load'][0]:.2f} before, {row['load'][1]:.2f} after",
            flush=True,
        )
        print(_where_line(row["where"]), flush=True)
    print(
        "\n| setting | requests | answers /min | answers share | sends share | tail | 429s | "
        "stalls | copies sent early | paid twice (simulator) | maybe paid twice (runner) | "
        "largest window | took | load before/after |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        tail = f"{r['where']['tail_s']:.1f} s" if r["where"] else "-"
        print(
            f"| {r['setting']} | {r['n']} | {r['overall']:.0f} | {r['overall'] / r['limit']:.0%} "
            f"| {r['sends'] / r['limit']:.0%} | {tail} | {r['limited']} | {_seen(r['stalls'])} "
            f"| {r['hedged']} | {r['paid_twice']} | {r['maybe']} | {_seen(r['peak'])} "
            f"| {r['elapsed']:.0f} s | {r['load'][0]:.1f}/{r['load'][1]:.1f} |"
        )
    return all(
        r["left"] == 0
        and r["sessions"] == 1
        and r["overall"] >= (0.85 if r["faults"] else 0.90) * r["limit"]
        and r["paid_twice"] <= r["maybe"]
        for r in rows
    )


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


def _open_sent(path: Path, run_id: int) -> int:
    """Requests the file shows as sent without an answer: the only re-send candidates."""
    with ResultFile(path) as rf:
        return sum(1 for r in rf.open_requests(run_id) if r.status == "sent")


def _grace_said(log: Path) -> str:
    """The grace a stopped CLI run offered the answers on its way ("-": none said)."""
    for line in log.read_text().splitlines():
        if "answers already on their way get up to" in line:
            return line.split("get up to", 1)[1].split(" s", 1)[0].strip() + " s"
    return "-"


def scenario_kill(n: int, workdir: Path) -> bool:
    rng = random.Random(11)
    os.environ["RESUME_AUDITOR_DATA_DIR"] = str(workdir / "data-kill")
    stops = [signal.SIGKILL, signal.SIGTERM] * 5
    with Simulator(
        latency_s=_latency(3), rpm=LIMIT, bucket=True, keep_requests=False, bill_abandoned=True
    ) as sim:
        model = ModelSpec(provider="openai-compatible", base_url=sim.base_url, model="sim-model")
        path = workdir / "kill.audit"
        run_id = build_audit(path, model, n)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        command = [sys.executable, "-m", "resume_auditor.cli", "run", str(path)]
        kills = []
        snapshots: list[Counter[str]] = []
        logs: list[Path] = []
        started = time.monotonic()
        for k, how in enumerate(stops):
            before = sim.received
            logs.append(workdir / f"kill-{k}.log")
            with open(logs[-1], "w") as log:
                child = subprocess.Popen(command, env=env, stdout=log, stderr=log)
                ready = time.monotonic() + 60
                while sim.received == before and time.monotonic() < ready:
                    time.sleep(0.05)  # the child is starting (imports, the estimate)
                wait = rng.uniform(2.0, 8.0)
                time.sleep(wait)
                at_provider = sim.in_flight
                child.send_signal(how)
                code = child.wait()
            with sim.lock:
                snapshots.append(Counter(sim.sent))
            time.sleep(3.5)  # what was in flight finishes at the provider (and is billed)
            with ResultFile(path) as rf:
                done = rf.progress(run_id).done
            kills.append(
                {
                    "how": how.name,
                    "after": wait,
                    "done": done,
                    "code": code,
                    "at_provider": at_provider,
                    "sent": _open_sent(path, run_id),
                    "grace": _grace_said(logs[-1]),
                    "load": os.getloadavg()[0],
                }
            )
        final_log = workdir / "kill-final.log"
        with open(final_log, "w") as log:
            code = subprocess.call(command, env=env, stdout=log, stderr=log)
        logs.append(final_log)
        elapsed = time.monotonic() - started
        lost = _lost(path, run_id)
        final = Counter(sim.sent)
        for k, snap in enumerate(snapshots):
            later = snapshots[k + 1] if k + 1 < len(snapshots) else final
            kills[k]["resent"] = sum(1 for f, c in snap.items() if later[f] > c)
            # what the run after this stop said about the requests it found sent
            said = [
                line.strip()
                for line in logs[k + 1].read_text().splitlines()
                if line.startswith("Note: The last session ended abruptly")
            ]
            kills[k]["said"] = said[0][len("Note: ") :] if said else "(nothing)"
        paid = sum(sim.paid.values())
        twice = sum(c - 1 for c in sim.paid.values() if c > 1)
        with ResultFile(path) as rf:
            marked = sum(rf.unseen_sends(run_id).values())
        for k, kill in enumerate(kills, start=1):
            print(
                f"stop {k} ({kill['how']}, exit {kill['code']}): {kill['after']:.1f} s after it "
                f"began sending ({kill['done']} answered): at the provider "
                f"{kill['at_provider']}; left marked sent {kill['sent']}; sent again after the "
                f"resume {kill['resent']}; grace offered {kill['grace']}; load average "
                f"{kill['load']:.1f}; the next run said: {kill['said']}"
            )
        for how in ("SIGKILL", "SIGTERM"):
            mine = [k for k in kills if k["how"] == how]
            print(
                f"{how}: re-sends per stop {sum(k['resent'] for k in mine) / len(mine):.1f}; "
                f"left sent per stop {sum(k['sent'] for k in mine) / len(mine):.1f}; at the "
                f"provider per stop {sum(k['at_provider'] for k in mine) / len(mine):.1f}"
            )
        print(
            f"kill: {n} requests, {len(kills)} stops, {elapsed:.0f} s; the final run exited "
            f"{code}; lost: {lost}; answers paid: {paid}; paid more than once (simulator): "
            f"{twice}; sends the file marks as maybe paid twice: {marked}"
        )
    terms = [k for k in kills if k["how"] == "SIGTERM"]
    orderly = all(k["sent"] == 0 and k["code"] == 128 + signal.SIGTERM for k in terms)
    said = all(k["said"] != "(nothing)" for k in kills if k["how"] == "SIGKILL" and k["sent"])
    return lost == 0 and code == 0 and orderly and said and twice <= marked


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
    "rate": (scenario_rate, 1000),
    "limits": (scenario_limits, 1000),
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
