"""From a model's answer to a committed row: read it, price it, record it, cache it.

One `Recorder` per run. It reads each answer with its kind's reader (prompts),
prices it with the price table, commits it to the result file (before anything
counts it) and then puts it in the shared response cache. It also serves a
request from that cache — at no cost, and saying so on the answer — and keeps
refusals: a refusal may well have been paid for, so it is an answer (counted as
unreadable), not a failure to retry.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from resume_auditor.domain.case import Label
from resume_auditor.prompts import INVALID, KINDS, Reading, read_answer
from resume_auditor.providers.base import ChatRequest, ChatResponse, ProviderError, TokenLogprob
from resume_auditor.runner.events import Answer
from resume_auditor.runner.prices import PriceTable
from resume_auditor.runner.tokens import CHARS_PER_TOKEN, approx_tokens, body_input_tokens
from resume_auditor.store.cache import CachedAnswer, ResponseCache, request_key
from resume_auditor.store.resultfile import PendingRequest, ResultFile

logger = logging.getLogger(__name__)

Parser = Callable[[str], tuple[Label, str]]


def request_from_body(body: dict[str, Any]) -> ChatRequest:
    top = body.get("top_logprobs")
    return ChatRequest(
        model=str(body["model"]),
        system=str(body.get("system", "")),
        user=str(body["user"]),
        temperature=body.get("temperature"),
        max_tokens=int(body.get("max_tokens", 256)),
        seed=body.get("seed"),
        grammar=body.get("grammar"),
        json_schema=body.get("json_schema"),
        top_logprobs=int(top) if top else None,
    )


def logprobs_to_json(logprobs: tuple[TokenLogprob, ...] | None) -> list[Any] | None:
    if logprobs is None:
        return None
    return [[t.token, t.logprob, [list(a) for a in t.top]] for t in logprobs]


def logprobs_from_json(data: list[Any] | None) -> tuple[TokenLogprob, ...] | None:
    if not data:
        return None
    return tuple(
        TokenLogprob(str(t), float(lp), tuple((str(a), float(b)) for a, b in top))
        for t, lp, top in data
    )


def usage_from_raw(raw: dict[str, Any] | None) -> tuple[int, int, int, int]:
    """Best-effort usage of a body we could not use as an answer (a refusal)."""
    usage = (raw or {}).get("usage") or (raw or {}).get("usageMetadata") or {}
    if not isinstance(usage, dict):
        return (0, 0, 0, 0)

    def num(*keys: str) -> int:
        for key in keys:
            value = usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return 0

    return (
        num("prompt_tokens", "input_tokens", "promptTokenCount"),
        num("completion_tokens", "output_tokens", "candidatesTokenCount"),
        0,
        0,
    )


def pairwise_label(kind: str, value: str) -> Label:
    """The Label a live D1 view can show for an answer of any kind."""
    if KINDS.get(kind) is not None and KINDS[kind].pairwise and value in Label.__members__.values():
        return Label(value)
    return Label.INVALID if value == INVALID else Label.ABSTAIN


@dataclass
class RunIdentity:
    """Which model a run talks to: the cache key and the price depend on it."""

    provider: str
    base_url: str
    model: str


class Recorder:
    def __init__(
        self,
        store: ResultFile,
        run: RunIdentity,
        *,
        prices: PriceTable | None,
        cache: ResponseCache | None,
        parse: Parser | None = None,
    ) -> None:
        self.store = store
        self.run = run
        self.prices = prices
        self.cache = cache
        self._parse = parse

    # -- reading -----------------------------------------------------------------------

    def read(
        self,
        req: PendingRequest,
        text: str,
        logprobs: tuple[TokenLogprob, ...] | None,
    ) -> Reading:
        if req.kind not in KINDS:
            return Reading(INVALID, text.strip(), {"error": f"unknown prompt kind {req.kind!r}"})
        reading = read_answer(req.kind, text, logprobs=logprobs, context=req.context)
        if self._parse is not None and req.kind == "pairwise_abstain":
            # A caller's own pairwise reader wins for the label (tests, benchmarks).
            label, why = self._parse(text)
            reading = Reading(label.value, why, {**reading.parsed, "choice": label.value})
        return reading

    def cost(
        self, usage: tuple[int, int, int, int], raw: dict[str, Any], batch: bool
    ) -> float | None:
        if self.prices is None:
            return 0.0 if self.run.provider in ("local", "openai-compatible") else None
        return self.prices.cost(self.run.provider, self.run.model, usage, batch=batch, raw=raw)

    def usage_of(
        self, req: PendingRequest, response: ChatResponse
    ) -> tuple[tuple[int, int, int, int], dict[str, Any], tuple[str, ...]]:
        """(input, output, cached, reasoning) tokens of an answer, with what marks them.

        The provider's own counts when it gave them. An answer that came without them
        (a stream cut of its usage chunk) would otherwise cost 0 and count no tokens:
        they are estimated with the app's estimator instead (runner/tokens.py: the
        prompt as stored, the answer's text), marked `parsed.tokens_estimated` and said
        in a note, so its cost is a priced estimate and shown as one (the status's
        `estimated_usage`, `Progress.estimated_usage`). Reasoning tokens a model spent
        are not in its text and cannot be estimated: the note says so."""
        usage = response.usage
        if response.usage_reported:
            counted = (
                usage.input_tokens,
                usage.output_tokens,
                usage.cached_tokens,
                usage.reasoning_tokens,
            )
            return counted, {}, ()
        provider = self.run.provider
        estimate = (
            body_input_tokens(req.body, provider),
            approx_tokens(response.text, provider),
            0,
            0,
        )
        chars = CHARS_PER_TOKEN.get(provider, 4.0)
        note = (
            f"The provider sent this answer without its token counts: {estimate[0]:,} prompt "
            f"and {estimate[1]:,} answer tokens are estimated from the text (about {chars:g} "
            "characters a token), and so is its cost; any reasoning tokens are not counted."
        )
        return estimate, {"tokens_estimated": True}, (note,)

    def key(self, req: PendingRequest, *, extra: str = "") -> str:
        body = req.body if not extra else {**req.body, "_variant": extra}
        return request_key(self.run.provider, self.run.base_url, body, req.rep)

    # -- recording ---------------------------------------------------------------------

    def accept(
        self,
        req: PendingRequest,
        response: ChatResponse,
        *,
        source: str = "api",
        extra_notes: tuple[str, ...] = (),
        extra_parsed: dict[str, Any] | None = None,
        cache_variant: str = "",
    ) -> Answer:
        """Commit an answer from the provider; only then put it in the cache."""
        reading = self.read(req, response.text, response.logprobs)
        usage, marks, usage_notes = self.usage_of(req, response)
        parsed = {**reading.parsed, **marks, **(extra_parsed or {})}
        if response.logprobs is None and req.body.get("top_logprobs"):
            parsed.setdefault("logprobs", "not given")
        cost = self.cost(usage, response.raw, batch=source == "batch")
        notes = (*response.notes, *usage_notes, *extra_notes)
        self.store.record_response(
            req.id,
            response.raw,
            response.text,
            reading.label,
            reading.justification,
            usage,
            response.model_version,
            response.latency_s,
            parsed=parsed,
            source=source,
            cost_usd=cost,
            notes=notes,
            unsupported=response.unsupported,
        )
        if self.cache is not None:
            self.cache.put(
                self.key(req, extra=cache_variant),
                self.run.provider,
                self.run.model,
                CachedAnswer(
                    text=response.text,
                    raw=response.raw,
                    usage=usage,
                    model_version=response.model_version,
                    finish_reason=response.finish_reason,
                    logprobs=logprobs_to_json(response.logprobs),
                    notes=tuple(response.notes),
                    unsupported=tuple(response.unsupported),
                ),
            )
        return self._answer(req, reading, parsed, source, cost, notes)

    def serve_cached(self, req: PendingRequest) -> Answer | None:
        """The answer from the response cache, committed as free; None if not there."""
        if self.cache is None:
            return None
        hit = self.cache.get(self.key(req))
        if hit is None:
            return None
        logprobs = logprobs_from_json(hit.logprobs)
        reading = self.read(req, hit.text, logprobs)
        when = datetime.fromtimestamp(hit.created, UTC).strftime("%Y-%m-%d %H:%M UTC")
        notes = (
            f"Served from the response cache: the same request was answered on {when}; "
            "it cost nothing this time.",
            *hit.notes,
        )
        parsed = {**reading.parsed, "cached_at": when}
        self.store.record_cached(
            req.id,
            hit.raw,
            hit.text,
            reading.label,
            reading.justification,
            parsed,
            hit.model_version,
            notes=notes,
        )
        return self._answer(req, reading, parsed, "cache", 0.0, notes)

    def share(
        self, req: PendingRequest, leader_id: int, outcome: ChatResponse | ProviderError
    ) -> Answer:
        """Commit the answer an identical request (`leader_id`) bought, as free.

        Marked the way a response-cache hit is (source `cache`, no tokens, no
        cost) with `parsed.shared_with` naming the request that paid, so spend
        counts it once. It is read with this request's own kind and context.
        """
        note = (
            f"Shared with request {leader_id}: the identical request was sent once for both "
            "and paid once; it cost nothing here."
        )
        if isinstance(outcome, ProviderError):  # a refusal that came with a body
            raw = outcome.raw or {}
            parsed: dict[str, Any] = {"refused": outcome.message, "shared_with": leader_id}
            notes: tuple[str, ...] = (note, outcome.message)
            self.store.record_cached(
                req.id, raw, "", INVALID, "", parsed, str(raw.get("model") or ""), notes=notes
            )
            return self._answer(req, Reading(INVALID, "", parsed), parsed, "cache", 0.0, notes)
        reading = self.read(req, outcome.text, outcome.logprobs)
        parsed = {**reading.parsed, "shared_with": leader_id}
        if outcome.logprobs is None and req.body.get("top_logprobs"):
            parsed.setdefault("logprobs", "not given")
        notes = (note, *outcome.notes)
        self.store.record_cached(
            req.id,
            outcome.raw,
            outcome.text,
            reading.label,
            reading.justification,
            parsed,
            outcome.model_version,
            notes=notes,
        )
        return self._answer(req, reading, parsed, "cache", 0.0, notes)

    def record_refusal(
        self, req: PendingRequest, error: ProviderError, source: str = "api"
    ) -> Answer:
        """A refusal with a body: kept as an unreadable answer, never bought again."""
        raw = error.raw or {}
        usage = usage_from_raw(raw)
        cost = self.cost(usage, raw, batch=source == "batch")
        parsed = {"refused": error.message}
        self.store.record_response(
            req.id,
            raw,
            "",
            INVALID,
            "",
            usage,
            str(raw.get("model") or ""),
            0.0,
            parsed=parsed,
            source=source,
            cost_usd=cost,
            notes=(error.message,),
        )
        return self._answer(
            req, Reading(INVALID, "", parsed), parsed, source, cost, (error.message,)
        )

    def _answer(
        self,
        req: PendingRequest,
        reading: Reading,
        parsed: dict[str, Any],
        source: str,
        cost: float | None,
        notes: tuple[str, ...],
    ) -> Answer:
        return Answer(
            request_id=req.id,
            pair_id=req.pair_id,
            order=req.order.value if req.order is not None else "",
            label=pairwise_label(req.kind, reading.label),
            justification=reading.justification,
            kind=req.kind,
            value=reading.label,
            parsed=parsed,
            source=source,
            cost_usd=cost,
            notes=notes,
            variants=req.variants,
            cell=req.cell,
        )
