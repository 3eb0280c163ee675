"""The `resume-auditor` command.

    resume-auditor                        open the app with the sample study
    resume-auditor gui [RESULT | STUDY | BUNDLE]   open the app with a result, study or bundle
    resume-auditor audit STUDY --out RESULT [--provider P --base-url URL --model M]
        [--password P --max-pages N --max-mb N]   (protected and long PDFs)
    resume-auditor run RESULT             resume an unfinished audit
        (audit and run: --budget USD --batch --rpm N --tpm N --no-cache --reask --early-stop W
         --hedge PERCENT)
    resume-auditor metrics RESULT [--json]
    resume-auditor report RESULT [--html F] [--pdf F] [--xlsx F] [--csv DIR] [--bundle F]
    resume-auditor import BUNDLE --out RESULT   re-open a bundle and recompute its numbers
    resume-auditor keys set|delete|status [PROVIDER] [--base-url URL]
    resume-auditor models PROVIDER [--base-url URL]
    resume-auditor cases RESULT [--power] [--effect-d1 ..] [--enlarge [--yes]]
    resume-auditor extract FILE [--json] [--job] [--password P] [--max-pages N] [--max-mb N]
    resume-auditor variants generate|list|accept|reject|reset|diff RESULT ...  (docs/generator.md)

Exit codes: 0 done; 1 the run did not finish (failed or stopped requests: resume
it); 2 bad input (the message says what to fix); 130 interrupted (Ctrl-C); a run
stopped by SIGTERM or SIGHUP ends the same orderly way with 143 or 129 (128 + the
signal's number, as shells report it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from resume_auditor import APP_NAME, __version__

if TYPE_CHECKING:
    from resume_auditor.runner.estimate import Estimate
    from resume_auditor.stats.model import MetricsReport

logger = logging.getLogger(__name__)

EXIT_OK, EXIT_INCOMPLETE, EXIT_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


class CliError(Exception):
    """A problem with what the user asked for: printed plainly, exit code 2."""


def _parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="resume-auditor",
        description=f"{APP_NAME}: audit an LLM's resume screening for validity and fairness.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    # also here, not only after `gui`: `resume-auditor --quit-after-load` opens the app
    p.add_argument(
        "--quit-after-load", dest="app_quit_after_load", action="store_true", help=argparse.SUPPRESS
    )
    sub = p.add_subparsers(dest="command")

    g = sub.add_parser("gui", help="open the desktop app")
    g.add_argument("file", nargs="?", help="a result file or a study file (default: the sample)")
    g.add_argument("--quit-after-load", action="store_true", help=argparse.SUPPRESS)

    a = sub.add_parser("audit", help="prepare and run a study headless")
    a.add_argument("study", help="the study file (TOML)")
    a.add_argument("--out", required=True, help="the result file to write (or resume)")
    a.add_argument(
        "--provider",
        help="override the study's provider (local | openai | anthropic | gemini | openrouter "
        "| azure | openai-compatible)",
    )
    a.add_argument("--base-url", help="override the model server's base URL")
    a.add_argument("--model", help="override the model id")
    a.add_argument(
        "--concurrency",
        type=int,
        help="the most requests at once (default: the study's; 0: what the provider allows)",
    )
    a.add_argument(
        "--password",
        help="the password of protected resume PDFs (over the study's resumes.password; "
        "resumes.passwords still sets a file's own)",
    )
    a.add_argument(
        "--max-pages", type=int, help="page limit per resume (default: resumes.max_pages or 50)"
    )
    a.add_argument(
        "--max-mb", type=float, help="size limit per file in MB (default: resumes.max_mb or 20)"
    )
    a.add_argument(
        "--prepare-only", action="store_true", help="build the cases and estimate; send nothing"
    )
    a.add_argument(
        "--one-model-at-a-time",
        action="store_true",
        help="with several models, run them one after another instead of at the same time "
        "(e.g. when other programs use the same provider accounts)",
    )
    _run_options(a)

    c = sub.add_parser("cases", help="cases and requests per design and cell (docs/designs.md)")
    c.add_argument("result", help="the result file (e.g. from audit --prepare-only)")
    c.add_argument("--json", action="store_true", help="print JSON")
    c.add_argument(
        "--power",
        action="store_true",
        help="simulate each design's power through the report's tests and the size for 80%%",
    )
    if "cases" in (sys.argv[1:] if argv is None else argv):
        _design_options(c)  # the registry takes a second to load: only when asked
    c.add_argument(
        "--yes", action="store_true", help="with --enlarge: apply without asking (for scripts)"
    )

    r = sub.add_parser("run", help="resume an unfinished audit")
    r.add_argument("result", help="the result file")
    r.add_argument("--run", type=int, help="which run of the file (default: the latest)")
    r.add_argument("--concurrency", type=int, default=None)
    r.add_argument("--estimate", action="store_true", help="print the estimate; send nothing")
    _run_options(r)

    m = sub.add_parser("metrics", help="print an audit's metrics")
    m.add_argument("result", help="the result file")
    m.add_argument("--json", action="store_true", help="machine-readable (docs/metrics-json.md)")
    m.add_argument("--run", type=int, help="which run of the file (default: the latest)")

    rp = sub.add_parser("report", help="write the audit report and exports (docs/report.md)")
    rp.add_argument("result", help="the result file")
    rp.add_argument("--html", metavar="FILE", help="the report as one HTML file")
    rp.add_argument("--pdf", metavar="FILE", help="the same report as PDF")
    rp.add_argument("--xlsx", metavar="FILE", help="test cases, answers and metrics as XLSX")
    rp.add_argument("--csv", metavar="DIR", help="the same tables as CSV files in DIR")
    rp.add_argument("--bundle", metavar="FILE", help="the reproducible bundle (zip)")
    rp.add_argument("--run", type=int, help="which run the report describes (default: latest)")

    rs = sub.add_parser("restore", help="put an audit's last good copy back (a damaged file)")
    rs.add_argument("result", help="the damaged result file")

    im = sub.add_parser("import", help="re-open a bundle as a new result file")
    im.add_argument("bundle", help="a bundle made by `resume-auditor report --bundle`")
    im.add_argument("--out", required=True, help="the new result file to write")

    k = sub.add_parser("keys", help="store, remove or check an API key (OS keyring)")
    k.add_argument("action", choices=("set", "delete", "status"))
    k.add_argument("provider", nargs="?", help="e.g. openai, anthropic (status: all if omitted)")
    k.add_argument("--base-url", default="", help="the server (openai-compatible and azure)")

    ml = sub.add_parser("models", help="list the models a provider offers")
    ml.add_argument("provider", help="e.g. openai, anthropic, gemini, openai-compatible")
    ml.add_argument("--base-url", default="", help="the server's base URL, if not the default")

    x = sub.add_parser("extract", help="read a resume or job file: clean text and findings")
    x.add_argument("file", help="a PDF, DOCX, TXT or MD file")
    x.add_argument("--json", action="store_true", help="machine-readable (docs/documents.md)")
    x.add_argument("--job", action="store_true", help="the file is a job description")
    x.add_argument("--password", help="the password of a protected PDF")
    x.add_argument("--max-pages", type=int, default=50, help="page limit (default: 50)")
    x.add_argument("--max-mb", type=float, default=20.0, help="size limit in MB (default: 20)")

    from resume_auditor.variants.gen_cli import add_variants_parser

    add_variants_parser(sub)  # variants generate|list|accept|reject|reset|diff

    d = sub.add_parser(
        "doctor",
        help="check this computer: the window, the keyring, the PDF engine, the bundled model",
    )
    d.add_argument("--json", action="store_true", help="one JSON object per check")
    d.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=("window", "keyring", "pdf", "model"),
        help="leave a check out (repeatable)",
    )
    d.add_argument(
        "--strict", action="store_true", help="exit 1 on a warning too (CI: everything must work)"
    )
    sub.add_parser("window-check", help=argparse.SUPPRESS)

    s = sub.add_parser("serve-local", help=argparse.SUPPRESS)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--model-path", required=True)
    s.add_argument("--threads", type=int, default=2)
    s.add_argument("--parent-pid", type=int, default=0)
    return p


def _design_options(c: argparse.ArgumentParser) -> None:
    """`cases`' options that each design gives (`Design.effect_options`, `enlarge_words`):
    every design's first effect, in the registry's order, then their further ones."""
    from resume_auditor.designs.registry import DESIGNS

    for code, default, unit, _per in _effect_options():
        c.add_argument(
            f"--effect-{code}",
            type=float,
            default=None,
            help=f"the {code.upper()} effect to size for, in {unit} (default {default})",
        )
    grows = "".join(f", {d.enlarge_words}" for d in DESIGNS if d.enlarge_words)
    c.add_argument(
        "--enlarge",
        action="store_true",
        help="size for power, show the settings that reach 80%% with these resumes (more "
        f"repeats at a temperature above 0{grows}) with their requests and cost, and "
        "apply them after asking; refused once the audit has answers",
    )


def _effect_options() -> list[tuple[str, str, str, int]]:
    """Every design's `effect_options`: each design's first, in the registry's order,
    then their further ones (D1's impact ratio)."""
    from resume_auditor.designs.registry import DESIGNS

    return [o for d in DESIGNS for o in d.effect_options[:1]] + [
        o for d in DESIGNS for o in d.effect_options[1:]
    ]


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("should be more than 0")
    return value


def _run_options(p: argparse.ArgumentParser) -> None:
    """How requests are sent (docs/runner.md); shared by `audit` and `run`."""
    p.add_argument(
        "--budget",
        type=_positive,
        metavar="USD",
        help="stop before spend could pass this many US dollars (needs a price for the model)",
    )
    p.add_argument(
        "--batch",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="use the provider's batch API at its discount (OpenAI, Anthropic); answers "
        "within a day. Remembered for the run; --no-batch turns it off",
    )
    p.add_argument("--rpm", type=_positive, help="the provider's requests/min limit, if known")
    p.add_argument("--tpm", type=_positive, help="the provider's tokens/min limit, if known")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="do not answer identical requests from the shared response cache",
    )
    p.add_argument(
        "--reask", action="store_true", help="ask once more when an answer cannot be read"
    )
    p.add_argument(
        "--early-stop",
        type=_positive,
        metavar="WIDTH",
        help="skip the rest of a cell once its 95%% interval is narrower than WIDTH (e.g. 0.1)",
    )
    p.add_argument(
        "--hedge",
        type=_percent,
        metavar="PERCENT",
        default=0.0,
        help="at the run's end, send a copy of a request slower than 99%% of its kind before "
        "it is judged stalled, for up to PERCENT of the requests (e.g. 2): a shorter end "
        "that the provider may bill twice; copies are counted. Default 0: never",
    )


