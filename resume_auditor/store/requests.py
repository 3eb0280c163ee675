"""Requests of every kind and their answers, in the result file (schema 6).

A request shows one or more variants, in a given order, under a prompt preset of
a given kind (pairwise, Yes/No, 1-5 rating, five-dimension scores, ranking,
manipulation check). Its `ukey` says *what* is asked, so queuing the same thing
twice is a no-op and `(run, ukey, rep)` identifies an answer across sessions.
The response keeps the raw body, the parsed result of its kind (`parsed_json`),
where it came from (the API, the response cache, a provider batch) and what it
cost. An answer a re-ask replaced moves to `response_history`: a paid response is
never thrown away. docs/runner.md describes the model for the design builders.
"""

from __future__ import annotations

import hashlib
import json
import operator
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from resume_auditor.domain.case import Order
from resume_auditor.store.cases import PAIR_KINDS
from resume_auditor.store.packing import now_iso, pack, unpack
from resume_auditor.store.tables import Tables

SOURCES = ("api", "cache", "batch")


@dataclass(frozen=True)
class RequestSpec:
    """One request to queue.

    ukey: what is asked, stable across sessions ('pair:12:ab', 'd2:var:40:rating');
        with `rep` it is unique within a run.
    kind: the preset kind, which says how the answer is read (prompts.KINDS).
    variants: the variant ids shown, in presentation order.
    case_id: the test case asked about (any design); `order` the presentation
        order of a pairwise request ('ab' / 'ba').
    context: what reading the answer needs besides the text (candidate names and
        labels for a ranking, the placeholder letters...), stored as JSON.
    cell: the group of requests that estimate one quantity (for early stopping).
    """

    ukey: str
    kind: str
    body: dict[str, Any]
    variants: tuple[int, ...] = ()
    rep: int = 0
    preset: str = ""
    case_id: int | None = None
    order: str = ""
    context: dict[str, Any] = field(default_factory=dict)
    cell: str = ""


@dataclass(frozen=True)
class PendingRequest:
    """A request that still needs an answer: its case (`case_id`, of `design`), what
    it shows in `variants` (presentation order), the order of a pairwise request
    (`order`, None otherwise) and how to read the answer (`kind`)."""

    id: int
    case_id: int | None
    order: Order | None
    rep: int
    body: dict[str, Any]
    attempts: int
    kind: str = "pairwise_abstain"
    preset: str = ""
    ukey: str = ""
    variants: tuple[int, ...] = ()
    context: dict[str, Any] = field(default_factory=dict)
    cell: str = ""
    status: str = "pending"
    design: str = ""
    case_kind: str = ""  # its case's kind (a pair's: equal or unequal)

    @property
    def pair_id(self) -> int | None:
        """The pair asked about, when its case is a pair with a known right answer (its
        kind a CaseKind: the pair views key their rows by it); None otherwise."""
        return self.case_id if self.case_kind in PAIR_KINDS else None


@dataclass(frozen=True)
class BatchRecord:
    id: int
    run_id: int
    provider: str
    remote_id: str | None
    state: str
    remote_status: str
    requests: int
    message: str
    created_at: str
    submitted_at: str | None


