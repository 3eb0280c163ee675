"""A real, locked GNOME Keyring: the app says it is locked, never "no key" or "no keyring".

Uses the private D-Bus session and keyring daemon of test_keys_secret_service.py,
stores a key, then locks the login collection over D-Bus as the desktop does when
the screen locks. With no one to answer the unlock prompt, keyring raises
KeyringLocked: the state the user must be told about (and told to unlock).
"""

from __future__ import annotations

import gc
from contextlib import closing
from pathlib import Path

import pytest
from fake_keys import fake_key
from test_keys_secret_service import _backend, secret_service  # noqa: F401  (fixture)

from resume_auditor.providers.keys import KeyLocation, KeyringState, KeyStore

pytestmark = [
    pytest.mark.keyring_service,
    # keyring's SecretService backend does not close its D-Bus connection when the
    # collection stays locked (it raises first): its socket, not ours, is left open
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

KEY = fake_key("locked-service")


def _lock_default_collection() -> None:
    import secretstorage

    with closing(secretstorage.dbus_init()) as connection:
        collection = secretstorage.get_default_collection(connection)
        collection.lock()
        assert collection.is_locked()


def test_a_locked_real_keyring_is_reported_as_locked(
    secret_service: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    try:
        _check_locked()
    finally:
        gc.collect()  # keyring's leaked connections close here, under this test's filters


def _check_locked() -> None:
    store = KeyStore(_backend(), environ={})
    assert store.set("openai", KEY).location is KeyLocation.KEYRING
    _lock_default_collection()

    locked = KeyStore(_backend(), environ={})
    assert locked.keyring_available()  # installed and running: not "no keyring"
    assert locked.get("openai") is None
    status = locked.status("openai")
    assert status.keyring_state is KeyringState.LOCKED, status.message
    assert "locked" in status.message and "Unlock" in status.message
    assert "No key is set" not in status.message and "apt install" not in status.message
    removed = locked.delete("openai")
    assert not removed.changed and "not removed" in removed.message
    assert KEY not in status.message + removed.message
