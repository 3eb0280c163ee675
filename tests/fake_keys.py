"""Made-up API keys for tests, drawn fresh on every run.

Tests need values shaped like vendor keys ("sk-...", "AIza...") so that the
redaction and leak checks see what they would see in real life. Drawing them at
run time keeps anything that looks like a secret out of the repository.
"""

from __future__ import annotations

import secrets


def fake_key(label: str = "test", *, prefix: str = "sk-") -> str:
    """A random key of the given vendor shape, e.g. 'sk-test-3f9c…' or 'AIza…'."""
    if prefix == "AIza":
        return "AIza" + secrets.token_urlsafe(27)[:35]
    return f"{prefix}{label}-{secrets.token_hex(16)}"