class RequestTables(Tables):
    """The generic request, response and batch tables; mixed into ResultFile."""

    # -- queueing ------------------------------------------------------------------

    def add_request_specs(self, run_id: int, specs: Iterable[RequestSpec]) -> int:
        """Queue requests; ones already queued (same ukey and rep) stay as they are."""
        rows = []
        for s in specs:
            packed = pack(s.body)
            rows.append(
                (
                    run_id,
                    s.ukey,
                    s.kind,
                    s.preset,
                    s.case_id,
                    s.order,
                    json.dumps(list(s.variants)),
                    json.dumps(s.context, sort_keys=True),
                    s.cell,
                    s.rep,
                    packed,
                    hashlib.sha256(packed).hexdigest(),
                )
            )
        before = self._db.total_changes
        self._db.executemany(
            "INSERT OR IGNORE INTO request(run_id, ukey, kind, preset, case_id, ord, "
            "variants_json, context_json, cell, rep, body, body_sha256) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        return self._db.total_changes - before

    def presets_by_run(self) -> dict[int, list[str]]:
        """The prompt presets each run's requests were built with, most used first: a
        run is named by them (a run of D5 alone never used `run.prompt_id`, D1's)."""
        rows = self._db.execute(
            "SELECT run_id, preset, count(*) FROM request WHERE preset != '' "
            "GROUP BY run_id, preset ORDER BY run_id, count(*) DESC, preset"
        ).fetchall()
        out: dict[int, list[str]] = {}
        for run_id, preset, _n in rows:
            out.setdefault(int(run_id), []).append(str(preset))
        return out

    def add_repeat(self, request_id: int, rep: int, body: dict[str, Any] | None = None) -> int:
        """Queue another sample of a request (rep `rep`); returns its id (0 if it existed)."""
        packed = pack(body) if body is not None else None
        with self.transaction() as db:
            cur = db.execute(
                "INSERT OR IGNORE INTO request(run_id, ukey, kind, preset, case_id, ord, "
                "variants_json, context_json, cell, rep, body, body_sha256) "
                "SELECT run_id, ukey, kind, preset, case_id, ord, variants_json, "
                "context_json, cell, ?, coalesce(?, body), body_sha256 FROM request WHERE id = ?",
                (rep, packed, request_id),
            )
            return int(cur.lastrowid or 0) if cur.rowcount else 0

    def duplicate_bodies(self, run_id: int) -> set[tuple[str, int]]:
        """(body_sha256, rep) asked by more than one open or answered request of a run.

        The runner sends each of these once and shares the answer (single flight);
        a different `rep` is another sample, never a duplicate.
        """
        return {
            (str(r[0]), int(r[1]))
            for r in self._db.execute(
                "SELECT body_sha256, rep FROM request WHERE run_id = ? AND status != 'skipped' "
                "GROUP BY body_sha256, rep HAVING count(*) > 1",
                (run_id,),
            )
        }

    def mark_unsent(self, request_id: int) -> None:
        """Back in the queue after an attempt that got no answer (a 429, an error being
        retried): `sent` then means at the provider right now, so after a crash only
        those can have an answer that never arrived."""
        self._db.execute(
            "UPDATE request SET status = 'pending' WHERE id = ? AND status = 'sent'",
            (request_id,),
        )

    # -- sends that may have been paid without their answer arriving ------------------

    def sent_unanswered(self, run_id: int) -> list[int]:
        """Requests marked sent with no answer and no batch: at the provider when the last
        session ended abruptly (a kill -9, a power cut), since every orderly stop puts them
        back to pending."""
        return [
            int(r[0])
            for r in self._db.execute(
                "SELECT id FROM request WHERE run_id = ? AND status = 'sent' "
                "AND batch_id IS NULL ORDER BY id",
                (run_id,),
            )
        ]

    def unseen_sends(self, run_id: int) -> dict[int, int]:
        """request id -> sends of it the provider may have answered (and billed) without
        the answer ever arriving: in flight at an abrupt end, stalled past its bound,
        cut off, dropped, or aborted by a stop. Each may mean the request was paid twice."""
        row = self._db.execute(
            "SELECT value FROM meta WHERE key = ?", (_unseen_key(run_id),)
        ).fetchone()
        if row is None:
            return {}
        return {int(k): int(v) for k, v in json.loads(row[0]).items()}

    def note_unseen_sends(self, run_id: int, request_ids: Iterable[int]) -> None:
        """Count one more unseen send for each request (kept in the file's meta table)."""
        ids = list(request_ids)
        if not ids:
            return
        with self.transaction() as db:
            counts = self.unseen_sends(run_id)
            for request_id in ids:
                counts[request_id] = counts.get(request_id, 0) + 1
            db.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (_unseen_key(run_id), json.dumps({str(k): v for k, v in sorted(counts.items())})),
            )

    # -- answers -------------------------------------------------------------------

    def record_cached(
        self,
        request_id: int,
        raw: dict[str, Any],
        text: str,
        label: str,
        justification: str,
        parsed: dict[str, Any],
        model_version: str,
        notes: Iterable[str] = (),
    ) -> None:
        """An answer served from the response cache: it cost this audit nothing."""
        self.record_response(
            request_id,
            raw,
            text,
            label,
            justification,
            (0, 0, 0, 0),
            model_version,
            0.0,
            parsed=parsed,
            source="cache",
            cost_usd=0.0,
            notes=notes,
            unsupported=(),
        )

    def record_response(
        self,
        request_id: int,
        raw: dict[str, Any],
        text: str,
        label: str,
        justification: str,
        usage: tuple[int, int, int, int],
        model_version: str,
        latency_s: float,
        *,
        parsed: dict[str, Any] | None = None,
        source: str = "api",
        cost_usd: float | None = 0.0,
        notes: Iterable[str] = (),
        unsupported: Iterable[str] = (),
    ) -> None:
        """Commit a response and mark its request done, together.

        usage is (input, output, cached, reasoning) tokens as the server reported
        them; `cost_usd` None means the price is unknown. An answer already there
        (a re-ask) moves to the response history first: nothing paid is dropped.
        """
        if source not in SOURCES:
            raise ValueError(f"unknown response source {source!r}")
        received = now_iso()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO response_history(request_id, raw, text, label, parsed_json, "
                "input_tokens, output_tokens, cost_usd, reason, received_at) "
                "SELECT request_id, raw, text, label, parsed_json, input_tokens, output_tokens, "
                "cost_usd, 'replaced by a later answer', received_at FROM response "
                "WHERE request_id = ?",
                (request_id,),
            )
            db.execute(
                "INSERT OR REPLACE INTO response(request_id, raw, text, label, justification, "
                "parsed_json, input_tokens, output_tokens, cached_tokens, reasoning_tokens, "
                "cost_usd, source, notes_json, unsupported_json, model_version, latency_s, "
                "received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    request_id,
                    pack(raw),
                    text,
                    label,
                    justification,
                    json.dumps(parsed or {}, sort_keys=True, allow_nan=False),
                    *usage,
                    cost_usd,
                    source,
                    json.dumps(list(dict.fromkeys(notes))),
                    json.dumps(list(unsupported)),
                    model_version,
                    latency_s,
                    received,
                ),
            )
            db.execute(
                "UPDATE request SET status = 'done', done_at = ?, error_kind = NULL, error = NULL "
                "WHERE id = ?",
                (received, request_id),
            )

    def mark_skipped(self, request_ids: Iterable[int], reason: str) -> int:
        """Requests left out on purpose (early stop): never sent, shown with the reason."""
        ids = list(request_ids)
        with self.transaction() as db:
            before = self._db.total_changes
            db.executemany(
                "UPDATE request SET status = 'skipped', error_kind = 'skipped', error = ? "
                "WHERE id = ? AND status IN ('pending', 'failed')",
                [(reason, i) for i in ids],
            )
            return self._db.total_changes - before

    def unskip(self, run_id: int) -> int:
        """Put requests skipped by an early stop back in the queue."""
        cur = self._db.execute(
            "UPDATE request SET status = 'pending', error_kind = NULL, error = NULL "
            "WHERE run_id = ? AND status = 'skipped'",
            (run_id,),
        )
        return int(cur.rowcount)

    def response_record(self, request_id: int) -> dict[str, Any] | None:
        """Everything stored about one answer (for a detail view and the tests)."""
        row = self._db.execute(
            "SELECT label, justification, parsed_json, source, cost_usd, notes_json, "
            "unsupported_json, input_tokens, output_tokens, cached_tokens, reasoning_tokens, "
            "text, model_version FROM response WHERE request_id = ?",
            (request_id,),
        ).fetchone()
        if row is None:
            return None
        return {
            "label": row[0],
            "justification": row[1],
            "parsed": json.loads(row[2]),
            "source": row[3],
            "cost_usd": row[4],
            "notes": json.loads(row[5]),
            "unsupported": json.loads(row[6]),
            "input_tokens": row[7],
            "output_tokens": row[8],
            "cached_tokens": row[9],
            "reasoning_tokens": row[10],
            "text": row[11],
            "model_version": row[12],
        }

    def response_history(self, request_id: int) -> list[dict[str, Any]]:
        return [
            {"label": r[0], "text": r[1], "reason": r[2], "received_at": r[3], "raw": unpack(r[4])}
            for r in self._db.execute(
                "SELECT label, text, reason, received_at, raw FROM response_history "
                "WHERE request_id = ? ORDER BY id",
                (request_id,),
            )
        ]

    def answers(
        self,
        run_id: int,
        *,
        design: str | None = None,
        kind: str | None = None,
        columns: Collection[str] | None = None,
    ) -> pd.DataFrame:
        """One row per answered request of a run, of every design alike (ANSWER_COLUMNS).

        Each row carries its request (`kind` is the preset's kind, `variants` the
        ids shown in presentation order, `ord`, `rep`, `cell`, `context`), its
        answer (`label`, `justification`, `parsed`: the kind's parsed result,
        docs/prompts.md) and its test case (`case_id`, `design`, `case_kind`,
        `cluster`, `case_variants` in case order, `case_meta`, and D1's details:
        `truth`, `k`, `gap`, `pair_type`, `differs`, `group_a`, `group_b`,
        `signal`, `construction`). `design` and `kind` keep only that design's or kind's answers.
        `columns`: only those (in ANSWER_COLUMNS' order), read and built alone: a reader
        that needs a few (the comparison of models) need not pay for every text.
        """
        return self._answer_frame(run_id, design=design, kind=kind, failed=False, columns=columns)

    def failed_requests(self, run_id: int, *, design: str | None = None) -> pd.DataFrame:
        """The requests of a run that failed for good, with no answer: the answers()
        columns, the answer's columns empty. What the missing-answer counts read
        (stats/missing.py): a failure lost is an answer lost."""
        return self._answer_frame(run_id, design=design, kind=None, failed=True)

    def _answer_frame(
        self,
        run_id: int,
        *,
        design: str | None,
        kind: str | None,
        failed: bool,
        columns: Collection[str] | None = None,
    ) -> pd.DataFrame:
        # A test case's columns are the same on every request of it (D1 sends each pair
        # in both orders and many repeats): they are read once a case, not once a row,
        # which was half of reading a run; the rows are then what `_answer_query` gives
        # (tests/test_store_answers_frame.py checks it against that query).
        wanted_columns = (
            ANSWER_COLUMNS if columns is None else [c for c in ANSWER_COLUMNS if c in columns]
        )
        unknown = set(columns or ()) - set(ANSWER_COLUMNS)
        if unknown:
            raise ValueError(f"answers() has no column {sorted(unknown)[0]!r}")
        query, params = self._answer_query(
            run_id,
            design=design,
            kind=kind,
            failed=failed,
            case_columns=False,
            ordered=False,
            columns=None if columns is None else {*wanted_columns, "request_id", "case_id"},
        )
        cursor = self._db.execute(query, params)
        names = [d[0] for d in cursor.description]
        rows = cursor.fetchall()
        # in request order, sorted here: SQLite sorts them in a temporary B-tree first,
        # and they come nearly in order from the index (a fast sort for Python's)
        rows.sort(key=operator.itemgetter(names.index("request_id")))
        at_case = names.index("case_id")
        # the JSON texts go straight to their decoding; the other columns become a frame
        # the way pandas.read_sql_query makes one (tests/test_store_answers_frame.py)
        plain = [i for i, name in enumerate(names) if not name.endswith("_json")]
        pick = operator.itemgetter(*plain)
        frame = pd.DataFrame.from_records(
            [pick(r) for r in rows], columns=[names[i] for i in plain], coerce_float=True
        )
        for column in ("variants", "context", "parsed"):
            if column + "_json" in names:
                at = names.index(column + "_json")
                frame[column] = _decoded(r[at] for r in rows)
        # The case's columns: a frame of one row a case, its rows then taken for each
        # request. A column's values are the same set either way (a request that names
        # no case, or a case not found, adds a row of None), so pandas gives it the same
        # type; the rows of one case share its decoded JSON, as `_decoded`'s do.
        case_names = [name for name, _column in _CASE_COLUMNS]
        codes, found = pd.factorize(np.fromiter((r[at_case] for r in rows), dtype=object))
        known: dict[object, tuple[Any, ...]] = {}
        if len(found):
            wanted = set(found.tolist())
            columns = ", ".join(column for _name, column in _CASE_COLUMNS)
            for case in self._db.execute(f"SELECT id, {columns} FROM test_case"):
                if case[0] in wanted:
                    known[case[0]] = case[1:]
        missing = (None,) * len(case_names)
        records = [known.get(c, missing) for c in found.tolist()]
        if (codes < 0).any():
            codes = np.where(codes < 0, len(records), codes)
            records.append(missing)
        cases = pd.DataFrame.from_records(
            [r[:3] + r[5:] for r in records],
            columns=[n for n in case_names if not n.endswith("_json")],
            coerce_float=True,
        )
        for at, column in ((3, "case_variants"), (4, "case_meta")):
            assert case_names[at] == column + "_json"
            if column in wanted_columns:
                cases[column] = [
                    json.loads(r[at]) if isinstance(r[at], str) else None for r in records
                ]
        taken = cases.take(codes) if len(rows) else cases.iloc[:0]
        for column in taken.columns:
            if column in wanted_columns:
                frame[column] = taken[column].to_numpy()
        return frame[wanted_columns]

    def _answer_query(
        self,
        run_id: int,
        *,
        design: str | None,
        kind: str | None,
        failed: bool,
        case_columns: bool = True,
        ordered: bool = True,
        columns: Collection[str] | None = None,
    ) -> tuple[str, tuple[Any, ...]]:
        """The SQL of `_answer_frame`'s rows and its parameters; without `case_columns`,
        the test case's columns (`_CASE_COLUMNS`) are left out of the SELECT; without
        `ordered`, the rows come in no set order (not by request id); `columns`: only the
        request's and answer's columns of those names (JSON ones by their decoded name)."""
        where = "request.run_id = ?"
        if failed:
            where += " AND request.status = 'failed' AND response.request_id IS NULL"
        params: list[Any] = [run_id]
        if design is not None:
            where += " AND test_case.design = ?"
            params.append(design)
        if kind is not None:
            where += " AND request.kind = ?"
            params.append(kind)
        selected = []
        for name, column in _ROW_COLUMNS:
            if columns is None or name.removesuffix("_json") in columns:
                selected.append(f"{column} AS {name}")
            if name == "case_id" and case_columns:  # the case's columns come after its id
                selected += [f"{column} AS {name}" for name, column in _CASE_COLUMNS]
        query = (
            f"SELECT {', '.join(selected)} "
            f"FROM request {'LEFT ' if failed else ''}JOIN response "
            "ON response.request_id = request.id "
            "LEFT JOIN test_case ON test_case.id = request.case_id "
            f"WHERE {where}{' ORDER BY request.id' if ordered else ''}"
        )
        return query, tuple(params)

    def cell_requests(
        self, run_id: int
    ) -> Iterator[tuple[str, dict[str, Any], str | None, dict[str, Any]]]:
        """(cell, context, label or None, parsed) of every request that names a cell."""
        for r in self._db.execute(
            "SELECT request.cell, request.context_json, response.label, response.parsed_json "
            "FROM request LEFT JOIN response ON response.request_id = request.id "
            "WHERE request.run_id = ? AND request.cell != '' ORDER BY request.id",
            (run_id,),
        ):
            yield r[0], json.loads(r[1]), r[2], json.loads(r[3]) if r[3] else {}

    # -- provider batches ----------------------------------------------------------

    def add_batch(self, run_id: int, provider: str, request_ids: list[int]) -> int:
        """Remember a batch before it is submitted, with its requests, in one commit."""
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO batch(run_id, provider, requests, created_at) VALUES (?, ?, ?, ?)",
                (run_id, provider, len(request_ids), now_iso()),
            )
            batch_id = int(cur.lastrowid or 0)
            db.executemany(
                "UPDATE request SET batch_id = ?, status = 'sent', attempts = attempts + 1, "
                "sent_at = ? WHERE id = ? AND status != 'done'",
                [(batch_id, now_iso(), rid) for rid in request_ids],
            )
        return batch_id

    def set_batch(
        self,
        batch_id: int,
        *,
        state: str | None = None,
        remote_id: str | None = None,
        remote_status: str | None = None,
        message: str | None = None,
    ) -> None:
        sets, values = [], []
        for column, value in (
            ("state", state),
            ("remote_id", remote_id),
            ("remote_status", remote_status),
            ("message", message),
        ):
            if value is not None:
                sets.append(f"{column} = ?")
                values.append(value)
        if state == "submitted":
            sets.append("submitted_at = ?")
            values.append(now_iso())
        if state in ("ended", "failed"):
            sets.append("ended_at = coalesce(ended_at, ?)")
            values.append(now_iso())
        if not sets:
            return
        with self.transaction() as db:
            db.execute(f"UPDATE batch SET {', '.join(sets)} WHERE id = ?", (*values, batch_id))

    def release_batch(self, batch_id: int, message: str) -> int:
        """Requests of a batch that got no answer go back to the queue (status failed,
        with `message`); ones that failed with their own error keep it."""
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE request SET status = 'failed', error_kind = 'batch', error = ?, "
                "batch_id = NULL WHERE batch_id = ? AND status IN ('pending', 'sent')",
                (message, batch_id),
            )
            db.execute(
                "UPDATE request SET batch_id = NULL WHERE batch_id = ? AND status = 'failed'",
                (batch_id,),
            )
            return int(cur.rowcount)

    def batches(self, run_id: int, *, open_only: bool = False) -> list[BatchRecord]:
        where = " AND state IN ('preparing', 'submitted', 'ended')" if open_only else ""
        return [
            BatchRecord(*r)
            for r in self._db.execute(
                "SELECT id, run_id, provider, remote_id, state, remote_status, requests, message, "
                "created_at, submitted_at FROM batch WHERE run_id = ?" + where + " ORDER BY id",
                (run_id,),
            )
        ]

    def batch_requests(self, batch_id: int) -> dict[int, tuple[str, dict[str, Any]]]:
        """request id -> (status, body) for the requests of a batch."""
        return {
            int(r[0]): (r[1], unpack(r[2]))
            for r in self._db.execute(
                "SELECT id, status, body FROM request WHERE batch_id = ?", (batch_id,)
            )
        }

    # -- sending and reading -------------------------------------------------------

    def open_requests(
        self,
        run_id: int,
        include_failed: bool = True,
        *,
        after_id: int = 0,
        limit: int | None = None,
        batch_id: int | None = None,
    ) -> list[PendingRequest]:
        """Requests that still need an answer (pending, sent but unanswered, failed),
        by id; `after_id` and `limit` read them a page at a time (a run of 100,000
        requests never holds every body in memory). Requests waiting in a provider
        batch are not open: the batch answers them (`batch_id` lists one batch's)."""
        statuses = ("pending", "sent", "failed") if include_failed else ("pending", "sent")
        marks = ",".join("?" * len(statuses))
        page = "" if limit is None else f" LIMIT {int(limit)}"
        in_batch = "batch_id IS NULL" if batch_id is None else f"batch_id = {int(batch_id)}"
        return [
            PendingRequest(
                id=r[0],
                case_id=r[1],
                order=Order(r[2]) if r[2] in ("ab", "ba") else None,
                rep=r[3],
                body=unpack(r[4]),
                attempts=r[5],
                kind=r[6],
                preset=r[7],
                ukey=r[8],
                variants=tuple(json.loads(r[9])),
                context=json.loads(r[10]),
                cell=r[11],
                status=r[12],
                design=r[13] or "",
                case_kind=r[14] or "",
            )
            for r in self._db.execute(
                f"SELECT request.id, case_id, ord, rep, body, attempts, request.kind, preset, "
                f"ukey, request.variants_json, context_json, cell, status, test_case.design, "
                f"test_case.kind "
                f"FROM request LEFT JOIN test_case ON test_case.id = request.case_id "
                f"WHERE run_id = ? AND status IN ({marks}) AND request.id > ? AND {in_batch} "
                f"ORDER BY request.id{page}",
                (run_id, *statuses, after_id),
            )
        ]

    def open_count(self, run_id: int) -> int:
        return int(
            self._db.execute(
                "SELECT count(*) FROM request WHERE run_id = ? AND batch_id IS NULL "
                "AND status IN ('pending', 'sent', 'failed')",
                (run_id,),
            ).fetchone()[0]
        )

    def mark_sent(self, request_id: int) -> None:
        """Recorded before the request goes out, so a crash shows it was in flight."""
        self._db.execute(
            "UPDATE request SET status = 'sent', attempts = attempts + 1, sent_at = ? "
            "WHERE id = ? AND status != 'done'",
            (now_iso(), request_id),
        )

    def record_failure(self, request_id: int, kind: str, message: str) -> None:
        self._db.execute(
            "UPDATE request SET status = 'failed', error_kind = ?, error = ? "
            "WHERE id = ? AND status != 'done'",
            (kind, message, request_id),
        )

    def verdicts_since(
        self, run_id: int, since: str = ""
    ) -> list[tuple[int, int, str, int, str, str, str]]:
        """Answers received at or after `since` (ISO time), oldest first:
        (request_id, case_id, ord, rep, label, justification, received_at) of pairs
        (cases of a CaseKind, D1's).

        Lets a live view pick up only what is new instead of re-reading everything.
        """
        return [
            (int(r[0]), int(r[1]), r[2], int(r[3]), r[4], r[5], r[6])
            for r in self._db.execute(
                "SELECT request.id, request.case_id, request.ord, request.rep, response.label, "
                "response.justification, response.received_at FROM response "
                "JOIN request ON request.id = response.request_id "
                "JOIN test_case ON test_case.id = request.case_id "
                "WHERE request.run_id = ? AND response.received_at >= ? "
                f"AND test_case.kind IN ({', '.join('?' * len(PAIR_KINDS))}) "
                "ORDER BY response.received_at",
                (run_id, since, *sorted(PAIR_KINDS)),
            )
        ]

    def raw_response(self, request_id: int) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT raw FROM response WHERE request_id = ?", (request_id,)
        ).fetchone()
        return None if row is None else dict(unpack(row[0]))

    def request_body(self, request_id: int) -> dict[str, Any] | None:
        row = self._db.execute("SELECT body FROM request WHERE id = ?", (request_id,)).fetchone()
        return None if row is None else dict(unpack(row[0]))