def _percent(text: str) -> float:
    """A percentage given on the command line, as a share (2 -> 0.02)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError("should be a percentage, 0 to 100")
    return value / 100.0


def _fmt_eta(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    return f"{seconds // 60:d}:{seconds % 60:02d}"


class _Printer:
    """Progress on stderr, at most once a second (and always the last one)."""

    def __init__(self, stream: TextIO, label: str = "") -> None:
        self.stream = stream
        self.label = label  # the model, when several run at once
        self._last = 0.0
        self._lock = threading.Lock()
        self.latest: Any = None  # the last status the runner reported

    def __call__(self, event: Any) -> None:
        from resume_auditor.runner import RunStatus

        if not isinstance(event, RunStatus):
            return
        self.latest = event
        now = time.monotonic()
        with self._lock:
            if now - self._last < 1.0 and event.state.value == "running":
                return
            self._last = now
        who = f"{self.label}: " if self.label else ""
        msg = (
            f"[{event.state.value}] {who}{event.done}/{event.total} answered, "
            f"{event.failed} failed, {event.invalid} unreadable, ETA {_fmt_eta(event.eta_s)}"
        )
        if event.cost_usd:
            msg += f", ${event.cost_usd:.4f} spent"
        if event.cache_hits:
            msg += f", {event.cache_hits} from the cache"
        if event.batch_message:
            msg += f" — {event.batch_message}"
        if event.message:
            msg += f" — {event.message}"
        print(msg, file=self.stream, flush=True)


def _estimate(
    path: Path, run_id: int | None, concurrency: int, opts: argparse.Namespace
) -> Estimate:
    """Print what the run will send, cost and take, before it sends anything."""
    from resume_auditor.workflow.execute import estimate_for

    estimate = estimate_for(
        path,
        run_id,
        concurrency=concurrency,
        use_cache=not getattr(opts, "no_cache", False),
        rpm=getattr(opts, "rpm", None),
        tpm=getattr(opts, "tpm", None),
    )
    for line in estimate.lines():
        print(f"Estimate: {line}", file=sys.stderr)
    return estimate


def _run(
    path: Path,
    run_id: int | None,
    concurrency: int,
    timeout_s: float,
    opts: argparse.Namespace | None = None,
    others_spent: float | None = None,
) -> int:
    """Run one run to its end. `others_spent`: what the audit's other models have spent,
    when a budget covers them all (one model at a time)."""
    from resume_auditor.runner import RunState
    from resume_auditor.runner.prices import PriceError
    from resume_auditor.runner.runner import unseen_before_message
    from resume_auditor.workflow.execute import make_runner

    opts = opts or argparse.Namespace()
    _estimate(path, run_id, concurrency, opts)
    printer = _Printer(sys.stderr)

    def spend() -> float:
        return (others_spent or 0.0) + runner.committed()

    try:
        runner = make_runner(
            path,
            run_id,
            concurrency=concurrency,
            timeout_s=timeout_s,
            on_event=printer,
            budget_usd=getattr(opts, "budget", None),
            rpm=getattr(opts, "rpm", None),
            tpm=getattr(opts, "tpm", None),
            batch=getattr(opts, "batch", None),
            use_cache=not getattr(opts, "no_cache", False),
            reask_invalid=getattr(opts, "reask", False),
            early_stop_width=getattr(opts, "early_stop", None),
            hedge=getattr(opts, "hedge", 0.0),
            spend=spend if others_spent is not None else None,
        )
    except (PriceError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    budget = False
    with _StopSignals(runner) as stops:
        runner.start()
        told_unseen = False
        while not runner.join(0.2):
            status = printer.latest
            if status is not None and status.unseen_before and not told_unseen:
                told_unseen = True
                print(f"Note: {unseen_before_message(status.unseen_before)}", file=sys.stderr)
            if status is not None and status.budget_reached and status.in_flight == 0:
                budget = True  # headless: nobody can raise the budget; stop cleanly
                runner.cancel()
    status = runner.final_status
    if status is not None and status.unseen_before and not told_unseen:
        print(f"Note: {unseen_before_message(status.unseen_before)}", file=sys.stderr)
    if status is not None and status.maybe_paid_twice:
        print(
            f"Possibly paid twice: {status.maybe_paid_twice} send(s) may have been billed "
            "without their answer arriving (stalled, cut off, dropped, aborted by a stop, or "
            "in flight at an abrupt end); their requests are marked may_be_paid_twice in the "
            "exports.",
            file=sys.stderr,
        )
    if status is not None and status.estimated_usage:
        print(
            f"Estimated: {status.estimated_usage} answer(s) came without the provider's token "
            "counts; their tokens and cost are estimated from the text (marked "
            "tokens_estimated in the answers).",
            file=sys.stderr,
        )
    if status is not None and status.hedged:
        print(
            f"Sent early (--hedge): {status.hedged} copy(ies) of slow requests at the run's "
            "end; the provider may bill both sends of each (counted above).",
            file=sys.stderr,
        )
    interrupted = stops.signal is not None
    if budget or (status and status.budget_reached):
        spent = status.cost_usd if status and status.cost_usd is not None else 0.0
        print(
            f"Stopped at the budget: ${spent:.2f} spent. Nothing is lost; to go on, resume "
            f"with a higher budget: resume-auditor run {path} --budget AMOUNT",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    if interrupted or (status and status.state is RunState.CANCELLED):
        what = f"Stopped by {stops.name}" if stops.signal is not None else "Cancelled"
        left = runner.left_sent
        kept = f": {status.message}" if status and status.message else "."
        print(f"{what}{kept}", file=sys.stderr)
        if left:
            print(
                f"{left} request(s) are still marked as at the provider: the next run sends "
                "them again and counts them as possibly paid twice.",
                file=sys.stderr,
            )
        print(f"Resume with: resume-auditor run {path}", file=sys.stderr)
        return 128 + stops.signal if stops.signal is not None else EXIT_INTERRUPTED
    if status is None or status.state is RunState.STOPPED or status.failed:
        print(
            f"The run did not finish. {status.message if status else ''}\n"
            f"Fix the cause, then resume with: resume-auditor run {path}",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    print(f"Done: {status.done} answers in {path}", file=sys.stderr)
    return EXIT_OK


class _StopSignals:
    """SIGINT (Ctrl-C), SIGTERM (`timeout`, systemd, a container stop) and SIGHUP (a
    closed terminal) all stop a run the way Cancel does: answers on their way get the
    runner's short grace, the rest go back to the queue, the files and the lock are
    closed. The handler only asks the runner to stop: nothing is raised in the main
    thread, so no wait is cut short and no thread is left writing. Answers already on
    their way get until each has come or is past its stall bound, learnt in this run
    (`Runner.drain_s`, at most 10 s): each one that arrives is one not bought again
    on resume. A second signal stops waiting
    for them; kill -9 remains the only abrupt end."""

    def __init__(self, runner: Any) -> None:
        self._runner = runner
        self.signal: int | None = None
        self._previous: dict[int, Any] = {}

    @property
    def name(self) -> str:
        return signal.Signals(self.signal).name if self.signal is not None else ""

    def _handle(self, signum: int, _frame: Any) -> None:
        if self.signal is not None:
            print("Stopping now: answers still on their way are let go.", file=sys.stderr)
            self._runner.cancel()  # a second signal: no more waiting
            return
        self.signal = signum
        grace = self._runner.drain_s()
        print(
            f"{signal.Signals(signum).name}: stopping like Cancel — no new requests; answers "
            f"already on their way get up to {grace:.1f} s (until each has come or is past the "
            "wait this run learnt for it), the rest go back to the queue. Signal again to "
            "stop at once.",
            file=sys.stderr,
            flush=True,
        )
        self._runner.cancel(grace_s=grace)

    def __enter__(self) -> _StopSignals:
        if threading.current_thread() is not threading.main_thread():
            return self  # only the main thread may set handlers (a test's runner thread)
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is not None:
                self._previous[number] = signal.signal(number, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)


def cmd_audit(args: argparse.Namespace) -> int:
    from resume_auditor.runner.estimate import combined_lines
    from resume_auditor.runner.sharing import sharing_key
    from resume_auditor.workflow.prepare import prepare
    from resume_auditor.workflow.studyfile import read_study, remember_url_keys, split_url_key

    study = read_study(args.study).with_options(
        password=args.password, max_pages=args.max_pages, max_mb=args.max_mb
    )
    for note in study.notes:
        print(f"Note: {note}", file=sys.stderr)
    config = study.config
    base_url = args.base_url
    if base_url:  # a key typed into the address goes to the key store, not the audit file
        provider = args.provider or config.model.provider
        base_url, url_key = split_url_key(base_url, provider, "--base-url")
        for note in remember_url_keys([url_key] if url_key else []):
            print(f"Note: {note}", file=sys.stderr)
    if args.provider or base_url or args.model:
        config = config.with_model(args.provider, base_url, args.model)
    from resume_auditor.variants.gen_cli import progress_printer

    prepared = prepare(study, args.out, config.model, progress=progress_printer())
    for note in prepared.notes:
        print(f"Note: {note}", file=sys.stderr)
    verb = "Created" if prepared.new_file else "Reusing"
    print(
        f"{verb} {prepared.path}: run {prepared.run_id} on {prepared.model.describe()}, "
        f"{prepared.requests_added} new request(s) queued.",
        file=sys.stderr,
    )
    for run_id, model, added in prepared.others:
        print(
            f"Also run {run_id} on {model.describe()} (the same test cases), {added} new "
            "request(s) queued.",
            file=sys.stderr,
        )
    concurrency = args.concurrency or config.run.concurrency
    from resume_auditor.workflow.plan import logprob_notes, probe_logprobs

    if probe_logprobs(config, prepared.model) is False and not args.prepare_only:
        for note in logprob_notes(config, prepared.model):  # the plan says it otherwise
            print(f"Note: {note}", file=sys.stderr)
    runs = prepared.runs
    together = len(runs) > 1 and not getattr(args, "one_model_at_a_time", False)
    keys = [sharing_key(m.provider, m.base_url) for _r, m, _a in runs]
    if args.prepare_only:
        _print_plan(prepared.path)
        estimates = [_estimate(prepared.path, r, concurrency, args) for r, _m, _a in runs]
        for line in combined_lines(estimates, keys, together=together):
            print(f"Estimate: {line}", file=sys.stderr)
        return EXIT_OK
    if together:
        return _run_together(prepared.path, runs, concurrency, config.run.timeout_s, args)
    # One model after another (each is resumable on its own with `run FILE --run N`); a
    # stop or the budget (which covers every model) ends the audit there.
    if len(runs) > 1:
        from resume_auditor.workflow.execute import estimate_for

        total = [
            estimate_for(
                prepared.path,
                r,
                concurrency=concurrency,
                use_cache=not getattr(args, "no_cache", False),
            )
            for r, _m, _a in runs
        ]
        for line in combined_lines(total, keys):
            print(f"Estimate: {line}", file=sys.stderr)
    for i, (run_id, model, _added) in enumerate(runs, start=1):
        others = None
        if len(runs) > 1:
            print(f"Model {i} of {len(runs)}: {model.describe()} (run {run_id})", file=sys.stderr)
            if getattr(args, "budget", None) is not None:
                others = _spent(prepared.path, [r for r, _m, _a in runs if r != run_id])
        code = _run(prepared.path, run_id, concurrency, config.run.timeout_s, args, others)
        if code != EXIT_OK:
            left = [str(r) for r, _m, _a in runs[i:]]
            if left:
                print(
                    f"Not started: run(s) {', '.join(left)}; resume each with "
                    f"resume-auditor run {prepared.path} --run N",
                    file=sys.stderr,
                )
            return code
    return EXIT_OK


def _spent(path: Path, run_ids: list[int]) -> float:
    """What these runs have spent so far (a budget covers every model of the audit)."""
    from resume_auditor.store.resultfile import ResultFile

    with ResultFile(path, readonly=True) as result:
        return sum(result.progress(r).cost_usd or 0.0 for r in run_ids)


def _run_together(
    path: Path,
    runs: list[tuple[int, Any, int]],
    concurrency: int,
    timeout_s: float,
    opts: argparse.Namespace,
) -> int:
    """Every model of the audit at the same time (runner/group.py): each provider's
    limits shared in fair turns, one run per model, each resumable on its own; a stop
    (Cancel, SIGINT, SIGTERM) stops them all in order; the budget covers them together."""
    from resume_auditor.runner import RunState
    from resume_auditor.runner.estimate import combined_lines
    from resume_auditor.runner.prices import PriceError
    from resume_auditor.runner.runner import unseen_before_message
    from resume_auditor.runner.sharing import sharing_key
    from resume_auditor.workflow.execute import make_group

    names = {run_id: f"{model.model} (run {run_id})" for run_id, model, _a in runs}
    estimates = []
    for i, (run_id, model, _added) in enumerate(runs, start=1):
        print(f"Model {i} of {len(runs)}: {model.describe()} (run {run_id})", file=sys.stderr)
        estimates.append(_estimate(path, run_id, concurrency, opts))
    keys = [sharing_key(m.provider, m.base_url) for _r, m, _a in runs]
    for line in combined_lines(estimates, keys, together=True):
        print(f"Estimate: {line}", file=sys.stderr)
    print(f"Running the {len(runs)} models at the same time.", file=sys.stderr)
    printers = {run_id: _Printer(sys.stderr, names[run_id]) for run_id in names}
    try:
        group = make_group(
            path,
            list(names),
            concurrency=concurrency,
            timeout_s=timeout_s,
            on_event=lambda run_id: printers[run_id],
            budget_usd=getattr(opts, "budget", None),
            rpm=getattr(opts, "rpm", None),
            tpm=getattr(opts, "tpm", None),
            batch=getattr(opts, "batch", None),
            use_cache=not getattr(opts, "no_cache", False),
            reask_invalid=getattr(opts, "reask", False),
            early_stop_width=getattr(opts, "early_stop", None),
            hedge=getattr(opts, "hedge", 0.0),
        )
    except (PriceError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    budget = False
    told: set[int] = set()

    def tell_unseen() -> None:
        for run_id, printer in printers.items():
            status = printer.latest
            if status is not None and status.unseen_before and run_id not in told:
                told.add(run_id)
                note = unseen_before_message(status.unseen_before)
                print(f"Note: {names[run_id]}: {note}", file=sys.stderr)

    def held_by_budget() -> bool:
        """Every run still going is paused at the budget with nothing on its way."""
        waiting = [r for r in group.runners if r.final_status is None]
        statuses = [printers[r.run_id].latest for r in waiting]
        return bool(waiting) and all(
            s is not None and s.budget_reached and s.in_flight == 0 for s in statuses
        )

    with _StopSignals(group) as stops:
        group.start()
        while not group.join(0.2):
            tell_unseen()
            if not budget and held_by_budget():
                budget = True  # headless: nobody can raise the budget; stop cleanly
                group.cancel()
    tell_unseen()
    finals = {r.run_id: r.final_status for r in group.runners}
    for run_id, status in finals.items():
        if status is None:
            continue
        who = names[run_id]
        if status.maybe_paid_twice:
            print(
                f"Possibly paid twice: {who}: {status.maybe_paid_twice} send(s) may have been "
                "billed without their answer arriving (stalled, cut off, dropped, aborted by a "
                "stop, or in flight at an abrupt end); their requests are marked "
                "may_be_paid_twice in the exports.",
                file=sys.stderr,
            )
        if status.estimated_usage:
            print(
                f"Estimated: {who}: {status.estimated_usage} answer(s) came without the "
                "provider's token counts; their tokens and cost are estimated from the text "
                "(marked tokens_estimated in the answers).",
                file=sys.stderr,
            )
        if status.hedged:
            print(
                f"Sent early (--hedge): {who}: {status.hedged} copy(ies) of slow requests at "
                "the run's end; the provider may bill both sends of each (counted above).",
                file=sys.stderr,
            )
    unfinished = [
        run_id
        for run_id, status in finals.items()
        if status is None or status.state is not RunState.FINISHED or status.failed
    ]
    for run_id in unfinished:
        status = finals[run_id]
        state = status.state.value if status is not None else "stopped"
        said = f" — {status.message}" if status is not None and status.message else ""
        print(f"Left: {names[run_id]}: {state}{said}", file=sys.stderr)
        left = next((r.left_sent for r in group.runners if r.run_id == run_id), 0)
        if left:
            print(
                f"{names[run_id]}: {left} request(s) are still marked as at the provider: the "
                "next run sends them again and counts them as possibly paid twice.",
                file=sys.stderr,
            )
    for run_id in unfinished:
        print(
            f"Resume {names[run_id]} with: resume-auditor run {path} --run {run_id}",
            file=sys.stderr,
        )
    interrupted = stops.signal is not None
    if budget or any(s is not None and s.budget_reached for s in finals.values()):
        spent = group.spend()
        print(
            f"Stopped at the budget: ${spent:.2f} spent by the {len(runs)} models together. "
            "Nothing is lost; to go on, resume each model above with a higher budget "
            "(--budget AMOUNT).",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    cancelled = any(s is not None and s.state is RunState.CANCELLED for s in finals.values())
    if interrupted or cancelled:
        what = f"Stopped by {stops.name}" if stops.signal is not None else "Cancelled"
        print(f"{what}: every model's answers so far are saved.", file=sys.stderr)
        return 128 + stops.signal if stops.signal is not None else EXIT_INTERRUPTED
    if unfinished:
        print(
            "Not every model's run finished. Fix the cause above, then resume each as shown.",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    for run_id, status in finals.items():
        print(f"Done: {names[run_id]}: {status.done if status else 0} answers", file=sys.stderr)
    print(f"All {len(runs)} models done, in {path}", file=sys.stderr)
    return EXIT_OK


def _print_plan(
    path: Path,
    as_json: bool = False,
    simulate: bool = False,
    effects: dict[str, float] | None = None,
) -> None:
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.plan import plan_run
    from resume_auditor.workflow.prepare import study_of

    with ResultFile(path, readonly=True) as result:
        plan = plan_run(result, study_of(result), simulate=simulate, effects=effects)
        has_run = bool(result.runs())
    if simulate and has_run:
        plan.sizing_lines += _sizing_costs(path, plan)
    if as_json:
        print(json.dumps(plan.as_dict(), indent=2))
        return
    for line in plan.lines():
        print(f"Plan: {line}", file=sys.stderr)


def _sizing_costs(path: Path, plan: Any) -> list[str]:
    """Cost and time of the sizes that give 80% power, at this run's cost per request."""
    from resume_auditor.workflow.execute import estimate_for

    try:
        est = estimate_for(path, None, concurrency=0)
    except Exception as exc:  # the sizing stands without its cost
        logger.info("no estimate for the sizing: %s", exc)
        return []
    if not est.to_send:
        return [
            "Cost and time of a larger audit: build its cases, then `resume-auditor run FILE "
            "--estimate`."
        ]
    out = []
    for z in plan.sizing:
        needed = plan.requests_needed(z)
        if needed is None or z.units_needed is None or z.units_needed <= z.units_now:
            continue
        parts = []
        if est.cost_usd is not None:
            parts.append(f"about ${est.cost_usd / est.to_send * needed:,.2f}")
        elif est.free:
            parts.append("no cost (a local or self-hosted model)")
        if est.eta_s is not None:
            parts.append(f"about {est.eta_s / est.to_send * needed / 60:,.0f} min")
        if parts:
            costs = " and ".join(parts)
            out.append(f"{z.design} at 80% power: {costs} for its {needed:,} requests.")
    return out


