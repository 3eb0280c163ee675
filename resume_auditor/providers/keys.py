"""API keys: the session's environment first, then the OS keyring, never a file.

Keys are stored with `keyring` under the service "resume-auditor", one entry per
provider (per base URL for custom servers and Azure resources). A `KeyStore`
always says where a key lives — the provider's environment variable for this
session, the OS keyring, or this app's memory for this session only — so the
user is never surprised. When the computer has no usable keyring (keyring's
`fail` and `null` backends, or anything not recommended, such as a plaintext
file) a key is kept in memory only, and the user is told how to get a keyring.
There is no plaintext fallback. A key is never logged; errors name only their
type. A keyring that is there but locked, refuses this app, or does not answer
is told apart from one that is absent (`KeyringState`), each with its own
message and action: a locked keyring is never reported as "no key".
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

logger = logging.getLogger(__name__)

SERVICE = "resume-auditor"
ENV_VARS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "azure": "AZURE_OPENAI_API_KEY",
    "openai-compatible": "RESUME_AUDITOR_API_KEY",
}
# Also read for Gemini, as Google's own tools do.
ALIASES = {"gemini": ("GOOGLE_API_KEY",)}
GENERIC_ENV = "RESUME_AUDITOR_API_KEY"
# Keys for these are stored per server address; for the others one per provider.
PER_BASE_URL = frozenset({"openai-compatible", "azure"})
NO_KEY = frozenset({"local"})


def entry_name(provider: str, base_url: str = "") -> str:
    """The keyring user name: the provider, or provider@base-url for custom servers.

    Credentials typed into the address are not part of the name (nor anywhere else).
    """
    from resume_auditor.domain.study import url_credentials

    base = url_credentials(base_url.strip())[0].rstrip("/")
    return f"{provider}@{base}" if base else provider


def keyring_advice(platform: str = sys.platform) -> str:
    """One plain sentence on how to get a keyring on this kind of computer."""
    if platform == "darwin":
        return "macOS has a keychain built in; unlock it (Keychain Access) and try again."
    if platform.startswith("win"):
        return "Windows has Credential Manager built in; sign in normally and try again."
    return (
        "Install and unlock a Secret Service keyring — GNOME Keyring "
        "(sudo apt install gnome-keyring) or KeePassXC with Secret Service turned on — "
        "then start the app again."
    )


def unlock_advice(platform: str = sys.platform) -> str:
    """How to unlock the keyring on this kind of computer."""
    if platform == "darwin":
        return "Unlock the login keychain (Keychain Access), then try again."
    if platform.startswith("win"):
        return "Sign in to Windows normally (not as a service), then try again."
    return (
        "Unlock it: log in to the desktop session, or open Passwords and Keys (seahorse) "
        "and unlock the Login keyring; then try again. Keys stay stored while it is locked."
    )


class KeyringState(StrEnum):
    """How the OS keyring answered: each state has its own message and action."""

    READY = "ready"
    ABSENT = "absent"  # no keyring on this computer (or none this app may use)
    LOCKED = "locked"  # there is one, but it is locked
    DENIED = "denied"  # it refused this app access (a dismissed prompt, a policy)
    FAILED = "failed"  # it did not answer (a stopped daemon, a D-Bus error)


_DENIED_WORDS = ("denied", "dismissed", "notauthorized", "not authorized", "not allowed")
_ABSENT_WORDS = ("serviceunknown", "not running", "not provided by any .service")


def keyring_problem(exc: BaseException, platform: str = sys.platform) -> tuple[KeyringState, str]:
    """(state, a sentence saying what happened and what to do) for a keyring exception.

    Names only the exception's type: keyring messages may quote what was asked for.
    """
    from keyring.errors import InitError, KeyringLocked, NoKeyringError

    what = type(exc).__name__
    text = f"{what} {exc}".lower()
    if isinstance(exc, KeyringLocked) or "locked" in text:
        return KeyringState.LOCKED, "The OS keyring is locked. " + unlock_advice(platform)
    if any(word in text for word in _DENIED_WORDS):
        return KeyringState.DENIED, (
            f"The OS keyring refused this app access ({what}). Allow Resume Auditor when "
            "the keyring asks (or in the keyring's settings), then try again."
        )
    if isinstance(exc, NoKeyringError | InitError) or any(w in text for w in _ABSENT_WORDS):
        return KeyringState.ABSENT, (
            "There is no keyring this app can use on this computer. " + keyring_advice(platform)
        )
    return KeyringState.FAILED, (
        f"The OS keyring did not answer ({what}). Check that it is running "
        + ("(gnome-keyring-daemon or KeePassXC) " if platform.startswith("linux") else "")
        + "and try again."
    )


class KeyLocation(StrEnum):
    ENVIRONMENT = "environment"  # the provider's variable, for this session
    KEYRING = "keyring"  # the OS keyring
    MEMORY = "memory"  # this app's memory, for this session only
    NONE = "none"


@dataclass(frozen=True)
class KeyStatus:
    """Where a provider's key is — never the key itself."""

    provider: str
    base_url: str
    location: KeyLocation
    env_var: str
    keyring_name: str  # e.g. "SecretService Keyring", or "" when there is none
    message: str  # a sentence for the user
    keyring_state: KeyringState = KeyringState.READY
    changed: bool = False  # delete: a stored key was really removed

    @property
    def found(self) -> bool:
        return self.location is not KeyLocation.NONE


