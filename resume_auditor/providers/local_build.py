"""What the bundled model's llama.cpp build needs from this computer, and the fix when it fails.

llama-cpp-python is compiled on the user's computer when the app is installed. A
build made with the compiler's native flags uses every instruction the CPU
advertises, including ones the operating system must switch on first: on a modern
Xeon under a hypervisor that does not, the AMX tile instructions kill the model's
process with SIGILL on its first answer. The README's commands therefore build with
``-DGGML_NATIVE=OFF`` (x86-64-v3: AVX2, FMA, F16C, BMI2 — every x86-64 CPU since
2013–2015; baseline ARMv8 on ARM), and this module says, when a build still fails,
exactly which command rebuilds it for this computer.

pip keeps the wheel it built in its cache, keyed by the source file only: a wheel
built earlier with other flags is reused silently by a plain reinstall, so the fix
command always carries ``--no-cache-dir --force-reinstall``.
"""

from __future__ import annotations

import platform
import shlex
import signal
import sys
from pathlib import Path

LLAMA_CPP_VERSION = "0.3.36"

# The signals that mean the process crashed, and what each means in words.
_CRASH_SIGNALS = {
    signal.SIGILL: "an instruction this processor (or its operating system) does not allow",
    signal.SIGSEGV: "an invalid memory access",
    signal.SIGBUS: "an invalid memory access",
    signal.SIGFPE: "an arithmetic fault",
    signal.SIGABRT: "an internal error (it aborted)",
}

# x86-64-v3, the portable build's level, needs all of these.
_V3_FLAGS = ("avx", "avx2", "fma", "f16c", "bmi2")


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    """The CPU's feature flags as Linux reports them (empty elsewhere)."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return set(value.split())
    return set()


def portable_cmake_args(flags: set[str] | None = None, machine: str | None = None) -> str:
    """CMAKE_ARGS for a build that runs on this CPU without features the OS must enable.

    x86-64 CPUs with AVX2 get the upstream portable set (GGML_NATIVE=OFF leaves AVX2,
    FMA, F16C and BMI2 on, AVX-512 and AMX off); older ones get what they have. ARM
    and others get GGML_NATIVE=OFF alone (baseline instructions of the architecture).
    """
    machine = (machine or platform.machine()).lower()
    if machine not in ("x86_64", "amd64", "i686", "i386"):
        return "-DGGML_NATIVE=OFF"
    flags = cpu_flags() if flags is None else flags
    if not flags or all(f in flags for f in _V3_FLAGS):
        return "-DGGML_NATIVE=OFF"
    args = ["-DGGML_NATIVE=OFF"]
    for option, flag in (
        ("GGML_AVX", "avx"),
        ("GGML_AVX2", "avx2"),
        ("GGML_FMA", "fma"),
        ("GGML_F16C", "f16c"),
        ("GGML_BMI2", "bmi2"),
        ("GGML_SSE42", "sse4_2"),
    ):
        if flag not in flags:
            args.append(f"-D{option}=OFF")
    return " ".join(args)


def rebuild_command(flags: set[str] | None = None, machine: str | None = None) -> str:
    """The exact shell command that rebuilds the bundled model's engine for this computer."""
    pip = shlex.quote(sys.executable) + " -m pip"
    cmake = portable_cmake_args(flags, machine)
    return (
        f'CMAKE_ARGS="{cmake}" {pip} install --no-cache-dir --force-reinstall --no-deps '
        f"llama-cpp-python=={LLAMA_CPP_VERSION}"
    )


def describe_exit(returncode: int) -> str | None:
    """Words for how the model's process ended, or None when it was not a crash.

    A negative return code is the signal that ended it (POSIX). SIGKILL and SIGTERM
    are what the app itself sends to stop it; the caller knows when it did.
    """
    if returncode >= 0:
        return None
    try:
        sig = signal.Signals(-returncode)
    except ValueError:
        return f"signal {-returncode}"
    meaning = _CRASH_SIGNALS.get(sig)
    if meaning is None:
        return f"{sig.name}"
    return f"{sig.name}, {meaning}"


def crash_message(
    returncode: int, log_tail: str = "", features: dict[str, bool] | None = None
) -> str:
    """What the user reads when the bundled model's process died: what, why, the fix.

    `features` are the engine's compiled-in CPU features (read here when not given): a
    build with AMX is named as the likely cause whatever the signal (a native build on a
    Xeon VM died with SIGILL on one machine and SIGSEGV on another).
    """
    if features is None:
        features = build_features() or {}
    risky = risky_features(features)
    how = describe_exit(returncode)
    if how is None:
        text = (
            f"The bundled local model's process ended unexpectedly (exit code {returncode}) "
            "instead of answering."
        )
    else:
        text = f"The bundled local model's process crashed while answering ({how})."
    if returncode == -signal.SIGILL or (risky and returncode < 0):
        built = f"; it was built with {', '.join(risky)}" if risky else ""
        text += (
            " Its engine, llama-cpp-python, was compiled for processor features this computer "
            f"does not let programs use (an earlier build with native flags, often reused "
            f"from pip's cache{built}). Rebuild it for this computer, then start the run "
            "again:\n" + rebuild_command()
        )
    else:
        text += (
            " Retrying would crash it again, so the run has stopped. If it crashes again after "
            "a restart of the app, rebuild its engine for this computer:\n" + rebuild_command()
        )
    if log_tail.strip():
        text += "\nThe model's log ends:\n" + log_tail.strip()[-600:]
    return text


def build_features() -> dict[str, bool] | None:
    """The CPU features the installed llama.cpp was compiled with (None if not installed).

    Read from llama.cpp's own system-information line, e.g. ``AVX2 = 1 | AMX_INT8 = 1``;
    loading the library runs no model code, so this is safe where the model crashes.
    """
    try:
        import llama_cpp
    except Exception:  # noqa: BLE001 - a broken build is reported, not raised
        return None
    try:
        raw = llama_cpp.llama_print_system_info()
    except Exception:  # noqa: BLE001
        return None
    text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
    features: dict[str, bool] = {}
    for part in text.replace("|", "\n").splitlines():
        key, sep, value = part.partition("=")
        if sep and value.strip() in ("0", "1"):
            features[key.strip().split(":")[-1].strip()] = value.strip() == "1"
    return features


def risky_features(features: dict[str, bool]) -> list[str]:
    """Compiled-in features that an operating system may leave switched off (AMX)."""
    return sorted(k for k, on in features.items() if on and k.startswith("AMX"))
