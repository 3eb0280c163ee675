"""API keys: the session's environment first, then the OS keyring, never a file.

Keys are stored with `keyring` under the service "resume-auditor", one entry per
provider (per base URL for custom servers and Azure resources). A `KeyStore`
always says where a key lives — the provider's environment variable for this
session, the OS keyring, or this app's memory for this session only — so the
user is never surprised. When the computer has no usable keyring (keyring's
`fail` and `null` backends, or anything not recommended, such as a plaintext
file) a key is kept in memory only, and the user is told how to get a keyring.
There is no plaintext fallback. A key is never logged; errors name only their
type.
"""

from __future__ import annotations

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
    """The keyring user name: the provider, or provider@base-url for custom servers."""
    return f"{provider}@{base_url.strip().rstrip('/')}" if base_url.strip() else provider


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

    # -- the keyring ---------------------------------------------------------------

    @property
    def backend(self) -> Any:
        if self._backend is None:
            try:
                self._backend = self._backend_factory()
            except Exception as exc:  # no keyring at all is a state, not a crash
                logger.warning("no keyring backend: %s", type(exc).__name__)
                from keyring.backends import fail

                self._backend = fail.Keyring()  # type: ignore[no-untyped-call]
        return self._backend

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

    def _keyring_read(self, entry: str) -> tuple[str | None, str]:
        """(key or None, a plain problem description or "")."""
        if not self.keyring_available():
            return None, ""
        from keyring.errors import KeyringError, KeyringLocked

        try:
            value = self.backend.get_password(SERVICE, entry)
        except KeyringLocked:
            logger.warning("the keyring is locked")
            return None, "The keyring is locked: unlock it and try again."
        except KeyringError as exc:
            logger.warning("could not read the keyring (%s)", type(exc).__name__)
            return None, f"The keyring could not be read ({type(exc).__name__})."
        except Exception as exc:  # a broken backend must not stop an audit
            logger.warning("the keyring failed (%s)", type(exc).__name__)
            return None, f"The keyring failed ({type(exc).__name__})."
        return (str(value) if value else None), ""

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
        stored, problem = self._keyring_read(entry)
        if stored:
            return status(KeyLocation.KEYRING, f"The key is stored in the OS keyring ({name}).")
        where = f" (variable {env_var})" if env_var else ""
        message = f"No key is set for {provider}{where}."
        if problem:
            message += " " + problem
        elif not name:
            message += " There is no keyring on this computer: " + keyring_advice()
        return status(KeyLocation.NONE, message)

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
        if name:
            from keyring.errors import KeyringError

            try:
                self.backend.set_password(SERVICE, entry, key)
            except KeyringError as exc:
                reason = f"The keyring refused the key ({type(exc).__name__}). "
                logger.warning("could not write to the keyring (%s)", type(exc).__name__)
            except Exception as exc:
                reason = f"The keyring failed ({type(exc).__name__}). "
                logger.warning("the keyring failed (%s)", type(exc).__name__)
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
        return KeyStatus(
            provider,
            base_url,
            KeyLocation.MEMORY,
            env_var,
            name,
            reason + "The key is kept in memory for this session only and will be asked for again "
            "next time. " + keyring_advice() + env_note,
        )

    def delete(self, provider: str, base_url: str = "") -> KeyStatus:
        """Forget the key in memory and in the keyring; say what is left."""
        entry = self._entry(provider, base_url)
        with self._lock:
            self._memory.pop(entry, None)
        if self.keyring_available():
            from keyring.errors import KeyringError, PasswordDeleteError

            try:
                self.backend.delete_password(SERVICE, entry)
            except PasswordDeleteError:
                pass  # nothing stored: already gone
            except KeyringError as exc:
                logger.warning("could not delete from the keyring (%s)", type(exc).__name__)
            except Exception as exc:
                logger.warning("the keyring failed (%s)", type(exc).__name__)
        return self.status(provider, base_url)


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
