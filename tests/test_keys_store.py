"""The key store: environment first, then memory and the OS keyring; never a file."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fake_keys import fake_key
from keyring.backend import KeyringBackend
from keyring.backends import fail, null
from keyring.errors import KeyringLocked, PasswordDeleteError, PasswordSetError

from resume_auditor.providers.keys import (
    SERVICE,
    KeyLocation,
    KeyStore,
    entry_name,
    keyring_advice,
    usable_keyring,
)

KEY = fake_key("store")


class MemoryKeyring(KeyringBackend):
    """A well-behaved keyring backend that lives in a dict."""

    priority = 5  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}
        self.fail_with: Exception | None = None

    def get_password(self, service: str, username: str) -> str | None:
        if self.fail_with:
            raise self.fail_with
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        if self.fail_with:
            raise self.fail_with
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.items:
            raise PasswordDeleteError("not found")
        del self.items[(service, username)]


class PlaintextLike(MemoryKeyring):
    priority = 0.5  # type: ignore[assignment]  # like keyrings.alt's file backends


def test_a_key_goes_to_the_keyring_and_comes_back() -> None:
    backend = MemoryKeyring()
    store = KeyStore(backend, environ={})
    status = store.set("openai", f"  {KEY}\n")
    assert status.location is KeyLocation.KEYRING
    assert backend.items == {(SERVICE, "openai"): KEY}
    assert store.get("openai") == KEY
    assert store.status("openai").location is KeyLocation.KEYRING
    assert KEY not in repr(store.status("openai"))
    assert store.delete("openai").location is KeyLocation.NONE
    assert store.get("openai") is None and backend.items == {}


def test_the_environment_variable_wins_for_this_session() -> None:
    backend = MemoryKeyring()
    store = KeyStore(backend, environ={"ANTHROPIC_API_KEY": "from-env-123"})
    status = store.set("anthropic", KEY)
    assert status.location is KeyLocation.KEYRING
    assert "ANTHROPIC_API_KEY" in status.message and "used first" in status.message
    assert store.get("anthropic") == "from-env-123"
    status = store.status("anthropic")
    assert status.location is KeyLocation.ENVIRONMENT and status.env_var == "ANTHROPIC_API_KEY"
    assert "from-env-123" not in status.message


def test_gemini_also_reads_googles_variable() -> None:
    store = KeyStore(MemoryKeyring(), environ={"GOOGLE_API_KEY": "g-key-123"})
    assert store.get("gemini") == "g-key-123"


def test_a_generic_variable_is_not_sent_to_named_vendors() -> None:
    store = KeyStore(MemoryKeyring(), environ={"RESUME_AUDITOR_API_KEY": "for-my-server"})
    assert store.get("openai-compatible", "http://localhost:8080/v1") == "for-my-server"
    assert store.get("openai") is None


def test_custom_servers_and_azure_get_one_entry_per_address() -> None:
    backend = MemoryKeyring()
    store = KeyStore(backend, environ={})
    store.set("openai-compatible", "key-a-123", "http://a:8080/v1/")
    store.set("openai-compatible", "key-b-123", "http://b:8080/v1")
    store.set("azure", "key-az-123", "https://res.openai.azure.com")
    store.set("openai", "key-oa-123", "https://proxy.example/v1")  # one entry per vendor
    assert store.get("openai-compatible", "http://a:8080/v1") == "key-a-123"
    assert store.get("openai-compatible", "http://b:8080/v1") == "key-b-123"
    assert store.get("openai") == "key-oa-123"
    assert set(u for _, u in backend.items) == {
        "openai-compatible@http://a:8080/v1",
        "openai-compatible@http://b:8080/v1",
        "azure@https://res.openai.azure.com",
        "openai",
    }
    assert entry_name("openai-compatible", "http://a/") == "openai-compatible@http://a"


@pytest.mark.parametrize("backend", [fail.Keyring(), null.Keyring(), PlaintextLike()])
def test_no_usable_keyring_keeps_the_key_in_memory_and_says_how_to_get_one(
    backend: Any,
) -> None:
    store = KeyStore(backend, environ={})
    assert not store.keyring_available()
    status = store.set("openai", KEY)
    assert status.location is KeyLocation.MEMORY
    assert "memory for this session only" in status.message
    assert "keyring" in status.message.lower()
    assert store.get("openai") == KEY
    assert store.status("openai").location is KeyLocation.MEMORY
    if isinstance(backend, PlaintextLike):
        assert backend.items == {}  # never written to a plaintext store
    assert store.delete("openai").location is KeyLocation.NONE
    assert store.get("openai") is None


def test_a_keyring_that_refuses_to_store_falls_back_to_memory_and_says_why() -> None:
    backend = MemoryKeyring()
    backend.fail_with = PasswordSetError("locked collection")
    store = KeyStore(backend, environ={})
    status = store.set("gemini", KEY)
    assert status.location is KeyLocation.MEMORY
    assert "refused" in status.message
    backend.fail_with = None
    assert store.get("gemini") == KEY


def test_a_locked_keyring_is_reported_not_raised() -> None:
    backend = MemoryKeyring()
    backend.items[(SERVICE, "openai")] = KEY
    backend.fail_with = KeyringLocked("locked")
    store = KeyStore(backend, environ={})
    assert store.get("openai") is None
    status = store.status("openai")
    assert status.location is KeyLocation.NONE and "locked" in status.message


def test_a_broken_backend_never_stops_the_app() -> None:
    def explode() -> Any:
        raise RuntimeError("dbus is gone")

    store = KeyStore(environ={}, backend_factory=explode)
    assert not store.keyring_available()
    assert store.get("openai") is None
    assert store.set("openai", KEY).location is KeyLocation.MEMORY


def test_bad_keys_are_refused_with_a_plain_message() -> None:
    store = KeyStore(MemoryKeyring(), environ={})
    with pytest.raises(ValueError, match="empty"):
        store.set("openai", "   \n")
    with pytest.raises(ValueError, match="spaces or line breaks"):
        store.set("openai", "sk-abc def")
    with pytest.raises(ValueError, match="needs no key"):
        store.set("local", KEY)
    assert store.status("local").message == "This provider needs no key."


def test_keys_are_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    backend = MemoryKeyring()
    store = KeyStore(backend, environ={})
    store.set("openai", KEY)
    backend.fail_with = PasswordSetError(f"could not store {KEY}")
    store.set("anthropic", KEY)
    backend.fail_with = KeyringLocked(f"locked while reading {KEY}")
    store.get("gemini")
    store.status("openai")
    assert caplog.records  # something was logged ...
    assert KEY not in caplog.text  # ... but never the key


def test_advice_names_a_keyring_for_each_system() -> None:
    assert "gnome-keyring" in keyring_advice("linux")
    assert "KeePassXC" in keyring_advice("linux")
    assert "keychain" in keyring_advice("darwin").lower()
    assert "Credential Manager" in keyring_advice("win32")


def test_usable_keyring() -> None:
    assert usable_keyring(MemoryKeyring())
    assert not usable_keyring(fail.Keyring())
    assert not usable_keyring(null.Keyring())
    assert not usable_keyring(PlaintextLike())