def _unseen_key(run_id: int) -> str:
    return f"run:{int(run_id)}:unseen_sends"


ANSWER_COLUMNS = [
    # the request
    "request_id",
    "run_id",
    "ukey",
    "kind",
    "preset",
    "ord",
    "variants",
    "context",
    "cell",
    "rep",
    # the answer
    "label",
    "justification",
    "parsed",
    "source",
    "cost_usd",
    "received_at",
    # the test case
    "case_id",
    "design",
    "case_kind",
    "cluster",
    "case_variants",
    "case_meta",
    "truth",
    "k",
    "gap",
    "pair_type",
    "differs",
    "group_a",
    "group_b",
    "signal",
    "construction",
]
"""The columns of `answers()`, the same for every design (docs/runner.md)."""


# (name in `answers()`, column of test_case) of every test-case column of a run's answers
# The request's and its answer's columns `_answer_query` reads, by name, in its order.
_ROW_COLUMNS = [
    ("request_id", "request.id"),
    ("run_id", "request.run_id"),
    ("ukey", "request.ukey"),
    ("kind", "request.kind"),
    ("preset", "request.preset"),
    ("case_id", "request.case_id"),
    ("ord", "request.ord"),
    ("variants_json", "request.variants_json"),
    ("context_json", "request.context_json"),
    ("cell", "request.cell"),
    ("rep", "request.rep"),
    ("label", "response.label"),
    ("justification", "response.justification"),
    ("parsed_json", "response.parsed_json"),
    ("source", "response.source"),
    ("cost_usd", "response.cost_usd"),
    ("received_at", "response.received_at"),
]

