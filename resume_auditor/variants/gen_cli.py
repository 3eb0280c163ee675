"""`resume-auditor variants ...`: generate, list, review and diff qualification texts.

variants generate AUDIT [--generator PROVIDER:MODEL] [--base-url URL] [--no-judge]
                        [--max-attempts N] [--k 1 2 3] [--reworded N]
variants list AUDIT [--json] [--resume ID]
variants accept|reject|reset AUDIT ID [ID...]
variants diff AUDIT ID
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported lazily at run time: the CLI starts fast
    from resume_auditor.variants.generate import GenProgress

EXIT_OK, EXIT_INCOMPLETE, EXIT_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130


def add_variants_parser(sub: Any) -> None:
    v = sub.add_parser("variants", help="qualification variants from a generator model")
    vs = v.add_subparsers(dest="variants_command", required=True)
    g = vs.add_parser("generate", help="write, verify and store variants (resumable)")
    g.add_argument("result", help="the audit file")
    g.add_argument(
        "--generator",
        action="append",
        default=[],
        metavar="PROVIDER:MODEL",
        help="the generator model (repeat for several); saved in the audit",
    )
    g.add_argument("--base-url", default="", help="the generator server's base URL")
    g.add_argument("--no-judge", action="store_true", help="skip the judge model's check")
    g.add_argument("--max-attempts", type=int, help="tries per text (default 3)")
    g.add_argument("--k", type=int, nargs="+", help="qualifications added/removed (default 1 2 3)")
    g.add_argument("--reworded", type=int, help="reworded copies per resume (default 2)")
    ls = vs.add_parser("list", help="list the texts with their checks and status")
    ls.add_argument("result")
    ls.add_argument("--json", action="store_true", help="machine-readable")
    ls.add_argument("--resume", type=int, help="only this resume id")
    for name, what in (("accept", "use"), ("reject", "never use"), ("reset", "un-review")):
        a = vs.add_parser(name, help=f"{what} texts (takes effect when cases are rebuilt)")
        a.add_argument("result")
        a.add_argument("ids", type=int, nargs="+", metavar="ID")
    d = vs.add_parser("diff", help="a text beside its source")
    d.add_argument("result")
    d.add_argument("id", type=int)


def _generators(args: argparse.Namespace) -> tuple[Any, ...]:
    from resume_auditor.domain.generation import GENERATOR_MAX_TOKENS
    from resume_auditor.domain.study import NEEDS_BASE_URL, ModelSpec, StudyError, _check_provider

    out = []
    for item in args.generator:
        provider, sep, model = item.partition(":")
        if not sep or not model:
            raise StudyError(
                f"--generator {item!r}: write it as provider:model, e.g. openai:gpt-4o"
            )
        _check_provider(provider)
        if provider in NEEDS_BASE_URL and not args.base_url:
            raise StudyError(f"the generator provider {provider!r} needs --base-url")
        out.append(ModelSpec(provider, args.base_url, model, max_tokens=GENERATOR_MAX_TOKENS))
    return tuple(out)


def cmd_generate(args: argparse.Namespace) -> int:
    from resume_auditor.domain.generation import GenerationSpec
    from resume_auditor.domain.study import StudyError, study_from_dict, study_to_dict
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.variants.generate import generate_for_audit

    path = Path(args.result)
    with ResultFile(path) as result:
        config = study_from_dict(result.config(), require_sources=False)
        spec = config.generation or GenerationSpec()
        changes: dict[str, Any] = {}
        if args.generator:
            changes["generators"] = _generators(args)
        if args.no_judge:
            changes["judge"] = False
        if args.max_attempts is not None:
            if args.max_attempts < 1:
                raise StudyError("--max-attempts should be at least 1")
            changes["max_attempts"] = args.max_attempts
        if args.k:
            if any(k < 1 for k in args.k):
                raise StudyError("--k values should be at least 1")
            changes["k"] = tuple(dict.fromkeys(args.k))
        if args.reworded is not None:
            changes["reworded"] = max(0, args.reworded)
        if changes:
            config = replace(config, generation=replace(spec, **changes))
            result.save_config(study_to_dict(config))
            print("Generator settings saved in the audit.", file=sys.stderr)
    progress = progress_printer()
    cancel = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["report"] = generate_for_audit(path, config, progress=progress, cancel=cancel)
        except BaseException as exc:  # handed to the main thread
            box["error"] = exc

    thread = threading.Thread(target=work, name="variants-generate", daemon=True)
    thread.start()
    interrupted = False
    try:
        while thread.is_alive():
            thread.join(0.2)
    except KeyboardInterrupt:
        interrupted = True
        print("Stopping: finishing answers already on their way...", file=sys.stderr)
        cancel.set()
        thread.join()
    if "error" in box:
        raise box["error"]
    report = box["report"]
    for line in report.lines():
        print(line, file=sys.stderr)
    if interrupted:
        print(f"Cancelled. Go on with: resume-auditor variants generate {path}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_OK if report.complete else EXIT_INCOMPLETE


def progress_printer() -> Callable[[GenProgress], None]:
    """Generation progress on stderr, at most once a second (`variants generate`, `audit`)."""
    last = [0.0]

    def progress(p: GenProgress) -> None:
        now = time.monotonic()
        if now - last[0] >= 1.0:
            last[0] = now
            print(
                f"[{p.stage}] round {p.round}: {p.texts_done}/{p.texts_total} texts stored — "
                f"{p.message}",
                file=sys.stderr,
                flush=True,
            )

    return progress


def _text_json(q: Any) -> dict[str, Any]:
    return {
        "id": q.id,
        "resume_id": q.resume_id,
        "kind": q.kind.value,
        "k": q.k,
        "changes": list(q.changes),
        "origin": q.origin.value,
        "generator": q.generator,
        "verified": q.verified,
        "status": q.status.value,
        "usable": q.usable(),
        "attempts": q.attempts,
        "checks": [{"name": c.name, "passed": c.passed, "detail": c.detail} for c in q.checks],
        "provenance": q.provenance,
        "chars": len(q.template.text),
    }


def cmd_list(args: argparse.Namespace) -> int:
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.variants.review import list_texts

    with ResultFile(args.result, readonly=True) as result:
        texts = list_texts(result, args.resume)
        names = {r.id: r.filename for r in result.resumes()}
    if args.json:
        print(json.dumps([_text_json(q) for q in texts], indent=2))
        return EXIT_OK
    if not texts:
        print(
            "No variant texts in this audit yet. Make some with: resume-auditor variants "
            f"generate {args.result} --generator PROVIDER:MODEL"
        )
        return EXIT_OK
    for q in texts:
        mark = "ok" if q.verified else "FLAGGED"
        use = "used" if q.usable() else "not used"
        changes = f" [{'; '.join(q.changes)}]" if q.changes else ""
        print(
            f"{q.id:>4}  {names.get(q.resume_id, q.resume_id)}  {q.kind.value} k={q.k}{changes}  "
            f"{mark}, {q.status.value}, {use}  ({q.generator or q.origin.value}, "
            f"{q.attempts} attempt(s))"
        )
        for c in q.checks:
            if not c.passed:
                print(f"        failed {c.name}: {c.detail}")
    return EXIT_OK


def cmd_status(args: argparse.Namespace) -> int:
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.variants import review

    action = {"accept": review.accept, "reject": review.reject, "reset": review.reset}[
        args.variants_command
    ]
    with ResultFile(args.result) as result:
        for qual_id in args.ids:
            before = action(result, qual_id)
            after = result.qual_text(qual_id)
            now = after.status.value if after else "?"
            print(f"{qual_id}: {before.value} -> {now}")
    print("This takes effect the next time the test cases are built.", file=sys.stderr)
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    from resume_auditor.store.resultfile import ResultFile
    from resume_auditor.variants.review import diff, unified

    with ResultFile(args.result, readonly=True) as result:
        d = diff(result, args.id)
    print(unified(d) or "The text is the same as its source.")
    return EXIT_OK


def cmd_variants(args: argparse.Namespace) -> int:
    commands = {
        "generate": cmd_generate,
        "list": cmd_list,
        "accept": cmd_status,
        "reject": cmd_status,
        "reset": cmd_status,
        "diff": cmd_diff,
    }
    return commands[args.variants_command](args)
