"""A self-check of this computer: the window, the keyring, the PDF engine, the bundled model.

A new user whose first run hangs cannot tell which part is missing; neither can CI on
a machine it has never seen. Each check here does the real thing in a few seconds
(opens and closes a window in a child process, round-trips a throwaway keyring
entry, lays out a one-line PDF, asks the bundled model one short question) and says
in words what works, what does not, and the command or step that fixes it. Used by
``resume-auditor doctor``, Help → Check this computer, and ``.ci/run``.

Nothing here imports Qt: the window is tried in a child process
(``resume-auditor window-check``), so a Qt abort cannot take the check down with it.
"""

from __future__ import annotations

import logging
import os
import secrets
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum

logger = logging.getLogger(__name__)


class Status(StrEnum):
    OK = "ok"
    WARN = "warning"  # works, with a limit the user should know about
    FAIL = "failed"  # this part does not work here


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""
    seconds: float = 0.0

    @property
    def mark(self) -> str:
        return {"ok": "✓", "warning": "⚠", "failed": "✗"}[self.status.value]

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "status": self.status.value,
            "detail": self.detail,
            "fix": self.fix,
            "seconds": round(self.seconds, 2),
        }


def self_command(*args: str) -> list[str]:
    """This program's own command line with `args` (a frozen app is its own executable)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, *args]
    return [sys.executable, "-m", "resume_auditor", *args]


def check_window(timeout_s: float = 60.0) -> Check:
    """Open a real window in a child process and close it."""
    env = dict(os.environ)
    headless = not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
    asked = env.get("QT_QPA_PLATFORM", "")
    if headless and not asked:
        return Check(
            "Window",
            Status.WARN,
            "There is no screen here (neither DISPLAY nor WAYLAND_DISPLAY is set), so the "
            "app's window cannot open. The command line (audit, run, report) works.",
            "Start the app from a desktop session, or connect with 'ssh -X'.",
        )
    try:
        done = subprocess.run(
            self_command("window-check"),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return Check(
            "Window",
            Status.FAIL,
            f"A test window did not open and close within {timeout_s:.0f} s.",
            "Check that the display is responsive, then run 'resume-auditor doctor' again.",
        )
    if done.returncode == 0:
        where = f" ({asked})" if asked else ""
        return Check("Window", Status.OK, f"A window opened and closed{where}.")
    text = (done.stdout + done.stderr).strip()
    return Check(
        "Window",
        Status.FAIL,
        "The app's window cannot open here" + (f": {text[-600:]}" if text else "."),
        "Install what the message names (README: 'On a bare Debian/Ubuntu machine').",
    )


def check_keyring() -> Check:
    """Store, read back and delete a throwaway entry in the OS keyring."""
    from resume_auditor.providers.keys import (
        KeyringState,
        default_store,
        keyring_advice,
        keyring_problem,
    )

    store = default_store()
    if not store.keyring_available():
        return Check(
            "Keyring",
            Status.WARN,
            "There is no OS keyring this app can use: API keys are kept in memory for the "
            "session only (never written to a file). The bundled model needs no key.",
            keyring_advice(),
        )
    backend = store.backend
    service, user = "resume-auditor-selftest", "doctor"
    token = secrets.token_hex(8)
    try:
        backend.set_password(service, user, token)
        back = backend.get_password(service, user)
        backend.delete_password(service, user)
    except Exception as exc:  # noqa: BLE001 - every keyring failure is a state to report
        state, message = keyring_problem(exc)
        status = Status.WARN if state is not KeyringState.READY else Status.FAIL
        return Check("Keyring", status, message)
    if back != token:
        return Check(
            "Keyring",
            Status.FAIL,
            f"The keyring ({store.keyring_name()}) did not give back what was stored.",
            "Restart the keyring service (gnome-keyring-daemon or KeePassXC) and try again.",
        )
    return Check("Keyring", Status.OK, f"Keys are stored in {store.keyring_name()}.")


PANGO_FIX = (
    "Install Pango for the PDF report, e.g. on Debian/Ubuntu: "
    "sudo apt-get install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0"
)


def check_pdf() -> Check:
    """Lay out a one-line PDF report with WeasyPrint and read it back with pypdf."""
    try:
        import io

        from pypdf import PdfReader
        from weasyprint import HTML

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data = HTML(string="<p>Resume Auditor self-check</p>").write_pdf()
        assert data is not None
        text = PdfReader(io.BytesIO(data)).pages[0].extract_text()
    except OSError as exc:  # WeasyPrint could not load Pango
        return Check(
            "PDF engine",
            Status.WARN,
            f"PDF reports cannot be written here ({str(exc)[:200]}). HTML reports, "
            "exports and reading PDF resumes work.",
            PANGO_FIX,
        )
    except Exception as exc:  # noqa: BLE001
        return Check("PDF engine", Status.FAIL, f"The PDF engine failed: {exc!r}"[:400], PANGO_FIX)
    if "self-check" not in text:
        return Check("PDF engine", Status.FAIL, "A PDF was written but could not be read back.")
    notes = sorted({str(w.message) for w in caught})
    if notes:
        return Check(
            "PDF engine",
            Status.WARN,
            "PDF reports are written and PDF files are read, with a note from the PDF "
            "engine: " + " ".join(notes)[:300],
            PANGO_FIX,
        )
    return Check("PDF engine", Status.OK, "PDF reports are written and PDF files are read.")


def check_bundled_model(timeout_s: float = 180.0) -> Check:
    """Start the bundled model, ask it one short question, stop it."""
    from resume_auditor.providers.base import ProviderError
    from resume_auditor.providers.local import (
        INSTALL_HINT,
        MODEL_ID,
        LocalModelServer,
        local_model_available,
    )
    from resume_auditor.providers.local_build import build_features, rebuild_command, risky_features

    if not local_model_available():
        return Check(
            "Bundled model",
            Status.WARN,
            "The bundled local model is not installed; models from providers work.",
            INSTALL_HINT,
        )
    features = build_features() or {}
    risky = risky_features(features)
    server = LocalModelServer(startup_timeout_s=timeout_s)
    started = time.monotonic()
    try:
        server.ensure_started()  # includes a first answer: a bad build dies here
        import httpx

        reply = httpx.post(
            f"{server.base_url}/chat/completions",
            json={
                "model": MODEL_ID,
                "messages": [{"role": "user", "content": "Is 3 larger than 2? Yes or No?"}],
                "max_tokens": 3,
                "temperature": 0,
            },
            timeout=timeout_s,
        )
        reply.raise_for_status()
        if not reply.json()["choices"][0]["message"]["content"].strip():
            raise ValueError("the answer was empty")
    except ProviderError as exc:  # a crash's message carries the command to paste
        fix = "" if rebuild_command() in exc.message else rebuild_command()
        return Check("Bundled model", Status.FAIL, exc.message, fix, time.monotonic() - started)
    except Exception as exc:  # noqa: BLE001
        crashed = server.crash_error(wait_s=2.0)
        message = crashed.message if crashed is not None else f"It did not answer: {exc!r}"
        return Check(
            "Bundled model", Status.FAIL, message, rebuild_command(), time.monotonic() - started
        )
    finally:
        server.stop()
    seconds = time.monotonic() - started
    detail = f"SmolLM2-135M started and answered a short question in {seconds:.1f} s."
    if risky:
        return Check(
            "Bundled model",
            Status.WARN,
            detail + f" Its engine was built with {', '.join(risky)}, which some computers "
            "(virtual machines especially) do not let programs use; a copy of this audit on "
            "another computer may crash.",
            rebuild_command(),
            seconds,
        )
    return Check("Bundled model", Status.OK, detail, seconds=seconds)


CHECKS: dict[str, Callable[[], Check]] = {
    "window": check_window,
    "keyring": check_keyring,
    "pdf": check_pdf,
    "model": check_bundled_model,
}


def run_checks(skip: frozenset[str] = frozenset()) -> Iterator[Check]:
    """Each check in turn (a generator, so a caller can show them as they finish)."""
    for key, check in CHECKS.items():
        if key in skip:
            continue
        started = time.monotonic()
        try:
            result = check()
        except Exception as exc:  # noqa: BLE001 - a check that breaks is a failed check
            logger.exception("self-check %s failed", key)
            result = Check(key.title(), Status.FAIL, f"The check itself failed: {exc!r}")
        if not result.seconds:
            result = Check(
                result.name, result.status, result.detail, result.fix, time.monotonic() - started
            )
        yield result


def format_check(check: Check) -> str:
    line = f"{check.mark} {check.name}: {check.detail}"
    if check.fix and check.status is not Status.OK:
        line += f"\n    Fix: {check.fix}"
    return line