_CASE_COLUMNS = [
    ("design", "test_case.design"),
    ("case_kind", "test_case.kind"),
    ("cluster", "test_case.cluster"),
    ("case_variants_json", "test_case.variants_json"),
    ("case_meta_json", "test_case.meta_json"),
    ("truth", "test_case.truth"),
    ("k", "test_case.k"),
    ("gap", "test_case.gap"),
    ("pair_type", "test_case.pair_type"),
    ("differs", "test_case.differs"),
    ("group_a", "test_case.group_a"),
    ("group_b", "test_case.group_b"),
    ("signal", "test_case.signal"),
    ("construction", "test_case.construction"),
]


def _decoded(texts: Iterable[object]) -> list[Any]:
    """Each JSON text decoded, None for a missing one; a text that repeats is decoded
    once. A run's answers repeat the same few texts thousands of times (the case's
    variants and meta on every request of the case, a handful of distinct parsed
    answers), and decoding them was half of reading a run; rows with the same text
    share one decoded object, which readers of answers only read. The texts are
    told apart by hashing (pandas.factorize), not one dictionary look-up a row."""
    found = np.fromiter(texts, dtype=object)
    codes, uniques = pd.factorize(found)  # a missing text (None, NaN) is -1
    decoded = np.empty(len(uniques) + 1, dtype=object)  # the last one: None, for -1
    for i, text in enumerate(uniques):
        decoded[i] = json.loads(text) if isinstance(text, str) else None
    out: list[Any] = decoded[codes].tolist()
    return out
