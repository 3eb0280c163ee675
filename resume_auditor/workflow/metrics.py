"""The metrics of a result file as a JSON-ready dict (documented in docs/metrics-json.md)."""

from __future__ import annotations

from typing import Any

from resume_auditor import __version__
from resume_auditor.stats.d1 import compute_d1
from resume_auditor.store.resultfile import ResultFile

SCHEMA = "resume-auditor.metrics/1"


def metrics_report(result: ResultFile, run_id: int | None = None) -> dict[str, Any]:
    runs = result.runs()
    run = (
        next((r for r in runs if r.id == run_id), None) if run_id else (runs[-1] if runs else None)
    )
    if run is None:
        raise ValueError(f"{result.path} has no run" + (f" {run_id}" if run_id else "") + ".")
    study = result.study()
    progress = result.progress(run.id)
    judgments = result.judgments(run.id)
    d1 = compute_d1(judgments[judgments["design"] == "D1"])
    notes = []
    if progress.done < progress.total:
        notes.append(
            f"The run is not finished: {progress.total - progress.done} of {progress.total} "
            "requests have no answer yet; these numbers cover the answered ones."
        )
    if d1.invalid:
        notes.append(f"{d1.invalid} answer(s) could not be read and are left out of every metric.")
    return {
        "schema": SCHEMA,
        "app_version": __version__,
        "result_file": str(result.path),
        "study": {"name": study["name"], "created_at": study["created_at"]},
        "run": {
            "id": run.id,
            "provider": run.provider,
            "base_url": run.base_url,
            "model": run.model,
            "prompt": run.prompt_id,
            "params": run.params,
            "created_at": run.created_at,
        },
        "counts": {
            "pairs": len(result.pairs()),
            "requests": progress.total,
            "answered": progress.done,
            "failed": progress.failed,
            "pending": progress.pending,
            "invalid": progress.invalid,
            "input_tokens": progress.input_tokens,
            "output_tokens": progress.output_tokens,
        },
        "d1": d1.as_dict(),
        "flags": d1.flags(),
        "notes": notes,
    }