def _backend_name(backend: Any) -> str:
    name = getattr(backend, "name", "") or type(backend).__name__
    return str(name)


def usable_keyring(backend: Any) -> bool:
    """False for keyring's `fail` and `null` backends and anything not recommended."""
    try:
        from keyring.backends import fail, null

        if isinstance(backend, fail.Keyring | null.Keyring):
            return False
        return float(getattr(backend, "priority", 0)) >= 1
    except Exception as exc:  # a backend whose priority check fails is not usable
        logger.warning("keyring backend check failed: %s", type(exc).__name__)
        return False


def _default_backend() -> Any:
    import keyring

    return keyring.get_keyring()


class KeyStore:
    """Finds, stores and forgets API keys, and says where each one is.

    `backend` is a keyring backend (keyring.backend.KeyringBackend); by default
    the one `keyring` picks for this computer, looked up on first use.
    `environ` is the environment to read variables from.
    """

    def __init__(
        self,
        backend: Any = None,
        *,
        environ: Mapping[str, str] | None = None,
        backend_factory: Callable[[], Any] = _default_backend,
    ) -> None:
        self._backend = backend
        self._backend_factory = backend_factory
        self._environ = environ
        self._memory: dict[str, str] = {}
        self._lock = threading.Lock()
        self._backend_lock = threading.Lock()  # found once, from any thread (`backend`)

    # -- the keyring ---------------------------------------------------------------

    @property
    def backend(self) -> Any:
        if self._backend is None:
            with self._backend_lock:  # the window looks it up early, in a worker
                if self._backend is None:
                    self._backend = self._find_backend()
        return self._backend

    def _find_backend(self) -> Any:
        try:
            return self._backend_factory()
        except Exception as exc:  # no keyring at all is a state, not a crash
            logger.warning("no keyring backend: %s", type(exc).__name__)
            from keyring.backends import fail

            return fail.Keyring()  # type: ignore[no-untyped-call]

    def keyring_available(self) -> bool:
        return usable_keyring(self.backend)

    def keyring_name(self) -> str:
        return _backend_name(self.backend) if self.keyring_available() else ""

    def _entry(self, provider: str, base_url: str) -> str:
        return entry_name(provider, base_url if provider in PER_BASE_URL else "")

    def _env(self) -> Mapping[str, str]:
        return self._environ if self._environ is not None else os.environ

    def _env_key(self, provider: str) -> tuple[str, str | None]:
        names = [ENV_VARS.get(provider, ""), *ALIASES.get(provider, ())]
        for name in names:
            if name and self._env().get(name, "").strip():
                return name, self._env()[name].strip()
        return ENV_VARS.get(provider, ""), None

    def _keyring_get(self, entry: str) -> str | None:
        return self._keyring_read(entry)[0]

    def keyring_state(self) -> KeyringState:
        """READY or ABSENT as far as the backend goes (LOCKED and DENIED show on use)."""
        return KeyringState.READY if self.keyring_available() else KeyringState.ABSENT

    def _keyring_read(self, entry: str) -> tuple[str | None, KeyringState, str]:
        """(key or None, the keyring's state, a plain problem description or "")."""
        if not self.keyring_available():
            return None, KeyringState.ABSENT, ""
        try:
            value = self.backend.get_password(SERVICE, entry)
        except Exception as exc:  # locked, denied, a broken backend: never stops an audit
            state, message = keyring_problem(exc)
            logger.warning("could not read the keyring: %s (%s)", state, type(exc).__name__)
            return None, state, message
        return (str(value) if value else None), KeyringState.READY, ""

    # -- the API ---------------------------------------------------------------------

    def get(self, provider: str, base_url: str = "") -> str | None:
        """The key to use: environment variable, then memory, then the keyring."""
        if provider in NO_KEY:
            return None
        _, env = self._env_key(provider)
        if env:
            return env
        entry = self._entry(provider, base_url)
        with self._lock:
            remembered = self._memory.get(entry)
        if remembered:
            return remembered
        return self._keyring_get(entry)

    def unreadable(self, provider: str, base_url: str = "") -> str | None:
        """Why no key can be had when the keyring is locked, denied or failing, else None.

        For "No API key" errors: a locked keyring probably holds the key, and the
        user must hear "unlock it", not "add a key".
        """
        found = self.status(provider, base_url)
        if found.found or found.keyring_state in (KeyringState.READY, KeyringState.ABSENT):
            return None
        return found.message

    def status(self, provider: str, base_url: str = "") -> KeyStatus:
        """Where the key for `provider` is. Never contains the key."""
        env_var, env = self._env_key(provider)
        entry = self._entry(provider, base_url)
        name = self.keyring_name()

        def status(location: KeyLocation, message: str) -> KeyStatus:
            return KeyStatus(provider, base_url, location, env_var, name, message)

        if provider in NO_KEY:
            return status(KeyLocation.NONE, "This provider needs no key.")
        if env:
            return status(
                KeyLocation.ENVIRONMENT,
                f"Using the key in the {env_var} environment variable (this session only).",
            )
        with self._lock:
            in_memory = entry in self._memory
        if in_memory:
            return status(
                KeyLocation.MEMORY,
                "The key is kept in memory for this session only: "
                + ("there is no keyring on this computer. " if not name else "")
                + keyring_advice(),
            )
        stored, state, problem = self._keyring_read(entry)
        if stored:
            return status(KeyLocation.KEYRING, f"The key is stored in the OS keyring ({name}).")
        where = f" (variable {env_var})" if env_var else ""
        if problem:  # the keyring may well hold a key: do not say there is none
            message = f"The key for {provider} cannot be read: {problem}"
            if env_var:
                message += f" Or set {env_var} for this session."
            return dataclasses.replace(status(KeyLocation.NONE, message), keyring_state=state)
        message = f"No key is set for {provider}{where}."
        if not name:
            message += " There is no keyring on this computer: " + keyring_advice()
        return dataclasses.replace(status(KeyLocation.NONE, message), keyring_state=state)

    def set(self, provider: str, key: str, base_url: str = "") -> KeyStatus:
        """Store `key`: in the keyring if there is one, else in memory (and say so)."""
        if provider in NO_KEY:
            raise ValueError(f"{provider} needs no key.")
        key = key.strip()
        if not key:
            raise ValueError("The key is empty.")
        if any(c.isspace() for c in key):
            raise ValueError("The key contains spaces or line breaks; paste only the key.")
        entry = self._entry(provider, base_url)
        env_var, env = self._env_key(provider)
        env_note = (
            f" Note: {env_var} is set in this session's environment and is used first."
            if env
            else ""
        )
        name = self.keyring_name()
        state = KeyringState.ABSENT
        if name:
            try:
                self.backend.set_password(SERVICE, entry, key)
            except Exception as exc:
                state, problem = keyring_problem(exc)
                reason = f"The keyring refused the key: {problem} "
                logger.warning("could not write to the keyring: %s (%s)", state, type(exc).__name__)
            else:
                with self._lock:
                    self._memory.pop(entry, None)
                return KeyStatus(
                    provider,
                    base_url,
                    KeyLocation.KEYRING,
                    env_var,
                    name,
                    f"Saved in the OS keyring ({name}).{env_note}",
                )
        else:
            reason = "There is no keyring on this computer. "
        with self._lock:
            self._memory[entry] = key
        advice = keyring_advice() if state is KeyringState.ABSENT else ""
        return KeyStatus(
            provider,
            base_url,
            KeyLocation.MEMORY,
            env_var,
            name,
            reason + "The key is kept in memory for this session only and will be asked for again "
            "next time. " + advice + env_note,
            keyring_state=state,
        )

    def remember(self, provider: str, key: str, base_url: str = "") -> None:
        """Keep `key` in memory for this session only (a key taken out of a server address).

        Never written to the keyring: the user did not ask to store it.
        """
        key = key.strip()
        if provider in NO_KEY or not key:
            return
        with self._lock:
            self._memory[self._entry(provider, base_url)] = key

    def delete(self, provider: str, base_url: str = "") -> KeyStatus:
        """Forget the key in memory and in the keyring; say what happened and what is left.

        The returned status's `changed` is True only when a key was really removed;
        its message says so, or why not (no keyring, locked, denied...).
        """
        entry = self._entry(provider, base_url)
        with self._lock:
            removed = self._memory.pop(entry, None) is not None
        state = self.keyring_state()
        problem = ""
        if state is KeyringState.READY:
            from keyring.errors import PasswordDeleteError

            try:
                had = self.backend.get_password(SERVICE, entry)
                if had:
                    self.backend.delete_password(SERVICE, entry)
                    removed = True
            except PasswordDeleteError:
                pass  # nothing stored: already gone
            except Exception as exc:
                state, problem = keyring_problem(exc)
                logger.warning(
                    "could not delete from the keyring: %s (%s)", state, type(exc).__name__
                )
        after = self.status(provider, base_url)
        if problem:
            message = f"The key for {provider} was not removed: {problem}"
        elif removed:
            where = "from the OS keyring" if state is KeyringState.READY else "from memory"
            message = f"Removed the stored key for {provider} {where}."
        elif state is KeyringState.ABSENT:
            message = (
                f"Nothing to remove: there is no keyring on this computer, so no key for "
                f"{provider} was stored."
            )
        else:
            message = f"Nothing to remove: no key for {provider} is stored."
        if after.location is KeyLocation.ENVIRONMENT:
            message += f" {after.env_var} is still set in this session's environment."
        return dataclasses.replace(
            after, message=message, keyring_state=state, changed=removed and not problem
        )


_default: KeyStore | None = None
_default_lock = threading.Lock()


def default_store() -> KeyStore:
    """The process-wide store: keys kept in memory live as long as the app."""
    global _default
    with _default_lock:
        if _default is None:
            _default = KeyStore()
        return _default


def get_key(provider: str, base_url: str = "") -> str | None:
    """The key for `provider` (environment, memory, keyring), or None."""
    return default_store().get(provider, base_url)