def cmd_cases(args: argparse.Namespace) -> int:
    effects = {
        code.upper(): value / per if per != 1 else value
        for code, _default, _unit, per in _effect_options()
        if (value := getattr(args, f"effect_{code}", None)) is not None
    }
    if getattr(args, "enlarge", False):
        return _enlarge(Path(args.result), effects, yes=bool(getattr(args, "yes", False)))
    simulate = bool(getattr(args, "power", False)) or bool(effects)
    _print_plan(Path(args.result), args.json, simulate, effects)
    return EXIT_OK


def _enlarge(path: Path, effects: dict[str, float], *, yes: bool) -> int:
    """The GUI's "Enlarge the audit…" for the command line: size, show the offer with its
    requests and cost, ask (or take --yes), then save the settings and build the cases
    again. With no terminal to ask on and no --yes, nothing changes (a script never
    waits on a question). Refused before any sizing once the audit has answers: they
    belong to its cases. A run queued before (audit --prepare-only) is queued again
    with the enlarged settings, so `resume-auditor run FILE` sends them."""
    import dataclasses

    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.execute import model_of
    from resume_auditor.workflow.plan import apply_enlargement, plan_enlargement, plan_run
    from resume_auditor.workflow.prepare import queue_run, study_of

    with ResultFile(path, readonly=True) as result:
        if result.answered_count():
            raise CliError(
                "this audit already has answers, which belong to its test cases, so it cannot "
                "be enlarged: start a new audit file with more repeats or rounds instead"
            )
        runs = result.runs()
        model = model_of(runs[-1]) if runs else None
        plan = plan_run(result, study_of(result), simulate=True, effects=effects)
    for line in plan.lines():
        print(f"Plan: {line}", file=sys.stderr)
    found = plan_enlargement(path, plan.sizing, model)
    if found is None:
        short = any(z.units_needed is None or z.units_needed > z.units_now for z in plan.sizing)
        print(
            "Nothing the app can change reaches 80%: add source resumes (see above)."
            if short
            else "Every design sized already reaches 80%: nothing to enlarge.",
            file=sys.stderr,
        )
        return EXIT_OK
    for line in found.lines():
        print(f"Enlarge: {line}", file=sys.stderr)
    if not yes:
        if not sys.stdin.isatty():
            raise CliError(
                "nothing was changed: there is no terminal to ask on; add --yes to apply "
                "the enlargement above"
            )
        answer = input("Change the settings and build the test cases again? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("Nothing was changed.", file=sys.stderr)
            return EXIT_OK
    for note in apply_enlargement(path, found):
        print(f"Note: {note}", file=sys.stderr)
    print("The audit was enlarged: " + "; ".join(found.changes) + ".", file=sys.stderr)
    if model is not None:
        spec = dataclasses.replace(model, temperature=found.study.model.temperature)
        run_id, added = queue_run(path, spec)
        print(
            f"Queued run {run_id} ({added:,} requests): send it with `resume-auditor run {path}`.",
            file=sys.stderr,
        )
    return EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.prepare import study_of

    with ResultFile(args.result, readonly=True) as result:
        config = study_of(result)
    concurrency = args.concurrency or config.run.concurrency
    if args.estimate:
        _estimate(Path(args.result), args.run, concurrency, args)
        return EXIT_OK
    return _run(Path(args.result), args.run, concurrency, config.run.timeout_s, args)


def _print_metrics_text(report: MetricsReport) -> None:
    from resume_auditor.designs.registry import DESIGNS

    run = report["run"]
    counts = report["counts"]
    print(f"{report['study']['name']} — {run['provider']}:{run['model']} (run {run['id']})")
    print(
        f"{counts['answered']}/{counts['requests']} answered, {counts['failed']} failed, "
        f"{counts['invalid']} unreadable\n"
    )
    for design in DESIGNS:  # each design's own lines, in the registry's order
        block = design.block(report)
        for line in design.text_lines(block) if block else []:
            print(line)
    lost = [m["metric"] for m in (report.get("missing") or {}).values() if m["lost"]]
    if lost:
        print("\nAnswers the metrics could not use:")
        for loss in lost:
            if loss is not None:
                print(f"- {loss['reading']}")
    if report["flags"]:
        print("\nFlags:")
        for flag in report["flags"]:
            print(f"! {flag}")
    for note in report["notes"]:
        print(f"\nNote: {note}")


def cmd_metrics(args: argparse.Namespace) -> int:
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.workflow.reporting import report_metrics

    with ResultFile(args.result, readonly=True) as result:
        try:
            # the run's numbers, and every model of the audit compared when it holds
            # several (`comparison`, docs/metrics-json.md): what the report shows
            report = report_metrics(result, args.run, None)
        except ValueError as exc:
            raise CliError(str(exc)) from exc
    comparison = report.get("comparison")
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False, allow_nan=False)
        print()
    else:
        _print_metrics_text(report)
        if comparison is not None:
            print(f"\nThe {len(comparison['runs'])} models compared on the same test cases:")
            for d in comparison["differences"]:
                print(f"- {d['sentence']}")
            print(f"({comparison['method']})")
    return EXIT_OK


