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


def fake_private_key(kind: str = "OPENSSH") -> str:
    """A made-up PEM private-key block: the real armour lines around random base64.

    The armour is joined at run time so no key-shaped block sits in the repository.
    """
    import base64

    armour = " ".join((kind, "PRIVATE", "KEY"))
    body = base64.b64encode(secrets.token_bytes(150)).decode()
    lines = [body[i : i + 70] for i in range(0, len(body), 70)]
    return "\n".join([f"-----BEGIN {armour}-----", *lines, f"-----END {armour}-----", ""])
