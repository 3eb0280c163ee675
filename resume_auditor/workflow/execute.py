"""Run a prepared audit: the provider for the model under test, and the runner."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.base import ErrorKind, Provider, ProviderError
from resume_auditor.providers.keys import KeyStore, default_store
from resume_auditor.providers.registry import make_provider, provider_info
from resume_auditor.runner import Event, Runner, limits_memory
from resume_auditor.runner.batch import BatchOptions
from resume_auditor.runner.early_stop import EarlyStop
from resume_auditor.runner.estimate import Estimate, estimate_run
from resume_auditor.runner.group import Member, RunGroup, SharedLimits, share_windows
from resume_auditor.runner.latency import MOST_S
from resume_auditor.runner.prices import PriceError, PriceTable, load_prices
from resume_auditor.runner.ratelimit import Limiter, RateLimiter
from resume_auditor.runner.sharing import provider_key
from resume_auditor.runner.transport import HeaderSink, ObservedProvider, observing_client
from resume_auditor.runner.window import AUTO_CEILING, LOCAL_CONCURRENCY, ConcurrencyWindow
from resume_auditor.store.backup import make_backup
from resume_auditor.store.resultfile import ResultFile, ResultFileError, RunRecord

logger = logging.getLogger(__name__)

BATCH_MODE = "batch"


def provider_factory(
    spec: ModelSpec,
    timeout_s: float = 120.0,
    *,
    keys: KeyStore | None = None,
    on_headers: HeaderSink | None = None,
    connections: int = 100,
) -> Callable[[], Provider]:
    """A function that makes the provider (it may block: the runner calls it off the UI).

    The key is looked up when the provider is made, not before, so a key entered
    after the audit was prepared is used; a missing key raises a ProviderError
    that says where to put one. With `on_headers`, every answer's headers are
    handed to it (the runner's rate limiter learns the provider's limits).
    """

    def make() -> Provider:
        store = keys or default_store()
        api_key = store.get(spec.provider, spec.base_url)
        if api_key is None and provider_info(spec.provider).needs_key:
            blocked = store.unreadable(spec.provider, spec.base_url)  # locked, denied...
            if blocked:
                raise ProviderError(ErrorKind.AUTH, blocked)
        if on_headers is None or spec.provider == "local":
            return make_provider(
                spec.provider, base_url=spec.base_url, api_key=api_key, timeout_s=timeout_s
            )
        # The runner bounds each request by the model's learnt latency (runner/latency.py),
        # which may be longer than timeout_s for a slow model: the client must not cut first.
        client = observing_client(on_headers, max(timeout_s, MOST_S), connections)
        inner = make_provider(
            spec.provider,
            base_url=spec.base_url,
            api_key=api_key,
            timeout_s=timeout_s,
            client=client,
        )
        return ObservedProvider(inner, client)

    return make


def model_of(run: RunRecord) -> ModelSpec:
    params = run.params
    return ModelSpec(
        provider=run.provider,
        base_url=run.base_url,
        model=run.model,
        temperature=float(params.get("temperature", 0.0)),
        max_tokens=int(params.get("max_tokens", 160)),
        seed=params.get("seed"),
    )


def run_prices(*, strict: bool = False) -> PriceTable:
    """The price table; a broken user copy falls back to the shipped one unless `strict`."""
    try:
        return load_prices()
    except PriceError:
        if strict:
            raise
        logger.warning("the user's price file cannot be read; using the shipped prices")
        return load_prices(user_file=Path("/nonexistent/prices.toml"))


def make_runner(
    path: str | Path,
    run_id: int | None = None,
    *,
    concurrency: int | None = None,
    timeout_s: float = 120.0,
    on_event: Callable[[Event], None] | None = None,
    factory: Callable[[], Provider] | None = None,
    budget_usd: float | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    batch: bool | BatchOptions | None = None,
    use_cache: bool = True,
    reask_invalid: bool = False,
    early_stop_width: float | None = None,
    prices: PriceTable | None = None,
    max_retries: int = 5,
    hedge: float = 0.0,
    limiter: Limiter | None = None,
    window: ConcurrencyWindow | None = None,
    spend: Callable[[], float] | None = None,
) -> Runner:
    """A runner for one run of an audit file (default: the latest run).

    concurrency: the most requests at once (None or 0: as many as the provider's
        limits allow, learnt during the run; a local model gets LOCAL_CONCURRENCY).
    budget_usd: pause before spend could pass it (needs a price for the model).
    rpm, tpm: the provider's limits, if known; they are also learnt from headers.
    batch: True (or options) to use the provider's batch API; remembered for the
        run, so a later `make_runner` without it carries on in batch mode. False
        turns it off again; None keeps what the run used.
    use_cache: answer identical requests from the shared response cache.
    reask_invalid: ask once more when an answer cannot be read.
    early_stop_width: skip the rest of a cell once its 95% interval is narrower.
    hedge: the share of requests that may have a copy sent early at the run's end
        (Runner `hedge`; 0: never).
    limiter, window, spend: limits and a budget shared with other runs (make_group);
        None: the run's own.
    """
    with ResultFile(path) as result:
        runs = result.runs(purpose=None if run_id else "audit")
        if not runs:
            raise ValueError(f"{path} has no run to resume.")
        run = next((r for r in runs if r.id == run_id), None) if run_id else runs[-1]
        if run is None:
            raise ValueError(f"{path} has no run {run_id}.")
        mode_key = f"run.{run.id}.mode"
        if batch is None:
            batch = result.meta(mode_key) == BATCH_MODE
        else:
            result.set_meta(mode_key, BATCH_MODE if batch else "sync")
    options: BatchOptions | None = None
    if batch:
        options = batch if isinstance(batch, BatchOptions) else BatchOptions()
    if limiter is None:
        own = RateLimiter(rpm, tpm, smooth=True)
        # Start from what the provider said last time; its headers correct it.
        own.learned_rpm, own.learned_tpm = limits_memory.recall(
            run.provider, run.base_url, run.model
        )
        limiter = own
    adaptive = True
    if run.provider == "local":
        timeout_s = max(timeout_s, 300.0)
        # The bundled model answers one at a time; more at once only queue there.
        concurrency, adaptive = concurrency or LOCAL_CONCURRENCY, False
    ceiling = window.ceiling if window is not None else concurrency or AUTO_CEILING
    make_provider_ = factory or provider_factory(
        model_of(run), timeout_s, on_headers=limiter.observe, connections=ceiling + 4
    )
    return Runner(
        path,
        run.id,
        _backing_up(Path(path), make_provider_),
        None,
        concurrency=ceiling,
        adaptive=adaptive,
        timeout_s=timeout_s,
        max_retries=max_retries,
        on_event=on_event,
        limiter=limiter,
        budget_usd=budget_usd,
        prices=prices or run_prices(strict=budget_usd is not None),
        use_cache=use_cache,
        reask_invalid=reask_invalid,
        early_stop=None if early_stop_width is None else EarlyStop(early_stop_width),
        batch=options,
        hedge=hedge,
        window=window,
        spend=spend,
    )


def make_group(
    path: str | Path,
    run_ids: Sequence[int],
    *,
    concurrency: int | None = None,
    on_event: Callable[[int], Callable[[Event], None] | None] | None = None,
    factories: dict[int, Callable[[], Provider]] | None = None,
    rpm: float | None = None,
    tpm: float | None = None,
    budget_usd: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    **options: object,
) -> RunGroup:
    """Runners for several runs of one audit, at the same time (runner/group.py).

    Runs of one provider at one address share its rate limiter (in fair turns) and
    its concurrency window; runs on this machine share one window. `concurrency`,
    `rpm` and `tpm` are each provider's (as for one run); the budget covers every
    run together. `on_event(run_id)` gives each run's listener; `factories` a
    provider factory per run and `clock` the limiters' time (tests); other options go
    to every `make_runner`.
    """
    with ResultFile(path, readonly=True) as result:
        known = {r.id: r for r in result.runs(purpose=None)}
    missing = [i for i in run_ids if i not in known]
    if missing:
        raise ValueError(f"{path} has no run {', '.join(map(str, missing))}.")
    runs = [known[i] for i in run_ids]
    members = []
    for run in runs:
        local = run.provider == "local"
        ceiling = concurrency or (LOCAL_CONCURRENCY if local else AUTO_CEILING)
        own = bool(concurrency) or local
        members.append(Member(run.id, run.provider, run.base_url, ceiling, not local, own))
    windows = share_windows(members)
    shared: dict[str, SharedLimits] = {}
    for run in runs:
        key = provider_key(run.provider, run.base_url)
        if key not in shared:
            limits = RateLimiter(rpm, tpm, smooth=True, clock=clock)
            shared[key] = SharedLimits(limits, clock=clock)
        # Start from what the provider said last time (the lowest of its models' own).
        limiter = shared[key].limiter
        recalled = limits_memory.recall(run.provider, run.base_url, run.model)
        limiter.learned_rpm = _lowest(limiter.learned_rpm, recalled[0])
        limiter.learned_tpm = _lowest(limiter.learned_tpm, recalled[1])
    runners: list[Runner] = []

    def spend() -> float:
        return sum(r.committed() for r in runners)

    for run in runs:
        runners.append(
            make_runner(
                path,
                run.id,
                concurrency=concurrency,
                on_event=on_event(run.id) if on_event is not None else None,
                factory=(factories or {}).get(run.id),
                budget_usd=budget_usd,
                limiter=shared[provider_key(run.provider, run.base_url)].lane(run.model),
                window=windows[run.id],
                spend=spend,
                **options,  # type: ignore[arg-type]
            )
        )
    return RunGroup(runners)


def _lowest(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a, b)


# One backup at a time: the runs of a group make their providers at the same moment.
_BACKUP_LOCK = threading.Lock()


def _backing_up(path: Path, factory: Callable[[], Provider]) -> Callable[[], Provider]:
    """The provider factory, which first backs the audit up (store/backup.py).

    The runner calls it once, off the UI thread, when it is about to send requests
    and holds the audit open (so this process holds its writer lock): the moment
    to keep a good copy of everything so far, before the long stretch of writing.
    """

    def make() -> Provider:
        try:
            with _BACKUP_LOCK:
                make_backup(path)
        except ResultFileError as exc:  # a backup must never stop a run
            logger.warning("no backup before this run: %s", exc)
        return factory()

    return make


def estimate_for(
    path: str | Path,
    run_id: int | None = None,
    *,
    concurrency: int | None = None,
    use_cache: bool = True,
    rpm: float | None = None,
    tpm: float | None = None,
) -> Estimate:
    """What a run will send, cost and take, with the app's prices and response cache.

    One place for the CLI and the GUI, so both say the same before anything is paid.
    """
    from resume_auditor.store.cache import ResponseCache

    cache = ResponseCache() if use_cache else None
    try:
        with ResultFile(path, readonly=True) as result:
            return estimate_run(
                result,
                run_id,
                prices=run_prices(),
                cache=cache,
                concurrency=concurrency,
                rpm=rpm,
                tpm=tpm,
            )
    finally:
        if cache is not None:
            cache.close()