def _refuse_secret(path: Path) -> None:
    """Refuse a key, a token or a settings file before reading it, as `audit` does."""
    from resume_auditor.documents.resumecheck import secret_problem

    if path.is_file():
        with path.open("rb") as fh:
            problem = secret_problem(str(path), fh.read(65536))
        if problem:
            raise CliError(problem)


def cmd_extract(args: argparse.Namespace) -> int:
    from resume_auditor.documents.extract import describe, extract_job, extract_resume
    from resume_auditor.documents.resumecheck import token_problem

    if args.max_pages < 1 or args.max_mb <= 0:
        raise CliError("--max-pages and --max-mb must be positive.")
    if not args.verbose:
        logging.getLogger("pypdf").setLevel(logging.ERROR)  # its notes on damaged files
    limits: dict[str, Any] = {
        "password": args.password,
        "max_pages": args.max_pages,
        "max_bytes": int(args.max_mb * 1024 * 1024),
    }
    _refuse_secret(Path(args.file))
    result = extract_job(args.file, **limits) if args.job else extract_resume(args.file, **limits)
    problem = token_problem(result.document.text, Path(args.file).name)
    if problem:  # the same refusals as `audit`: nothing of the file is printed
        raise CliError(problem)
    out = json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n"
    try:
        sys.stdout.write(out if args.json else describe(result))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (| head): not an error
        import os

        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (silences the flush at exit)
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from resume_auditor.workflow.reporting import write_report

    targets = {"html": args.html, "pdf": args.pdf, "xlsx": args.xlsx, "csv_dir": args.csv}
    if not any(targets.values()) and not args.bundle:
        raise CliError(
            "say what to write: --html FILE, --pdf FILE, --xlsx FILE, --csv DIR "
            "or --bundle FILE (any of them)"
        )
    try:
        written = write_report(args.result, args.run, bundle=args.bundle, **targets)
    except ValueError as exc:  # no run to report
        raise CliError(str(exc)) from exc
    failed = False
    for item in written:
        if item.ok:
            print(f"Wrote {item.kind.upper()}: {item.path}", file=sys.stderr)
        else:
            failed = True
            print(f"resume-auditor: {item.kind.upper()} not written: {item.error}", file=sys.stderr)
    return EXIT_INPUT if failed else EXIT_OK


