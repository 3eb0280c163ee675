"""The keyring's states: ready, absent, locked, denied, failed — each its own message.

A locked keyring was reported as "no key" or as "no keyring ... install GNOME
Keyring" although it was installed, and `keys delete` without a keyring said
"Removed". These tests use keyring's own fail backend and fakes that raise what
the real backends raise (SecretService raises KeyringLocked when the collection
stays locked; D-Bus errors arrive under their D-Bus names).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_keys import fake_key
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.errors import InitError, KeyringError, KeyringLocked, NoKeyringError

from resume_auditor.cli import main
from resume_auditor.providers import keys as keys_module
from resume_auditor.providers.keys import (
    SERVICE,
    KeyLocation,
    KeyringState,
    KeyStore,
    keyring_problem,
)

KEY = fake_key("states")
ROOT = Path(__file__).resolve().parent.parent


class DBusErrorResponse(Exception):
    """What jeepney raises for a D-Bus error reply (named like it, for the test)."""


class FakeKeyring(KeyringBackend):
    """A usable backend holding a key, which raises `error` on every call when set."""

    priority = 5  # type: ignore[assignment]

    def __init__(self, error: BaseException | None = None) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {(SERVICE, "openai"): KEY}
        self.error = error

    def _check(self) -> None:
        if self.error is not None:
            raise self.error

    def get_password(self, service: str, username: str) -> str | None:
        self._check()
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self._check()
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self._check()
        self.items.pop((service, username), None)


LOCKED = KeyringLocked("Failed to unlock the collection!")
DENIED = DBusErrorResponse("org.freedesktop.DBus.Error.AccessDenied: not allowed")
FAILED = DBusErrorResponse("org.freedesktop.DBus.Error.NoReply: no reply")


@pytest.mark.parametrize(
    ("error", "state", "words"),
    [
        (LOCKED, KeyringState.LOCKED, "is locked"),
        (KeyringError("Prompt dismissed."), KeyringState.DENIED, "refused this app access"),
        (DENIED, KeyringState.DENIED, "refused this app access"),
        (NoKeyringError("No recommended backend"), KeyringState.ABSENT, "no keyring"),
        (InitError("Failed to create the collection"), KeyringState.ABSENT, "no keyring"),
        (FAILED, KeyringState.FAILED, "did not answer"),
    ],
)
def test_each_keyring_problem_has_its_own_message_and_action(
    error: BaseException, state: KeyringState, words: str
) -> None:
    got, message = keyring_problem(error, "linux")
    assert got is state
    assert words in message
    # an action, not only a diagnosis
    assert any(w in message for w in ("Unlock", "Allow", "Install", "Check")), message


def test_a_locked_keyring_is_not_reported_as_no_key_or_no_keyring() -> None:
    store = KeyStore(FakeKeyring(LOCKED), environ={})
    assert store.keyring_available()
    assert store.get("openai") is None
    status = store.status("openai")
    assert status.location is KeyLocation.NONE
    assert status.keyring_state is KeyringState.LOCKED
    assert "locked" in status.message and "Unlock" in status.message
    assert "No key is set" not in status.message
    assert "apt install" not in status.message and "no keyring" not in status.message.lower()


def test_a_key_set_while_locked_is_kept_for_the_session_and_says_why() -> None:
    store = KeyStore(FakeKeyring(LOCKED), environ={})
    status = store.set("anthropic", KEY)
    assert status.location is KeyLocation.MEMORY
    assert status.keyring_state is KeyringState.LOCKED
    assert "locked" in status.message and "apt install" not in status.message
    assert store.get("anthropic") == KEY


def test_delete_says_removed_only_when_a_key_was_removed() -> None:
    backend = FakeKeyring()
    store = KeyStore(backend, environ={})
    done = store.delete("openai")
    assert done.changed and "Removed" in done.message
    assert backend.items == {}
    again = store.delete("openai")
    assert not again.changed and "Nothing to remove" in again.message

    locked = KeyStore(FakeKeyring(LOCKED), environ={}).delete("openai")
    assert not locked.changed and locked.keyring_state is KeyringState.LOCKED
    assert "not removed" in locked.message and "locked" in locked.message

    denied = KeyStore(FakeKeyring(DENIED), environ={}).delete("openai")
    assert not denied.changed and denied.keyring_state is KeyringState.DENIED

    absent = KeyStore(fail.Keyring(), environ={}).delete("openai")  # type: ignore[no-untyped-call]
    assert not absent.changed and absent.keyring_state is KeyringState.ABSENT
    assert "Removed" not in absent.message and "no keyring" in absent.message


@pytest.fixture
def use_store(monkeypatch: pytest.MonkeyPatch) -> object:
    for var in keys_module.ENV_VARS.values():
        monkeypatch.delenv(var, raising=False)

    def install(store: KeyStore) -> None:
        monkeypatch.setattr(keys_module, "default_store", lambda: store)
        monkeypatch.setattr(keys_module, "_default", store)  # for modules that imported it

    return install


def test_keys_cli_on_a_locked_keyring(
    use_store: object, capsys: pytest.CaptureFixture[str]
) -> None:
    use_store(KeyStore(FakeKeyring(LOCKED), environ={}))  # type: ignore[operator]
    assert main(["keys", "delete", "openai"]) == 1
    out = capsys.readouterr().out
    assert "Removed" not in out and "locked" in out
    assert main(["keys", "status", "openai"]) == 0
    out = capsys.readouterr().out
    assert "locked" in out and "No key is set" not in out and "There is no keyring" not in out
    assert KEY not in out


def test_keys_delete_without_a_keyring_does_not_say_removed(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        RESUME_AUDITOR_DATA_DIR=str(tmp_path / "data"),
    )
    done = subprocess.run(
        [sys.executable, "-m", "resume_auditor", "keys", "delete", "openai"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "Removed" not in done.stdout
    assert "Nothing to remove: there is no keyring" in done.stdout
    assert done.stdout.count("There is no keyring") == 0


def test_an_audit_on_a_locked_keyring_says_unlock_it_not_add_a_key(
    use_store: object,
    small_study: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from devtools.simulator import Simulator

    use_store(KeyStore(FakeKeyring(LOCKED), environ={}))  # type: ignore[operator]
    with Simulator(api_key=KEY) as sim:
        code = main(
            ["audit", str(small_study), "--out", str(tmp_path / "l.audit")]
            + ["--provider", "openai", "--base-url", sim.url_for("openai"), "--model", "m"]
        )
        assert sim.received == 0
    err = capsys.readouterr().err
    assert code == 1
    assert "The OS keyring is locked" in err and "Unlock" in err
    assert "No API key" not in err
