"""API keys: the session's environment first, then the OS keyring.

Keys are stored with `keyring` under the service "resume-auditor", one entry per
provider (per base URL for custom servers). A key is never written to a file,
log or result file by this app.
"""

from __future__ import annotations

import logging
import os

logger = logging.getLogger(__name__)

SERVICE = "resume-auditor"
ENV_VARS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "azure": "AZURE_OPENAI_API_KEY",
}
GENERIC_ENV = "RESUME_AUDITOR_API_KEY"


def entry_name(provider: str, base_url: str = "") -> str:
    """The keyring user name: the provider, or provider@base-url for custom servers."""
    return f"{provider}@{base_url.rstrip('/')}" if base_url else provider


def get_key(provider: str, base_url: str = "") -> str | None:
    env = os.environ.get(ENV_VARS.get(provider, "")) or os.environ.get(GENERIC_ENV)
    if env:
        return env
    try:
        import keyring
        from keyring.errors import KeyringError

        try:
            return keyring.get_password(SERVICE, entry_name(provider, base_url))
        except KeyringError as exc:
            logger.warning("could not read the keyring: %s", type(exc).__name__)
            return None
    except Exception as exc:  # a broken keyring backend must not stop an audit
        logger.warning("keyring unavailable: %s", type(exc).__name__)
        return None