def _import(bundle: str, out: Path) -> Any:
    from resume_auditor.workflow.bundle import BundleError, import_bundle

    try:
        imported = import_bundle(bundle, out)
    except BundleError as exc:
        raise CliError(str(exc)) from exc
    for note in imported.notes:
        print(f"Note: {note}", file=sys.stderr)
    if imported.differences:
        print(
            f"Warning: {len(imported.differences)} number(s) differ from the bundle's:",
            file=sys.stderr,
        )
        for line in imported.differences[:20]:
            print(f"  {line}", file=sys.stderr)
    else:
        runs = ", ".join(str(r) for r in imported.runs) or "none"
        print(
            f"Imported {out}: every number of run(s) {runs} recomputed identically.",
            file=sys.stderr,
        )
    return imported


def cmd_import(args: argparse.Namespace) -> int:
    imported = _import(args.bundle, Path(args.out))
    return EXIT_INCOMPLETE if imported.differences else EXIT_OK


def _bundle_to_audit(bundle: str) -> str:
    """Import a bundle given to `gui` into a new audit file in the audits folder."""
    from resume_auditor.paths import audits_dir

    stem = Path(bundle).stem or "bundle"
    out = audits_dir() / f"{stem}.audit"
    number = 2
    while out.exists():
        out = audits_dir() / f"{stem}-{number}.audit"
        number += 1
    _import(bundle, out)
    return str(out)


