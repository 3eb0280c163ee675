"""Run a prepared audit: the provider for the model under test, and the runner."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.base import ErrorKind, Provider, ProviderError
from resume_auditor.providers.keys import KeyStore, default_store
from resume_auditor.providers.registry import make_provider, provider_info
from resume_auditor.runner import Event, Runner, limits_memory
from resume_auditor.runner.batch import BatchOptions
from resume_auditor.runner.early_stop import EarlyStop
from resume_auditor.runner.estimate import Estimate, estimate_run
from resume_auditor.runner.latency import MOST_S
from resume_auditor.runner.prices import PriceError, PriceTable, load_prices
from resume_auditor.runner.ratelimit import RateLimiter
from resume_auditor.runner.transport import HeaderSink, ObservedProvider, observing_client
from resume_auditor.runner.window import AUTO_CEILING, LOCAL_CONCURRENCY
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
    limiter = RateLimiter(rpm, tpm, smooth=True)
    # Start from what the provider said last time; its headers correct it.
    limiter.learned_rpm, limiter.learned_tpm = limits_memory.recall(
        run.provider, run.base_url, run.model
    )
    adaptive = True
    if run.provider == "local":
        timeout_s = max(timeout_s, 300.0)
        # The bundled model answers one at a time; more at once only queue there.
        concurrency, adaptive = concurrency or LOCAL_CONCURRENCY, False
    ceiling = concurrency or AUTO_CEILING
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
    )


def _backing_up(path: Path, factory: Callable[[], Provider]) -> Callable[[], Provider]:
    """The provider factory, which first backs the audit up (store/backup.py).

    The runner calls it once, off the UI thread, when it is about to send requests
    and holds the audit open (so this process holds its writer lock): the moment
    to keep a good copy of everything so far, before the long stretch of writing.
    """

    def make() -> Provider:
        try:
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
