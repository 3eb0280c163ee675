"""Keys in a real Secret Service: GNOME Keyring on a private D-Bus session.

The fixture starts its own session bus and keyring daemon with a throw-away home
folder, so it never touches the developer's own keyring. Skipped (with the
reason) where dbus or gnome-keyring is not installed — except in CI, where the
keyring must be tested for real and a missing daemon is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from devtools.simulator import Simulator
from fake_keys import fake_key

from resume_auditor.providers.keys import SERVICE, KeyLocation, KeyStore

pytestmark = pytest.mark.keyring_service

KEY = fake_key("secret-service")
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={dir}</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""
ROOT = Path(__file__).resolve().parent.parent


def _require(tool: str) -> None:
    if shutil.which(tool):
        return
    reason = f"{tool} is not installed (apt-get install dbus gnome-keyring)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI must test the real keyring, but {reason}")
    pytest.skip(reason)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None and not stream.closed:
            stream.close()


@pytest.fixture
def secret_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """A private session bus with an unlocked GNOME Keyring; yields the environment."""
    _require("dbus-daemon")
    _require("gnome-keyring-daemon")
    home = tmp_path / "home"
    runtime = tmp_path / "run"
    home.mkdir()
    runtime.mkdir(mode=0o700)
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
    # A bus of our own without service activation: only the daemon started below
    # may answer, never one D-Bus would launch (which could wait on a GUI prompt).
    config = tmp_path / "bus.conf"
    config.write_text(BUS_CONFIG.format(dir=runtime))
    bus = subprocess.Popen(
        ["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert bus.stdout is not None
    address = bus.stdout.readline().decode().strip()
    daemon: subprocess.Popen[bytes] | None = None
    try:
        assert address, "dbus-daemon printed no address"
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        daemon = subprocess.Popen(
            ["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert daemon.stdin is not None
        daemon.stdin.write(b"throw-away-password")
        daemon.stdin.close()
        for name in ("DBUS_SESSION_BUS_ADDRESS", "HOME", "XDG_RUNTIME_DIR"):
            monkeypatch.setenv(name, env[name])
        _wait_for_keyring()
        yield env
    finally:
        if daemon is not None:
            _stop(daemon)
        _stop(bus)


def _wait_for_keyring() -> None:
    """Until the daemon owns the Secret Service name with an unlocked default collection.

    Talks to secretstorage directly and closes every connection: keyring's own
    backend leaks its D-Bus connection when the service is not up yet.
    """
    import secretstorage

    deadline = time.monotonic() + 60
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with closing(secretstorage.dbus_init()) as connection:
                if secretstorage.check_service_availability(connection):
                    collection = secretstorage.get_default_collection(connection)
                    if not collection.is_locked():
                        return
        except Exception as exc:  # not on the bus yet
            last = exc
        time.sleep(0.2)
    raise AssertionError(f"gnome-keyring did not come up within 60 s: {last!r}")


def _backend() -> Any:
    from keyring.backends import SecretService

    return SecretService.Keyring()


def test_store_read_and_delete_in_the_real_keyring(secret_service: dict[str, str]) -> None:
    store = KeyStore(_backend(), environ={})
    assert store.keyring_available()
    status = store.set("openai", KEY)
    assert status.location is KeyLocation.KEYRING, status.message
    # a fresh store (another session of the app) finds it in the keyring
    again = KeyStore(_backend(), environ={})
    assert again.get("openai") == KEY
    assert again.status("openai").location is KeyLocation.KEYRING
    assert _backend().get_password(SERVICE, "openai") == KEY
    assert again.delete("openai").location is KeyLocation.NONE
    assert KeyStore(_backend(), environ={}).get("openai") is None


def _cli(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "resume_auditor", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**env, "PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring"},
        timeout=120,
        cwd=ROOT,
    )


def test_the_cli_stores_a_key_an_audit_then_uses(
    secret_service: dict[str, str], small_study: Path, tmp_path: Path
) -> None:
    env = {k: v for k, v in secret_service.items() if not k.endswith("_API_KEY")}
    env["RESUME_AUDITOR_DATA_DIR"] = str(tmp_path / "data")
    done = _cli(env, "keys", "set", "openai", stdin=KEY + "\n")
    assert done.returncode == 0, done.stderr
    assert "Saved in the OS keyring" in done.stdout
    status = _cli(env, "keys", "status", "openai")
    assert "stored in the OS keyring" in status.stdout and KEY not in status.stdout
    with Simulator(api_key=KEY) as sim:
        audit = _cli(
            env,
            "audit",
            str(small_study),
            "--out",
            str(tmp_path / "k.audit"),
            "--provider",
            "openai",
            "--base-url",
            sim.url_for("openai"),
            "--model",
            "sim-model",
        )
        assert audit.returncode == 0, audit.stderr
        assert sim.answered == 10
    removed = _cli(env, "keys", "delete", "openai")
    assert removed.returncode == 0
    assert "No key is set" in _cli(env, "keys", "status", "openai").stdout