def cmd_gui(args: argparse.Namespace) -> int:
    from resume_auditor.app import main as gui_main
    from resume_auditor.workflow.bundle import is_bundle

    if getattr(args, "file", None) and is_bundle(args.file):
        args.file = _bundle_to_audit(args.file)
    argv = [args.file] if getattr(args, "file", None) else []
    if getattr(args, "quit_after_load", False) or getattr(args, "app_quit_after_load", False):
        argv.append("--quit-after-load")
    return gui_main(argv)


def _provider_info(provider_id: str) -> Any:
    from resume_auditor.providers.base import ProviderError
    from resume_auditor.providers.registry import provider_info

    try:
        return provider_info(provider_id)
    except ProviderError as exc:
        raise CliError(exc.message) from exc


def _read_key(label: str) -> str:
    """The key from the terminal without echo, or from piped standard input."""
    import getpass

    if sys.stdin.isatty():
        return getpass.getpass(f"API key for {label} (typing is hidden): ")
    return sys.stdin.readline()


def cmd_keys(args: argparse.Namespace) -> int:
    """Keys never reach the screen: status says where a key is, never what it is."""
    from resume_auditor.providers.keys import KeyLocation, default_store
    from resume_auditor.providers.registry import PROVIDERS

    store = default_store()
    if args.provider is None:
        if args.action != "status":
            raise CliError(f"say which provider: resume-auditor keys {args.action} PROVIDER")
        where = {
            KeyLocation.ENVIRONMENT: "from {var} (this session)",
            KeyLocation.KEYRING: "in the OS keyring",
            KeyLocation.MEMORY: "in memory (this session only)",
            KeyLocation.NONE: "not set ({var})",
        }
        for info in PROVIDERS:
            if info.env_var:
                status = store.status(info.id, args.base_url)
                text = where[status.location].format(var=status.env_var)
                if info.key_per_base_url and not args.base_url:
                    text += "; keys for this provider are per server: add --base-url URL"
                print(f"{info.id:<18} {text}")
        if not store.keyring_available():
            from resume_auditor.providers.keys import keyring_advice

            print(f"\nThere is no keyring on this computer. {keyring_advice()}")
        return EXIT_OK
    info = _provider_info(args.provider)
    if not info.env_var:
        print(f"{info.label} needs no key.")
        return EXIT_OK
    if info.key_per_base_url and not args.base_url and args.action != "status":
        raise CliError(f"{info.id} keys are stored per server: add --base-url URL")
    if args.action == "status":
        print(store.status(info.id, args.base_url).message)
        return EXIT_OK
    if args.action == "delete":
        from resume_auditor.providers.keys import KeyringState

        status = store.delete(info.id, args.base_url)
        print(status.message)
        failed = status.keyring_state in (KeyringState.LOCKED, KeyringState.DENIED)
        return EXIT_INCOMPLETE if failed or status.keyring_state is KeyringState.FAILED else EXIT_OK
    try:
        status = store.set(info.id, _read_key(info.label), args.base_url)
    except ValueError as exc:
        raise CliError(str(exc)) from exc
    if status.location is KeyLocation.KEYRING:
        print(status.message)
        return EXIT_OK
    # This command ends now, so a key "kept in memory" would be forgotten at once.
    from resume_auditor.providers.keys import keyring_advice

    print(
        f"The key was NOT saved: this computer has no usable keyring. For this terminal "
        f"session, set the {info.env_var} environment variable instead. {keyring_advice()}",
        file=sys.stderr,
    )
    return EXIT_INCOMPLETE


