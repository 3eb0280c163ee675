"""`resume-auditor keys ...` and `resume-auditor models ...`, as a user types them."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from devtools.simulator import Simulator
from fake_keys import fake_key
from keyring.backend import KeyringBackend

from resume_auditor.cli import main
from resume_auditor.providers import keys as keys_module
from resume_auditor.providers.keys import KeyStore

KEY = fake_key("cli")
ROOT = Path(__file__).resolve().parent.parent


class MemoryKeyring(KeyringBackend):
    priority = 5  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.items.pop((service, username), None)


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch) -> KeyStore:
    for var in keys_module.ENV_VARS.values():
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    store = KeyStore(MemoryKeyring())
    monkeypatch.setattr(keys_module, "default_store", lambda: store)
    return store


def test_keys_set_reads_stdin_and_status_never_prints_the_key(
    store: KeyStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(KEY + "\n"))
    assert main(["keys", "set", "anthropic"]) == 0
    assert store.get("anthropic") == KEY
    assert main(["keys", "status", "anthropic"]) == 0
    assert main(["keys", "status"]) == 0
    out = capsys.readouterr()
    assert "OS keyring" in out.out
    assert KEY not in out.out + out.err
    assert main(["keys", "delete", "anthropic"]) == 0
    assert store.get("anthropic") is None


def test_keys_for_custom_servers_need_the_address(
    store: KeyStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(KEY))
    assert main(["keys", "set", "openai-compatible"]) == 2
    assert "--base-url" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.StringIO(KEY))
    assert main(["keys", "set", "openai-compatible", "--base-url", "http://gpu:8000/v1"]) == 0
    assert store.get("openai-compatible", "http://gpu:8000/v1") == KEY


def test_keys_bad_input_is_a_plain_message(
    store: KeyStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    assert main(["keys", "set", "openai"]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["keys", "set", "nosuchvendor"]) == 2
    assert "Unknown provider" in capsys.readouterr().err
    assert main(["keys", "set", "local"]) == 0
    assert "needs no key" in capsys.readouterr().out


def _cli(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "resume_auditor", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    "backend", ["keyring.backends.fail.Keyring", "keyring.backends.null.Keyring"]
)
def test_without_a_keyring_the_key_is_not_saved_and_the_user_is_told_how_to_get_one(
    backend: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(PYTHON_KEYRING_BACKEND=backend, RESUME_AUDITOR_DATA_DIR=str(tmp_path / "data"))
    done = _cli(env, "keys", "set", "openai", stdin=KEY + "\n")
    assert done.returncode == 1
    assert "NOT saved" in done.stderr and "OPENAI_API_KEY" in done.stderr
    assert "gnome-keyring" in done.stderr
    status = _cli(env, "keys", "status", "openai")
    assert "no keyring on this computer" in status.stdout
    # nothing written anywhere as a fallback
    for path in (tmp_path / "data").rglob("*"):
        assert KEY not in path.read_text(errors="replace") if path.is_file() else True


def test_models_lists_each_providers_models(
    store: KeyStore, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with Simulator(api_key=KEY, models=("alpha", "beta")) as sim:
        for pid in ("anthropic", "gemini"):
            assert main(["models", pid, "--base-url", sim.url_for(pid)]) == 0
            assert capsys.readouterr().out.split() == ["alpha", "beta"]
        # OpenRouter's list is public: no key needed
        assert main(["models", "openrouter", "--base-url", sim.url_for("openrouter")]) == 0
        assert capsys.readouterr().out.split() == ["alpha", "beta"]
    assert main(["models", "local"]) == 0
    assert capsys.readouterr().out.strip() == "smollm2-135m-instruct"
    assert main(["models", "azure", "--base-url", "https://r.openai.azure.com"]) == 0
    assert "deployment" in capsys.readouterr().out


def test_models_problems_are_plain_messages(
    store: KeyStore, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "openai"]) == 2
    assert "No API key for OpenAI" in capsys.readouterr().err
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["models", "openai-compatible", "--base-url", f"http://127.0.0.1:{port}/v1"]) == 2
    err = capsys.readouterr().err
    assert "Is the server running" in err and "Traceback" not in err
    with Simulator(api_key="another-key") as sim:
        store.set("openai-compatible", KEY, sim.base_url)
        assert main(["models", "openai-compatible", "--base-url", sim.base_url]) == 2
    err = capsys.readouterr().err
    assert "rejected the API key" in err and KEY not in err
