"""Before a run: how many requests, how many tokens, what it will cost, how long.

Counted from the real request bodies still to send (prompt tokens approximated
per vendor, see tokens.py), less what the shared response cache already holds
(free). Output tokens are given twice: the typical answer of the preset's kind,
and the worst case the token limit allows — plus, for reasoning models, the
hidden-reasoning headroom their limit is raised by. Cost comes from the price
table (free for local and self-hosted servers), with the batch discount shown
beside it; the ETA from the provider's limits (given, or remembered from its
headers) and the number of requests in flight.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from resume_auditor.prompts import KINDS, PromptError, get_preset
from resume_auditor.providers.base import ProviderError
from resume_auditor.providers.capabilities import REASONING_HEADROOM_TOKENS, model_traits
from resume_auditor.runner import limits_memory, speed_memory
from resume_auditor.runner.prices import Price, PriceTable
from resume_auditor.runner.sharing import MACHINE
from resume_auditor.runner.tokens import CHARS_PER_TOKEN, body_input_tokens
from resume_auditor.runner.window import LOCAL_CONCURRENCY
from resume_auditor.store.cache import ResponseCache, request_key
from resume_auditor.store.resultfile import ResultFile

PAGE = 500
# Without a ceiling the runner finds how many at once the provider allows; before
# its limit is known, the time assumes this many.
ASSUMED_AUTO_CONCURRENCY = 16
MAX_SEEN = 200_000  # request keys remembered to count requests asked twice (single flight)
# Reasoning models think before they answer; a short screening answer typically
# takes a few hundred hidden tokens (the worst case allows for the full headroom).
TYPICAL_REASONING_TOKENS = 500
# Seconds per answer when nothing else is known: the bundled model on a laptop,
# and a hosted API.
TYPICAL_LATENCY_S = {"local": 6.0}
DEFAULT_LATENCY_S = 2.5


@dataclass(frozen=True)
class Estimate:
    provider: str
    model: str
    requests: int  # requests of the run
    answered: int  # already answered
    cache_hits: int  # of the rest, answered from the response cache at no cost
    to_send: int
    input_tokens: int
    output_tokens: int  # typical
    output_tokens_max: int  # worst case
    cost_usd: float | None  # typical; None when the model has no price
    cost_max_usd: float | None
    batch_cost_usd: float | None  # typical, through the batch API
    free: bool
    price: Price | None
    price_date: str
    rpm: float | None
    tpm: float | None
    eta_s: float | None
    reasoning: bool
    in_batches: int = 0  # already submitted to a provider batch
    notes: tuple[str, ...] = field(default_factory=tuple)
    shared: int = 0  # of the rest, asking what another request asks: sent once, shared

    def lines(self) -> list[str]:
        """The estimate in plain sentences (CLI and GUI)."""
        out = [
            f"{self.to_send} request(s) to send"
            + (f" ({self.answered} already answered" if self.answered else "")
            + (
                f"{'; ' if self.answered else ' ('}{self.cache_hits} answered free from the cache"
                if self.cache_hits
                else ""
            )
            + (
                f"{'; ' if self.answered or self.cache_hits else ' ('}{self.shared} ask the "
                "same as another request and share its answer, paid once"
                if self.shared
                else ""
            )
            + (")" if self.answered or self.cache_hits or self.shared else "")
            + ".",
            f"About {self.input_tokens:,} input tokens and {self.output_tokens:,} output tokens "
            f"(at most {self.output_tokens_max:,}).",
        ]
        if self.free:
            out.append("Cost: nothing (a local or self-hosted model).")
        elif self.cost_usd is None:
            out.append(
                f"Cost: unknown — the price table has no price for {self.model}. Add it to "
                "prices.toml in the data folder to see the cost and to set a budget."
            )
        else:
            out.append(
                f"Cost: about ${self.cost_usd:.2f} (at most ${self.cost_max_usd or 0:.2f}); "
                f"${self.batch_cost_usd or 0:.2f} through the batch API. Prices of "
                f"{self.price_date}; check them against the provider's page."
            )
        if self.in_batches:
            out.append(f"{self.in_batches} request(s) are waiting in provider batches.")
        if self.eta_s is not None and self.to_send:
            minutes = self.eta_s / 60
            limit = f" at {self.rpm:g} requests/min" if self.rpm else ""
            out.append(
                f"Time: about {minutes:.0f} min{limit}"
                if minutes >= 1
                else f"Time: about {self.eta_s:.0f} s{limit}"
            )
        out.extend(self.notes)
        return out

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "price"} | {
            "price": None if self.price is None else self.price.__dict__,
            "lines": self.lines(),
        }


def combined_lines(
    estimates: list[Estimate],
    keys: Sequence[str] | None = None,
    *,
    together: bool = False,
) -> list[str]:
    """Several models' runs on the same cases, in all: the requests to send, the cost
    (unknown when one model has no price, and said which), the time.

    One after another (`together=False`) the time is the sum. At the same time it is
    the slowest group's: runs that share limits (`keys`, one per estimate: the same
    provider and address, or this machine, sharing.py `sharing_key`; None: the same
    provider) take turns at them, so their times add up, while groups run side by side.
    """
    if len(estimates) < 2:
        return []
    to_send = sum(e.to_send for e in estimates)
    priced = [e for e in estimates if not e.free]
    unknown = [e.model for e in priced if e.cost_usd is None]
    if unknown:
        cost = f"cost unknown (no price for {', '.join(unknown)})"
    elif priced:
        typical = sum(e.cost_usd or 0.0 for e in priced)
        most = sum(e.cost_max_usd or 0.0 for e in priced)
        cost = f"about ${typical:.2f} (at most ${most:.2f})"
    else:
        cost = "nothing (local or self-hosted models)"
    times = [e.eta_s for e in estimates if e.to_send]
    known = bool(times) and all(t is not None for t in times)
    if not together:
        time = f", {_duration(sum(t or 0.0 for t in times))}" if known else ""
        return [
            f"In all, {len(estimates)} models one after another: {to_send:,} request(s) to "
            f"send, {cost}{time}."
        ]
    names = list(keys) if keys is not None else [e.provider for e in estimates]
    groups: dict[str, list[Estimate]] = {}
    for key, e in zip(names, estimates, strict=True):
        groups.setdefault(key, []).append(e)
    group_s = {
        key: sum(e.eta_s or 0.0 for e in members if e.to_send) for key, members in groups.items()
    }
    time = ""
    if known:
        time = f", {_duration(max(group_s.values()))}: the slowest provider's share"
    lines = [
        f"In all, {len(estimates)} models at the same time: {to_send:,} request(s) to send, "
        f"{cost}{time}."
    ]
    for key, members in groups.items():
        if len(members) < 2:
            continue
        who = ", ".join(e.model for e in members)
        where = "this computer" if key == MACHINE else f"one {members[0].provider} account"
        took = f" ({_duration(group_s[key])} for them together)" if known else ""
        lines.append(
            f"{who} share {where}'s limits and take turns at them, so each takes longer than "
            f"alone{took}."
        )
    return lines


def _duration(seconds: float) -> str:
    return f"about {seconds / 60:.0f} min" if seconds >= 60 else f"about {seconds:.0f} s"


def _wire(provider: str) -> str:
    from resume_auditor.providers.registry import provider_info

    try:
        return provider_info(provider).wire
    except ProviderError:
        return "openai"


def _output_tokens(preset_id: str, kind: str) -> int:
    try:
        return get_preset(preset_id).output_tokens
    except PromptError:
        k = KINDS.get(kind)
        return k.expected_output_tokens if k is not None else 100


def estimate_run(
    result: ResultFile,
    run_id: int | None = None,
    *,
    prices: PriceTable | None = None,
    cache: ResponseCache | None = None,
    concurrency: int | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    latency_s: float | None = None,
) -> Estimate:
    runs = result.runs(purpose=None if run_id else "audit")
    run = (
        next((r for r in runs if r.id == run_id), None) if run_id else (runs[-1] if runs else None)
    )
    if run is None:
        raise ValueError(f"{result.path} has no run" + (f" {run_id}" if run_id else "") + ".")
    provider, model = run.provider, run.model
    reasoning = model_traits(_wire(provider), model).reasoning
    progress = result.progress(run.id)
    to_send = hits = shared = input_tokens = out_typical = out_max = total_tokens = 0
    notes: list[str] = []
    last = 0
    seen: set[str] = set()
    while True:
        page = result.open_requests(run.id, after_id=last, limit=PAGE)
        if not page:
            break
        for req in page:
            last = req.id
            key = request_key(provider, run.base_url, req.body, req.rep)
            if key in seen:
                shared += 1  # asked already in this run: sent once, the answer shared
                continue
            if cache is not None and cache.get(key):
                hits += 1
                continue
            if len(seen) < MAX_SEEN:
                seen.add(key)
            to_send += 1
            tokens_in = body_input_tokens(req.body, provider)
            limit = int(req.body.get("max_tokens", 256))
            typical = min(limit, _output_tokens(req.preset, req.kind))
            input_tokens += tokens_in
            out_typical += typical + (TYPICAL_REASONING_TOKENS if reasoning else 0)
            out_max += limit + (REASONING_HEADROOM_TOKENS if reasoning else 0)
            total_tokens += tokens_in + limit
    free = provider in ("local", "openai-compatible")
    price = None if prices is None or free else prices.lookup(provider, model)
    cost = cost_max = batch_cost = None
    if free:
        cost = cost_max = batch_cost = 0.0
    elif price is not None and prices is not None:
        cost = PriceTable.cost_of(price, (input_tokens, out_typical, 0, 0))
        cost_max = PriceTable.cost_of(price, (input_tokens, out_max, 0, 0))
        batch_cost = cost * prices.batch_share(provider)
        notes.append(
            "Providers that cache a repeated prompt prefix bill it at a lower rate; the "
            "estimate assumes none is cached."
        )
    if reasoning:
        notes.append(
            f"{model} reasons before answering: its hidden reasoning is billed as output. "
            f"The worst case allows {REASONING_HEADROOM_TOKENS:,} reasoning tokens per request."
        )
    remembered = limits_memory.recall(provider, run.base_url, model)
    rpm = rpm or remembered[0]
    tpm = tpm or remembered[1]
    latency = latency_s or TYPICAL_LATENCY_S.get(provider, DEFAULT_LATENCY_S)
    eta = None
    pace = speed_memory.recall(provider, run.base_url, model) if provider == "local" else None
    if to_send and pace is not None:
        # this computer's own pace in its last run, scaled to the planned answers' size
        per_answer = pace.seconds_per_answer(input_tokens / to_send, out_typical / to_send)
        eta = to_send * per_answer
        notes.append(
            f"The time comes from this computer's last run of {model}: {pace.answers} answers "
            f"in {pace.seconds:.0f} s; it is measured again as answers arrive."
        )
    elif to_send:
        # the bundled model answers one at a time whatever the window would allow
        auto = LOCAL_CONCURRENCY if provider == "local" else ASSUMED_AUTO_CONCURRENCY
        at_once = concurrency or auto
        per_minute = at_once * 60.0 / latency
        if rpm:
            per_minute = min(per_minute, rpm)
        if tpm and total_tokens:
            per_minute = min(per_minute, tpm / (total_tokens / to_send))
        eta = to_send / per_minute * 60.0
        if provider == "local":
            notes.append(
                "The time is a guess until the bundled model has answered on this computer; "
                "it is measured during the run, and the next estimate uses that."
            )
        if not rpm and not free:
            notes.append(
                "The provider's rate limit is not known yet; the time assumes "
                f"{latency:g} s per answer with {at_once} at once"
                + (" (the number at once is found during the run)." if not concurrency else ".")
            )
    notes.append(
        f"Token counts are approximate (about {CHARS_PER_TOKEN.get(provider, 4.0):g} characters "
        "per token); spend during the run comes from the provider's own counts."
    )
    return Estimate(
        provider=provider,
        model=model,
        requests=progress.total,
        answered=progress.done,
        cache_hits=hits,
        shared=shared,
        to_send=to_send,
        input_tokens=input_tokens,
        output_tokens=out_typical,
        output_tokens_max=out_max,
        cost_usd=cost,
        cost_max_usd=cost_max,
        batch_cost_usd=batch_cost,
        free=free,
        price=price,
        price_date=prices.updated if prices is not None else "",
        rpm=rpm,
        tpm=tpm,
        eta_s=eta,
        reasoning=reasoning,
        in_batches=progress.batched,
        notes=tuple(notes),
    )