def cmd_models(args: argparse.Namespace) -> int:
    import asyncio

    from resume_auditor.providers.base import ProviderError
    from resume_auditor.providers.keys import default_store
    from resume_auditor.providers.local import MODEL_ID
    from resume_auditor.providers.registry import make_provider

    info = _provider_info(args.provider)
    if info.id == "local":
        print(MODEL_ID)
        return EXIT_OK
    if not info.capabilities.lists_models:
        print(info.note)
        return EXIT_OK

    async def fetch() -> list[str]:
        provider = make_provider(
            info.id,
            base_url=args.base_url,
            api_key=default_store().get(info.id, args.base_url),
            timeout_s=30.0,
            require_key=info.id != "openrouter",  # its model list is public
        )
        try:
            return await provider.list_models()
        finally:
            await provider.aclose()

    try:
        models = asyncio.run(fetch())
    except ProviderError as exc:
        raise CliError(exc.message) from exc
    if not models:
        print(f"{info.label} lists no models.", file=sys.stderr)
    for model in models:
        print(model)
    return EXIT_OK


def cmd_variants(args: argparse.Namespace) -> int:
    from resume_auditor.variants.gen_cli import cmd_variants as run_variants

    return run_variants(args)


def cmd_restore(args: argparse.Namespace) -> int:
    from resume_auditor.store.backup import backup_path, backup_time, restore_backup

    path = Path(args.result)
    when = backup_time(path)
    if when is None:
        raise CliError(f"There is no backup of {path.name} ({backup_path(path).name}).")
    aside = restore_backup(path)
    print(
        f"Restored {path} from its last good copy ({when}); answers recorded after that are "
        f"not in it. The damaged file is kept as {aside}.",
        file=sys.stderr,
    )
    return EXIT_OK


