"""Ask once whether a model gives token log-probabilities, and remember the answer.

The probe is one tiny request (a one-word answer, a few tokens). Providers also
learn from ordinary requests that ask for log-probabilities, so the probe only
matters before a run, when the UI wants to say "this model can give
probabilities" or the run setup wants to choose between a log-probability score
and a parsed label. What is already known (by model family, or from an earlier
probe kept in the data folder) costs no request at all.
"""

from __future__ import annotations

import logging

from resume_auditor.providers.base import ChatRequest, ErrorKind, Provider, ProviderError
from resume_auditor.providers.capabilities import LOGPROBS
from resume_auditor.providers.wire import WireProvider

logger = logging.getLogger(__name__)

PROBE_SYSTEM = "Answer with exactly one word."
PROBE_USER = "Is water wet? Answer Yes or No."
PROBE_TOP = 5


async def probe_logprobs(provider: Provider, model: str) -> bool:
    """True if `model` returns log-probabilities through `provider`.

    Errors that would stop any request (wrong key, unknown model, no credit) are
    raised so the caller can say so; a model that merely refuses the setting
    answers False.
    """
    if isinstance(provider, WireProvider):
        known = provider.known(model, LOGPROBS)
        if known is not None:
            return known
    request = ChatRequest(
        model=model,
        system=PROBE_SYSTEM,
        user=PROBE_USER,
        temperature=0.0,
        max_tokens=4,
        top_logprobs=PROBE_TOP,
    )
    try:
        response = await provider.chat(request)
    except ProviderError as exc:
        if exc.kind in (ErrorKind.BAD_REQUEST, ErrorKind.REFUSED):
            logger.info("log-probability probe for %s failed: %s", model, exc.kind.value)
            return False
        raise
    return bool(response.logprobs)
