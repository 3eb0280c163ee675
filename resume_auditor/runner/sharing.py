"""Which runs share which limits when several run at once (group.py, estimate.py).

Runs that reach the same provider at the same address use the same key (the key
store keeps one per provider and address), so they answer to the same rate limits.
Runs on this machine (the bundled model, a self-hosted server at a loopback
address) share its CPU, whatever server answers them. The plan's time and the
runner's sharing must agree on this, so both ask here.
"""

from __future__ import annotations

import ipaddress
import logging
from urllib.parse import urlparse

logger = logging.getLogger(__name__)

# Providers whose address may be a server the user runs (on this machine or not);
# a hosted vendor's API at a loopback address is a proxy or a test, not this CPU.
SELF_HOSTED = frozenset({"openai-compatible"})
MACHINE = "this machine"

__all__ = ["MACHINE", "SELF_HOSTED", "on_this_machine", "provider_key", "sharing_key"]


def provider_key(provider: str, base_url: str | None) -> str:
    """The limits a run answers to: one per provider and address (one key each)."""
    url = (base_url or "").strip().rstrip("/").lower()
    return f"{provider}|{url}"


def on_this_machine(provider: str, base_url: str | None) -> bool:
    """The bundled model, or a self-hosted server at a loopback address."""
    if provider == "local":
        return True
    if provider not in SELF_HOSTED or not base_url:
        return False
    host = (urlparse(base_url).hostname or "").lower()
    if host in ("localhost", "localhost.localdomain"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def sharing_key(provider: str, base_url: str | None) -> str:
    """What a run shares its concurrency (and, in the plan, its time) with: this
    machine, or its provider and address."""
    return MACHINE if on_this_machine(provider, base_url) else provider_key(provider, base_url)
