"""A bundled model whose process dies is diagnosed at once, never retried for minutes.

The stand-in server is a real child process on loopback that answers the start-up
check like llama.cpp's server and then dies on a real signal when asked for an
answer, as a llama.cpp build compiled for instructions the computer refuses does
(SIGILL). Everything above it — the provider, the runner, the CLI — is the real code.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from resume_auditor.cli import main
from resume_auditor.providers import local
from resume_auditor.providers.base import ChatRequest, ErrorKind, ProviderError
from resume_auditor.providers.capabilities import CapabilityCache
from resume_auditor.providers.local import MODEL_ID, LocalModelServer, LocalProvider
from resume_auditor.providers.local_build import (
    crash_message,
    describe_exit,
    portable_cmake_args,
    rebuild_command,
)

# Dies on the n-th chat request (counted in a file, so a restarted server keeps count).
FAKE_SERVER = textwrap.dedent(
    """
    import json, os, signal, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer

    port, die_on, sig = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    count_file = sys.argv[4]

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def _send(self, body):
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self._send({"object": "list", "data": [{"id": "smollm2-135m-instruct"}]})

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            n = int(open(count_file).read() or 0) + 1 if os.path.exists(count_file) else 1
            open(count_file, "w").write(str(n))
            if n >= die_on:
                print("ggml_backend_amx_mul_mat: about to die", flush=True)
                os.kill(os.getpid(), sig)
            self._send({
                "id": "x", "object": "chat.completion", "model": "smollm2-135m-instruct",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "OK"}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
            })

    HTTPServer(("127.0.0.1", port), H).serve_forever()
    """
)


def fake_server(tmp_path: Path, die_on: int, sig: int = signal.SIGILL) -> LocalModelServer:
    script = tmp_path / "fake_llama_server.py"
    script.write_text(FAKE_SERVER)
    count = tmp_path / "count"

    def command(port: int) -> list[str]:
        return [sys.executable, str(script), str(port), str(die_on), str(int(sig)), str(count)]

    return LocalModelServer(command=command, startup_timeout_s=30)


def test_a_build_that_dies_on_its_first_answer_is_diagnosed_before_the_run(
    tmp_path: Path,
) -> None:
    server = fake_server(tmp_path, die_on=1)
    with pytest.raises(ProviderError) as caught:
        server.ensure_started()
    err = caught.value
    assert err.kind is ErrorKind.CRASHED and err.fatal
    assert "SIGILL" in err.message and "does not allow" in err.message
    assert rebuild_command() in err.message
    assert "--no-cache-dir --force-reinstall" in err.message
    assert "ggml_backend_amx_mul_mat" in err.message  # the log's tail comes with it
    server.stop()


def test_a_crash_during_the_run_is_fatal_not_a_connection_to_retry(tmp_path: Path) -> None:
    server = fake_server(tmp_path, die_on=3, sig=signal.SIGSEGV)
    server.ensure_started()  # the first test answer works
    provider = LocalProvider(server, capabilities=CapabilityCache(), timeout_s=30)
    request = ChatRequest(MODEL_ID, "", "Say OK.", max_tokens=2)

    async def go() -> list[object]:
        out: list[object] = []
        try:
            for _ in range(2):
                try:
                    out.append(await provider.chat(request))
                except ProviderError as exc:
                    out.append(exc)
        finally:
            await provider.aclose()
        return out

    first, second = asyncio.run(go())
    assert not isinstance(first, ProviderError)
    assert isinstance(second, ProviderError)
    assert second.kind is ErrorKind.CRASHED and second.fatal
    assert "SIGSEGV" in second.message
    server.stop()


def test_a_stop_the_app_makes_is_not_a_crash(tmp_path: Path) -> None:
    server = fake_server(tmp_path, die_on=100)
    server.ensure_started()
    server.interrupt()  # what a cancel or a time-out does
    assert server.crash_error(wait_s=1.0) is None
    server.stop()


def test_the_cli_stops_at_once_with_the_fix_and_a_non_zero_exit(
    tmp_path: Path,
    small_study: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = fake_server(tmp_path, die_on=1)
    monkeypatch.setattr(local, "local_model_available", lambda: True)
    monkeypatch.setattr(LocalModelServer, "_shared", server)
    out = tmp_path / "r.audit"
    code = main(["audit", str(small_study), "--out", str(out), "--provider", "local"])
    err = capsys.readouterr().err
    server.stop()
    assert code != 0
    assert "SIGILL" in err and "CMAKE_ARGS=" in err, err
    assert "resume the run" not in err
    # started once, died once: no silent restarts
    assert (tmp_path / "count").read_text() == "1"


def test_words_for_each_way_a_process_ends() -> None:
    assert describe_exit(0) is None and describe_exit(1) is None
    assert "SIGILL" in (describe_exit(-signal.SIGILL) or "")
    assert "memory" in (describe_exit(-signal.SIGSEGV) or "")
    assert "exit code 3" in crash_message(3)


@pytest.mark.parametrize(
    ("flags", "machine", "expected"),
    [
        ({"avx", "avx2", "fma", "f16c", "bmi2", "amx_tile"}, "x86_64", "-DGGML_NATIVE=OFF"),
        (
            {"sse4_2", "avx"},
            "x86_64",
            "-DGGML_NATIVE=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_BMI2=OFF",
        ),
        ({"fp", "asimd"}, "aarch64", "-DGGML_NATIVE=OFF"),
    ],
)
def test_the_rebuild_flags_fit_the_processor(flags: set[str], machine: str, expected: str) -> None:
    assert portable_cmake_args(flags, machine) == expected


def test_the_run_page_stops_at_once_and_shows_the_fix(
    qtbot: Any, window: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from resume_auditor.resources import quick_sample_study
    from resume_auditor.runner import RunState

    server = fake_server(tmp_path, die_on=1)
    monkeypatch.setattr(local, "local_model_available", lambda: True)
    monkeypatch.setattr(LocalModelServer, "_shared", server)
    with qtbot.waitSignal(window.session.loaded, timeout=60000):
        window.open_path(quick_sample_study())
    window.show_page(3)
    page = window.run_page
    page.provider.setCurrentIndex(page.provider.findData("local"))
    qtbot.waitUntil(lambda: page.start_button.isEnabled(), timeout=20000)
    with qtbot.waitSignal(window.controller.finished, timeout=60000) as blocker:
        page.start_button.click()
    server.stop()
    assert blocker.args[0].state is RunState.STOPPED
    text = page.state_text.text()
    assert "SIGILL" in text and "CMAKE_ARGS=" in text, text
    assert "trying again" not in text
    assert (tmp_path / "count").read_text() == "1"  # no silent restarts
    # the whole reason, with the command to paste, in a window of its own
    assert page.stop_box is not None and page.stop_box.isVisible()
    assert "--no-cache-dir --force-reinstall" in page.stop_box.text()
    page.stop_box.close()


def test_an_engine_built_with_amx_is_named_whatever_the_signal() -> None:
    # a native build died with SIGSEGV on this project's CI machine, SIGILL on another
    amx = crash_message(-signal.SIGSEGV, features={"AVX2": True, "AMX_INT8": True})
    assert "built with AMX_INT8" in amx and rebuild_command() in amx
    plain = crash_message(-signal.SIGSEGV, features={"AVX2": True})
    assert "compiled for processor features" not in plain and rebuild_command() in plain