# The commands that write an audit hold its writer lock from start to end (prepare,
# then run), so no other program writes it in between (store/writelock.py).
_WRITES = {"audit": "out", "run": "result"}
_VARIANTS_WRITE = ("generate", "accept", "reject", "reset")


def cmd_doctor(args: argparse.Namespace) -> int:
    import json

    from resume_auditor.workflow.doctor import Status, format_check, run_checks

    worst = Status.OK
    for check in run_checks(frozenset(args.skip)):
        if args.json:
            print(json.dumps(check.as_dict()), flush=True)
        else:
            print(format_check(check), flush=True)
        if check.status is Status.FAIL or (check.status is Status.WARN and worst is Status.OK):
            worst = check.status
    if worst is Status.FAIL or (args.strict and worst is Status.WARN):
        return EXIT_INCOMPLETE
    return EXIT_OK


def cmd_window_check(args: argparse.Namespace) -> int:
    """Open a real window and close it (a child process of `doctor`)."""
    from resume_auditor.ui.platform_check import qt_start_problem

    problem = qt_start_problem()
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_INCOMPLETE
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication(["resume-auditor"])
    label = QLabel("Resume Auditor self-check")
    label.show()
    shown: list[bool] = []

    def seen() -> None:  # asked while the event loop runs: the window was really mapped
        shown.append(label.isVisible() and label.width() > 0)
        app.quit()

    QTimer.singleShot(300, seen)
    app.exec()
    label.close()
    if not (shown and shown[0]):
        print("Qt started but the test window was not shown.", file=sys.stderr)
        return EXIT_INCOMPLETE
    return EXIT_OK


def cmd_serve_local(args: argparse.Namespace) -> int:
    from resume_auditor.providers.local import serve

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    return serve(args.port, args.model_path, args.threads, args.parent_pid)


def main(argv: list[str] | None = None) -> int:
    args = _parser(argv).parse_args(argv)
    if getattr(args, "app_quit_after_load", False) and args.command not in (None, "gui"):
        print(
            "resume-auditor: --quit-after-load opens the desktop app, loads the audit and "
            f"quits; it does nothing for `{args.command}`. Use: resume-auditor gui FILE "
            "--quit-after-load",
            file=sys.stderr,
        )
        return EXIT_INPUT
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    from resume_auditor.documents.errors import DocumentError
    from resume_auditor.domain.study import StudyError
    from resume_auditor.prompts import PromptError
    from resume_auditor.stats.thresholds import ThresholdError
    from resume_auditor.store.resultfile import ResultFileError

    commands = {
        None: cmd_gui,
        "gui": cmd_gui,
        "audit": cmd_audit,
        "run": cmd_run,
        "metrics": cmd_metrics,
        "report": cmd_report,
        "import": cmd_import,
        "restore": cmd_restore,
        "serve-local": cmd_serve_local,
        "doctor": cmd_doctor,
        "window-check": cmd_window_check,
        "extract": cmd_extract,
        "cases": cmd_cases,
        "keys": cmd_keys,
        "models": cmd_models,
        "variants": cmd_variants,
    }
    from resume_auditor.store import writelock

    writelock.set_program(f"resume-auditor {args.command}")
    try:
        with contextlib.ExitStack() as held:
            target = _WRITES.get(args.command or "")
            if args.command == "variants" and args.variants_command in _VARIANTS_WRITE:
                target = "result"
            if args.command == "cases" and args.enlarge:
                target = "result"
            if target and not getattr(args, "estimate", False):
                if args.command == "audit":  # the folder of a new audit is made for it
                    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
                held.enter_context(writelock.hold(getattr(args, target)))
            return int(commands[args.command](args))
    except (
        CliError,
        StudyError,
        DocumentError,
        PromptError,
        ResultFileError,
        ThresholdError,
    ) as exc:
        print(f"resume-auditor: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (`resume-auditor variants list FILE | head`): not an error;
        # point stdout at nothing so Python's exit flush does not complain again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
