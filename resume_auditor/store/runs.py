"""Runs in the result file: each model (and preset) run on the audit, and how far
each has got (answers, failures, tokens, cost).

One part of the result file (store/tables.py); read through `parts.RunReader`.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from resume_auditor.store.packing import now_iso
from resume_auditor.store.tables import Tables


@dataclass(frozen=True)
class RunRecord:
    id: int
    provider: str
    base_url: str
    model: str
    prompt_id: str
    params: dict[str, Any]
    created_at: str
    # "audit" (the model under test) or "generation" (a generator model writing
    # qualification variants, docs/generator.md): not a run of the audit's numbers.
    purpose: str = "audit"


@dataclass(frozen=True)
class Progress:
    total: int
    done: int
    failed: int
    pending: int
    invalid: int
    input_tokens: int
    output_tokens: int
    # What the answers cost this audit (None when some answer's price is unknown),
    # prompt tokens the provider served from its prompt cache, answers served from
    # the shared response cache (free), refusals, and requests an early stop skipped.
    cost_usd: float | None = 0.0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    cache_hits: int = 0
    refused: int = 0
    skipped: int = 0
    batched: int = 0
    # answers whose token counts, and so cost, are estimates (the provider sent none:
    # parsed.tokens_estimated, runner/answering.py)
    estimated_usage: int = 0

    @property
    def finished(self) -> bool:
        return self.total > 0 and self.done + self.skipped == self.total


def audit_answer_count(db: sqlite3.Connection) -> int:
    """Answers of the audit's runs (a generator model's answers are not counted)."""
    return int(
        db.execute(
            "SELECT count(*) FROM response JOIN request ON request.id = response.request_id "
            "JOIN run ON run.id = request.run_id WHERE run.purpose = 'audit'"
        ).fetchone()[0]
    )


class RunTables(Tables):
    """The `run` table and the counts of its requests; mixed into ResultFile."""

    def find_run(
        self, provider: str, base_url: str, model: str, prompt_id: str, params: dict[str, Any]
    ) -> int | None:
        row = self._db.execute(
            "SELECT id FROM run WHERE provider = ? AND base_url = ? AND model = ? "
            "AND prompt_id = ? AND params_json = ? ORDER BY id DESC LIMIT 1",
            (provider, base_url, model, prompt_id, json.dumps(params, sort_keys=True)),
        ).fetchone()
        return None if row is None else int(row[0])

    def add_run(
        self,
        provider: str,
        base_url: str,
        model: str,
        prompt_id: str,
        params: dict[str, Any],
        *,
        purpose: str = "audit",
    ) -> int:
        cur = self._db.execute(
            "INSERT INTO run(provider, base_url, model, prompt_id, params_json, created_at, "
            "purpose) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                provider,
                base_url,
                model,
                prompt_id,
                json.dumps(params, sort_keys=True),
                now_iso(),
                purpose,
            ),
        )
        return int(cur.lastrowid or 0)

    def runs(self, *, purpose: str | None = "audit") -> list[RunRecord]:
        """The audit's runs of the model under test; `purpose="generation"` the generator
        runs (docs/generator.md), None every run (to find one by id)."""
        where, params = ("", ()) if purpose is None else ("WHERE purpose = ?", (purpose,))
        return [
            RunRecord(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7])
            for r in self._db.execute(
                "SELECT id, provider, base_url, model, prompt_id, params_json, created_at, "
                f"purpose FROM run {where} ORDER BY id",
                params,
            )
        ]

    def latest_run(self) -> RunRecord | None:
        runs = self.runs()
        return runs[-1] if runs else None

    def answered_by_run(self) -> dict[int, int]:
        """Answers per run id (runs with none are left out)."""
        return {
            int(run_id): int(n)
            for run_id, n in self._db.execute(
                "SELECT request.run_id, count(*) FROM response JOIN request "
                "ON request.id = response.request_id GROUP BY request.run_id"
            )
        }

    def answer_marks(self) -> dict[int, tuple[int, str, int]]:
        """Per run with answers: how many, when the newest came, and how many answers a
        re-ask replaced. Answers are only ever added or replaced, never edited, so any
        change to a run's answers changes its marks (what the comparison of the
        audit's models keeps between refreshes is keyed by them)."""
        replaced = dict(
            self._db.execute(
                "SELECT request.run_id, count(*) FROM response_history JOIN request "
                "ON request.id = response_history.request_id GROUP BY request.run_id"
            ).fetchall()
        )
        return {
            int(run_id): (int(n), str(newest or ""), int(replaced.get(run_id, 0)))
            for run_id, n, newest in self._db.execute(
                "SELECT request.run_id, count(*), max(response.received_at) FROM response "
                "JOIN request ON request.id = response.request_id GROUP BY request.run_id"
            )
        }

    def answered_count(self) -> int:
        """Answers of the audit's runs (a generator model's answers are not counted)."""
        return audit_answer_count(self._db)

    def progress(self, run_id: int) -> Progress:
        row = self._db.execute(
            "SELECT count(*), "
            "coalesce(sum(status = 'done'), 0), coalesce(sum(status = 'failed'), 0), "
            "coalesce(sum(status IN ('pending', 'sent')), 0), "
            "coalesce(sum(status = 'skipped'), 0) "
            "FROM request WHERE run_id = ?",
            (run_id,),
        ).fetchone()
        # apart: the counts above read only the (run_id, status) index, and a batch's
        # column would make them read every request row (its body with it): 4x slower
        (batched,) = self._db.execute(
            "SELECT count(*) FROM request WHERE run_id = ? AND status != 'done' "
            "AND batch_id IS NOT NULL",
            (run_id,),
        ).fetchone()
        usage = self._db.execute(
            "SELECT coalesce(sum(label = 'invalid'), 0), coalesce(sum(input_tokens), 0), "
            "coalesce(sum(output_tokens), 0), coalesce(sum(cost_usd), 0), "
            "coalesce(sum(cost_usd IS NULL), 0), coalesce(sum(cached_tokens), 0), "
            "coalesce(sum(reasoning_tokens), 0), coalesce(sum(source = 'cache'), 0), "
            "coalesce(sum(json_extract(parsed_json, '$.refused') IS NOT NULL), 0), "
            "coalesce(sum(json_extract(parsed_json, '$.tokens_estimated') IS NOT NULL), 0) "
            "FROM response JOIN request ON request.id = response.request_id "
            "WHERE request.run_id = ?",
            (run_id,),
        ).fetchone()
        # Answers a re-ask replaced were paid for too.
        history = self._db.execute(
            "SELECT coalesce(sum(cost_usd), 0), coalesce(sum(cost_usd IS NULL), 0), "
            "coalesce(sum(response_history.input_tokens), 0), "
            "coalesce(sum(response_history.output_tokens), 0) FROM response_history "
            "JOIN request ON request.id = response_history.request_id WHERE request.run_id = ?",
            (run_id,),
        ).fetchone()
        unpriced = usage[4] + history[1]
        return Progress(
            total=row[0],
            done=row[1],
            failed=row[2],
            pending=row[3],
            invalid=usage[0],
            input_tokens=usage[1] + history[2],
            output_tokens=usage[2] + history[3],
            cost_usd=None if unpriced else float(usage[3] + history[0]),
            cached_tokens=usage[5],
            reasoning_tokens=usage[6],
            cache_hits=usage[7],
            refused=usage[8],
            estimated_usage=usage[9],
            skipped=row[4],
            batched=batched,
        )

    def failures(self, run_id: int) -> list[tuple[int, str, str]]:
        return [
            (r[0], r[1] or "", r[2] or "")
            for r in self._db.execute(
                "SELECT id, error_kind, error FROM request WHERE run_id = ? AND status = 'failed'",
                (run_id,),
            )
        ]
